"""How long the tests take: `make test` (what CI runs) and `make test-fast` (everyday work) on a fresh clone.

Why: a test suite that takes a quarter of an hour is run less often, and a fast tier that is not fast is
skipped.  The clone (``git clone`` of the committed tree) gets ``make venv`` first, timed apart; then each
target runs once, timed from outside, and its pytest summary line and number of xdist workers are kept
beside its budget (issue 43: 60 s and 480 s on 2 cores).  The machine's load before and after is recorded:
figures from a shared machine are upper bounds.  Timed here, never by a timed test.
``TWELVEWAYS_BENCH_PYTEST_ARGS`` (e.g. ``tests/test_inputs.py``) narrows both runs to try this topic out;
the figures then say so and are not the suite's.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import pressure  # noqa: E402
#: make target -> (budget in seconds on 2 cores, what the budget is for)
BUDGETS = {
    "test-fast": (60, "make test-fast, the unit tier for everyday work (no workflow run, browser or cluster)"),
    "test": (480, "make test, the whole suite with the style gates, as CI runs it"),
}
NARROW_VAR = "TWELVEWAYS_BENCH_PYTEST_ARGS"
WARM_IMPORTS = ("import torch, scipy.stats, pandas, xarray, statsmodels.api, matplotlib.pyplot, twelveways.cli, "
                "pytest, xdist, hypothesis, bs4, nbformat")


def _clean_env() -> dict:
    """This environment without the project's own venv, as a new shell on a fresh machine has it; without
    PYTHONDONTWRITEBYTECODE too, which the Makefile drops for its targets, so the warm-up writes bytecode."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env


def _summary_line(output: str) -> str:
    """pytest's last line ("880 passed, 2 skipped in 95.1s"), or the output's last line."""
    lines = [line.strip("= ") for line in output.strip().splitlines() if line.strip()]
    found = [line for line in lines if " in " in line and any(w in line for w in ("passed", "failed", "error"))]
    return (found or lines or ["(no output)"])[-1]


def _workers(output: str) -> int | None:
    """How many pytest-xdist workers ran the tests ("created: 2/2 workers"); None: in one process."""
    found = re.search(r"created: (\d+)/\d+ workers", output)
    return int(found.group(1)) if found else None


def _timed_target(target: str, project: Path, env: dict, narrow: str) -> dict:
    command = ["make", target] + ([f"PYTEST_ARGS={narrow}"] if narrow else [])
    load_before, stalls_before = os.getloadavg()[0], pressure.totals()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    stalls = pressure.stalled(stalls_before, pressure.totals(), seconds)
    budget, what = BUDGETS[target]
    return {"command": shlex.join(command), "seconds": round(seconds, 1), "budget_s": budget, "budget_for": what,
            "meets_budget": done.returncode == 0 and seconds <= budget, "exit_code": done.returncode,
            "pytest": _summary_line(done.stdout + done.stderr), "pytest_workers": _workers(done.stdout),
            "load_1min_before": round(load_before, 2), "load_1min_after": round(os.getloadavg()[0], 2),
            "stalled": stalls}


def run(quick: bool = True) -> dict:
    narrow = os.environ.get(NARROW_VAR, "").strip()
    with tempfile.TemporaryDirectory(prefix="twelveways-tests-") as tmp:
        project = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(project)], check=True)
        env = _clean_env()
        start = time.perf_counter()
        venv = subprocess.run(["make", "venv"], cwd=project, env=env, capture_output=True, text=True)
        if venv.returncode != 0:
            return {"error": "make venv failed", "stderr_tail": venv.stderr[-3000:]}
        figures = {"venv_s": round(time.perf_counter() - start, 1)}
        # `make venv` compiles the packages' bytecode; the first imports (timed apart) load the files once
        start = time.perf_counter()
        subprocess.run([str(project / ".venv" / "bin" / "python"), "-c", WARM_IMPORTS], cwd=project, env=env,
                       capture_output=True)
        figures["first_imports_s"] = round(time.perf_counter() - start, 1)
        for target in BUDGETS:
            figures[target] = _timed_target(target, project, env, narrow)
    return {
        "what": "fresh git clone of the committed tree: `make venv` and first imports (timed apart), then `make test-fast` and "
                "`make test`, one run each",
        **figures, "cpu_count": os.cpu_count(),
        "narrowed_to": narrow or None,
        "note": (f"narrowed by {NARROW_VAR}: a trial of this topic, not the suite's time" if narrow else
                 "single run each; on a shared machine (load above the core count) the times are upper bounds"),
    }
