"""Measured upper bounds of this machine (SC15 R11): memory bandwidth and peak flop rate.

* **Memory bandwidth**: the C nstream kernel (``nstream-serial`` at one thread, ``nstream-openmp``
  at every thread count of the sweep and at all usable cores) on vectors whose footprint (three
  arrays) is at least ``prk.bounds.llc_factor`` (>= 4) times the last-level cache, read from
  ``/sys/devices/system/cpu`` (``lscpu -B`` as the fallback).  Each timed iteration gives one
  bandwidth sample, bytes moved / time, in MB/s (10^6 B/s, PRK's unit).
* **Peak flop rate**: a BLAS dgemm through NumPy (``np.matmul`` of two ``dgemm_order``-square
  fp64 matrices) with the BLAS pool limited by threadpoolctl to the same thread counts; each
  timed call gives one sample, 2 n^3 / time, in MFlop/s.  The product is checked (the sums of
  A B's entries equal colsum(A) . rowsum(B)) so a wrong BLAS cannot pass as a fast one.

Where they are stored (the notebooks read either):

* ``results/bounds.nc``: family ``bounds``, one row per sample: ``benchmark = "bounds"``,
  ``workload`` ``memory_bandwidth`` (metric ``bandwidth``, unit ``MB/s``) or ``peak_flops``
  (metric ``flop_rate``, unit ``MFlop/s``), ``implementation`` (``c-serial``, ``c-openmp``,
  ``numpy-blas``), ``threads``, ``size`` (nstream length or dgemm order), ``iteration`` (0 =
  warm-up, never summarized);
* ``results/bounds.json``: the same summarized per thread count (median, max, n) plus the LLC
  that sized the run, the best bandwidth and flop rate, and the roofline ridge point.

CLI: ``python -m twelveways.prk.bounds --config results/config.json --kernels-dir build/kernels
--output results/bounds.nc --json results/bounds.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .. import config as config_module
from .. import results
from ..cliargs import add_config, add_environment
from ..errors import KernelError, MeasurementError, TwelveWaysError
from ..families.prk_config import Bounds, PrkConfig
from . import run

_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)")


def _parse_size(text: str) -> int:
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"unreadable cache size {text!r}")
    return int(match.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[match.group(2)]


def last_level_cache(sysfs: str | os.PathLike = "/sys/devices/system/cpu") -> dict:
    """The last-level cache: level, bytes per instance, instances, total bytes, and where it was read."""
    root = Path(sysfs)
    found: dict[tuple[int, str], int] = {}
    for index in sorted(root.glob("cpu[0-9]*/cache/index[0-9]*")):
        try:
            kind = (index / "type").read_text().strip()
            if kind not in ("Data", "Unified"):
                continue
            level = int((index / "level").read_text())
            size = _parse_size((index / "size").read_text())
            shared = (index / "shared_cpu_list").read_text().strip()
        except (OSError, ValueError):
            continue
        found[(level, shared)] = size
    if found:
        level = max(lvl for lvl, _ in found)
        sizes = [size for (lvl, _), size in found.items() if lvl == level]
        return {"level": level, "bytes_per_instance": max(sizes), "instances": len(sizes), "bytes": int(sum(sizes)),
                "source": str(root)}
    try:
        text = subprocess.run(["lscpu", "-B"], capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise MeasurementError("cannot read the cache sizes (no /sys cache entries, lscpu failed)", cause=exc) from exc
    best = None
    for line in text.splitlines():
        match = re.match(r"^L(\d)[di]? cache:\s+(\d+)(?:\s+\((\d+) instances?\))?", line.strip())
        if match and not line.strip().startswith(f"L{match.group(1)}i"):
            level, total, count = int(match.group(1)), int(match.group(2)), int(match.group(3) or 1)
            if best is None or level > best["level"]:
                best = {"level": level, "bytes_per_instance": total // count, "instances": count, "bytes": total,
                        "source": "lscpu -B"}
    if best is None:
        raise MeasurementError("cannot read the cache sizes (lscpu -B shows no cache lines)")
    return best


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def thread_levels(prk: PrkConfig) -> list[int]:
    """The sweep's thread counts and all usable cores."""
    return sorted(set(prk.threads) | {usable_cores()})


def nstream_length(bounds: Bounds, llc_bytes: int) -> int:
    """Elements per vector so that three vectors span at least llc_factor x the LLC."""
    return max(bounds.nstream_length, math.ceil(bounds.llc_factor * llc_bytes / (3 * 8)))


