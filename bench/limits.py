"""This machine's physical limits, measured in the same run as the kernels they bound.

Why this exists: The PRK reference table's rates come from another 2-core machine on another day, and
virtual machines "like this one" differ by up to a factor of two in memory bandwidth and flop rate
from one day to the next.  The issue quotes that machine's limits (`likwid-bench -t stream`,
NumPy `np.dot` at 2000^2); measuring the same limits here lets each target also be stated scaled
by (this machine's limit / the reference machine's limit).  The unscaled comparison stays the
headline; the scaled one says whether a miss is the code or the day's machine.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys

#: the reference machine's limits quoted with the PRK reference table (1 and 2 threads)
REFERENCE = {
    "stream": {"1": 24651, "2": 30694},  # likwid-bench -t stream -w S0:1GB:N, MB/s
    "flops": {"1": 52700, "2": 103700},  # NumPy np.dot 2000^2 float64, MFlop/s
}
SOURCE = {
    "stream": "likwid-bench -t stream -w S0:1GB:<threads> (Debian likwid)",
    "flops": "NumPy np.dot 2000^2 float64 in a fresh interpreter, best of 3, <threads> BLAS threads",
}
UNIT = {"stream": "MB/s", "flops": "MFlop/s"}
#: which limit bounds each PRK kernel at the reference sizes (all but dgemm stream through memory)
BOUND_OF = {"nstream": "stream", "transpose": "stream", "stencil": "stream", "p2p": "stream",
            "sparse": "stream", "dgemm": "flops"}
_BLAS_PROBE = ("import time, numpy as np\n"
               "a = np.random.default_rng(1).random((2000, 2000)); b = a.T.copy(); np.dot(a, b)\n"
               "t = []\n"
               "for _ in range(3):\n"
               "    s = time.perf_counter(); np.dot(a, b); t.append(time.perf_counter() - s)\n"
               "print(2 * 2000 ** 3 / min(t) / 1e6)\n")


def jobs() -> list[tuple[str, int]]:
    """The probes to interleave with a topic's own runs: (kind, threads)."""
    kinds = ["flops"] + (["stream"] if shutil.which("likwid-bench") else [])
    return [(kind, threads) for kind in kinds for threads in (1, 2)]


def probe(kind: str, threads: int) -> dict:
    """One measurement of a limit: {"rate": ...} or {"error": ...}."""
    if kind == "stream":
        argv = ["likwid-bench", "-t", "stream", "-w", f"S0:1GB:{threads}"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        match = re.search(r"MByte/s:\s*([0-9.]+)", done.stdout)
        if done.returncode != 0 or not match:
            return {"error": (done.stderr.strip().splitlines() or ["no MByte/s in output"])[-1]}
        return {"rate": float(match.group(1))}
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, "-c", _BLAS_PROBE], capture_output=True, text=True, env=env,
                          timeout=600, check=False)
    try:
        return {"rate": float(done.stdout.strip())}
    except ValueError:
        return {"error": (done.stderr.strip().splitlines() or ["no rate printed"])[-1]}


def summarize(samples: dict[tuple[str, int], list[float]]) -> dict:
    """Medians and ranges per limit and thread count, and their ratio to the reference machine's."""
    limits = {}
    for kind, reference in REFERENCE.items():
        measured = {}
        for threads in ("1", "2"):
            values = samples.get((kind, int(threads)), [])
            if values:
                measured[threads] = {"median": statistics.median(values), "min": min(values),
                                     "max": max(values), "n": len(values)}
        factor = {t: round(m["median"] / reference[t], 3) for t, m in measured.items()}
        limits[kind] = {"measured": measured, "reference_machine": reference, "factor": factor,
                        "unit": UNIT[kind], "source": SOURCE[kind]}
        if not measured:
            limits[kind]["note"] = "not measured (likwid-bench missing)" if kind == "stream" else "not measured"
    return limits


def scaled_target(limits: dict, kernel: str, parallel: int, target: float) -> dict:
    """The target scaled to this machine, or {} when its limit was not measured."""
    bound = BOUND_OF[kernel]
    scale = limits[bound]["factor"].get(str(parallel))
    if not scale:
        return {}
    return {"target_scaled_to_this_machine": round(target * scale, 2), "scaled_by": f"{bound} limit x{scale:.3f}"}
