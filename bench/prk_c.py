"""`make bench` topic: the C PRK kernels at the sizes of the PRK reference table.

Why this exists: the issue sets speed targets for the C kernels (at least the reference rates of
ParRes/Kernels' own C on a machine like this one, dgemm at least twice the blocked reference, and
nstream at least 0.9x `likwid-bench -t stream`). Timed tests would be flaky on a shared machine,
so the figures are measured here: every configuration `repetitions` times, interleaved in a
seeded random order (drift must not look like an effect), reporting the median and the range.

Rates are compared on PRK's own counting (``parameters.prk_work_per_iteration`` divided by the
kernel's mean iteration time), because our JSON counts bytes and flops as actually
moved/executed, which differs from PRK's count for transpose (PRK counts 2 of the 4 matrices
touched), stencil (PRK counts the zero-weight centre point) and sparse (PRK omits the
vector fill and result update). Both numbers are reported.

The same run also measures this machine's stream and `np.dot` limits (bench/limits.py) and
states each target a second time, scaled by this machine's limit over the reference machine's.

``run(quick)`` returns a dict; ``python bench/prk_c.py [--quick] [--output FILE]`` prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

import limits as machine  # noqa: E402
from twelveways import measure  # noqa: E402
from twelveways.prk import build  # noqa: E402

SEED = 20240611
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")

#: the PRK reference table (ParRes/Kernels C, gcc -O3 -march=native, medians of 5, 2-core machine).
REFERENCE = {
    "nstream": {"args": [20_000_000], "label": "nstream 20M", "unit": "MB/s",
                "c-serial": 23199, "c-openmp": 30025, "c-mpi": 33993},
    "transpose": {"args": [4096, 32], "label": "transpose 4096 tile 32", "unit": "MB/s",
                  "c-serial": 1426, "c-openmp": 2781, "c-mpi": 2623},
    "stencil": {"args": [4000, 2], "label": "stencil 4000 star r=2", "unit": "MFlop/s",
                "c-serial": 5395, "c-openmp": 10156, "c-mpi": 12212},
    "p2p": {"args": [4000, 4000], "label": "p2p 4000x4000", "unit": "MFlop/s",
            "c-serial": 1157, "c-openmp": 2198, "c-mpi": 2258},
    "dgemm": {"args": [1000], "label": "dgemm 1000", "unit": "MFlop/s",
              "c-serial": 11046, "c-openmp": 18412, "c-mpi": None, "target_factor": 2.0},
    "sparse": {"args": [10, 2], "label": "sparse lsize 10 r=2", "unit": "MFlop/s",
               "c-serial": 197, "c-openmp": 459, "c-mpi": None},
}
ITERATIONS = {"nstream": 20, "transpose": 10, "stencil": 10, "p2p": 10, "dgemm": 5, "sparse": 10}


def _configs() -> list[tuple[str, str, int, int]]:
    """(kernel, implementation, ranks, threads): serial, OpenMP 1 and 2, MPI 1 and 2."""
    out = []
    for kernel in REFERENCE:
        out += [(kernel, "c-serial", 1, 1), (kernel, "c-openmp", 1, 1), (kernel, "c-openmp", 1, 2)]
        if kernel in build.MPI_KERNELS:
            out += [(kernel, "c-mpi", 1, 1), (kernel, "c-mpi", 2, 1)]
    return out


def _run_kernel(kernels_dir: Path, kernel: str, impl: str, ranks: int, threads: int, iterations: int) -> dict:
    program = kernels_dir / f"{kernel}-{impl.removeprefix('c-')}"
    argv = [str(program), str(iterations), *map(str, REFERENCE[kernel]["args"])]
    if impl == "c-mpi":
        argv = [MPIEXEC, "-n", str(ranks), *argv]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("TW_PRK_PERTURB", None)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if len(lines) != 1:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1], "returncode": done.returncode}
    doc = json.loads(lines[0])
    prk_work = doc["parameters"]["prk_work_per_iteration"]
    return {"rate": doc["rate"], "prk_rate": 1e-6 * prk_work / doc["avg_time_s"], "valid": doc["valid"],
            "avg_time_s": doc["avg_time_s"], "unit": doc["rate_unit"], "returncode": done.returncode}


def _summary(values: list[float]) -> dict:
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _measure(kernels_dir: Path, configs: list, repetitions: int, quick: bool) -> tuple[dict, dict]:
    """Run every configuration and limit probe, interleaved in a seeded order per repetition so drift is not an effect."""
    jobs = [("kernel", c) for c in configs] + [("limit", probe) for probe in machine.jobs()]
    samples: dict = {job: [] for job in jobs}
    errors: dict = {}
    for rep in range(repetitions):
        for job in measure.seeded_order(jobs, SEED + rep):
            kind, what = job
            if kind == "kernel":
                kernel, impl, ranks, threads = what
                iterations = max(2, ITERATIONS[kernel] // (2 if quick else 1))
                result = _run_kernel(kernels_dir, kernel, impl, ranks, threads, iterations)
            else:
                result = machine.probe(*what)
            if "error" in result or result.get("valid") is False:
                errors.setdefault(f"{kind} {what}", []).append(result.get("error", "validation failed"))
                continue
            samples[job].append(result)
    return samples, errors


def _figure(config: tuple[str, str, int, int], got: list[dict], limits: dict) -> dict:
    """One configuration's figure: its rates set against the reference, the target and the target scaled to this machine."""
    kernel, impl, ranks, threads = config
    ref = REFERENCE[kernel]
    parallel = max(ranks, threads)
    reference = ref.get(impl) if impl == "c-serial" or parallel == 2 else None
    factor = ref.get("target_factor", 1.0) if impl != "c-mpi" else 1.0
    prk = _summary([s["prk_rate"] for s in got])
    ours = _summary([s["rate"] for s in got])
    entry = {
        "kernel": kernel, "label": ref["label"], "implementation": impl, "ranks": ranks, "threads": threads,
        "unit": ref["unit"], "rate_prk_counting": prk, "rate_as_reported": ours,
        "avg_time_s": _summary([s["avg_time_s"] for s in got]),
        "reference": reference, "target": reference * factor if reference else None,
    }
    if reference and prk["median"]:
        entry["ratio_to_reference"] = round(prk["median"] / reference, 3)
        entry["meets_target"] = prk["median"] >= reference * factor
        entry.update(machine.scaled_target(limits, kernel, parallel, reference * factor))
        if "target_scaled_to_this_machine" in entry:
            entry["meets_scaled_target"] = prk["median"] >= entry["target_scaled_to_this_machine"]
    return entry


