"""`make bench` topic "scale_tree": `audit` of a tree of 500, 1,000 and 2,000 real-size results.

Input: the reference PRK results file (data/reference/results/prk.nc, a real workflow result)
linked into one folder per run.  Budget (issue 32): 2,000 files under 60 s and 2 GB of memory,
judged on the larger of the audit process's peak RSS and the peak of the memory of it and its
workers together (proportional set size: the forked check workers share its pages);
growth must be linear, so each size also reports seconds per file and the ratio of the largest
size's per-file time to the smallest's (1.0 = linear).  See bench/scale.py for how it is timed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402

SIZES = (500, 1000, 2000)
SOURCE = scale.ROOT / "data" / "reference" / "results" / "prk.nc"
BUDGET = {"files": 2000, "seconds": 60.0, "peak_rss_mib": 2048.0}


def _memory(figure: dict) -> float:
    """The memory the budget is judged on: the process's own peak or the whole tree's, whichever is larger."""
    return max(figure["peak_rss_mib"], figure["peak_tree_pss_mib"])


def run(quick: bool = False) -> dict:
    """Time `audit` of each tree size once, smallest first (exit 1 = findings, fine)."""
    share = scale.fraction()
    sizes = [max(4, round(size * share)) for size in SIZES]
    scale.warm_bytecode()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tw-bench-tree-") as tmp:
        for files in sizes:
            tree = scale.results_tree(Path(tmp) / f"tree{files}", files, SOURCE)
            figure = scale.timed(scale.twelveways("audit", tree, "--output", Path(tmp) / f"audit{files}.json",
                                                  "--exit-zero"))
            rows.append({"files": files, **figure, "seconds_per_file": round(figure["seconds"] / files, 4)})
    largest = rows[-1]
    growth = round(largest["seconds_per_file"] / rows[0]["seconds_per_file"], 2) if rows[0]["seconds_per_file"] else None
    met = (share == 1.0 and largest["exit"] == 0 and largest["seconds"] <= BUDGET["seconds"]
           and _memory(largest) <= BUDGET["peak_rss_mib"])
    return {
        "topic": "scale_tree",
        "title": f"audit of a tree of {', '.join(str(s) for s in sizes)} real-size results",
        "quick": quick,
        "size_fraction": share,
        "input": f"{SOURCE.relative_to(scale.ROOT)} ({SOURCE.stat().st_size // 1024} KiB) linked once per run folder",
        "cpus": os.cpu_count(),
        "figures": rows,
        "summary": {"budget": BUDGET, "largest_files": largest["files"], "largest_s": largest["seconds"],
                    "largest_peak_rss_mib": largest["peak_rss_mib"],
                    "largest_peak_tree_pss_mib": largest["peak_tree_pss_mib"],
                    "per_file_growth_largest_vs_smallest": growth,
                    "linear": growth is not None and growth <= 1.25,
                    "target": "2,000 files under 60 s and 2 GB, per-file time flat across sizes",
                    "targets_met": int(met), "targets_checked": 1, "load_average_at_end": os.getloadavg()},
    }
