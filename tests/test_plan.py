"""twelveways plan: invocations needed from variance components, and profile runtimes from invocation costs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from twelveways import config as config_module
from twelveways import plan, results

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"


def test_the_runs_own_profile_is_predicted_as_the_sum_of_its_invocations(tmp_path):
    """The reference's own PRK settings as a profile: every configuration's invocations times its cost
    add up to the sweep's measured seconds (the costs share the sweep's time out)."""
    ds = results.open(REFERENCE / "results" / "prk.nc").load()
    own = config_module.validate({"seed": 12, "prk": results.attr_json(ds, "prk_config"),
                                  "measurement": {"min_samples": 5}})
    path = tmp_path / "own.yaml"
    path.write_text(json.dumps(own))
    del ds.attrs["prk_run_seconds"]  # a file written before each run's seconds were recorded
    results.write(ds, tmp_path / "run" / "results" / "prk.nc")
    record = plan.plan(tmp_path / "run", profiles={"own": path, "full": plan.PROFILES["full"]})
    predicted = record["profiles"]["own"]
    assert predicted["seconds"] == pytest.approx(float(ds.attrs["prk_sweep_seconds"]), rel=0.05)
    assert predicted["range"][0] <= predicted["seconds"] <= predicted["range"][1]
    # the full sizes do 4x to 16x the work per invocation, at 5 invocations where this run made up to 13
    assert record["profiles"]["full"]["seconds"] > 2 * predicted["seconds"]
    assert "equal share" in record["cost_source"]


def test_invocations_needed_follow_each_configurations_variance():
    record = plan.plan(REFERENCE, profiles={})
    rows = record["configurations"]
    assert len(rows) == 55 and all(r["invocations"] >= 1 for r in rows)
    noisy = max((r for r in rows if r["needed"]), key=lambda r: r["variance"])
    quiet = min((r for r in rows if r["needed"]), key=lambda r: r["variance"])
    assert noisy["needed"] > quiet["needed"] >= 2
    assert "Invocations per side to detect a 5% difference at 80% power" in plan.text(record)


@pytest.mark.slow  # a whole reference set re-read or re-audited: make test, not the unit tier
def test_the_appendix_states_the_full_profiles_prediction_and_bad_input_is_one_line(tmp_path):
    lines = plan.appendix_lines(REFERENCE / "results" / "derived")
    assert lines and "The full profile's PRK sweep is predicted to take" in lines[0]
    assert plan.appendix_lines(tmp_path / "derived") == []
    done = subprocess.run([sys.executable, "-m", "twelveways", "plan", "--results", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
