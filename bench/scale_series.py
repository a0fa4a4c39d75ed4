"""`make bench` topic "scale_series": audit and compare of one configuration with 1,000,000 values.

Inputs: generated pyperf files (1,000 processes x 1,000 values, lognormal noise; the compared file
10% slower), written with pyperf into a temporary folder.  Budget (issue 32): each command under
20 s and 2 GB peak RSS on the 2-core machine of the run.  See bench/scale.py for how it is timed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402

PROCESSES, VALUES = 1000, 1000
BUDGET = {"seconds": 20.0, "peak_rss_mib": 2048.0}


def _verdict(figure: dict, share: float) -> dict:
    """The budget applies at the issue's size only: a reduced run says nothing about it."""
    figure["budget"] = BUDGET
    figure["within_budget"] = (share == 1.0 and figure["exit"] in (0, 1) and figure["seconds"] <= BUDGET["seconds"]
                               and max(figure["peak_rss_mib"], figure["peak_tree_pss_mib"]) <= BUDGET["peak_rss_mib"])
    return figure


def run(quick: bool = False) -> dict:
    """Generate the two files, then time `audit` of one and `compare` of both (exit 1 = findings, fine)."""
    share = scale.fraction()
    processes = max(10, round(PROCESSES * share))
    scale.warm_bytecode()
    with tempfile.TemporaryDirectory(prefix="tw-bench-series-") as tmp:
        tmp = Path(tmp)
        base = scale.pyperf_file(tmp / "base.json", processes, VALUES, scale.SEED)
        new = scale.pyperf_file(tmp / "new.json", processes, VALUES, scale.SEED + 1, slower_from=processes // 2)
        audit = _verdict(scale.timed(scale.twelveways("audit", base, "--output", tmp / "audit.json", "--exit-zero")),
                         share)
        compare = _verdict(scale.timed(scale.twelveways("compare", base, new, "--output", tmp / "compare.json")), share)
    values = processes * VALUES
    return {
        "topic": "scale_series",
        "title": f"audit and compare of one configuration with {values:,} values",
        "quick": quick,
        "size_fraction": share,
        "input": f"pyperf JSON, {processes} processes x {VALUES} values each (generated, seed {scale.SEED})",
        "cpus": os.cpu_count(),
        "figures": {"audit": audit, "compare": compare},
        "summary": {"values": values, "audit_s": audit["seconds"], "compare_s": compare["seconds"],
                    "audit_peak_rss_mib": audit["peak_rss_mib"], "compare_peak_rss_mib": compare["peak_rss_mib"],
                    "target": "each under 20 s and 2 GB at 1,000,000 values",
                    "targets_met": int(audit["within_budget"]) + int(compare["within_budget"]), "targets_checked": 2,
                    "load_average_at_end": os.getloadavg()},
    }
