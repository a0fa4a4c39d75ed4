"""How fast does the command line answer ``--help``?  ``twelveways --help`` and each ``twelveways COMMAND --help``.

Why (issue 42): a command that imports NumPy, pandas and SciPy before parsing its arguments takes seconds to
say how it is used.  Each is started as a user starts it (the installed ``twelveways`` script, a new process
each time) several times; the figure is the median wall time against the 0.5 s target, with the machine's
load, since a busy neighbour slows every start alike.  ``python bench/run.py --only cli_start``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.5


def _script() -> list[str]:
    """The installed console script beside this interpreter, else the module (a checkout without the script)."""
    script = Path(sys.executable).parent / "twelveways"
    return [str(script)] if script.exists() else [sys.executable, "-m", "twelveways"]


def _median_start(argv: list[str], runs: int) -> tuple[float, int]:
    """(median seconds, exit code of the last run) of ``argv`` started ``runs`` times, after one untimed warm-up
    (the first start compiles bytecode and fills the page cache: not what a user waits for twice)."""
    times, code = [], 0
    for n in range(runs + 1):
        start = time.perf_counter()
        code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120).returncode
        if n:
            times.append(time.perf_counter() - start)
    return statistics.median(times), code


def run(quick: bool = True) -> dict:
    from twelveways import cli

    runs = 5 if quick else 11
    commands = ["", *cli.DELEGATED, *cli.LOCAL]
    starts = {}
    for command in commands:
        seconds, code = _median_start([*_script(), *([command] if command else []), "--help"], runs)
        starts[f"twelveways {command} --help".replace("  ", " ")] = {
            "median_s": round(seconds, 3), "exit_code": code, "within_target": seconds < TARGET_S}
    slow = [name for name, figure in starts.items() if not figure["within_target"]]
    return {"target": f"median < {TARGET_S} s", "runs_each": runs, "starts": starts, "over_target": slow,
            "load_1min_at_end": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count(),
            "note": "every command parses its arguments before it imports its stage (tests/test_cli_start.py "
                    "keeps it so); see docs/install.md"}
