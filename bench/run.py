"""`make bench`: the project's own performance benchmarks, figures written to reports/bench.json.

Each module bench/<topic>.py exposes ``run(quick: bool) -> dict`` returning figures with
medians and ranges (and the reference or target they are compared with).  Speed targets are
measured here, never asserted by timed tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOPICS = ["prk_c", "dgemm", "prk_python", "train", "infer", "report", "workflow", "infer_stage", "compare_aa", "plan_quick"]
TOPICS.append("scale_series")  # bench/scale_series.py: audit and compare of 1,000,000 values (issue 32)
TOPICS.append("scale_tree")  # bench/scale_tree.py: audit of 500/1,000/2,000 real-size results (issue 32)
TOPICS.append("testsuite")  # make test and make test-fast on a fresh clone, against their budgets
TOPICS.append("fuzz_readers")  # bench/fuzz_readers.py: the readers' property-based tests, many more examples (issue 38)
TOPICS += ["ab_aa", "ab_effect"]  # bench/ab_aa.py, ab_effect.py: twelveways ab, A/A and a known +5 % (issue 41)
TOPICS.append("cli_start")  # bench/cli_start.py: twelveways --help and each COMMAND --help, median against 0.5 s (issue 42)


def _load(topic: str):
    spec = importlib.util.spec_from_file_location(f"bench_{topic}", HERE / f"{topic}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="reports/bench.json")
    parser.add_argument("--only", nargs="*", choices=TOPICS, help="run only these topics")
    parser.add_argument("--full", action="store_true", help="longer runs (default: quick)")
    args = parser.parse_args(argv)
    out = Path(args.output)
    figures = {}
    if out.exists():  # keep earlier topics' figures when running --only
        try:
            figures = json.loads(out.read_text()).get("topics", {})
        except ValueError:
            figures = {}
    for topic in args.only or TOPICS:
        if not (HERE / f"{topic}.py").exists():
            figures[topic] = {"skipped": f"bench/{topic}.py not present"}
            continue
        print(f"bench: {topic} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            figures[topic] = _load(topic).run(quick=not args.full)
        except Exception as exc:  # a failing benchmark is recorded, the others still run
            figures[topic] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        figures[topic]["bench_wall_s"] = round(time.perf_counter() - start, 2)
    document = {
        "generated_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu_count": os.cpu_count(),
        "topics": figures,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    with os.fdopen(fd, "w") as handle:
        json.dump(document, handle, indent=2, default=str)
    os.replace(tmp, out)
    print(f"bench: figures written to {out}", file=sys.stderr)
    return 1 if any("error" in v for v in figures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
