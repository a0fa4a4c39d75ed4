"""One tiny workflow run, in README order, shared by the end-to-end tests (fixture ``tiny_run``, tests/conftest.py).

In a copy of the project, ``reports/`` first holds what `make reader-report` leaves there (the rebuild of
data/reference), then `make report` runs on the tiny `.test` config as a user runs it: killed with SIGKILL
early (during the first jobs; a second run tried beside the live one must be refused in one line) and late
(after results exist), each rerun releasing the dead run's lock, and the last one run to the end.
tests/test_workflow.py checks the kills and reruns, the outputs and that nothing is left to do;
tests/test_browser.py checks that the report shows this run's numbers, not the leftover ones.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

BIN_DIR = Path(sys.executable).parent
SNAKEMAKE = str(BIN_DIR / "snakemake")
IGNORE = shutil.ignore_patterns(".venv", ".git", "results", "build", "logs", ".snakemake", "__pycache__",
                                ".pytest_cache", "*.egg-info", ".ipynb_checkpoints")
MAKE_REPORT = ["make", "-o", ".venv/.twelveways-installed", "report", "CONFIGFILE=.test/config.yaml"]
KILLS = "kills.json"


class TinyRun(NamedTuple):
    """The finished project, and the finished outputs (name -> mtime in ns) seen at each kill."""

    project: Path
    kills: dict[str, dict[str, int]]


def copy_project(root: Path, dest: Path) -> Path:
    """The project as a fresh checkout has it: no results, build, logs, reports or generated datasets."""
    shutil.copytree(root, dest, ignore=IGNORE)
    for item in (dest / "reports").glob("*"):
        if item.name != ".gitkeep":
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    # data/ holds generated datasets besides the committed reference set: start clean
    for item in (dest / "data").glob("*"):
        if item.name not in ("reference", "README.md"):
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    # the copy leaves out every folder named results; the reference set's is committed and comes along
    shutil.copytree(root / "data" / "reference" / "results", dest / "data" / "reference" / "results")
    return dest


def snakemake(args, cwd, env, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run([SNAKEMAKE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _recorded(folder: Path) -> set[str]:
    """The output paths Snakemake keeps a record of in ``folder`` (metadata, incomplete): base64 file names."""
    names = set()
    for record in folder.rglob("*") if folder.is_dir() else ():
        if record.is_file():
            encoded = "".join(part.lstrip("@") for part in record.relative_to(folder).parts)
            names.add(base64.urlsafe_b64decode(encoded).decode())
    return names


def finished_outputs(project: Path) -> dict[str, int]:
    """Files whose job Snakemake recorded as finished, with their mtimes (ns): a metadata record and no
    incomplete marker left (Snakemake writes the record before it drops the marker; a kill between the
    two leaves the job unfinished, and a busy machine widens that window)."""
    state = project / ".snakemake"
    finished = _recorded(state / "metadata") - _recorded(state / "incomplete")
    return {name: (project / name).stat().st_mtime_ns for name in sorted(finished) if (project / name).is_file()}


def _start_make_report(project: Path, env: dict, log_name: str) -> subprocess.Popen:
    with open(project / log_name, "w") as log:
        return subprocess.Popen(MAKE_REPORT, cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _wait_for(proc: subprocess.Popen, ready, what: str, timeout: float = 900) -> None:
    """Return as soon as ``ready()``; fail if the run ended first."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, f"the run ended (exit {proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL the whole run at once: make, Snakemake and its jobs (one session)."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _second_run_is_refused(project: Path, env: dict, live: subprocess.Popen) -> None:
    """Beside the live run: one line naming it (pid of its Snakemake, when, command), exit 1, nothing started."""
    done = subprocess.run([str(BIN_DIR / "twelveways"), "run", "--cores", "1", "--configfile",
                           ".test/config.yaml"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert live.poll() is None, "the first run ended before the second was tried"
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr[-3000:]
    owner = json.loads((project / ".snakemake" / "twelveways" / "owner.json").read_text())
    assert done.stderr.startswith(f"error: another run is in progress in {project.resolve()}: pid {owner['pid']} ")
    assert "started 20" in done.stderr and "`twelveways run --cores all --profile profiles/default" in done.stderr


def _running(project: Path) -> bool:
    incomplete = project / ".snakemake" / "incomplete"
    return incomplete.is_dir() and any(p.is_file() for p in incomplete.rglob("*"))


def build(folder: Path, root: Path, env: dict, reader_report: Path) -> None:
    """The run in ``folder/project``, README order: ``reader_report`` (the folder `make reader-report` writes)
    copied to reports/ as if just written, then `make report` killed early and late and run to the end."""
    project = copy_project(root, folder / "project")
    shutil.copytree(reader_report, project / "reports", dirs_exist_ok=True, copy_function=shutil.copy)
    (project / ".venv").symlink_to(BIN_DIR.parent)  # make's prerequisite (-o: taken as built, never remade)
    first = _start_make_report(project, env, "run-early.log")
    _wait_for(first, lambda: _running(project), "a running job")
    _second_run_is_refused(project, env, first)
    _kill(first)
    early = finished_outputs(project)
    second = _start_make_report(project, env, "run-late.log")
    _wait_for(second, lambda: "results/inference.nc" in finished_outputs(project) and _running(project),
              "results/inference.nc with a later job running")
    _kill(second)
    late = finished_outputs(project)
    last = subprocess.run(MAKE_REPORT, cwd=project, env=env, capture_output=True, text=True, timeout=1800)
    (project / "run-last.log").write_text(last.stdout + "\n--- stderr ---\n" + last.stderr)
    assert last.returncode == 0, f"the rerun failed (log in {project / 'run-last.log'}):\n{last.stderr[-6000:]}"
    (folder / KILLS).write_text(json.dumps({"early": early, "late": late}))


def load(folder: Path) -> TinyRun:
    return TinyRun(folder / "project", json.loads((folder / KILLS).read_text()))
