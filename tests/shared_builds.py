"""What many tests read and takes a minute or more to make, made once per test run for every xdist worker.

`make test` spreads the tests over worker processes (pytest-xdist), and a session fixture runs once per
process: a tiny workflow run or a report built through its notebooks would be made once in each.
``built_once`` makes it once in a folder all workers of the run share; whoever asks first builds under
an exclusive lock, the others wait for it and read what it left (tests/conftest.py gives the tests that
use one build one xdist group, so in `make test` nobody waits).  A build that failed is not tried again
by every worker: the next caller gets the same failure.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".built"
FAILED = ".failed"


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of this test run that every xdist worker shares (a worker's basetemp lies inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(folder: Path, build: Callable[[Path], None]) -> Path:
    """``build(folder)`` once per test run; ``folder`` afterwards, as the first build left it."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when a killed builder's process ends
        if (folder / FAILED).is_file():
            pytest.fail(f"the shared build {folder.name} failed in another test:\n{(folder / FAILED).read_text()}",
                        pytrace=False)
        if not (folder / DONE).is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a builder killed half-way left
            folder.mkdir()
            try:
                build(folder)
            except (Exception, pytest.fail.Exception) as exc:  # a skip is no failure: the next caller skips too
                (folder / FAILED).write_text("".join(traceback.format_exception(exc))[-8000:])
                raise
            (folder / DONE).touch()
    return folder
