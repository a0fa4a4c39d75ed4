"""Map a function over many items in forked workers that inherit this process's memory, in the background.

Why: the per-file part of a check (R5: each file's configurations, their CIs and stability) over a
round of thousands of files is independent from file to file, and the files are already in memory
as frames.  Forked workers read them where they are (nothing is pickled on the way in; only the
results, plain evidence, come back), while this process goes on with other work, so both cores of
a laptop are busy.  Where ``fork`` is not available, with one CPU, or with few items, the items are
mapped here when the results are asked for.  An item that fails in a worker is mapped again here,
so its error is raised exactly as without workers; a worker that dies makes every item run here.

Objects alive at the fork are frozen (``gc.freeze``) until the results are in: a collection in a
worker would otherwise write to every object's header and copy the page it lives on.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .stats.heap import collect_new_objects_only

#: (function, items) of the map in progress: what forked workers inherit.
_TASK: tuple[Callable, Sequence] | None = None
#: Fewer items than this are mapped here (starting workers costs more than it saves).
MIN_ITEMS = 16
#: Chunks per worker: small enough to balance uneven files, few enough that each result batch is large.
CHUNKS_PER_WORKER = 4


def usable_cpus() -> int:
    """CPUs this process may run on (affinity, e.g. under taskset or a batch scheduler), else cpu_count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _run_chunk(start: int, stop: int) -> list:
    """In a worker: (True, result) or (False, None) for each item of the inherited task in [start, stop)."""
    function, items = _TASK
    out = []
    for item in items[start:stop]:
        try:
            out.append((True, function(item)))
        except Exception:  # noqa: BLE001 - mapped again in the parent, which raises it as it is
            out.append((False, None))
    return out


class BackgroundMap:
    """``[function(item) for item in items]``, started now, collected by :meth:`results`."""

    def __init__(self, function: Callable, items: Sequence, workers: int | None = None):
        global _TASK
        self.function, self.items = function, list(items)
        self.pool, self.futures, self.frozen, self.owns_task = None, [], None, False
        workers = min(workers or usable_cpus(), len(self.items))
        if workers < 2 or len(self.items) < MIN_ITEMS or _TASK is not None \
                or "fork" not in multiprocessing.get_all_start_methods():
            return
        _TASK, self.owns_task = (function, self.items), True
        self.frozen = collect_new_objects_only()  # thawed in _close, unless the caller had frozen them
        self.frozen.__enter__()
        try:
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
            step = max(1, -(-len(self.items) // (workers * CHUNKS_PER_WORKER)))
            self.futures = [(start, self.pool.submit(_run_chunk, start, min(start + step, len(self.items))))
                            for start in range(0, len(self.items), step)]
        except OSError:  # no processes to be had: map here
            self._close()

    def results(self) -> list:
        """Every item's result in input order (blocks until the workers are done)."""
        outcomes: list = [(False, None)] * len(self.items)
        try:
            for start, future in self.futures:
                chunk = future.result()
                outcomes[start:start + len(chunk)] = chunk
        except (BrokenProcessPool, OSError):
            outcomes = [(False, None)] * len(self.items)
        finally:
            self._close()
        return [value if ok else self.function(item) for (ok, value), item in zip(outcomes, self.items)]

    def _close(self) -> None:
        global _TASK
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        if self.frozen is not None:
            self.frozen.__exit__(None, None, None)
            self.frozen = None
        if self.owns_task:
            _TASK, self.owns_task = None, False
        self.futures = []
