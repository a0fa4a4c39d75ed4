"""Wall time of the quick profile, per stage, against the issues' targets.

Runs `snakemake --cores all` on config/config.yaml in a fresh copy of the project and reads
the per-rule wall times Snakemake records through each rule's `benchmark:` file
(logs/bench/<rule>.tsv, column `s`).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: stage -> (rule-name prefixes, target seconds on 2 cores, where the target comes from)
STAGES = {
    "prk": (("prk_",), 180, "issue 3: PRK stage of the quick profile <= 3 min"),
    "train": (("train_", "data_"), 240, "issue 5: training stage of the quick profile <= 4 min"),
    "infer": (("infer",), None, "issue 6: ~1-2 min (no hard target)"),
}
TOTAL_TARGET_S = 600  # issue 2: the whole quick profile <= 10 min on 2 cores


def _rule_times(project: Path) -> dict[str, float]:
    times = {}
    for path in sorted((project / "logs" / "bench").glob("*.tsv")):
        with path.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if rows:
            times[path.stem] = float(rows[-1]["s"])
    return times


def run(quick: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="twelveways-bench-") as tmp:
        project = Path(tmp) / "project"
        shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
            ".venv", ".git", "results", "build", "logs", ".snakemake", "reports", "__pycache__"))
        (project / "reports").mkdir(exist_ok=True)
        for item in (project / "data").glob("*"):
            if item.name not in ("reference", "README.md"):
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        snakemake = str(Path(sys.executable).parent / "snakemake")
        start = time.perf_counter()
        proc = subprocess.run([snakemake, "--cores", "all"], cwd=project, capture_output=True, text=True)
        total = time.perf_counter() - start
        if proc.returncode != 0:
            return {"error": "quick profile failed", "stderr_tail": proc.stderr[-3000:]}
        rules = _rule_times(project)
    stages = {}
    for stage, (prefixes, target, source) in STAGES.items():
        seconds = sum(s for rule, s in rules.items() if rule.startswith(prefixes))
        stages[stage] = {"seconds": round(seconds, 1), "target_s": target, "target_source": source,
                         "meets_target": None if target is None else seconds <= target}
    return {
        "what": "wall time of `snakemake --cores all` on the quick profile, fresh copy, one run",
        "total_s": round(total, 1), "total_target_s": TOTAL_TARGET_S, "total_meets_target": total <= TOTAL_TARGET_S,
        "stages": stages, "rules_s": {k: round(v, 2) for k, v in rules.items()},
        "note": "single run on a 2-core machine: compare runs taken on the same machine",
    }
