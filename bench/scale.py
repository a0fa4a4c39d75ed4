"""What the `scale_series` and `scale_tree` bench topics share: generated inputs and a timed child.

Why: the tool's own cost curve (issue 32) is a product figure: `audit` and `compare` of one
configuration with 1,000,000 values under 20 s and 2 GB, and a tree of 2,000 real-size results
under 60 s and 2 GB with time growing linearly in the number of files.  Each command runs as a
child process exactly as a user would run it; its wall time comes from the parent's clock and its
peak resident memory from ``os.wait4`` (the child's own ``ru_maxrss``), and the peak of the
proportional set size of the child and every process under it together (sampled every 0.2 s from
``/proc``: reader and forked check workers included, pages they share counted once).
``TWELVEWAYS_BENCH_FRACTION`` (e.g. 0.05) scales every size down for a quick check that the topic
works; the fraction is recorded beside the figures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SEED = 20261125


def fraction() -> float:
    """Share of the issue's sizes to run (1 unless TWELVEWAYS_BENCH_FRACTION says less)."""
    try:
        value = float(os.environ.get("TWELVEWAYS_BENCH_FRACTION", "1"))
    except ValueError:
        return 1.0
    return min(1.0, max(value, 1e-4))


def timed(argv: list[str]) -> dict:
    """Run one command as a child: wall seconds, CPU seconds (user + system: on a shared machine the wall time
    also counts other people's work), peak RSS in MiB, exit status, last stderr line."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode cached
    start = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                          cwd=ROOT) as child:
        sampler = _TreeMemory(child.pid)
        sampler.start()
        stderr = child.stderr.read()
        sampler.stop.set()
        sampler.join()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    lines = [line for line in stderr.splitlines() if line.strip()]
    return {"seconds": round(seconds, 2), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "peak_tree_pss_mib": round(sampler.peak / 2**20, 1),
            "exit": child.returncode, "stderr_tail": lines[-1][:300] if lines else ""}


class _TreeMemory(threading.Thread):
    """Peak of the summed proportional set size (Pss) of a process and its descendants, sampled."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            self.peak = max(self.peak, sum(_pss(pid) for pid in _tree(self.pid)))


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid] + [p for child in children for p in _tree(int(child))]


def _pss(pid: int) -> int:
    """Bytes of a process's proportional set size (0 when it is gone or /proc says nothing)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def twelveways(*args: str) -> list[str]:
    return [PYTHON, "-m", "twelveways", *map(str, args)]


def warm_bytecode() -> None:
    """Compile the package once, so no figure pays for the first import's bytecode."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([PYTHON, "-c", "import twelveways.checklist.audit, twelveways.compare.cli"], env=env,
                   cwd=ROOT, check=False, capture_output=True)


def pyperf_file(path: Path, processes: int, values: int, seed: int, slower_from: int | None = None) -> Path:
    """A pyperf file of one benchmark: ``processes`` x ``values`` lognormal times (optionally 10% slower
    from process ``slower_from`` on), written with pyperf itself."""
    import numpy as np
    import pyperf

    rng = np.random.default_rng(seed)
    runs = []
    for process in range(processes):
        scale = 1.1e-3 if slower_from is not None and process >= slower_from else 1e-3
        times = (rng.lognormal(0.0, 0.05, values) * scale).tolist()
        runs.append(pyperf.Run(times, warmups=[(1, 1.2 * scale)], collect_metadata=False,
                               metadata={"name": "bench", "unit": "second", "loops": 1}))
    pyperf.BenchmarkSuite([pyperf.Benchmark(runs)]).dump(str(path), replace=True)
    return path


def results_tree(root: Path, files: int, source: Path) -> Path:
    """``files`` copies of one real results file, one per run folder (hard links where possible)."""
    for number in range(files):
        folder = root / f"run{number:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / source.name
        try:
            os.link(source, target)
        except OSError:
            shutil.copy(source, target)
    return root
