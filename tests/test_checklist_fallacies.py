"""Fallacy checks F1-F12: domains, environment diffs, documented time-to-quality, same-unit evidence.

Crafted result sets are written into tmp_path (helpers from tests/test_checklist.py and
tests/data/good_results/make_results.py); each test seeds one situation and asserts the status
and the evidence a reader would check.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from test_checklist import make_results, rewrite, run_audit, status_of

from twelveways import envdiff, results
from twelveways import resultset
from twelveways.checklist import Status, audit

REFERENCE_ENV = Path(__file__).resolve().parents[1] / "data" / "reference" / "environment.json"


def check_of(report, check_id: str):
    return next(c for c in report.checks if c.id == check_id)


def audit_rows(tmp_path: Path, files: dict[str, tuple[list[dict], dict]], environment: dict | None = None):
    """Write each {name: (rows, attrs)} as a results file, audit them all."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = [str(results.write(results.from_records(rows, "custom", attrs=attrs), tmp_path / f"{name}.nc"))
             for name, (rows, attrs) in files.items()]
    env_path = None
    if environment is not None:
        env_path = tmp_path / "environment.json"
        env_path.write_text(json.dumps(environment))
    return audit.run(resultset.load(paths, environment=env_path))


def row(**fields) -> dict:
    base = {"benchmark": "train", "workload": "mlp", "implementation": "torch", "ranks": 1, "threads": 1, "size": 8,
            "precision": "fp32", "seed": 0, "run_id": "r0", "iteration": -1, "rank": -1, "metric": "time_to_quality",
            "value": 1.0, "unit": "s", "valid": True}
    base.update(fields)
    return base


# ------------------------------------------------------------------ domains

def _throughput_claim(tmp_path: Path) -> str:
    """A claim on inference throughput (a per-iteration metric name) -- F2 judged it before it had a domain."""
    claims = tmp_path / "claims.yaml"
    claims.write_text(json.dumps({"claims": [{
        "id": "int8-throughput", "statement": "int8 serves at least 1.2x the samples per second of fp32",
        "kind": "speedup", "metric": "throughput",
        "a": {"benchmark": "infer", "precision": "int8", "scenario": "Offline"},
        "b": {"benchmark": "infer", "precision": "fp32", "scenario": "Offline"}, "at_least": 1.2}]}))
    return str(claims)


def test_inference_only_results_leave_the_training_fallacies_not_applicable(tmp_path):
    paths = make_results.build(tmp_path)
    inference_only = [p for p in paths["results"] if p.endswith("inference.nc")]
    report = audit.run(resultset.load(inference_only), _throughput_claim(tmp_path))
    statuses = {c.id: c.status for c in report.checks}
    for check_id in ("F1", "F2", "F3", "F4", "F9", "F10"):
        assert statuses[check_id] is Status.NOT_APPLICABLE, check_id
    assert "training rows" in check_of(report, "F2").evidence[0].what
    assert statuses["F7"] is not Status.NOT_APPLICABLE  # ml domain: inference results are inside it


def test_a_per_iteration_claim_on_inference_rows_is_not_judged_by_f2(tmp_path):
    report = run_audit(make_results.build(tmp_path), _throughput_claim(tmp_path))
    f2 = check_of(report, "F2")
    assert f2.status is Status.PASS
    assert not any("int8-throughput" in e.what for e in f2.evidence)


# ------------------------------------------------------------------ time to quality as documented

