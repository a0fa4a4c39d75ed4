"""Speed target: the quick profile's training stage in at most 4 minutes on 2 cores.

Runs the stage exactly as the workflow does (``python -m twelveways.train.data`` then
``python -m twelveways.train.sweeps``) on the quick profile (``config/config.yaml``), in a
temporary folder, and reports its wall time with the machine's load average before and after
(the machine is shared: a high load explains a slow run, it does not excuse one).  ``quick``:
one repetition; otherwise three, reported as median and range.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 240.0


def _stage_once(workdir: Path) -> dict:
    from twelveways import results
    from twelveways.config import load

    config = load(ROOT / "config" / "config.yaml")
    config["train"]["data_dir"] = str(workdir / "data")
    config_path = workdir / "config.json"
    config_path.write_text(json.dumps(config))
    load_before = os.getloadavg()
    timings = {}
    for name, args in (("data", ["twelveways.train.data", "prepare", "--config", str(config_path)]),
                       ("sweeps", ["twelveways.train.sweeps", "--config", str(config_path),
                                   "--output", str(workdir / "results" / "train.nc")])):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)
        timings[name] = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{name} failed: {proc.stderr.strip().splitlines()[-1:]}")
    ds = results.open(workdir / "results" / "train.nc")
    frame = results.to_frame(ds)
    runs = frame[(frame["iteration"] == -1) & (frame["seed"] >= 0)]
    batch = runs[runs["study"].str.contains("batch_size")]
    epochs = (batch[batch["metric"] == "epochs_to_target"].groupby("batch_size")["value"].median())
    reached = (batch[batch["metric"] == "converged"].groupby("batch_size")["value"].sum())
    compliance = results.attr_json(ds, "compliance")
    return {"stage_s": timings["data"] + timings["sweeps"], "data_s": timings["data"], "sweeps_s": timings["sweeps"],
            "runs": int(runs["run_id"].nunique()), "load_avg_before": load_before[0], "load_avg_after": os.getloadavg()[0],
            "f1_median_epochs_by_batch": {int(k): float(v) for k, v in epochs.items()},
            "f1_runs_reaching_target_by_batch": {int(k): int(v) for k, v in reached.items()},
            "compliance_passed": f"{compliance.get('passed')}/{compliance.get('checked')}"}


def run(quick: bool = True) -> dict:
    repetitions = 1 if quick else 3
    samples = []
    for _ in range(repetitions):
        with tempfile.TemporaryDirectory(prefix="tw-bench-train-") as tmp:
            samples.append(_stage_once(Path(tmp)))
    stage = [s["stage_s"] for s in samples]
    median = statistics.median(stage)
    return {
        "what": "wall time of the quick profile's training stage (data rule + sweeps rule), 2 cores",
        "target_s": TARGET_S,
        "stage_wall_s_median": round(median, 2),
        "stage_wall_s_range": [round(min(stage), 2), round(max(stage), 2)],
        "meets_target": median <= TARGET_S,
        "repetitions": repetitions,
        "cpu_count": os.cpu_count(),
        "samples": samples,
    }


if __name__ == "__main__":
    print(json.dumps(run(quick="--full" not in sys.argv), indent=2))
