"""Does ``twelveways plan`` predict the quick profile's PRK sweep time?  Prediction against a real run.

Why (issue 31): a plan is only useful if its runtime prediction holds.  The quick profile's PRK
sweep runs once (the finished run the plan reads), ``twelveways plan`` predicts the quick
profile's sweep seconds from it, and the sweep runs a second time; the figure is the second
run's measured seconds against the prediction and its 95 % range (target: within ±25 %).  Run it
on a quiet machine: ``python bench/run.py --only plan_quick``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.25


def run(quick: bool = True) -> dict:
    from twelveways import config as config_module
    from twelveways import plan, results
    from twelveways.prk import build as prk_build
    from twelveways.prk import sweep

    cfg = config_module.load(ROOT / "config" / "config.yaml")
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        work = Path(tmp)
        kernels = work / "kernels"
        prk_build.build_kernels(kernels)
        env = work / "environment.json"
        env.write_text(json.dumps({"hash": "bench-plan"}))
        first = sweep.sweep(cfg, kernels_dir=kernels, output=work / "first" / "prk.nc", environment=env,
                            progress=False)
        predicted = plan.plan(first.parent, profiles={"quick": plan.PROFILES["quick"]})["profiles"]["quick"]
        second = sweep.sweep(cfg, kernels_dir=kernels, output=work / "second" / "prk.nc", environment=env,
                             progress=False)
        measured = float(results.open(second).attrs["prk_sweep_seconds"])
    error = measured / predicted["seconds"] - 1.0
    return {"predicted_s": round(predicted["seconds"], 2), "predicted_range_s": [round(v, 2) for v in predicted["range"]],
            "measured_s": round(measured, 2), "relative_error": round(error, 3), "target": f"|error| <= {TARGET:.0%}",
            "within_target": abs(error) <= TARGET, "load_1min_at_end": round(os.getloadavg()[0], 2),
            "note": "the quick profile's PRK sweep only (training and inference are not modelled); quote with the load"}
