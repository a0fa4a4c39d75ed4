"""The Python system under test: LoadGen issues query samples, a runner predicts, we complete them.

Two issue paths, chosen per scenario (see :mod:`.scenarios`):

* inline (SingleStream, MultiStream): the query's samples run as one batch inside LoadGen's issue
  callback.  LoadGen waits for each query before the next, so a thread hop would only add latency.
* queued (Server, Offline): samples go to a queue that one worker thread drains in batches of at
  most ``max_batch`` (dynamic batching), so the issue thread is never blocked by the model.

Each response carries the predicted class id (4 bytes, int32) so accuracy mode can check it.  If
the model raises, the samples are still completed (LoadGen would otherwise wait forever) and the
error is re-raised by :meth:`PythonSUT.check` after the run.
"""

from __future__ import annotations

import threading
from collections import deque

import mlperf_loadgen as lg
import numpy as np

from ..errors import MeasurementError


class PythonSUT:
    """LoadGen SUT handle around ``runner(indices) -> int32 predictions``."""

    def __init__(self, runner, *, queued: bool, max_batch: int = 1):
        self.runner = runner
        self.queued = bool(queued)
        self.max_batch = max(1, int(max_batch))
        self.batches = 0
        self.samples = 0
        self.error: BaseException | None = None
        self._queue: deque = deque()
        self._cond = threading.Condition()
        self._stop = False
        self._worker = None
        if self.queued:
            self._worker = threading.Thread(target=self._drain, name="sut-worker", daemon=True)
            self._worker.start()
        self.handle = lg.ConstructSUT(self._issue, self._flush)

    def _issue(self, query_samples) -> None:
        if not self.queued:
            self._complete(list(query_samples))
            return
        with self._cond:
            self._queue.extend(query_samples)
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
                take = min(len(queue), limit)
                batch = [queue.popleft() for _ in range(take)]
            self._complete(batch)

    def _complete(self, samples) -> None:
        try:
            predictions = np.ascontiguousarray(self.runner([s.index for s in samples]), dtype=np.int32)
            base, step = predictions.ctypes.data, predictions.itemsize
            responses = [lg.QuerySampleResponse(s.id, base + i * step, step) for i, s in enumerate(samples)]
        except BaseException as exc:  # noqa: BLE001 - LoadGen must still see every sample complete
            self.error = self.error or exc
            predictions = None
            responses = [lg.QuerySampleResponse(s.id, 0, 0) for s in samples]
        lg.QuerySamplesComplete(responses)
        self.batches += 1
        self.samples += len(samples)
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
