"""The query sample library: LoadGen asks for sample sets by index; ours are already in memory.

MLPerf allows loading samples before the timed run, so :mod:`.data` reads the whole test split
up front and ``load``/``unload`` only record what LoadGen asked for (kept for the logs).
``performance_count`` is how many samples LoadGen may draw from in performance mode; accuracy
mode always covers the whole split.
"""

from __future__ import annotations

import mlperf_loadgen as lg


class SampleLibrary:
    """LoadGen QSL handle over ``total`` in-memory samples."""

    def __init__(self, total: int, performance_count: int):
        if total < 1:
            raise ValueError("the QSL needs at least one sample")
        self.total = int(total)
        self.performance_count = max(1, min(int(performance_count), self.total))
        self.loads = 0
        self.handle = lg.ConstructQSL(self.total, self.performance_count, self._load, self._unload)

    def _load(self, indices) -> None:
        self.loads += 1  # samples are resident already (untimed preload, as MLPerf allows)

    def _unload(self, indices) -> None:
        pass

    def close(self) -> None:
        if self.handle is not None:
            lg.DestroyQSL(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
