"""Shared fixtures: the project root, the venv's executables, the builds many tests read (made once per run).

`make test` runs the tests in worker processes (pytest-xdist, ``--dist loadgroup``).  A fixture wider
than one test is built once per worker that needs it, so the tests that share one go to the same worker
(tests/xdist_groups.py): the tests of a module that use one of its module (or session) fixtures form a
group, and so do all tests of a shared build (``SHARED_BUILDS``), of a costly session fixture several
modules read (``SHARED_FIXTURES``), and of one ``pytest.mark.xdist_group`` (the PyTorch tests:
tests/lazy_modules.py).  The builds themselves are made once per run for all workers
(tests/shared_builds.py), and their groups are handed out first, so the longest of them (the tiny
workflow run) starts at once beside everything else; the other groups follow, the single tests last.
"""

from __future__ import annotations

import json
import gc
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import hypothesis_profiles  # noqa: F401 -- registers the full and fast profiles before pytest loads one
import shared_builds
import tinyrun
import xdist_groups

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REFERENCE = ROOT / "data" / "reference"

#: Session fixtures that take a minute or more -> the xdist group of every test that uses one (first match).
#: The tiny run starts from the reference set's rebuild, so the two share a group: one worker makes both.
SHARED_BUILDS = {"tiny_run": "workflow", "reference_report": "workflow", "synthetic_report": "synthetic-report"}
#: Session fixtures of seconds that tests of several modules read -> their xdist group: made once per run.
SHARED_FIXTURES = {"machine_capture": "machine-capture"}
#: Test modules whose tests execute, convert or pair notebooks -> their xdist group: papermill, jupytext and
#: nbconvert cost 1.3 s of imports in each worker that runs one of them.
NOTEBOOK_MODULES = {"tests/test_report.py": "notebooks", "tests/test_report_outputs.py": "notebooks",
                    "tests/test_report_reader.py": "notebooks"}
#: Module fixtures that cost next to nothing: made once per worker, their tests spread over all workers.
CHEAP_MODULE_FIXTURES = {"generated"}  # tests/test_readers_fuzz.py: two small seed files


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def venv_env() -> dict:
    """Environment for subprocesses: the venv's bin first on PATH (snakemake, mpiexec, papermill)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory) -> Path:
    """A folder of this test run that every xdist worker shares: where the shared builds are made."""
    return shared_builds.run_folder(tmp_path_factory)


class MachineCapture(NamedTuple):
    """What ``python -m twelveways.env --json`` (`twelveways env --json`, as the workflow calls it) printed on
    this machine, and the environment variables it ran with."""

    capture: dict
    environ: dict[str, str]


@pytest.fixture(scope="session")
def machine_capture(venv_env) -> MachineCapture:
    """The real capture of this machine (about 6 s of CPU: its runtime probe imports PyTorch), once per test
    run: every test that reads it is in one xdist group (``SHARED_FIXTURES``)."""
    # this process's variables as they are now (imports such as joblib's add some, and the capture records
    # them), so that a capture made in this process with ``environ`` sees the same variables
    environ = {**os.environ, "PATH": venv_env["PATH"]}
    done = subprocess.run([sys.executable, "-m", "twelveways.env", "--json"], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return MachineCapture(json.loads(done.stdout), environ)


@pytest.fixture(scope="session")
def synthetic_report(shared_tmp) -> Path:
    """reports/report.html of the synthetic set (tests/browser/reportdata.py), built once per test run."""
    from browser import reportdata  # here, not at the top: the xdist controller never needs NumPy

    return shared_builds.built_once(shared_tmp / "synthetic-report", reportdata.build_synthetic) / "reports" / "report.html"


def _reader_report(folder: Path, env: dict) -> None:
    """`make reader-report`'s command: data/reference re-rendered and re-audited into ``folder/reports``;
    what it printed in ``folder/rebuild.log``."""
    from browser import reportdata

    reportdata.ensure_kernelspec()
    done = subprocess.run([sys.executable, "-m", "twelveways.report", "rebuild", "--from", str(REFERENCE), "--output",
                           str(folder / "reports")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    (folder / "rebuild.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="session")
def reference_report(shared_tmp, venv_env) -> Path:
    """reports/report.html as `make reader-report` writes it from data/reference, made once per test run;
    the command's output is in ``rebuild.log`` beside the reports folder."""
    if not (REFERENCE / "environment.json").is_file():
        pytest.skip("no reference result set committed (data/reference/environment.json)")
    folder = shared_builds.built_once(shared_tmp / "reference-report", lambda f: _reader_report(f, venv_env))
    return folder / "reports" / "report.html"


