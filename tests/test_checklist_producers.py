"""The producers store the evidence the checklist reads (docs/checklist-evidence.md).

Each test writes results the way a stage writes them (its own record and attribute functions) and
runs the checks that read that evidence, so a producer that stops stating it makes a test fail.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from lazy_modules import TORCH
from twelveways import config as config_module
from twelveways import results
from twelveways import resultset
from twelveways.checklist import Status, audit
from twelveways.prk import bounds, records, sweep
from twelveways.families.prk_config import PrkConfig


def kernel_doc(kernel="stencil", implementation="c-mpi", ranks=2, iterations=4, base=1e-3, valid=True) -> dict:
    """A kernel JSON object as the contract defines it (per-rank times, max over ranks per iteration)."""
    times = [[base * (1 + 0.01 * ((i * 7 + r * 3) % 5)) for i in range(iterations)] for r in range(ranks)]
    maxima = [max(row[i] for row in times) for i in range(iterations)]
    return {"kernel": kernel, "implementation": implementation, "ranks": ranks, "threads": 1,
            "parameters": {"iterations": iterations, "n": 40, "radius": 2}, "size": 40, "dtype": "fp64",
            "timer": {"name": "MPI_Wtime", "resolution_s": 1e-9}, "warmup_times": [base * 2] * ranks,
            "iteration_times": times, "iteration_max_times": maxima,
            "time_summary": "per-iteration max over ranks", "bytes_per_iteration": 1e5, "flops_per_iteration": 2e4,
            "validation": {"error": 0.0, "tolerance": 1e-8}, "valid": valid, "rate": 2e4 / sum(maxima) * iterations * 1e-6,
            "rate_unit": "MFlop/s", "avg_time_s": sum(maxima) / iterations}


def config(kernels=("nstream", "transpose", "stencil", "p2p", "dgemm", "sparse"), reasons=None) -> dict:
    return {"seed": 1, "prk": {"kernels": list(kernels)}, "subset_reasons": dict(reasons or {}),
            "measurement": {"confidence": 0.95, "ci_target": 0.05}}


def prk_file(tmp_path: Path, cfg: dict, *, with_attrs: bool = True, kernels=None) -> str:
    rows = []
    pairs = [(kernel, "c-mpi") for kernel in kernels or cfg["prk"]["kernels"]]
    pairs += [(pairs[0][0], impl) for impl in records.IMPLEMENTATIONS if impl != "c-mpi"]
    for kernel, impl in pairs:
        ranks = 2 if impl in ("c-mpi", "mpi4py") else 1
        for run in range(2):
            doc = records.check(kernel_doc(kernel=kernel, implementation=impl, ranks=ranks, base=1e-3 * (1 + run)))
            part = records.to_records(doc, run_id=f"{kernel}/{impl}#{run}", seed=1, scaling="strong")
            for row in part:
                row["stop_reason"] = "max_samples"
            rows += part
    attrs = {"environment_hash": "e" * 64, "config_hash": "c" * 64, "git_commit": "a" * 40, "git_dirty": 0}
    if with_attrs:
        attrs.update(sweep.checklist_attrs(PrkConfig.from_config(config_module.validate(cfg))))
    path = tmp_path / "prk.nc"
    results.write(results.from_records(rows, family="prk", attrs=attrs), path)
    return str(path)


def statuses(paths, cfg: dict | None = None, tmp_path: Path | None = None) -> dict:
    config_path = None
    if cfg is not None and tmp_path is not None:
        config_path = tmp_path / "config.json"
        config_path.write_text(json.dumps(cfg))
    data = resultset.load(paths, config=config_path)
    return {c.id: c.status for c in audit.run(data).checks}


def test_prk_attrs_make_parallel_time_op_count_and_cis_decidable(tmp_path):
    cfg = config()
    got = statuses([prk_file(tmp_path, cfg)], cfg, tmp_path)
    assert got["R10"] is Status.PASS   # timer, synchronization, rank summary stated; max over ranks holds
    assert got["F5"] is Status.PASS    # fp64 rates, op_count executed
    assert got["R5"] is Status.WARN    # wide or small but noted by stop_reason: a warning with counts, never a pass
    assert got["R2"] is Status.PASS    # every kernel of levels_available present


def test_prk_without_its_attrs_warns_r10_and_f5(tmp_path):
    cfg = config()
    got = statuses([prk_file(tmp_path, cfg, with_attrs=False)], cfg, tmp_path)
    assert got["R10"] is Status.WARN  # an unstated timing method is missing evidence, not a proven violation
    assert got["F5"] is Status.WARN


def test_prk_kernel_subset_needs_the_configs_reason(tmp_path):
    cfg = config(kernels=("nstream", "stencil"))
    assert statuses([prk_file(tmp_path, cfg)], cfg, tmp_path)["R2"] is Status.FAIL
    cfg = config(kernels=("nstream", "stencil"), reasons={"kernels": "only the bandwidth-bound kernels matter here"})
    path = prk_file(tmp_path, cfg)
    assert results.attr_json(results.open(path), "subset_reasons") == {"kernels": cfg["subset_reasons"]["kernels"]}
    assert statuses([path], cfg, tmp_path)["R2"] is Status.PASS


def test_prk_levels_available_lists_every_kernel_and_implementation():
    attrs = sweep.checklist_attrs(PrkConfig.from_config(config_module.validate(config())))
    assert attrs["levels_available"]["workload"] == ["nstream", "transpose", "stencil", "p2p", "dgemm", "sparse"]
    assert set(attrs["levels_available"]["implementation"]) == set(records.IMPLEMENTATIONS)
    assert attrs["derived_metrics"] == ["rate"] and attrs["op_count"] == "executed"
    assert "subset_reason" not in attrs  # empty config reasons are not reasons


def bounds_rows(spread: float) -> list[dict]:
    values = [1000.0 * (1 + spread * (i % 3)) for i in range(6)]
    return [bounds._row("memory_bandwidth", "c-openmp", 2, 10 ** 6, 1, f"bw#{i // 3}", 1 + i % 3, "bandwidth", v,
                        "MB/s", True) for i, v in enumerate(values)]


def test_bounds_state_timer_op_count_and_their_fixed_repeats(tmp_path):
    attrs = {"environment_hash": "e" * 64, "config_hash": "c" * 64, "git_commit": "a" * 40, "git_dirty": 0}
    bounds.write(bounds_rows(0.5), {"measured": True}, output=tmp_path / "bounds.nc", json_path=tmp_path / "bounds.json",
                 attrs=attrs)
    for name in ("bounds.nc", "bounds.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644
    ds = results.open(tmp_path / "bounds.nc")
    assert set(results.to_frame(ds)["stop_reason"]) == {bounds.STOP_REASON}
    got = statuses([str(tmp_path / "bounds.nc")], config(), tmp_path)
    assert got["R10"] is Status.PASS
    assert got["F5"] is Status.NOT_APPLICABLE  # MB/s of memory bandwidth is no operation rate: F5 has nothing to judge
    assert got["R5"] is Status.WARN  # a CI far wider than ±5%, documented as a fixed number of repeats: warned


def test_audit_reports_are_world_readable(tmp_path):
    from twelveways.checklist.audit import audit_main

    good = tmp_path / "prk.nc"
    results.write(results.from_records([{"benchmark": "prk", "workload": "nstream", "implementation": "numpy",
                                         "ranks": 1, "threads": 1, "size": 10, "precision": "fp64", "seed": 1,
                                         "run_id": "r", "iteration": i, "rank": -1, "metric": "time",
                                         "value": 1.0 + i, "unit": "s", "valid": True} for i in range(3)], "prk"), good)
    assert audit_main([str(good), "--output", str(tmp_path / "checklist.md"), "--exit-zero"]) == 0
    assert stat.S_IMODE((tmp_path / "checklist.md").stat().st_mode) == 0o644


@TORCH
def test_inference_rows_carry_their_stop_reason_and_levels():
    pytest.importorskip("torch")
    from twelveways.infer import records as infer_records
    from twelveways.infer.settings import InferConfig

    attrs = infer_records.checklist_attrs(InferConfig.from_config(config_module.validate({})), ["reference"])
    assert attrs["levels_available"]["variant"] == ["reference-fp32", "reference-bf16", "reference-int8"]
    assert attrs["levels_available"]["mode"] == ["PerformanceOnly", "AccuracyOnly"]
    assert len(attrs["levels_available"]["scenario"]) == 4
    assert {"latency_bound", "min_duration"} <= set(attrs["metric_kinds"])  # LoadGen settings, not measurements
    assert resultset.metric_kind("latency_bound", "ns", attrs["metric_kinds"]) == "other"

    class _Named:
        name, parameters, precision = "reference", 10, "fp32"

    row = infer_records.base_factors(model=_Named, variant=_Named, scenario="Offline", mode="PerformanceOnly",
                                     role="performance", run_id="r", threads=1, seed=1, valid=True, below_minimum=True)
    assert row["stop_reason"] == infer_records.STOP_REASON


@TORCH
def test_training_declares_its_levels_and_keeps_only_its_reasons():
    pytest.importorskip("torch")
    from twelveways.train import sweeps

    attrs = sweeps.levels_attrs({"subset_reasons": {"models": "small only", "kernels": "prk only", "datasets": ""}})
    assert attrs["subset_reasons"] == {"models": "small only"}
    assert set(attrs["levels_available"]) == {"workload", "dataset", "precision", "input_size"}
    assert "digits32" not in attrs["levels_available"]["dataset"]


def _two_rank_file(tmp_path: Path, rank_summary: str | None) -> str:
    """30 iterations on 2 ranks: rank 0 (always the slowest) tight, rank 1 fast and widely spread."""
    import numpy as np

    rng = np.random.default_rng(3)
    rows = []
    for it in range(1, 31):
        for rank, value in ((0, 1e-3 * (1 + 0.005 * rng.standard_normal())), (1, 1e-4 * rng.uniform(1, 9))):
            rows.append(dict(benchmark="prk", workload="stencil", implementation="c-mpi", ranks=2, threads=1, size=40,
                             precision="fp64", seed=1, run_id="r0", iteration=it, rank=rank, metric="time",
                             value=value, unit="s", valid=True, stop_reason="ci_target_met"))
    attrs = {"environment_hash": "e" * 64, "config_hash": "c" * 64, "git_commit": "a" * 40, "git_dirty": 0}
    if rank_summary:
        attrs["rank_summary"] = rank_summary
    path = tmp_path / f"two-rank-{bool(rank_summary)}.nc"
    results.write(results.from_records(rows, family="prk", attrs=attrs), path)
    return str(path)


def test_r5_judges_the_max_over_ranks_when_that_is_the_stated_summary(tmp_path):
    cfg = config(kernels=("stencil",))
    summarized = statuses([_two_rank_file(tmp_path, "max over ranks per iteration")], cfg, tmp_path)
    assert summarized["R5"] is Status.PASS  # the max (rank 0) is within ±5%
    per_rank = statuses([_two_rank_file(tmp_path, None)], cfg, tmp_path)
    assert per_rank["R5"] is Status.FAIL  # without that statement rank 1's wide CI counts, unnoted
