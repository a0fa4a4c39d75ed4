"""Does ``twelveways plan`` predict the quick profile's whole runtime?  Prediction against a real run.

Why (issue 41): a plan is only useful if its runtime prediction holds, for the whole profile (every
stage: environment, build, PRK, A/A, training, inference, notebooks, checklist, report), not the
PRK sweep alone.  ``twelveways plan`` predicts the quick profile stage by stage from a finished
run's recorded costs (this checkout's own ``results/`` and ``logs/bench/`` when a run left them,
else the committed reference set ``data/reference``, made by ``make report`` on this machine); then
the quick workflow runs once more in a fresh clone (``twelveways run --cores all`` with this
checkout's environment) and its rules' benchmark files give the measured runtime.  The figure is
the measured sum over the rules against the prediction and its 95 % range (target: within ±25 %),
stage by stage beside it, and the clone's wall time.  Run it on a quiet machine:
``python bench/run.py --only plan_quick``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.25


def _source() -> Path:
    """The finished run the plan reads: this checkout's own, else the committed reference set."""
    own = ROOT / "results"
    if (own / "prk.nc").is_file() and (own / "config.json").is_file() and (ROOT / "logs" / "bench").is_dir():
        return own
    return ROOT / "data" / "reference"


def _second_run(work: Path) -> tuple[float, Path]:
    """The quick workflow in a fresh clone of the committed tree; (wall seconds, its benchmark folder)."""
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {**os.environ, "PYTHONPATH": str(clone / "src"),
           "PATH": os.pathsep.join([str(ROOT / ".venv" / "bin"), os.environ.get("PATH", "")])}
    start = time.perf_counter()
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "twelveways"), "run", "--cores", "all", "--profile",
                           "profiles/default"], cwd=clone, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"the quick workflow failed in the clone: {done.stderr[-2000:]}")
    return wall, clone / "logs" / "bench"


def run(quick: bool = True) -> dict:
    from twelveways import plan, plan_stages

    source = _source()
    record = plan.plan(source, profiles={"quick": plan.PROFILES["quick"]})
    predicted = plan.whole(record, None, {"quick": plan.PROFILES["quick"]})["quick"]
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        wall, bench = _second_run(Path(tmp))
        measured = {rule: float(v.mean()) for rule, v in plan_stages.rule_costs(bench).items()}
    total = sum(measured.values())
    error = total / predicted.seconds - 1.0
    stages = {row.stage: {"predicted_s": round(row.seconds, 1), "range_s": [round(v, 1) for v in row.range],
                          "measured_s": round(sum(s for r, s in measured.items()
                                                  if plan_stages.stage_of(r) == row.stage), 1)}
              for row in predicted.stages}
    return {"predicted_from": str(source.relative_to(ROOT)) if source.is_relative_to(ROOT) else str(source),
            "predicted_s": round(predicted.seconds, 1), "predicted_range_s": [round(v, 1) for v in predicted.range],
            "measured_s": round(total, 1), "measured_wall_s": round(wall, 1), "relative_error": round(error, 3),
            "target": f"|error| <= {TARGET:.0%}", "within_target": abs(error) <= TARGET,
            "within_range": predicted.range[0] <= total <= predicted.range[1], "stages": stages,
            "load_1min_at_end": round(os.getloadavg()[0], 2), "python": sys.version.split()[0],
            "note": "the whole quick profile: measured is the sum over the rules' Snakemake benchmark files of a "
                    "second run in a fresh clone (jobs in parallel make the wall time shorter); quote with the load"}
