"""`make bench` topic "dgemm vs OpenBLAS": our C dgemm against the machine's OpenBLAS, same run.

Why this exists: the project asks the C dgemm (kernels/c/dgemm.c) for at least 0.85x of OpenBLAS
dgemm at orders 1000 and 2000 with 1 and 2 threads. Another machine's BLAS rate says little about
this one on this day, so OpenBLAS is timed here, interleaved with our kernel in a seeded random
order per round (drift must not look like an effect; RMIT), and each figure is the median over
rounds; the ratio is the ratio of the medians (ratios are never averaged).  Its spread is the
range of the per-round ratios (ours / OpenBLAS within one round, so a busy neighbour hits both
sides), printed beside it on stderr with the machine's load and steal time (twelveways.contention).

The OpenBLAS side is a small C driver (bench/openblas_dgemm.c) linked against the OpenBLAS that
NumPy ships (numpy.libs/libscipy_openblas64_*.so): the same computation (C += A*B, row-major,
PRK's initialisation), the same timing (iteration 0 a warm-up; the rate is 2 n^3 over the mean of
iterations 1..N) and the same process structure as our kernel, so no interpreter or NumPy
dispatch is in either number. Threads: OMP_NUM_THREADS for ours, OPENBLAS_NUM_THREADS for it; each
program reports the threads it ran with, and a run with any other count is an error, not a figure.

``run(quick)`` returns a dict (3 rounds quick, as the target asks, 9 full);
``python bench/dgemm.py [--quick] [--output FILE]`` prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from twelveways import contention, measure  # noqa: E402
from twelveways.prk import build  # noqa: E402

SEED = 20240620
TARGET = 0.85
ORDERS = {1000: 10, 2000: 3}  # order -> timed iterations (about a second of work each)
#: (implementation, threads): ours serial and OpenMP, OpenBLAS with its own threads
OURS = [("c-serial", 1), ("c-openmp", 1), ("c-openmp", 2)]
OPENBLAS = [("openblas", 1), ("openblas", 2)]
DRIVER = Path(__file__).resolve().parent / "openblas_dgemm.c"
BUILD_DIR = ROOT / "build" / "bench"


def _openblas_library() -> Path:
    """NumPy's bundled OpenBLAS (64-bit integer interface, scipy_ symbol prefix)."""
    import numpy

    found = sorted((Path(numpy.__file__).resolve().parent.parent / "numpy.libs").glob("libscipy_openblas64_*.so"))
    if not found:
        raise RuntimeError("NumPy's OpenBLAS (numpy.libs/libscipy_openblas64_*.so) not found: "
                           "this NumPy was not built with scipy-openblas")
    return found[0]


def build_driver(cc: str = "gcc") -> dict:
    """Compile the OpenBLAS driver into build/bench; the command line is reported (R9)."""
    library = _openblas_library()
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    binary = BUILD_DIR / "openblas_dgemm"
    argv = [cc, "-O2", "-o", str(binary), str(DRIVER), str(library), f"-Wl,-rpath,{library.parent}"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"building the OpenBLAS driver failed: {done.stderr.strip().splitlines()[:1]}")
    return {"binary": str(binary), "library": str(library), "command": shlex.join(argv)}


def _one_run(argv: list[str], env: dict) -> dict:
    """One program run: its JSON line as a dict, or {"error": ...}."""
    env.pop("TW_PRK_PERTURB", None)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(lines) != 1:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}, no output"])[-1]}
    doc = json.loads(lines[0])
    if doc.get("valid") is not True:
        return {"error": "validation failed"}
    return doc


def run_config(kernels_dir: Path, driver: str, impl: str, threads: int, order: int) -> dict:
    """One measurement: {"rate": MFlop/s, ...} or {"error": ...} (also when the program ran on other threads)."""
    iterations = str(ORDERS[order])
    if impl == "openblas":
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
        doc = _one_run([driver, iterations, str(order)], env)
        result = {"rate": doc["rate"], "corename": doc["corename"], "config": doc["config"]} if "error" not in doc else doc
    else:
        program = kernels_dir / f"dgemm-{impl.removeprefix('c-')}"
        doc = _one_run([str(program), iterations, str(order)], dict(os.environ, OMP_NUM_THREADS=str(threads)))
        result = _ours(doc) if "error" not in doc else doc
    if "error" not in doc and doc.get("threads") != threads:
        return {"error": f"ran on {doc.get('threads')} threads, not {threads}"}
    return result