def _summary(values: Sequence[float]) -> dict:
    arr = np.asarray(values, dtype=float)
    return {"median": float(np.median(arr)), "max": float(arr.max()), "min": float(arr.min()), "n": int(arr.size)}


def measure_bandwidth(prk: PrkConfig, *, length: int, kernels_dir,
                      implementations: Sequence[str] = ("c-serial", "c-openmp"),
                      extra_env: Mapping[str, str] | None = None) -> tuple[list[dict], dict]:
    """nstream bandwidth samples (rows) and their summary per implementation and thread count."""
    rows, summary, seed = [], {}, prk.seed
    for implementation in implementations:
        levels = [1] if implementation in ("c-serial", "numpy") else thread_levels(prk)
        for threads in levels:
            inv = run.Invocation("nstream", implementation, (prk.bounds.nstream_iterations, length), threads=threads)
            samples = []
            for repeat in range(prk.bounds.repeats):
                doc = run.run(inv, kernels_dir, timeout=prk.timeout_s, extra_env=extra_env)
                moved = float(doc["bytes_per_iteration"])
                run_id = f"bounds/nstream/{implementation}/t{threads}#{repeat}"
                for iteration, seconds in enumerate([max(doc["warmup_times"]), *doc["iteration_max_times"]]):
                    value = 1e-6 * moved / seconds if seconds > 0 else math.nan
                    rows.append(_row("memory_bandwidth", implementation, int(doc["threads"]), length, seed, run_id,
                                     iteration, "bandwidth", value, "MB/s", bool(doc["valid"])))
                    if iteration > 0 and doc["valid"]:
                        samples.append(value)
            if not samples:
                raise KernelError(f"nstream {implementation} at {threads} thread(s) gave no valid bandwidth sample")
            summary[f"{implementation}/t{threads}"] = {"implementation": implementation, "threads": threads,
                                                        "MB_per_s": _summary(samples)}
    return rows, summary