def _likwid(likwid: str | None, limits: dict, samples: dict) -> dict:
    """The nstream >= 0.9x `likwid-bench -t stream` check, or why that bound could not be measured."""
    if not likwid:
        return {"available": False,
                "note": "likwid-bench not installed (Debian package `likwid`); no stream bound measured"}
    stream = {}
    for threads in (1, 2):
        lk = limits["stream"]["measured"].get(str(threads), _summary([]))
        impl_config = ("nstream", "c-serial", 1, 1) if threads == 1 else ("nstream", "c-openmp", 1, 2)
        ns = _summary([s["rate"] for s in samples[("kernel", impl_config)]])
        entry = {"likwid_stream_MBps": lk, "nstream_MBps": ns, "nstream_implementation": impl_config[1],
                 "reference_machine_likwid_MBps": machine.REFERENCE["stream"][str(threads)]}
        if lk["median"] and ns["median"]:
            entry["ratio"] = round(ns["median"] / lk["median"], 3)
            entry["meets_0.9"] = ns["median"] >= 0.9 * lk["median"]
        stream[str(threads)] = entry
    return {"available": True, "command": "likwid-bench -t stream -w S0:1GB:<threads>",
            "note": "likwid counts 24 bytes per element (no write-allocate); nstream counts 32 "
                    "(A is read and written)", "threads": stream}


def _targets_summary(figures: list[dict], limits: dict, started: float) -> dict:
    """The verdict at a glance: targets met and missed (as stated and scaled to this machine), and the run's cost."""
    met = [f for f in figures if "meets_target" in f]
    scaled = [f for f in met if "meets_scaled_target" in f]
    return {
        "targets_checked": len(met),
        "targets_met": sum(1 for f in met if f["meets_target"]),
        "missed": [f"{f['label']} {f['implementation']} r{f['ranks']}t{f['threads']}: "
                   f"{f['rate_prk_counting']['median']:.0f} < {f['target']:.0f} {f['unit']}"
                   for f in met if not f["meets_target"]],
        "this_machine_vs_reference_machine": {kind: v["factor"] for kind, v in limits.items()},
        "scaled_targets_checked": len(scaled),
        "scaled_targets_met": sum(1 for f in scaled if f["meets_scaled_target"]),
        "scaled_missed": [f"{f['label']} {f['implementation']} r{f['ranks']}t{f['threads']}: "
                          f"{f['rate_prk_counting']['median']:.0f} < {f['target_scaled_to_this_machine']:.0f} {f['unit']}"
                          for f in scaled if not f["meets_scaled_target"]],
        "seconds": round(time.time() - started, 1),
        "load_average_at_end": os.getloadavg(),
    }


def run(quick: bool = False) -> dict:
    """Measure the reference table's configurations; figures with medians, ranges, references."""
    repetitions = 3 if quick else 5
    started = time.time()
    load_at_start = os.getloadavg()
    kernels_dir = ROOT / "build" / "kernels"
    manifest = build.build_kernels(kernels_dir)
    likwid = shutil.which("likwid-bench")

    configs = _configs()
    samples, errors = _measure(kernels_dir, configs, repetitions, quick)
    limits = machine.summarize({what: [s["rate"] for s in got] for (kind, what), got in samples.items()
                                if kind == "limit"})
    figures = [_figure(config, samples[("kernel", config)], limits) for config in configs]

    result = {
        "topic": "prk_c",
        "quick": quick,
        "repetitions": repetitions,
        "order": f"configurations interleaved in a seeded random order per repetition (seed {SEED}+rep)",
        "statistic": "median and range over repetitions of each run's rate (mean of iterations 1..N, warm-up excluded)",
        "comparison": "rate_prk_counting = PRK's work count / our mean iteration time, compared with the "
                      "reference table; rate_as_reported uses our bytes/flops as moved/executed",
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "load_average_at_start": load_at_start},
        "build": {"compiler": manifest["compiler"].get("version"), "cflags": manifest["cflags"]},
        "machine_limits": limits,
        "figures": figures,
        "errors": errors,
    }
    result["likwid"] = _likwid(likwid, limits, samples)
    result["summary"] = _targets_summary(figures, limits, started)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions and half the iterations")
    parser.add_argument("--output", help="write the JSON here instead of stdout")
    args = parser.parse_args()
    result = run(quick=args.quick)
    text = json.dumps(result, indent=2)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
