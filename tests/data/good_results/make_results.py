"""Crafted results for the checklist tests: one clean set, and the same set with exactly one seeded violation.

``build(folder, violation=None)`` writes ``prk.nc``, ``train.nc``, ``inference.nc``,
``environment.json`` and ``config.json`` into ``folder`` and returns their paths.  The clean set
carries every piece of evidence docs/checklist-evidence.md asks for, so every applicable check
passes; each entry of :data:`VIOLATIONS` changes one thing and names the one check that must fail.
Run as a script to write the clean set (or ``--violation NAME``) somewhere for a manual audit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats as sps

from twelveways import results

#: violation name -> the only check that must fail
VIOLATIONS = {
    "speedup_without_base_case": "R1",
    "subset_without_reason": "R2",
    "rate_arithmetic_mean": "R3",
    "averaged_ratios": "R4",
    "ci_wider_than_target": "R5",
    "normality_assumed_on_skewed_data": "R6",
    "per_iteration_speedup_without_time_to_quality": "F2",
    "tuning_runs_not_reported": "F4",
    "rate_without_dtype": "F5",
    "io_excluded_from_end_to_end": "F10",
    "relative_accuracy_without_definition": "F12",
}

ENV_HASH = "e" * 64
PROVENANCE = {"environment_hash": ENV_HASH, "config_hash": "c" * 64, "git_commit": "0" * 40, "git_dirty": 0}


def _row(**fields):
    base = {"benchmark": "prk", "workload": "", "implementation": "", "ranks": 1, "threads": 1, "size": 0,
            "precision": "fp64", "seed": -1, "run_id": "", "iteration": -1, "rank": -1, "metric": "", "value": 0.0,
            "unit": "", "valid": True}
    base.update(fields)
    return base


def prk(violation, rng):
    rows, attrs = [], dict(PROVENANCE)
    configs = [("nstream", "c-serial", 1, 0.010, 24e6), ("nstream", "c-mpi", 2, 0.006, 24e6),
               ("transpose", "c-serial", 1, 0.020, 16e6), ("transpose", "c-mpi", 2, 0.011, 16e6)]
    for workload, impl, ranks, base, nbytes in configs:
        for run in range(2):
            run_id = f"{workload}-{impl}-{run}"
            for it in range(11):
                noise = 1 + rng.normal(0, 0.005, size=ranks)
                if violation == "normality_assumed_on_skewed_data" and (workload, impl) == ("transpose", "c-serial"):
                    noise = 1 + rng.exponential(0.01, size=ranks)
                times = base * noise * (1.5 if it == 0 else 1.0)
                common = dict(workload=workload, implementation=impl, ranks=ranks, size=1000, run_id=run_id,
                              iteration=it, stop_reason="ci_target_met")
                for r, t in enumerate(times):
                    rows.append(_row(**common, rank=r, metric="time", value=float(t), unit="s"))
                rows.append(_row(**common, rank=-1, metric="time", value=float(times.max()), unit="s"))
                rows.append(_row(**common, rank=-1, metric="rate", value=nbytes / times.max() / 1e6, unit="MB/s"))
                if workload == "nstream":  # nstream's 2 flops per element: an operation rate, so F5's domain
                    rows.append(_row(**common, rank=-1, metric="flop_rate", value=nbytes / 12 / times.max() / 1e6,
                                     unit="MFlop/s", precision="" if violation == "rate_without_dtype" else "fp64"))
    for workload, serial, parallel in (("nstream", 0.010, 0.006), ("transpose", 0.020, 0.011)):
        base_fields = {} if violation == "speedup_without_base_case" else {
            "base_case": "c-serial, one process (best serial)", "base_value": serial}
        rows.append(_row(workload=workload, implementation="c-mpi", ranks=2, size=1000, run_id=f"{workload}-speedup",
                         metric="speedup", value=serial / parallel, unit="1", **base_fields))
    for i in range(6):
        rows.append(_row(benchmark="bounds", workload="nstream", implementation="c-openmp", threads=2, size=10 ** 8,
                         run_id=f"bounds-{i}", metric="bandwidth", value=30000.0 * (1 + rng.normal(0, 0.002)), unit="MB/s"))
        rows.append(_row(benchmark="bounds", workload="peak", implementation="c-openmp", threads=2, size=10 ** 8,
                         run_id=f"bounds-peak-{i}", metric="flop_rate", value=90000.0, unit="MFlop/s"))
    frame = results.to_frame(results.from_records(rows, "prk"))
    pick = lambda w, i, m: frame[(frame.workload == w) & (frame.implementation == i) & (frame.metric == m)  # noqa: E731
                                 & (frame.iteration > 0) & (frame["rank"] == -1)]["value"].to_numpy()
    serial_time = pick("nstream", "c-serial", "time")
    serial_rate = pick("nstream", "c-serial", "rate")
    t_times = pick("transpose", "c-serial", "time")
    t_ci = sps.t.interval(0.95, t_times.size - 1, loc=t_times.mean(), scale=sps.sem(t_times))
    rate_summary = {"metric": "rate", "statistic": "harmonic_mean", "kind": "rate", "value": float(sps.hmean(serial_rate)),
                    "filters": {"workload": "nstream", "implementation": "c-serial"}}
    if violation == "rate_arithmetic_mean":
        rate_summary.update(statistic="arithmetic_mean", value=float(serial_rate.mean()))
    summaries = [
        {"metric": "time", "statistic": "median", "kind": "cost", "value": float(np.median(serial_time)),
         "ci": [float(np.sort(serial_time)[5]), float(np.sort(serial_time)[14])], "ci_method": "median_binomial",
         "ci_target": 0.05, "filters": {"workload": "nstream", "implementation": "c-serial"}},
        rate_summary,
        {"metric": "time", "statistic": "arithmetic_mean", "kind": "cost", "value": float(t_times.mean()),
         "ci": [float(t_ci[0]), float(t_ci[1])], "ci_method": "t",
         "normality_checked": violation != "normality_assumed_on_skewed_data",
         "filters": {"workload": "transpose", "implementation": "c-serial"}},
    ]
    if violation == "averaged_ratios":
        summaries.append({"metric": "speedup", "statistic": "arithmetic_mean", "kind": "ratio", "value": 1.75,
                          "filters": {"implementation": "c-mpi"}, "base_case": "c-serial, one process (best serial)",
                          "base_value": 0.015})
    workloads = ["nstream", "transpose"] + (["stencil"] if violation == "subset_without_reason" else [])
    attrs.update(timer="clock_gettime(CLOCK_MONOTONIC)", synchronization="MPI_Barrier before every iteration",
                 rank_summary="max over ranks per iteration", op_count="executed",
                 levels_available={"workload": workloads, "implementation": ["c-serial", "c-mpi"]},
                 summaries=summaries,
                 comparisons=[{"metric": "time", "a": {"workload": "transpose", "implementation": "c-mpi"},
                               "b": {"workload": "transpose", "implementation": "c-serial"}, "method": "mann_whitney",
                               "effect_size": 1.0, "significant": True}],
                 figures=[{"name": "strong scaling", "shows": "samples", "lines": "ideal", "x": "ranks",
                           "x_kind": "continuous"}])
    return rows, attrs


TRAIN_CONFIGS = [  # workload, dataset, batch, precision, approximation, size, ttq, throughput, iteration time
    ("mlp-small", "digits", 32, "fp32", "none", 8, 10.0, 1000.0, 0.010),
    ("mlp-small", "digits", 128, "fp32", "none", 8, 12.0, 3000.0, 0.013),
    ("mlp-small", "digits", 32, "fp32", "topk", 8, 9.0, 1250.0, 0.008),
    ("mlp-small", "digits", 32, "bf16", "none", 8, 9.5, 1100.0, 0.009),
    ("cnn-small", "synth", 32, "fp32", "none", 8, 20.0, 500.0, 0.020),
    ("mlp-small", "digits", 32, "fp32", "none", 32, 15.0, 700.0, 0.014),
]


def train(violation, rng):
    rows, attrs = [], dict(PROVENANCE)
    for c, (workload, dataset, batch, precision, approx, size, ttq, thr, it_time) in enumerate(TRAIN_CONFIGS):
        for seed in range(6):
            common = dict(benchmark="train", workload=workload, implementation="torch", size=size, precision=precision,
                          seed=seed, run_id=f"c{c}-s{seed}", batch_size=batch, dataset=dataset, approximation=approx,
                          role="final")
            n = lambda: 1 + rng.normal(0, 0.005)  # noqa: E731
            if not (violation == "per_iteration_speedup_without_time_to_quality" and approx == "topk"):
                rows.append(_row(**common, metric="time_to_quality", value=ttq * n(), unit="s", reached_target=True))
            rows.append(_row(**common, metric="throughput", value=thr * n(), unit="samples/s"))
            for it in range(6):
                spread = rng.uniform(0.6, 1.4) if violation == "ci_wider_than_target" and c == 1 else n()
                rows.append(_row(**common, iteration=it, metric="iteration_time", value=it_time * spread * (2 if it == 0 else 1),
                                 unit="s"))
            rows.append(_row(**common, metric="train_accuracy", value=0.99, unit="1"))
            rows.append(_row(**common, metric="test_accuracy", value=0.96 + 0.002 * rng.normal(), unit="1"))
    if violation != "tuning_runs_not_reported":
        for trial, lr in enumerate((0.01, 0.03, 0.1)):
            common = dict(benchmark="train", workload="mlp-small", implementation="torch", size=8, precision="fp32", seed=trial,
                          run_id=f"tune-{trial}", batch_size=32, dataset="digits", approximation="none", role="tuning",
                          learning_rate=lr)
            rows.append(_row(**common, metric="time_to_quality", value=11.0 + trial, unit="s", reached_target=True))
            rows.append(_row(**common, metric="val_accuracy", value=0.95, unit="1"))
    attrs.update(timing_scope="end_to_end", io_included=0 if violation == "io_excluded_from_end_to_end" else 1,
                 tuning={"parameters": ["learning_rate"], "trials": 3, "method": "grid"},
                 levels_available={"workload": ["mlp-small", "cnn-small"]},
                 claims=[{"id": "topk-iterations", "statement": "top-k sparsification makes iterations at least 1.1x faster",
                          "kind": "speedup", "metric": "iteration_time", "a": {"approximation": "topk"},
                          "b": {"approximation": "none", "workload": "mlp-small", "batch_size": 32, "precision": "fp32",
                                "size": 8}, "at_least": 1.1}])
    return rows, attrs


def infer(violation, rng):
    rows, attrs = [], dict(PROVENANCE)
    summaries = []
    accuracy = {"fp32": 0.960, "int8": 0.955}
    for precision, scale in (("fp32", 1.0), ("int8", 0.7)):
        common = dict(benchmark="infer", workload="mlp-small", implementation="torch", size=8, precision=precision,
                      dataset="digits")
        latencies = 1e-3 * scale * rng.lognormal(0, 0.05, size=200)
        for q, value in enumerate(latencies):
            rows.append(_row(**common, run_id=f"ss-{precision}", scenario="SingleStream", metric="latency", value=float(value),
                             unit="s", query=q))
        summaries.append({"metric": "latency", "statistic": "p90", "value": float(np.percentile(latencies, 90)),
                          "filters": {"precision": precision, "scenario": "SingleStream"}})
        for run in range(6):
            rows.append(_row(**common, run_id=f"off-{precision}-{run}", scenario="Offline", metric="throughput",
                             value=5000.0 / scale * (1 + rng.normal(0, 0.005)), unit="samples/s"))
        rows.append(_row(**common, run_id=f"acc-{precision}", scenario="AccuracyOnly", metric="test_accuracy",
                         value=accuracy[precision], unit="1"))
    rows.append(_row(benchmark="infer", workload="mlp-small", implementation="torch", size=8, precision="int8",
                     dataset="digits", run_id="acc-int8", scenario="AccuracyOnly", metric="relative_accuracy",
                     value=accuracy["int8"] / accuracy["fp32"], unit="1"))
    attrs.update(summaries=summaries, levels_available={"precision": ["fp32", "int8"]})
    if violation != "relative_accuracy_without_definition":
        attrs["relative_accuracy_definition"] = "relative"
    return rows, attrs


RESULTS = (("prk", prk, "prk.nc"), ("train", train, "train.nc"), ("infer", infer, "inference.nc"))
#: violation -> file name -> bytes: each set is written once per process and copied after that (writing its
#: three netCDF files costs about 0.3 s of CPU, and the checklist tests ask for the same sets dozens of times).
_WRITTEN: dict[str | None, dict[str, bytes]] = {}


def _write(folder: Path, violation: str | None) -> dict[str, bytes]:
    """The crafted set written into ``folder`` (the same bytes every time: the generator's seed is fixed)."""
    rng = np.random.default_rng(20151115)
    for family, maker, name in RESULTS:
        rows, attrs = maker(violation, rng)
        results.write(results.from_records(rows, family, attrs=attrs), folder / name)
    (folder / "environment.json").write_text(json.dumps({"hash": ENV_HASH, "machine": "crafted"}))
    (folder / "config.json").write_text(json.dumps({"stages": {"prk": True, "train": True, "infer": True},
                                                    "subset_reasons": {},
                                                    "measurement": {"confidence": 0.95, "ci_target": 0.05}}))
    names = [name for _, _, name in RESULTS] + ["environment.json", "config.json"]
    return {name: (folder / name).read_bytes() for name in names}


def build(folder: str | Path, violation: str | None = None) -> dict:
    """Write the crafted set into ``folder``; return {"results": [paths], "environment": path, "config": path}."""
    if violation is not None and violation not in VIOLATIONS:
        raise ValueError(f"unknown violation {violation!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if violation in _WRITTEN:
        for name, data in _WRITTEN[violation].items():
            (folder / name).write_bytes(data)
    else:
        _WRITTEN[violation] = _write(folder, violation)
    return {"results": [str(folder / name) for _, _, name in RESULTS], "environment": str(folder / "environment.json"),
            "config": str(folder / "config.json")}


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "crafted"
    chosen = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--violation" else None
    print(json.dumps(build(target, chosen), indent=2))
