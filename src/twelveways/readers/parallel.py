"""Read many results files once each, in worker processes where cores allow, with a progress bar.

Why: auditing or comparing a published round means thousands of files, each read in a fraction of
a second of single-core Python; on a machine with several cores the files are independent, so
they are read side by side (``concurrent.futures`` processes, as many as the CPUs this process
may run on, ``os.sched_getaffinity``).  Results come back in input order, so a report does not
depend on which worker finished first.  A damaged file still stops the run with its one line:
the worker sends the message back (exception classes with their own constructor do not survive
pickling) and the parent raises it as an :class:`~twelveways.errors.AuditInputError`.

The progress bar (rich) goes to stderr, only on a terminal and only for long work; reports and
files are never touched by it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..errors import AuditInputError, TwelveWaysError
from ..forkmap import usable_cpus

#: Fewer files than this are read in this process (starting workers costs more than it saves).
MIN_PARALLEL = 16
#: Most files one worker task reads (fewer when there are few files, so every worker gets some).
CHUNK = 8
#: Fewer files than this get no progress bar (it would flash by).
MIN_PROGRESS = 50


def _guarded(reader: Callable, args: tuple):
    """Run one read in a worker: (True, result) or (False, one-line problem)."""
    try:
        return True, reader(*args)
    except TwelveWaysError as exc:
        return False, exc.one_line()


def _guarded_chunk(reader: Callable, jobs: Sequence[tuple]) -> list:
    """Several reads in one task (each guarded alone): a task costs more to hand over than a small file to read."""
    return [_guarded(reader, job) for job in jobs]


def read_each(reader: Callable, jobs: Sequence[tuple], what: str = "reading results",
              workers: int | None = None) -> list:
    """``[reader(*job) for job in jobs]``, in worker processes when there are enough jobs and CPUs.

    ``reader`` must be a module-level function (workers import it by name).  The first job that
    fails, in input order, raises its problem as one line.
    """
    jobs = list(jobs)
    workers = min(workers or usable_cpus(), len(jobs))
    with _progress(len(jobs), what) as advance:
        if workers < 2 or len(jobs) < MIN_PARALLEL:
            outcomes = []
            for job in jobs:
                outcomes.append(_guarded(reader, job))
                advance()
                if not outcomes[-1][0]:
                    break
        else:
            step = max(1, min(CHUNK, len(jobs) // (4 * workers)))  # few files per task: less to hand over
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(_guarded_chunk, reader, jobs[start:start + step])
                           for start in range(0, len(jobs), step)]
                outcomes = []
                for start, future in zip(range(0, len(jobs), step), futures):
                    for outcome in _result(future, jobs[start:start + step]):
                        outcomes.append(outcome)
                        advance()
    for ok, value in outcomes:
        if not ok:
            raise AuditInputError(value)
    return [value for _, value in outcomes]


def _result(future, jobs: Sequence[tuple]) -> list:
    """A task's outcomes; a worker that died (killed, out of memory, a crash in C code) is one line naming
    the files it was reading, never BrokenProcessPool's traceback."""
    try:
        return future.result()
    except BrokenProcessPool:
        first = jobs[0][0] if jobs and jobs[0] else "?"
        more = f" (or one of the {len(jobs) - 1} read after it)" if len(jobs) > 1 else ""
        return [(False, f"{first}{more}: the process reading it ended abruptly (killed, out of memory, "
                        "or a crash in a compiled library)")]


class _progress:
    """A rich progress bar on stderr for long work on a terminal; otherwise a no-op ``advance``."""

    def __init__(self, total: int, what: str):
        self.bar = None
        if total >= MIN_PROGRESS and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), console=Console(file=sys.stderr), transient=True)
            self.task = self.bar.add_task(what, total=total)

    def __enter__(self):
        if self.bar is None:
            return lambda: None
        self.bar.start()
        return lambda: self.bar.advance(self.task)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