def _ours(doc: dict) -> dict:
    """Our run's rate and blocking, and where its threads' time went (kernels/c/dgemm.c, details.thread_*)."""
    details = doc["validation"]["details"]
    return {"rate": doc["rate"], "blocking": details["blocking"],
            "thread_busy_share_min": details.get("thread_busy_share_min"),
            "thread_start_delay_share": details.get("thread_start_delay_share"),
            "iterations_threads_ended_on_one_cpu": details.get("iterations_threads_ended_on_one_cpu")}


def threads_at_work(ours: list[dict], iterations: int) -> dict:
    """Across rounds: the least busy thread's share of the timed time and the wait until the last thread started
    (medians), and the timed iterations whose threads ended on one CPU (None when a run could not tell): is a
    thread idle at the end (the split), late at the start (waking threads), or sharing a CPU with another?"""
    shares = [s["thread_busy_share_min"] for s in ours if s.get("thread_busy_share_min") is not None]
    delays = [s["thread_start_delay_share"] for s in ours if s.get("thread_start_delay_share") is not None]
    counts = [s.get("iterations_threads_ended_on_one_cpu") for s in ours]
    known = bool(counts) and all(c is not None and c >= 0 for c in counts)
    return {"least_busy_thread_share": round(statistics.median(shares), 3) if shares else None,
            "last_thread_start_delay_share": round(statistics.median(delays), 3) if delays else None,
            "iterations_on_one_cpu": sum(counts) if known else None, "timed_iterations": iterations * len(ours)}


def _summary(values: list[float]) -> dict:
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def measure_all(kernels_dir: Path, driver: str, rounds: int) -> tuple[dict, dict, list]:
    """Every configuration once per round, in a seeded random order: samples (each with its round), errors, and
    each round's machine load (contention.shares: other processes' and the hypervisor's share of the CPU)."""
    configs = [(impl, threads, order) for order in ORDERS for impl, threads in OURS + OPENBLAS]
    samples: dict = {config: [] for config in configs}
    errors: dict = {}
    loads = []
    for round_index in range(rounds):
        start = contention.snapshot()
        for config in measure.seeded_order(configs, SEED + round_index):
            result = run_config(kernels_dir, driver, *config)
            if "error" in result:
                errors.setdefault(" ".join(map(str, config)), []).append(result["error"])
            else:
                samples[config].append({**result, "round": round_index})
        loads.append({"round": round_index, "load_1min": round(os.getloadavg()[0], 2),
                      **contention.shares(start, contention.snapshot())})
    return samples, errors, loads


def paired_ratios(ours: list[dict], blas: list[dict]) -> list[float]:
    """Ours / OpenBLAS within each round where both ran: the spread of the ratio that one round can show."""
    blas_by_round = {s["round"]: s["rate"] for s in blas}
    return [round(s["rate"] / blas_by_round[s["round"]], 3) for s in ours if s["round"] in blas_by_round]


def compare(samples: dict) -> list[dict]:
    """One row per (ours, order): our median rate, OpenBLAS's at the same threads, the ratio of the medians and
    the range of the per-round ratios."""
    rows = []
    for order in ORDERS:
        for impl, threads in OURS:
            ours = samples[(impl, threads, order)]
            blas = samples[("openblas", threads, order)]
            row = {"order": order, "implementation": impl, "threads": threads, "unit": "MFlop/s",
                   "ours": _summary([s["rate"] for s in ours]), "openblas": _summary([s["rate"] for s in blas]),
                   "blocking": ours[0]["blocking"] if ours else None,
                   "openblas_core": blas[0]["corename"] if blas else None, "target_ratio": TARGET}
            row["threads_at_work"] = threads_at_work(ours, ORDERS[order])
            per_round = paired_ratios(ours, blas)
            row["ratio_per_round"] = per_round
            row["ratio_range"] = [min(per_round), max(per_round)] if per_round else None
            if row["ours"]["median"] and row["openblas"]["median"]:
                row["ratio"] = round(row["ours"]["median"] / row["openblas"]["median"], 3)
                row["meets_target"] = row["ratio"] >= TARGET
            rows.append(row)
    return rows


