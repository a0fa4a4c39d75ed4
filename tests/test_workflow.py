"""The tiny `.test` workflow end to end, in a copy of the project, as a user runs it (`make report`; the run is
tests/tinyrun.py's, shared through the session fixture ``tiny_run``): killed with SIGKILL early (during the
first jobs) and late (after results exist), each rerun releases the dead run's lock, keeps the finished jobs
and reruns the rest; a second run beside a live one is refused in one line; the report is produced, a
further run has nothing to do and `snakemake --lint` is clean."""

from __future__ import annotations

import json

import pytest

from tinyrun import finished_outputs, snakemake
from twelveways import results

pytestmark = pytest.mark.slow


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
    now = finished_outputs(project)
    for when, finished in kills.items():
        redone = sorted(name for name, mtime in finished.items() if now.get(name) != mtime)
        assert not redone, f"finished before the {when} kill, then redone: {redone}"
    assert "reports/report.html" in now and len(now) > len(kills["late"])


def test_report_and_artifact_description_produced(tiny_run):
    project = tiny_run.project
    html = (project / "reports" / "report.html").read_text()
    assert "<html" in html.lower() and "checklist" in html.lower()
    description = (project / "reports" / "artifact-description.md").read_text()
    assert "Hardware" in description and "Software" in description
    checklist = json.loads((project / "reports" / "checklist.json").read_text())
    assert checklist["checks"], "checklist has no checks"
    env = json.loads((project / "results" / "environment.json").read_text())
    assert env["hash"]


def test_results_files_valid_with_provenance(tiny_run):
    project = tiny_run.project
    env_hash = json.loads((project / "results" / "environment.json").read_text())["hash"]
    for path in sorted((project / "results").glob("*.nc")):
        ds = results.open(path)
        assert ds.attrs["environment_hash"] == env_hash, path
        assert ds.attrs["config_hash"] != "unknown", path
        assert ds.sizes["sample"] > 0, path


def test_second_run_has_nothing_to_do(tiny_run, venv_env):
    project = tiny_run.project
    proc = snakemake(["--cores", "all", "--configfile", ".test/config.yaml", "--dry-run"], project, venv_env)
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_lint_is_clean(tiny_run, venv_env):
    project = tiny_run.project
    proc = snakemake(["--lint", "--configfile", ".test/config.yaml"], project, venv_env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "Lints for" not in proc.stdout + proc.stderr, proc.stdout[-4000:] + proc.stderr[-4000:]
