"""A larger property-based campaign on every reader than ``make test`` runs (issue 38).

Why here: ``make test`` runs a bounded number of Hypothesis examples per reader so it stays within
its budget; this topic runs the same properties (tests/test_readers_fuzz.py and the per-format
tests/test_format_*.py) with ``TWELVEWAYS_FUZZ_EXAMPLES`` examples each and records how many tests
ran, how many failed, the wall time and the peak memory of the run.  Run it alone:
``python bench/run.py --only fuzz_readers`` (``--full`` for ten times as many examples).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(quick: bool = True) -> dict:
    examples = 500 if quick else 5000
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_format_*.py"))
    tests.append("tests/test_readers_fuzz.py")
    env = {**os.environ, "TWELVEWAYS_FUZZ_EXAMPLES": str(examples)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    closing = next((line for line in reversed(done.stdout.splitlines()) if " passed" in line or " failed" in line), "")
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"examples_per_property": examples, "test_files": len(tests), "pytest_summary": closing.strip("= "),
            "exit_code": done.returncode, "wall_s": round(wall, 1), "peak_rss_mib": round(peak_mib, 1),
            "target": "no failure: every mutation ends in rows or one error line, under 60 s and 2 GB each"}
