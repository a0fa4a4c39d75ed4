"""A small synthetic result set in the layout of data/reference/, and its report build.

The numbers are invented but shaped like real PRK output (per-rank, per-iteration times with a
warm-up iteration, one failed-validation run, bounds), so every notebook path is exercised.
The environment's host name is hostile markup: the report must show it escaped.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from twelveways import results

HOSTILE = "<script>alert(1)</script>"

#: (workload, implementation, ranks, threads, size, scaling, base size, base time s), labelled as the
#: real sweep labels them: one processing element "single", more "strong" or "weak".
CONFIGS = [
    ("nstream", "c-serial", 1, 1, 1_000_000, "single", 1_000_000, 0.0040),
    ("nstream", "c-openmp", 1, 1, 1_000_000, "single", 1_000_000, 0.0041),
    ("nstream", "c-openmp", 1, 2, 1_000_000, "strong", 1_000_000, 0.0024),
    ("nstream", "c-mpi", 1, 1, 1_000_000, "single", 1_000_000, 0.0041),
    ("nstream", "c-mpi", 2, 1, 1_000_000, "strong", 1_000_000, 0.0023),
    ("nstream", "c-mpi", 2, 1, 2_000_000, "weak", 1_000_000, 0.0046),
    ("nstream", "numpy", 1, 1, 1_000_000, "single", 1_000_000, 0.0090),
    ("dgemm", "c-serial", 1, 1, 200, "single", 200, 0.0030),
    ("dgemm", "c-openmp", 1, 2, 200, "strong", 200, 0.0017),
]


def _work(workload: str, size: int) -> tuple[float, float]:
    if workload == "nstream":
        return 32.0 * size, 2.0 * size
    return 32.0 * size * size, 2.0 * size ** 3


def records(seed: int = 3, iterations: int = 12, runs: int = 2) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for workload, impl, ranks, threads, size, scaling, base_size, base in CONFIGS:
        bytes_, flops = _work(workload, size)
        for run in range(runs):
            run_id = f"{workload}-{impl}-{ranks}x{threads}-{size}-{run}"
            valid = True
            for iteration in range(iterations + 1):
                for rank in range(ranks):
                    value = base * (3.0 if iteration == 0 else 1.0) * rng.lognormal(0.0, 0.05)
                    rows.append(dict(benchmark="prk", workload=workload, implementation=impl, ranks=ranks,
                                     threads=threads, size=size, precision="fp64", seed=-1, run_id=run_id,
                                     iteration=iteration, rank=rank, metric="time", value=value, unit="s",
                                     valid=valid, scaling=scaling, base_size=base_size, bytes_per_iteration=bytes_,
                                     flops_per_iteration=flops, stop_reason="ci_target_met"))
    # one run whose validation failed: its (absurdly fast) samples must never be summarized
    for iteration in range(iterations + 1):
        rows.append(dict(benchmark="prk", workload="nstream", implementation="c-serial", ranks=1, threads=1,
                         size=1_000_000, precision="fp64", seed=-1, run_id="nstream-invalid", iteration=iteration,
                         rank=0, metric="time", value=1e-6, unit="s", valid=False, scaling="single", base_size=1_000_000,
                         bytes_per_iteration=32e6, flops_per_iteration=2e6, stop_reason="validation_failed"))
    return rows


def bound_records(seed: int = 4) -> list[dict]:
    """Bounds as twelveways.prk.bounds writes them to results/bounds.nc (one row per timed sample)."""
    rng = np.random.default_rng(seed)
    bounds = []
    for pe, (bw, peak) in {1: (9000.0, 40000.0), 2: (11000.0, 78000.0)}.items():
        for sample in range(5):
            common = dict(benchmark="bounds", ranks=1, threads=pe, precision="fp64", seed=-1, iteration=sample + 1,
                          rank=-1, valid=True)
            bounds.append({**common, "workload": "memory_bandwidth", "implementation": "c-openmp", "size": 50_000_000,
                           "run_id": f"bw-{pe}", "metric": "bandwidth", "value": bw * rng.lognormal(0, 0.02),
                           "unit": "MB/s"})
            bounds.append({**common, "workload": "peak_flops", "implementation": "numpy-blas", "size": 2000,
                           "run_id": f"peak-{pe}", "metric": "flop_rate", "value": peak * rng.lognormal(0, 0.02),
                           "unit": "MFlop/s"})
    return bounds


ENVIRONMENT = {
    "format": "twelveways-environment/1",
    "host": {"hostname": HOSTILE},
    "hardware": {"cpu": {"model": "Synthetic CPU <i>9000</i>", "vendor": "Nobody", "architecture": "x86_64",
                         "sockets": 1, "cores_per_socket": 2, "threads_per_core": 1, "flags": ["avx2", "fma"]},
                 "memory": {"total_bytes": 8 * 2**30},
                 "frequency": {"governor": {"unavailable": "no cpufreq in this VM"}}},
    "os": {"distribution": "Debian GNU/Linux 12", "kernel_release": "6.1.0", "glibc": "2.36"},
    "python": {"version": "3.11.2", "packages": {f"package-{i}": f"1.{i}" for i in range(40)}},
    "environment_variables": {"OMP_NUM_THREADS": "2", "EVIL": "\"><img src=x onerror=alert(2)>"},
    "git": {"commit": "0123456789abcdef", "dirty": False},
    "hash": "synthetic-environment-hash",
}

# the end capture differs from the start in one field of the hash, by a string that must reach the report escaped
ENVIRONMENT_END = {**ENVIRONMENT, "hardware": {**ENVIRONMENT["hardware"], "frequency": {"governor": "<changed>"}}, "load": {
    "start": {"label": "start", "loadavg": {"1min": 0.5}, "processes": 90},
    "end": {"label": "end", "loadavg": {"1min": 2.5}, "processes": 95}},
    "comparison": {"against": "results/environment.json", "same_environment": False,
                   "differences": ["hardware.frequency.governor <changed>"]}}

CONFIG = {"seed": 7, "profile": "test", "stages": {"prk": True, "train": False, "infer": False},
          "subset_reasons": {"train": "synthetic set", "infer": "synthetic set"},
          "measurement": {"confidence": 0.95, "ci_target": 0.05, "min_samples": 5, "max_samples": 40, "max_seconds": 6},
          "report": {"title": "Synthetic <b>report</b>", "claims": ""}}

CHECKLIST = {
    "format": "twelveways-checklist/2",
    "verdict": "VALID",
    "valid": True,
    "inputs": ["results/prk.nc"],
    "counts": {"pass": 1, "warn": 1, "fail": 0, "not_applicable": 1, "needs_human": 1},
    "checks": [
        {"id": "R1", "title": "speedup base case and its absolute value", "status": "pass", "satisfied": "Yes",
         "evidence": [{"what": "base case", "value": "c-serial 0.004 s",
                       "source": {"file": "results/prk.nc", "fields": ["scaling", "value"]}}],
         "recommendation": ""},
        {"id": "R5", "title": "deterministic or CIs", "status": "warn", "satisfied": "Partly (warning)",
         "evidence": [{"what": "CIs wider than the target <b>bold</b>", "value": 2, "source": {}}],
         "recommendation": "run longer"},
        {"id": "R9", "title": "all factors documented", "status": "needs_human", "satisfied": "Needs a human",
         "evidence": [], "recommendation": "read the environment section"},
        {"id": "F7", "title": "one network only", "status": "not_applicable", "satisfied": "Not applicable",
         "evidence": [], "recommendation": ""},
    ],
    "claims": [{"id": "C1", "statement": "c-mpi beats numpy <script>x</script>", "verdict": "supported",
                "numbers": {"metric": "time", "unit": "s", "confidence": 0.95, "estimate": 3.8}, "message": "",
                "origin": "config/claims.yaml"}],
}


def write_result_set(folder: Path) -> Path:
    """Write results/prk.nc, environment.json, config.json and checklist.json under ``folder``."""
    folder = Path(folder)
    (folder / "results").mkdir(parents=True, exist_ok=True)
    (folder / "environment.json").write_text(json.dumps(ENVIRONMENT, indent=1))
    (folder / "environment-end.json").write_text(json.dumps(ENVIRONMENT_END, indent=1))
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=1))
    (folder / "checklist.json").write_text(json.dumps(CHECKLIST, indent=1))
    attrs = results.provenance(ENVIRONMENT, CONFIG)
    results.write(results.from_records(records(), "prk", attrs=attrs), folder / "results" / "prk.nc")
    results.write(results.from_records(bound_records(), "bounds", attrs=attrs), folder / "results" / "bounds.nc")
    return folder


def build_synthetic(folder: Path) -> Path:
    """The synthetic set written to ``folder/set`` and its report built through the executed notebooks
    (what `make reader-report` does with data/reference): ``folder/reports/report.html``."""
    from twelveways.report import commands

    ensure_kernelspec()
    return commands.rebuild(write_result_set(folder / "set"), folder / "reports")


def ensure_kernelspec() -> None:
    """Install the project kernelspec into this venv when missing (what `make` does)."""
    import subprocess
    import sys

    from twelveways.report import notebooks
    from twelveways.report.notebooks import NotebookError

    try:
        notebooks.check_kernelspec()
    except NotebookError:
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", notebooks.KERNEL_NAME,
                        "--display-name", notebooks.KERNEL_DISPLAY_NAME], check=True, capture_output=True)