def table(rows: list[dict], loads: list[dict]) -> str:
    """What make bench prints: one line per order and threads, the ratio with its per-round range."""
    lines = [f"dgemm vs OpenBLAS (median of {max((r['ours']['n'] for r in rows), default=0)} interleaved rounds; "
             f"target {TARGET}x)",
             f"{'order':>6} {'ours':<9} {'thr':>3} {'ours MFlop/s':>13} {'OpenBLAS MFlop/s':>17} "
             f"{'ratio':>6}  per-round range"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
        spread = f"{r['ratio_range'][0]:.2f}-{r['ratio_range'][1]:.2f}" if r["ratio_range"] else "-"
        ours, blas = r["ours"]["median"], r["openblas"]["median"]
        lines.append(f"{r['order']:>6} {r['implementation']:<9} {r['threads']:>3} "
                     f"{f'{ours:.0f}' if ours else '-':>13} {f'{blas:.0f}' if blas else '-':>17} {ratio:>6}  {spread}"
                     + ("" if r.get("meets_target", True) else "  below target"))
        work = r["threads_at_work"]
        if r["threads"] > 1 and work["least_busy_thread_share"] is not None:
            on_one = work["iterations_on_one_cpu"]
            delay = work["last_thread_start_delay_share"]
            lines.append(f"{'':>8}least busy thread at work {work['least_busy_thread_share']:.0%} of the timed time"
                         + (f", last thread started after {delay:.0%} of it; " if delay is not None else "; ")
                         + (f"threads ended on one CPU in {on_one} of {work['timed_iterations']} timed iterations"
                            if on_one is not None else "CPUs of the threads unknown"))
    busy = [x for x in loads if contention.is_busy(x)]
    lines.append(f"load: 1-minute load {', '.join(str(x['load_1min']) for x in loads)} after each round on "
                 f"{os.cpu_count()} CPUs; {len(busy)} of {len(loads)} rounds busy (others >= "
                 f"{contention.BUSY_OTHERS_SHARE:.0%} or steal >= {contention.BUSY_STEAL_SHARE:.0%} of the CPU time)"
                 + (": rerun on a quiet machine before judging the ratios" if busy else ""))
    return "\n".join(lines)


def run(quick: bool = False) -> dict:
    """Build ours and the OpenBLAS driver, measure interleaved, and compare medians."""
    rounds = 3 if quick else 9
    started, load_at_start = time.time(), os.getloadavg()
    kernels_dir = ROOT / "build" / "kernels"
    manifest = build.build_kernels(kernels_dir, kernels=["dgemm"], variants=["serial", "openmp"])
    driver = build_driver()
    samples, errors, loads = measure_all(kernels_dir, driver["binary"], rounds)
    rows = compare(samples)
    print(table(rows, loads), file=sys.stderr, flush=True)
    config = next((s[0]["config"] for k, s in samples.items() if k[0] == "openblas" and s), None)
    return {
        "topic": "dgemm",
        "title": "dgemm vs OpenBLAS",
        "quick": quick,
        "repetitions": rounds,
        "order": f"configurations interleaved in a seeded random order per round (seed {SEED}+round)",
        "statistic": "median and range over rounds of each run's rate (2 n^3 / mean of iterations 1..N, "
                     "warm-up excluded); ratio = our median / OpenBLAS median at the same order and threads; "
                     "ratio_range = min and max of ours / OpenBLAS within each round",
        "reference": "OpenBLAS cblas_dgemm via bench/openblas_dgemm.c, linked against NumPy's bundled OpenBLAS "
                     "(not numpy.dot): same matrices, C += A*B, same timing as the PRK kernel",
        "openblas": {**driver, "config": config},
        "build": {"compiler": manifest["compiler"].get("version"), "cflags": manifest["cflags"]},
        "iterations": ORDERS,
        "figures": rows,
        "errors": errors,
        "load_per_round": loads,
        "summary": {
            "target": f"ours >= {TARGET}x OpenBLAS at the same threads (c-serial and c-openmp on 1, c-openmp on 2)",
            "ratios": {f"{r['order']} {r['implementation']} t{r['threads']}": r.get("ratio") for r in rows},
            "ratio_ranges": {f"{r['order']} {r['implementation']} t{r['threads']}": r["ratio_range"] for r in rows},
            "targets_met": sum(1 for r in rows if r.get("meets_target")),
            "targets_checked": len(rows),
            "busy_rounds": sum(1 for x in loads if contention.is_busy(x)),
            "load_average_at_start": load_at_start,
            "load_average_at_end": os.getloadavg(),
            "seconds": round(time.time() - started, 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 interleaved rounds instead of 9")
    parser.add_argument("--output", help="write the JSON here instead of stdout")
    args = parser.parse_args()
    text = json.dumps(run(quick=args.quick), indent=2)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
