"""The tiny `.test` workflow end to end, in a copy of the project, as a user runs it (`make report`): killed
with SIGKILL early (during the first jobs) and late (after results exist), each rerun releases the dead
run's lock, keeps the finished jobs and reruns the rest; a second run beside a live one is refused in one
line; the report is produced, a further run has nothing to do and `snakemake --lint` is clean."""

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

import pytest

from twelveways import results

pytestmark = pytest.mark.slow

BIN_DIR = Path(sys.executable).parent
SNAKEMAKE = str(BIN_DIR / "snakemake")
IGNORE = shutil.ignore_patterns(".venv", ".git", "results", "build", "logs", ".snakemake", "__pycache__",
                                ".pytest_cache", "*.egg-info", ".ipynb_checkpoints")


def _copy_project(root: Path, dest: Path) -> Path:
    shutil.copytree(root, dest, ignore=IGNORE)
    for sub in ("reports",):
        target = dest / sub
        for item in target.glob("*"):
            if item.name != ".gitkeep":
                shutil.rmtree(item) if item.is_dir() else item.unlink()
    # data/ holds generated datasets besides the committed reference set: start clean
    for item in (dest / "data").glob("*"):
        if item.name not in ("reference", "README.md"):
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    return dest


def _run(args, cwd, env, timeout=900):
    return subprocess.run([SNAKEMAKE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


MAKE_REPORT = ["make", "-o", ".venv/.twelveways-installed", "report", "CONFIGFILE=.test/config.yaml"]


def _recorded(folder: Path) -> set[str]:
    """The output paths Snakemake keeps a record of in ``folder`` (metadata, incomplete): base64 file names."""
    names = set()
    for record in folder.rglob("*") if folder.is_dir() else ():
        if record.is_file():
            encoded = "".join(part.lstrip("@") for part in record.relative_to(folder).parts)
            names.add(base64.urlsafe_b64decode(encoded).decode())
    return names


def _finished_outputs(project: Path) -> dict[str, int]:
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


@pytest.fixture(scope="module")
def tiny_run(root, tmp_path_factory, venv_env):
    """`make report` on the tiny config, killed early and late, then run to the end; later tests inspect it.

    Returns the project and the finished outputs (with mtimes) seen at each kill."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    project = _copy_project(root, tmp_path_factory.mktemp("wf") / "project")
    (project / ".venv").symlink_to(BIN_DIR.parent)  # make's prerequisite (-o: taken as built, never remade)
    first = _start_make_report(project, venv_env, "run-early.log")
    _wait_for(first, lambda: _running(project), "a running job")
    _second_run_is_refused(project, venv_env, first)
    _kill(first)
    early = _finished_outputs(project)
    second = _start_make_report(project, venv_env, "run-late.log")
    _wait_for(second, lambda: "results/inference.nc" in _finished_outputs(project) and _running(project),
              "results/inference.nc with a later job running")
    _kill(second)
    late = _finished_outputs(project)
    last = subprocess.run(MAKE_REPORT, cwd=project, env=venv_env, capture_output=True, text=True, timeout=1800)
    (project / "run-last.log").write_text(last.stdout + "\n--- stderr ---\n" + last.stderr)
    assert last.returncode == 0, f"the rerun failed (log in {project / 'run-last.log'}):\n{last.stderr[-6000:]}"
    return project, {"early": early, "late": late}


def test_each_rerun_released_the_dead_runs_lock(tiny_run):
    project, _ = tiny_run
    for log in ("run-late.log", "run-last.log"):
        text = (project / log).read_text()
        assert "note: released the lock of a run that is gone (pid " in text, text[-3000:]
        assert "Directory cannot be locked" not in text


def test_reruns_kept_the_finished_jobs(tiny_run):
    """What was finished at a kill is not redone by the reruns: same files, same modification times."""
    project, kills = tiny_run
    assert len(kills["late"]) > len(kills["early"]) and "results/inference.nc" in kills["late"]
    now = _finished_outputs(project)
    for when, finished in kills.items():
        redone = sorted(name for name, mtime in finished.items() if now.get(name) != mtime)
        assert not redone, f"finished before the {when} kill, then redone: {redone}"
    assert "reports/report.html" in now and len(now) > len(kills["late"])


def test_report_and_artifact_description_produced(tiny_run):
    tiny_run, _ = tiny_run
    html = (tiny_run / "reports" / "report.html").read_text()
    assert "<html" in html.lower() and "checklist" in html.lower()
    description = (tiny_run / "reports" / "artifact-description.md").read_text()
    assert "Hardware" in description and "Software" in description
    checklist = json.loads((tiny_run / "reports" / "checklist.json").read_text())
    assert checklist["checks"], "checklist has no checks"
    env = json.loads((tiny_run / "results" / "environment.json").read_text())
    assert env["hash"]


def test_results_files_valid_with_provenance(tiny_run):
    tiny_run, _ = tiny_run
    env_hash = json.loads((tiny_run / "results" / "environment.json").read_text())["hash"]
    for path in sorted((tiny_run / "results").glob("*.nc")):
        ds = results.open(path)
        assert ds.attrs["environment_hash"] == env_hash, path
        assert ds.attrs["config_hash"] != "unknown", path
        assert ds.sizes["sample"] > 0, path


def test_second_run_has_nothing_to_do(tiny_run, venv_env):
    tiny_run, _ = tiny_run
    proc = _run(["--cores", "all", "--configfile", ".test/config.yaml", "--dry-run"], tiny_run, venv_env)
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_lint_is_clean(tiny_run, venv_env):
    tiny_run, _ = tiny_run
    proc = _run(["--lint", "--configfile", ".test/config.yaml"], tiny_run, venv_env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "Lints for" not in proc.stdout + proc.stderr, proc.stdout[-4000:] + proc.stderr[-4000:]
