"""The tiny `.test` workflow end to end, in a copy of the project: report produced, a second run
has nothing to do, `snakemake --lint` is clean, and a run killed with SIGKILL resumes."""

from __future__ import annotations

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

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
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


@pytest.fixture(scope="module")
def tiny_run(root, tmp_path_factory, venv_env):
    """Run the whole tiny workflow once; later tests inspect it."""
    project = _copy_project(root, tmp_path_factory.mktemp("wf") / "project")
    proc = _run(["--cores", "2", "--configfile", ".test/config.yaml"], project, venv_env)
    log = project / "snakemake-run.log"
    log.write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    assert proc.returncode == 0, f"workflow failed (log in {log}):\n{proc.stderr[-6000:]}"
    return project


def test_report_and_artifact_description_produced(tiny_run):
    html = (tiny_run / "reports" / "report.html").read_text()
    assert "<html" in html.lower() and "checklist" in html.lower()
    description = (tiny_run / "reports" / "artifact-description.md").read_text()
    assert "Hardware" in description and "Software" in description
    checklist = json.loads((tiny_run / "reports" / "checklist.json").read_text())
    assert checklist["checks"], "checklist has no checks"
    env = json.loads((tiny_run / "results" / "environment.json").read_text())
    assert env["hash"]


def test_results_files_valid_with_provenance(tiny_run):
    env_hash = json.loads((tiny_run / "results" / "environment.json").read_text())["hash"]
    for path in sorted((tiny_run / "results").glob("*.nc")):
        ds = results.open(path)
        assert ds.attrs["environment_hash"] == env_hash, path
        assert ds.attrs["config_hash"] != "unknown", path
        assert ds.sizes["sample"] > 0, path


def test_second_run_has_nothing_to_do(tiny_run, venv_env):
    proc = _run(["--cores", "2", "--configfile", ".test/config.yaml", "--dry-run"], tiny_run, venv_env)
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_lint_is_clean(tiny_run, venv_env):
    proc = _run(["--lint", "--configfile", ".test/config.yaml"], tiny_run, venv_env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "Lints for" not in proc.stdout + proc.stderr, proc.stdout[-4000:] + proc.stderr[-4000:]


def test_sigkill_then_rerun_completes(tiny_run, venv_env):
    """Kill the whole run mid-way with SIGKILL; the rerun completes and no partial file is read."""
    project = tiny_run
    target = project / "results" / "prk.nc"
    if not target.exists():
        pytest.skip("the tiny config has no PRK stage")
    before = results.to_frame(results.open(target))
    target.unlink()
    proc = subprocess.Popen([SNAKEMAKE, "results/prk.nc", "--cores", "2", "--configfile", ".test/config.yaml"],
                            cwd=project, env=venv_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    # wait until the PRK job has started (its log appears), then kill everything mid-way
    deadline = time.time() + 120
    log_dir = project / "logs"
    while time.time() < deadline and proc.poll() is None:
        started = [p for p in log_dir.rglob("*") if p.is_file() and "prk_run" in p.name and p.stat().st_mtime > time.time() - 60]
        if started:
            break
        time.sleep(0.2)
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    if target.exists():  # the job happened to finish: it must then be complete and valid
        results.open(target)
    assert not list((project / "results").glob(".prk.nc.*")) or not target.exists() or results.open(target)
    unlock = _run(["--unlock", "--configfile", ".test/config.yaml"], project, venv_env)  # SIGKILL leaves the lock
    assert unlock.returncode == 0, unlock.stderr[-2000:]
    rerun = _run(["results/prk.nc", "--cores", "2", "--configfile", ".test/config.yaml"], project, venv_env)
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    after = results.to_frame(results.open(target))
    assert set(after["workload"]) == set(before["workload"])