def _sweep_rows(missed_level, how: str) -> list[dict]:
    """Two batch sizes x 6 runs; every run at ``missed_level`` missed the target (``how``)."""
    rows = []
    for batch, ttq, thr in ((32, 10.0, 1000.0), (128, 12.0, 3000.0)):
        for seed in range(6):
            run = dict(batch_size=batch, input_size=batch // 4, seed=seed, run_id=f"b{batch}-s{seed}", role="final")
            outcome = {"reached_target": True}
            if batch == missed_level:
                outcome = {"reached_target": False} if how == "reached_target" else \
                    {"converged": 0} if how == "converged" else {"valid": False}
            rows.append(row(**run, metric="time_to_quality", value=ttq + 0.01 * seed, **outcome))
            rows.append(row(**run, metric="throughput", value=thr + seed, unit="samples/s"))
            rows.append(row(**run, metric="test_accuracy", value=0.9, unit="1"))
    return rows


@pytest.mark.parametrize("how", ["reached_target", "converged", "valid"])
def test_a_level_whose_runs_all_missed_the_target_has_no_time_to_quality(tmp_path, how):
    report = audit_rows(tmp_path, {"train": (_sweep_rows(128, how), {"tuning": {"trials": 0}})})
    f1, f11 = check_of(report, "F1"), check_of(report, "F11")
    assert f1.status is Status.FAIL and f11.status is Status.FAIL
    sweep = next(e.value for e in f1.evidence if "batch_size sweep" in e.what)
    assert sweep["128"]["time_to_quality"] == {"runs": 6, "reached_target": 0, "median_s": None}
    assert sweep["32"]["time_to_quality"]["median_s"] == pytest.approx(10.025)
    assert next(e.value for e in f1.evidence if "without a time to quality" in e.what) == ["128"]
    assert next(e.value for e in f11.evidence if "no quality" in e.what) == ["32"]  # input_size = batch / 4


def test_the_same_sweep_with_every_target_reached_passes_f1_and_f11(tmp_path):
    report = audit_rows(tmp_path, {"train": (_sweep_rows(None, "reached_target"), {"tuning": {"trials": 0}})})
    assert check_of(report, "F1").status is Status.PASS and check_of(report, "F11").status is Status.PASS
    rates = next(e.value for e in check_of(report, "F1").evidence if "highest" in e.what)
    assert rates == {"highest_throughput": "batch_size=128", "shortest_time_to_quality": "batch_size=32"}


def test_an_approximation_level_that_never_reached_the_target_fails_f2(tmp_path):
    rows = []
    for approx in ("none", "topk"):
        for seed in range(6):
            run = dict(approximation=approx, seed=seed, run_id=f"{approx}-{seed}", role="final")
            rows.append(row(**run, metric="time_to_quality", value=10.0, reached_target=approx == "none"))
            rows.append(row(**run, metric="iteration_time", value=0.01 if approx == "none" else 0.008, iteration=1))
            rows.append(row(**run, metric="throughput", value=900.0, unit="samples/s"))
    f2 = check_of(audit_rows(tmp_path, {"train": (rows, {})}), "F2")
    assert f2.status is Status.FAIL
    table = next(e.value for e in f2.evidence if "levels, per iteration" in e.what)
    assert table["topk"]["time_to_quality"]["median_s"] is None
    # per-iteration medians are per metric and unit, never a median over times and throughputs together
    assert table["topk"]["per_iteration"] == {"iteration_time (s)": {"median": 0.008, "rows": 6},
                                              "throughput (samples/s)": {"median": 900.0, "rows": 6}}


# ------------------------------------------------------------------ F6 kernel share

def _kernel_rows() -> list[dict]:
    """Three workloads: per-step kernel times (ms) beside step times (s) and kernel bandwidths (GB/s);
    a per-run kernel time beside the run's end-to-end time; a kernel that never ran (0 s)."""
    rows = []
    for seed in range(3):
        run = dict(workload="stepwise", seed=seed, run_id=f"step-{seed}")
        for it in (1, 2):
            rows.append(row(**run, iteration=it, metric="kernel_time", value=2.0, unit="ms", timing_scope="kernel"))
            rows.append(row(**run, iteration=it, metric="kernel_bandwidth", value=500.0, unit="GB/s",
                            timing_scope="kernel"))
            rows.append(row(**run, iteration=it, metric="step_time", value=0.008, unit="s", timing_scope="iteration"))
        rows.append(row(**run, metric="time_to_quality", value=4.0, timing_scope="end_to_end", reached_target=True))
        run = dict(workload="whole-run", seed=seed, run_id=f"run-{seed}")
        rows.append(row(**run, metric="solver_kernel_time", value=1.0, unit="s", timing_scope="kernel"))
        rows.append(row(**run, metric="end_to_end_time", value=5.0, unit="s", timing_scope="end_to_end"))
        rows.append(row(**run, metric="throughput", value=10.0, unit="samples/s", timing_scope="end_to_end"))
        run = dict(workload="idle", seed=seed, run_id=f"idle-{seed}")
        rows.append(row(**run, iteration=1, metric="comm_time", value=0.0, unit="s", timing_scope="component"))
        rows.append(row(**run, metric="time_to_quality", value=3.0, timing_scope="end_to_end", reached_target=True))
    return rows


def test_f6_kernel_share_per_workload_divides_seconds_by_seconds_of_the_same_run(tmp_path):
    f6 = check_of(audit_rows(tmp_path, {"train": (_kernel_rows(), {})}), "F6")
    assert f6.status is Status.PASS
    shares = {e.what.split(":")[0]: e.value for e in f6.evidence if "share of the time" in e.what}
    step = shares["stepwise"]["every run kernel_time"]
    assert step["share_median"] == pytest.approx(0.25) and step["unit"] == "s/s" and step["runs"] == 3
    assert step["of"] == ["the step time of the same run and iteration"]
    whole = shares["whole-run"]["every run solver_kernel_time"]
    assert whole["share_median"] == pytest.approx(0.2) and whole["of"] == ["the end-to-end time of the same run"]
    assert "idle" not in shares
    assert next(e.value for e in f6.evidence if "all 0 s" in e.what) == ["idle"]


def test_f6_fails_kernel_timings_without_any_end_to_end_time(tmp_path):
    rows = [r for r in _kernel_rows() if not (r["workload"] == "whole-run" and r["metric"] == "end_to_end_time")]
    f6 = check_of(audit_rows(tmp_path, {"train": (rows, {})}), "F6")
    assert f6.status is Status.FAIL
    assert next(e.value for e in f6.evidence if "no end-to-end time" in e.what) == ["whole-run"]


def test_f6_is_not_applicable_when_every_kernel_time_is_zero(tmp_path):
    rows = [r for r in _kernel_rows() if r["workload"] == "idle"]
    assert check_of(audit_rows(tmp_path, {"train": (rows, {})}), "F6").status is Status.NOT_APPLICABLE


# ------------------------------------------------------------------ F7, F9 evidence

def test_f7_names_datasets_from_a_dict_attr_and_f9_latency_carries_unit_and_configuration(tmp_path):
    train = [row(workload=w, seed=s, run_id=f"{w}-{s}", reached_target=True, dataset="digits")
             for w in ("mlp", "cnn") for s in range(3)]
    infer = [row(benchmark="infer", workload="mlp", metric="latency", value=v, unit="ns", run_id=f"ss-{p}",
                 precision=p, scenario="SingleStream", iteration=q) for p, v in (("fp32", 2e6), ("int8", 1e6))
             for q in range(1, 6)]
    datasets = {"digits": {"file": "digits.npz", "n_train": 1077}, "digits32": {"file": "digits32.npz"}}
    report = audit_rows(tmp_path, {"train": (train, {"datasets": datasets}), "infer": (infer, {})})
    f7 = check_of(report, "F7")
    assert next(e.value for e in f7.evidence if e.what == "datasets") == ["digits", "digits32"]
    f9 = check_of(report, "F9")
    mlp = next(e.value for e in f9.evidence if e.what.startswith("mlp:"))
    assert mlp["time_to_quality"]["median_s"] == pytest.approx(1.0)
    latency = mlp["inference_latency"]
    assert latency["unit"] == "ns" and latency["configurations"] == 2
    assert latency["lowest_median"] == {"value": 1e6, "unit": "ns", "configuration": "precision=int8"}
    assert next(e.value for e in f9.evidence if e.what.startswith("cnn:"))["inference_latency"] == "not measured"


# ------------------------------------------------------------------ F8 and the environment diff

def _capture(**changes) -> dict:
    """The reference capture with dotted-path changes applied, and its own hash."""
    capture = json.loads(REFERENCE_ENV.read_text())
    for path, value in changes.items():
        node = capture
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        node[last] = value
    capture["hash"] = results.canonical_hash({k: v for k, v in capture.items() if k != "hash"})
    return capture


def _two_environments(tmp_path, a: dict, b: dict, attrs_b: dict | None = None, describe_b: bool = True):
    """Two PRK-like files, one per environment: ``a`` given as --environment, ``b`` as attr environment."""
    def rates():
        return [row(benchmark="prk", workload="nstream", metric="rate", value=100.0 + i, unit="MB/s", run_id=f"r{i}",
                    seed=i) for i in range(3)]
    b_attrs = {"environment_hash": b["hash"], **({"environment": b} if describe_b else {}), **(attrs_b or {})}
    return audit_rows(tmp_path, {"a": (rates(), {"environment_hash": a["hash"]}), "b": (rates(), b_attrs)},
                      environment=a)


def test_environments_differing_only_in_compiler_flags_and_kernel_leave_f8_not_applicable(tmp_path):
    a = _capture()
    b = _capture(**{"compilers.used.cflags": "-O2", "os.kernel_release": "6.1.0-37-amd64"})
    f8 = check_of(_two_environments(tmp_path, a, b), "F8")
    assert f8.status is Status.NOT_APPLICABLE
    fields = next(e.value for e in f8.evidence if "field by field" in e.what)
    assert list(fields.values()) == [{"system": ["os.kernel_release"], "toolchain": ["compilers.used.cflags"]}]
    both = next(e.value for e in f8.evidence if "both values" in e.what)
    assert list(both.values())[0] == [
        {"field": "os.kernel_release", "class": "system", "a": a["os"]["kernel_release"], "b": "6.1.0-37-amd64"},
        {"field": "compilers.used.cflags", "class": "toolchain", "a": a["compilers"]["used"]["cflags"],
         "b": "-O2"}]


def test_environments_with_another_cpu_compare_hardware_and_warn_without_facts(tmp_path):
    a = _capture()
    b = _capture(**{"hardware.cpu.model": "Intel Xeon Platinum 8480", "hardware.cpu.physical_cores": 56})
    f8 = check_of(_two_environments(tmp_path, a, b), "F8")
    assert f8.status is Status.WARN  # missing facts are a missing statement, never a fail
    missing = next(e.value for e in f8.evidence if "not stated" in e.what)
    assert missing == {"AMD EPYC": ["release_year", "peak", "price"],
                       "Intel Xeon Platinum 8480": ["release_year", "peak", "price"]}
    facts = {"release_year": 2021, "peak": "2.0 TFlop/s", "price": "unknown list price"}
    stated = {"hardware": {"AMD EPYC": facts, "Intel Xeon Platinum 8480": facts}}
    assert check_of(_two_environments(tmp_path / "stated", a, b, stated), "F8").status is Status.PASS


def test_an_environment_without_a_description_needs_a_human_not_a_fail(tmp_path):
    a, b = _capture(), _capture(**{"os.kernel_release": "6.1"})
    f8 = check_of(_two_environments(tmp_path, a, b, describe_b=False), "F8")
    assert f8.status is Status.NEEDS_HUMAN
    assert "no description" in json.dumps(f8.evidence[0].value)


def test_a_device_column_without_hardware_facts_warns(tmp_path):
    paths = make_results.build(tmp_path)

    def two_devices(ds):
        n = ds.sizes["sample"]
        ds["device"] = ("sample", ["cpu-a" if i % 2 else "cpu-b" for i in range(n)])

    rewrite(paths["results"][0], two_devices)
    assert status_of(paths, "F8") is Status.WARN


def test_envdiff_classifies_fields_and_skips_volatile_ones():
    a = _capture()
    b = _capture(**{"time.utc": "2030-01-01T00:00:00+00:00", "load": {}, "hardware.memory.total_bytes": 1 << 36,
                    "gpus.count": 1, "gpus.devices": [{"name": "NVIDIA H100", "memory.total": 81559,
                                                       "driver_version": "550"}],
                    "environment_variables.OMP_PROC_BIND": "close", "python.packages.numpy": "9.9.9"})
    found = envdiff.diff(a, b)
    assert [(d["field"], d["class"]) for d in found] == [
        ("gpus.count", "hardware"), ("gpus.devices", "hardware"), ("gpus.devices[0].memory.total", "hardware"),
        ("gpus.devices[0].name", "hardware"), ("hardware.memory.total_bytes", "hardware"),
        ("gpus.devices[0].driver_version", "system"), ("python.packages.numpy", "libraries"),
        ("environment_variables.OMP_PROC_BIND", "settings")]
    assert found[2]["a"] is None and found[2]["b"] == 81559  # absent on one side
    assert envdiff.hardware_differs(found)
    assert envdiff.by_class(found)["libraries"] == ["python.packages.numpy"]
    assert envdiff.device_name(b) == "AMD EPYC + NVIDIA H100"
    assert envdiff.diff(a, copy.deepcopy(a)) == []


def test_envdiff_reads_flat_foreign_facts_and_unavailable_fields():
    a = {"num_cpus": 8, "mhz_per_cpu": 3000, "cflags": "-O3", "kernel": "6.1", "library_version": "1.8",
         "cpu_scaling_enabled": False, "date": "2024-01-01", "hardware": {"boost": {"unavailable": "no sysfs"}}}
    b = dict(a, cflags="-O2", date="2025-01-01", hardware={"boost": {"enabled": True}})
    found = {d["field"]: d["class"] for d in envdiff.diff(a, b)}
    assert found == {"cflags": "toolchain", "hardware.boost": "settings", "hardware.boost.enabled": "settings"}
    assert not envdiff.hardware_differs(envdiff.diff(a, b))
    assert {envdiff.classify(k) for k in ("num_cpus", "mhz_per_cpu")} == {"hardware"}
    assert envdiff.classify("kernel") == "system" and envdiff.classify("library_version") == "libraries"
    assert envdiff.classify("cpu_scaling_enabled") == "settings"