@pytest.fixture(scope="session")
def tiny_run(shared_tmp, reference_report, venv_env) -> tinyrun.TinyRun:
    """The tiny workflow run of tests/tinyrun.py (README order, killed twice, then finished), once per test
    run; tests read it and never change it (one that must, works on a copy of ``project``)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    folder = shared_builds.built_once(
        shared_tmp / "tiny-run", lambda f: tinyrun.build(f, ROOT, venv_env, reference_report.parent))
    return tinyrun.load(folder)


def _xdist_group(item: pytest.Item) -> str | None:
    """A shared build's group, else the notebooks' group for a module of :data:`NOTEBOOK_MODULES`, else the
    module's when the test uses a fixture its module defines wider than one test (built once per worker:
    its tests go to one), else a group the test names
    (``pytest.mark.xdist_group``: tests that share a costly first use, e.g. PyTorch's optimizer machinery)."""
    closure = item.fixturenames
    for fixture, group in (SHARED_BUILDS | SHARED_FIXTURES).items():
        if fixture in closure:
            return group
    module = item.nodeid.split("::")[0]
    if module in NOTEBOOK_MODULES:
        return NOTEBOOK_MODULES[module]
    for name in set(closure) - CHEAP_MODULE_FIXTURES:
        for definition in item._fixtureinfo.name2fixturedefs.get(name, ()):
            if definition.scope != "function" and definition.baseid == module:
                return module
    named = item.get_closest_marker("xdist_group")
    return str(named.args[0]) if named and named.args else None


@pytest.hookimpl(trylast=True)  # the collection as it will run: after -m and -k took tests out
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker: the groups to the scheduler's file, handed out in this order: the shared builds
    first, then the other groups, then the tests of no group (a run without xdist keeps the file order).
    A group runs whole on one worker: started early, the single tests fill in beside it and both workers
    finish together, where a group handed out last would leave the other worker idle until it ends."""
    workerinput = getattr(config, "workerinput", {})
    if xdist_groups.WORKERINPUT_KEY not in workerinput:
        return
    groups = {item.nodeid: group for item in items if (group := _xdist_group(item))}
    xdist_groups.write(Path(workerinput[xdist_groups.WORKERINPUT_KEY]), groups)
    rank = {group: index for index, group in enumerate(dict.fromkeys(SHARED_BUILDS.values()))}
    items.sort(key=lambda item: rank.get(groups[item.nodeid], len(rank)) if item.nodeid in groups else len(rank) + 1)


#: Python's collector thresholds in a test process: a first generation of 10,000 objects (default 700).
GC_THRESHOLDS = (10_000, 10, 10)


def pytest_configure(config: pytest.Config) -> None:
    """Tests make and drop millions of small objects (frames, parsed files, Series) beside the ~300,000
    long-lived ones of NumPy, SciPy, pandas and PyTorch: at the default threshold the collector ran about
    5,000 times per worker, and its full passes over that heap took 3-4 s of each worker's minute.  With
    10,000 a test's garbage cycles stay within megabytes and the passes take under half a second."""
    gc.set_threshold(*GC_THRESHOLDS)


def pytest_sessionstart(session: pytest.Session) -> None:
    """In xdist worker k of n, before collecting: import every n-th test module, from the k-th.

    Why: every worker imports every test module to collect it, and on a fresh clone pytest first rewrites
    each module's asserts (about 2.5 s of each worker's start, for the same files).  Rewritten here, each
    its own share, the workers then find the other's share in the cache (``__pycache__``).  A module
    that cannot be imported on its own is left to the collection, which imports it (and reports it) as
    always; a warm cache makes this the same imports in another order.  Only a run of the whole suite
    (no paths named) shares the work."""
    workerinput = getattr(session.config, "workerinput", None)
    if not workerinput or [Path(arg).resolve() for arg in session.config.args] != [ROOT / "tests"]:
        return
    index, count = int(workerinput["workerid"].removeprefix("gw")), int(workerinput["workercount"])
    for path in sorted((ROOT / "tests").glob("test_*.py"))[index::count]:
        try:
            importlib.import_module(path.stem)
        except BaseException:  # noqa: BLE001 - skips and errors are the collection's to report
            sys.modules.pop(path.stem, None)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist controller: every worker writes the groups to the one file of this run."""
    node.workerinput[xdist_groups.WORKERINPUT_KEY] = str(xdist_groups.groups_file(node.config))


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # before xdist's own choice
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") == "loadgroup":
        return xdist_groups.GroupScheduling(config, log, xdist_groups.groups_file(config))
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    xdist_groups.remove(config)
    if hasattr(config, "workerinput"):
        # an xdist worker ends here: the interpreter's last collections would walk every object it built with
        # NumPy, SciPy, pandas and PyTorch (about 2 s before the run can end); frozen, they are skipped
        gc.freeze()
