"""`make bench` topic "inference stage": the quick profile's inference stage, three times, timed.

Why this exists: the project asks that the inference stage be bounded (capped Server probes, the
Offline throughput as the search's upper bracket) so that its time in the quick profile varies by
less than 1.5x over three runs on the same machine, and that the stage's time be recorded per
model.  Each run is the stage's own command (``python -m twelveways.infer.run``) on the workflow's
validated config and trained checkpoints (``results/config.json``, ``results/models``; run
``make report`` first), writing into a scratch folder; the wall time is measured around the
process, the per-model split is the stage's own record (attr ``stage_seconds``).

``run(quick)`` returns a dict; ``python bench/infer_stage.py [--runs N] [--output FILE]`` prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from twelveways import results  # noqa: E402
from twelveways.config import read_json  # noqa: E402
from twelveways.infer.settings import InferConfig  # noqa: E402

TARGET_RATIO = 1.5
CONFIG = ROOT / "results" / "config.json"
MODELS = ROOT / "results" / "models"


def _inputs() -> list[Path]:
    """The checkpoints the configured stage serves; a one-line error when the workflow has not run."""
    if not CONFIG.is_file():
        raise RuntimeError("results/config.json not found: run `make report` first (the stage needs its models)")
    names = InferConfig.from_config(read_json(CONFIG)).models
    paths = [MODELS / f"{name}.pt" for name in names]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise RuntimeError(f"checkpoints missing ({', '.join(missing)}): run `make report` first")
    return paths


def one_run(models: list[Path], folder: Path) -> dict:
    """The stage once into ``folder``: wall seconds of the process and the stage's per-model seconds."""
    argv = [sys.executable, "-m", "twelveways.infer.run", "--config", str(CONFIG), "--model", *map(str, models),
            "--output", str(folder / "inference.nc"), "--logs", str(folder / "logs"), "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1], "seconds": wall}
    ds = results.open(folder / "inference.nc")
    searches = results.attr_json(ds, "server_search")
    return {"seconds": round(wall, 1), "per_model": results.attr_json(ds, "stage_seconds"),
            "server_probes": {label: len(s["probes"]) for label, s in searches.items()},
            "stop_reasons": {label: s["stop_reason"] for label, s in searches.items()}}


def run(quick: bool = True, runs: int = 3) -> dict:
    """``runs`` stage runs one after another; the spread is max/min of their wall times."""
    models = _inputs()
    load_at_start = os.getloadavg()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="tw-infer-stage-") as scratch:
        for index in range(runs):
            outcomes.append(one_run(models, Path(scratch) / f"run{index}"))
    seconds = [o["seconds"] for o in outcomes if "error" not in o]
    ratio = round(max(seconds) / min(seconds), 3) if len(seconds) == runs else None
    return {
        "topic": "infer_stage",
        "title": "inference stage time, quick profile, repeated",
        "quick": quick,
        "command": "python -m twelveways.infer.run --config results/config.json --model <infer.models> ...",
        "statistic": "wall seconds of each stage process; spread = slowest / fastest run",
        "runs": outcomes,
        "summary": {"seconds": seconds, "spread_ratio": ratio, "target_ratio": TARGET_RATIO,
                    "meets_target": ratio is not None and ratio < TARGET_RATIO,
                    "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="stage runs (default 3)")
    parser.add_argument("--output", help="write the JSON here instead of stdout")
    args = parser.parse_args()
    text = json.dumps(run(runs=args.runs), indent=2)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
