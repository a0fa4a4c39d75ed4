"""The Python system under test: LoadGen issues query samples, a runner predicts, we complete them.

Built on LoadGen's "fast" SUT interface (``ConstructFastSUT``): the issue callback receives the
sample ids and QSL indices as two integer lists instead of one Python ``QuerySample`` object per
sample, which halves the harness cost per sample (measured by ``bench/infer.py``).

Two issue paths, chosen per scenario (see :mod:`.scenarios`):

* inline (SingleStream, MultiStream): the query's samples run as one batch inside LoadGen's issue
  callback.  LoadGen waits for each query before the next, so a thread hop would only add latency.
* queued (Server, Offline): samples go to a queue that one worker thread drains in batches of at
  most ``max_batch`` (dynamic batching across queries), so the issue thread never waits for the model.

Each response carries the predicted class id (4 bytes, int32) so accuracy mode can check it.  If
the model raises, the samples are still completed (LoadGen would otherwise wait forever) and the
error is re-raised by :meth:`PythonSUT.check` after the run.
"""

from __future__ import annotations

import threading
from collections import deque
from itertools import repeat

import mlperf_loadgen as lg
import numpy as np

from ..errors import MeasurementError

_Response = lg.QuerySampleResponse


class PythonSUT:
    """LoadGen SUT handle around ``runner(indices) -> int32 predictions``."""

    def __init__(self, runner, *, queued: bool, max_batch: int = 1):
        self.runner = runner
        self.queued = bool(queued)
        self.max_batch = max(1, int(max_batch))
        self.batches = 0
        self.samples = 0
        self.error: BaseException | None = None
        self._queue: deque = deque()  # chunks [ids, indices, next position]
        self._cond = threading.Condition()
        self._stop = False
        self._worker = None
        if self.queued:
            self._worker = threading.Thread(target=self._drain, name="sut-worker", daemon=True)
            self._worker.start()
        self.handle = lg.ConstructFastSUT(self._issue, self._flush)

    def _issue(self, ids, indices) -> None:
        if not self.queued:
            self._complete(ids, indices)
            return
        with self._cond:
            self._queue.append([ids, indices, 0])
            self._cond.notify()

    def _flush(self) -> None:
        pass

    def _drain(self) -> None:
        queue, cond, limit = self._queue, self._cond, self.max_batch
        while True:
            with cond:
                while not queue and not self._stop:
                    cond.wait()
                if not queue:
                    return
                ids, indices = [], []
                while queue and len(ids) < limit:
                    chunk = queue[0]
                    start = chunk[2]
                    end = min(len(chunk[0]), start + limit - len(ids))
                    ids.extend(chunk[0][start:end])
                    indices.extend(chunk[1][start:end])
                    if end == len(chunk[0]):
                        queue.popleft()
                    else:
                        chunk[2] = end
            self._complete(ids, indices)

    def _complete(self, ids, indices) -> None:
        n = len(ids)
        try:
            predictions = np.ascontiguousarray(self.runner(indices), dtype=np.int32)
            if predictions.shape[0] != n:
                raise MeasurementError(f"the model returned {predictions.shape[0]} predictions for {n} samples")
            base, step = predictions.ctypes.data, predictions.itemsize
            responses = list(map(_Response, ids, range(base, base + n * step, step), repeat(step, n)))
        except BaseException as exc:  # noqa: BLE001 - LoadGen must still see every sample complete
            self.error = self.error or exc
            predictions = None
            responses = list(map(_Response, ids, repeat(0, n), repeat(0, n)))
        lg.QuerySamplesComplete(responses)
        self.batches += 1
        self.samples += n
        del predictions  # the buffer had to outlive QuerySamplesComplete, which copies what it logs

    def check(self) -> None:
        """Raise the model's error, if any, once the run is over."""
        if self.error is not None:
            raise MeasurementError("the model failed while serving queries", cause=self.error)

    def close(self) -> None:
        if self._worker is not None:
            with self._cond:
                self._stop = True
                self._cond.notify()
            self._worker.join(timeout=30)
            self._worker = None
        if self.handle is not None:
            lg.DestroySUT(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
