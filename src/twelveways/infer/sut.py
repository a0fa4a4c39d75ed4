"""The Python system under test: LoadGen issues query samples, a runner predicts, we complete them.

Built on LoadGen's "fast" SUT interface (``ConstructFastSUT``): the issue callback receives the
sample ids and QSL indices as two integer lists instead of one Python ``QuerySample`` object per
sample, which halves the harness cost per sample (measured by ``bench/infer.py``).

Two issue paths, chosen per scenario (see :mod:`.scenarios`):

* inline (SingleStream, MultiStream): the query's samples run as one batch inside LoadGen's issue
  callback.  LoadGen waits for each query before the next, so a thread hop would only add latency.
* queued (Server, Offline): samples go to a queue that one worker thread drains in batches of at
  most ``max_batch`` (dynamic batching across queries), so the issue thread never waits for the model.

Each response carries the predicted class id (4 bytes, int32) so accuracy mode can check it.

A ``deadline_s`` (the Server probe time cap, :mod:`.runs`) bounds a run's wall time: samples still
unanswered that long after the SUT was built are completed without running the model (counted in
``skipped``).  LoadGen has stopped issuing before then (its ``max_duration``), so each such sample
has already waited past the latency bound and LoadGen counts it over the bound either way: its
verdict stays right, only the latencies above the bound are lower bounds.  If
the model raises, the samples are still completed (LoadGen would otherwise wait forever) and the
error is re-raised by :meth:`PythonSUT.check` after the run.
"""

from __future__ import annotations

import threading
import time
from queue import SimpleQueue
from itertools import repeat

import mlperf_loadgen as lg
import numpy as np

from ..errors import MeasurementError

_Response = lg.QuerySampleResponse
_set_id = lg.QuerySampleResponse.id.__set__


class PythonSUT:
    """LoadGen SUT handle around ``runner(indices) -> int32 predictions``."""

    def __init__(self, runner, *, queued: bool, max_batch: int = 1, deadline_s: float | None = None):
        self.runner = runner
        self.queued = bool(queued)
        self.max_batch = max(1, int(max_batch))
        self.batches = 0
        self.samples = 0
        self.skipped = 0  # samples answered without the model after the deadline
        self._deadline = time.perf_counter() + float(deadline_s) if deadline_s else None
        self.error: BaseException | None = None
        self._queue: SimpleQueue = SimpleQueue()  # (ids, indices) per issued query; None stops
        self._worker = None
        self._buffer = np.zeros(0, dtype=np.int32)
        self._pool: list = []
        self._put = self._queue.put
        if self.queued:
            self._worker = threading.Thread(target=self._drain, name="sut-worker", daemon=True)
            self._worker.start()
        self.handle = lg.ConstructFastSUT(self._issue, self._flush)

    def _issue(self, ids, indices) -> None:
        if not self.queued:
            self._complete(ids, indices)
        else:
            self._put((ids, indices))

    def _flush(self) -> None:
        pass

    def _drain(self) -> None:
        """Worker: wait for a query, then batch whatever else is already queued (up to max_batch).

        A C-implemented ``SimpleQueue`` instead of a Python ``Condition``: LoadGen's issue thread
        pays one cheap ``put`` per query, and the worker blocks in C with the GIL released.
        """
        get, limit = self._queue.get, self.max_batch
        pending: list = []  # [ids, indices, next position] taken from the queue, in order
        stopping = False
        while True:
            if not pending:
                if stopping:
                    return
                item = get()
                if item is None:
                    return
                pending.append([item[0], item[1], 0])
            count = sum(len(chunk[0]) - chunk[2] for chunk in pending)
            while count < limit and not stopping and not self._queue.empty():
                item = get()
                if item is None:
                    stopping = True
                    break
                pending.append([item[0], item[1], 0])
                count += len(item[0])
            ids, indices = [], []
            while pending and len(ids) < limit:
                chunk = pending[0]
                start = chunk[2]
                end = min(len(chunk[0]), start + limit - len(ids))
                ids.extend(chunk[0][start:end])
                indices.extend(chunk[1][start:end])
                if end == len(chunk[0]):
                    pending.pop(0)
                else:
                    chunk[2] = end
            self._complete(ids, indices)

    def _slots(self, n: int) -> list:
        """``n`` reusable responses pointing at consecutive int32 slots of one persistent buffer.

        Why: building a ``QuerySampleResponse`` costs about 0.8 us per sample (pybind11 overload
        resolution), more than the whole forward pass of a small model; setting only the id of
        a response built once costs about 0.3 us.  ``QuerySamplesComplete`` copies the responses
        (and, in accuracy mode, the bytes they point to) before it returns, so both can be reused
        by the next batch of this SUT's single completing thread.
        """
        if n > len(self._pool):
            size = max(n, 2 * len(self._pool), 64)
            self._buffer = np.zeros(size, dtype=np.int32)
            base, step = self._buffer.ctypes.data, self._buffer.itemsize
            self._pool = [_Response(0, base + k * step, step) for k in range(size)]
        return self._pool[:n]

    def _complete(self, ids, indices) -> None:
        n = len(ids)
        try:
            if self._deadline is not None and time.perf_counter() > self._deadline:
                self.skipped += n
                predictions = np.zeros(n, dtype=np.int32)
            else:
                predictions = self.runner(indices)
            if len(predictions) != n:
                raise MeasurementError(f"the model returned {len(predictions)} predictions for {n} samples")
            responses = self._slots(n)
            self._buffer[:n] = predictions
            list(map(_set_id, responses, ids))
        except BaseException as exc:  # noqa: BLE001 - LoadGen must still see every sample complete
            self.error = self.error or exc
            responses = list(map(_Response, ids, repeat(0, n), repeat(0, n)))
        lg.QuerySamplesComplete(responses)
        self.batches += 1
        self.samples += n

    def check(self) -> None:
        """Raise the model's error, if any, once the run is over."""
        if self.error is not None:
            raise MeasurementError("the model failed while serving queries", cause=self.error)

    def close(self) -> None:
        if self._worker is not None:
            self._put(None)
            self._worker.join(timeout=30)
            self._worker = None
        if self.handle is not None:
            lg.DestroyFastSUT(self.handle)  # the handle came from ConstructFastSUT
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
