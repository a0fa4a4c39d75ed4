"""Reader's rebuild: notebooks and report from data/reference, against the 2-minute target.

Times ``python -m twelveways.report rebuild --from data/reference`` into a temporary folder (no
benchmark runs inside it), as a fresh process each time so kernel start-up and imports count.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 120


def run(quick: bool = True) -> dict:
    reference = ROOT / "data" / "reference"
    if not (reference / "environment.json").is_file():
        return {"skipped": "no data/reference/environment.json"}
    times = []
    for _ in range(1 if quick else 3):
        with tempfile.TemporaryDirectory(prefix="twelveways-bench-report-") as tmp:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "twelveways.report", "rebuild", "--from", str(reference),
                            "--output", tmp], check=True, capture_output=True, cwd=ROOT)
            times.append(time.perf_counter() - start)
    median = statistics.median(times)
    return {"rebuild_wall_s": {"median": round(median, 2), "min": round(min(times), 2), "max": round(max(times), 2),
                               "n": len(times)},
            "target_s": TARGET_S, "meets_target": median <= TARGET_S,
            "what": "python -m twelveways.report rebuild --from data/reference (all notebooks + report.html)"}