def measure_peak_flops(prk: PrkConfig) -> tuple[list[dict], dict]:
    """BLAS dgemm (np.matmul) samples at each thread count, limited with threadpoolctl."""
    from threadpoolctl import threadpool_info, threadpool_limits

    n, seed = prk.bounds.dgemm_order, prk.seed
    rng = np.random.default_rng(seed)
    a, b = rng.random((n, n)), rng.random((n, n))
    c = np.empty((n, n))
    expected = float(a.sum(axis=0) @ b.sum(axis=1))
    rows, summary = [], {}
    for threads in thread_levels(prk):
        with threadpool_limits(limits=threads, user_api="blas"):
            actual = max([p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"] or [1])
            samples = []
            run_id = f"bounds/dgemm/numpy-blas/t{threads}"
            for iteration in range(prk.bounds.repeats + 1):
                start = time.perf_counter_ns()
                np.matmul(a, b, out=c)
                seconds = (time.perf_counter_ns() - start) * 1e-9
                valid = abs(float(c.sum()) - expected) <= 1e-8 * abs(expected)
                value = 1e-6 * 2.0 * n ** 3 / seconds
                rows.append(_row("peak_flops", "numpy-blas", actual, n, seed, run_id, iteration, "flop_rate", value,
                                 "MFlop/s", valid))
                if iteration > 0 and valid:
                    samples.append(value)
        if not samples:
            raise MeasurementError(f"the BLAS dgemm at {threads} thread(s) gave wrong products")
        summary[f"numpy-blas/t{threads}"] = {"implementation": "numpy-blas", "threads": threads, "blas_threads": actual,
                                             "MFlop_per_s": _summary(samples)}
    return rows, summary


#: Bounds are sampled a fixed number of times (prk.bounds.repeats), never repeated to a CI target (R5 note).
STOP_REASON = "fixed_repeats"


def checklist_attrs() -> dict:
    """What the checklist reads about the bounds (docs/checklist-evidence.md): timer, thread summary, op count."""
    return {
        "timer": "wall clock: clock_gettime(CLOCK_MONOTONIC) inside the C nstream kernels; time.perf_counter_ns "
                 "around each np.matmul call",
        "rank_summary": "one process (ranks 1); nstream OpenMP: each iteration's time spans the parallel loop up to its "
                        "implicit barrier (all threads done), the per-iteration value is the maximum over ranks (one "
                        "rank); dgemm: one BLAS call timed from the calling thread, which returns after all BLAS threads",
        "op_count": "executed",
        "op_count_note": "nstream: bytes as the kernel moves them (bytes_per_iteration of its JSON); dgemm: 2 n^3 "
                         "flops of the classical product that the BLAS executes",
        "ci_notes": {m: "bounds: a fixed number of runs (prk.bounds.repeats), not repeated until a CI target; "
                        "the bound is the highest median (bounds.json)" for m in ("bandwidth", "flop_rate")},
    }


def _row(workload, implementation, threads, size, seed, run_id, iteration, metric, value, unit, valid) -> dict:
    return {"benchmark": "bounds", "workload": workload, "implementation": implementation, "ranks": 1,
            "threads": int(threads), "size": int(size), "precision": "fp64", "seed": int(seed), "run_id": run_id,
            "iteration": int(iteration), "rank": -1, "metric": metric, "value": float(value), "unit": unit,
            "valid": bool(valid), "stop_reason": STOP_REASON}


def measure(config: Mapping, *, kernels_dir, bandwidth_implementations: Sequence[str] = ("c-serial", "c-openmp"),
            extra_env: Mapping[str, str] | None = None) -> tuple[list[dict], dict]:
    """All bound samples and the summary written to bounds.json."""
    prk = PrkConfig.from_config(config)
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if not prk.bounds.enabled:
        return [], {"measured": False, "reason": "prk.bounds.enabled is false", "created_utc": created}
    llc = last_level_cache()
    length = nstream_length(prk.bounds, llc["bytes"])
    bw_rows, bandwidth = measure_bandwidth(prk, length=length, kernels_dir=kernels_dir,
                                           implementations=bandwidth_implementations, extra_env=extra_env)
    fl_rows, flops = measure_peak_flops(prk)
    best_bw = max(v["MB_per_s"]["median"] for v in bandwidth.values())
    best_fl = max(v["MFlop_per_s"]["median"] for v in flops.values())
    summary = {
        "measured": True,
        "created_utc": created,
        "llc": llc,
        "memory_bandwidth": {"kernel": "nstream", "length": length, "footprint_bytes": 3 * 8 * length,
                             "footprint_over_llc": 3 * 8 * length / llc["bytes"], "unit": "MB/s",
                             "by_level": bandwidth, "best_median": best_bw},
        "peak_flops": {"kernel": "BLAS dgemm via numpy.matmul", "order": prk.bounds.dgemm_order,
                       "unit": "MFlop/s", "by_level": flops, "best_median": best_fl},
        "roofline": {"bandwidth_MB_per_s": best_bw, "peak_MFlop_per_s": best_fl,
                     "ridge_flop_per_byte": best_fl / best_bw},
        "summary_rule": "each level: median of its timed samples (iteration 0 excluded); best: the highest median",
    }
    return bw_rows + fl_rows, summary


def write(rows: list[dict], summary: dict, *, output: str | Path, json_path: str | Path, attrs: dict) -> None:
    """Write bounds.nc (family bounds) and bounds.json, each atomically."""
    ds = results.from_records(rows, family="bounds", attrs={**attrs, **checklist_attrs(), "bounds_summary": summary})
    results.write(ds, output)
    json_path = Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{json_path.name}.", dir=json_path.parent)
    with os.fdopen(fd, "w") as handle:
        json.dump(summary, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; results are meant to be shared
    os.replace(tmp, json_path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twelveways.prk.bounds",
                                     description="Measure memory bandwidth and peak flop rate -> results/bounds.{nc,json}")
    add_config(parser)
    parser.add_argument("--kernels-dir", default="build/kernels", help="folder of the C kernel binaries")
    parser.add_argument("--output", default="results/bounds.nc", help="results file (family bounds)")
    parser.add_argument("--json", default="results/bounds.json", help="summary JSON")
    add_environment(parser)
    parser.add_argument("--bandwidth-implementation", choices=["c", "numpy"], default="c",
                        help="nstream used for the bandwidth (c: the C kernels, the real bound; numpy: for tests)")
    args = parser.parse_args(argv)
    try:
        config = config_module.load(args.config)
        impls = ("c-serial", "c-openmp") if args.bandwidth_implementation == "c" else ("numpy",)
        rows, summary = measure(config, kernels_dir=args.kernels_dir, bandwidth_implementations=impls)
        write(rows, summary, output=args.output, json_path=args.json,
              attrs=results.provenance(args.environment, config))
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr, flush=True)
        return 1
    if summary.get("measured"):
        print(f"memory bandwidth {summary['roofline']['bandwidth_MB_per_s']:.0f} MB/s, "
              f"peak {summary['roofline']['peak_MFlop_per_s']:.0f} MFlop/s -> {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
