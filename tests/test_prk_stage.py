"""PRK stage: sweep expansion and labels, seeded order, running and checking kernels, results file, bounds.

C kernels are stood in for by small fake programs in tmp_path that run the NumPy kernel and
relabel its JSON, so these tests do not depend on a C build.
"""

from __future__ import annotations

import dataclasses
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from twelveways import config as config_module
from twelveways import measure, results
from twelveways.errors import KernelError
from twelveways.prk import bounds, records, run, sweep
from twelveways.families import prk_points
from twelveways.families.prk_config import PrkConfig

ROOT = Path(__file__).resolve().parents[1]
PYDIR = ROOT / "kernels" / "python"

FAKE = """#!{python}
import json, os, subprocess, sys
proc = subprocess.run([sys.executable, {program!r}, *sys.argv[1:]], capture_output=True, text=True)
if proc.returncode == 2:
    sys.stderr.write(proc.stderr)
    sys.exit(2)
doc = json.loads(proc.stdout)
doc["implementation"] = {implementation!r}
doc["threads"] = int(os.environ.get("OMP_NUM_THREADS", "1")) if {implementation!r} == "c-openmp" else 1
doc["timer"] = {{"name": "clock_gettime(CLOCK_MONOTONIC)", "resolution_s": 1e-9}}
{mutate}
print(json.dumps(doc))
sys.exit({exit_code})
"""


def make_fake(folder: Path, kernel: str, variant: str, mutate: str = "", exit_code: str = "proc.returncode") -> Path:
    path = folder / f"{kernel}-{variant}"
    path.write_text(FAKE.format(python=sys.executable, program=str(PYDIR / f"{kernel}-numpy.py"),
                                implementation=f"c-{variant}", mutate=mutate, exit_code=exit_code))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture()
def fake_kernels(tmp_path) -> Path:
    folder = tmp_path / "kernels"
    folder.mkdir()
    for kernel in run.KERNELS:
        for variant in ("serial", "openmp"):
            make_fake(folder, kernel, variant)
    return folder


@pytest.fixture()
def env_json(tmp_path) -> Path:
    path = tmp_path / "environment.json"
    path.write_text(json.dumps({"hash": "0123456789abcdef"}))
    return path


def tiny_config(**prk) -> dict:
    base = {
        "kernels": ["nstream", "p2p", "sparse"],
        "implementations": ["c-serial", "c-openmp", "numpy", "mpi4py"],
        "threads": [1, 2], "ranks": [1, 2],
        "sizes": {"nstream": [5000], "transpose": [40], "stencil": [30], "p2p": [30], "dgemm": [24], "sparse": [3]},
        "iterations": {k: 3 for k in run.KERNELS},
        "min_invocations": 1, "max_seconds": 0.3,
    }
    base.update(prk)
    return config_module.validate({
        "seed": 5,
        "measurement": {"confidence": 0.95, "ci_target": 0.5, "min_samples": 3, "max_samples": 6, "max_seconds": 1},
        "prk": base,
    })


# --- expansion, labels, order -------------------------------------------------------------

def test_expand_labels_single_strong_weak_and_skips():
    cfg = tiny_config(kernels=["nstream", "transpose", "stencil", "p2p", "dgemm", "sparse"],
                      implementations=["c-serial", "c-openmp", "c-mpi", "numpy", "mpi4py"])
    points, skipped = sweep.expand(PrkConfig.from_config(cfg))
    assert len(points) == len(set(points))
    for p in points:
        assert (p.scaling == "single") == (p.pe == 1)
        if p.scaling == "strong":
            assert p.size == p.base_size
    weak = {(p.kernel, p.implementation, p.pe): p.size for p in points if p.scaling == "weak"}
    assert weak[("nstream", "mpi4py", 2)] == 10000
    assert weak[("transpose", "c-openmp", 2)] == round(40 * 2 ** 0.5)
    assert weak[("p2p", "c-mpi", 2)] == (60, 30)  # rows grow, columns (split over ranks) stay
    assert weak[("dgemm", "numpy", 2)] == round(24 * 2 ** (1 / 3))
    assert not any(p.kernel == "sparse" and p.scaling == "weak" for p in points)
    assert any("sparse" in s and "powers of 4" in s for s in skipped)
    assert any("dgemm mpi4py" in s for s in skipped)
    # threads only where they mean something: OpenMP and NumPy's BLAS dgemm
    assert {p.threads for p in points if p.implementation in ("c-serial", "c-mpi", "mpi4py")} == {1}
    assert {p.threads for p in points if p.implementation == "numpy" and p.kernel != "dgemm"} == {1}
    assert {p.threads for p in points if p.implementation == "numpy" and p.kernel == "dgemm"} == {1, 2}


def test_scaling_choice_restricts_the_studies():
    strong, _ = sweep.expand(PrkConfig.from_config(tiny_config(scaling="strong")))
    weak, _ = sweep.expand(PrkConfig.from_config(tiny_config(scaling="weak")))
    assert {p.scaling for p in strong} == {"single", "strong"}
    assert {p.scaling for p in weak} == {"single", "weak"}


def test_prk_config_is_parsed_once_from_the_schema_defaults():
    cfg = tiny_config(sizes={"p2p": [30, [20, 40]]}, build={"cflags": "-O2"})
    prk = PrkConfig.from_config(cfg)
    assert prk.sizes["p2p"] == (30, (20, 40))  # lists become tuples: nothing in the record can change
    assert (prk.build.cc, prk.build.cflags, prk.build.openmp_flag) == ("gcc", "-O2", "-fopenmp")
    assert prk.stop_rule["max_seconds"] == 0.3 and prk.stop_rule["min_invocations"] == 1
    assert prk.seed == 5 and prk.subset_reasons == {}
    assert dict(prk.section) == cfg["prk"]  # what results record as prk_config, unchanged
    with pytest.raises(dataclasses.FrozenInstanceError):
        prk.seed = 6  # type: ignore[misc]
    with pytest.raises(KeyError):
        PrkConfig.from_config({"seed": 1})  # no defaults of its own: an unvalidated config fails


def test_weak_size_keeps_work_per_element():
    assert prk_points.weak_size("sparse", 5, 4) == 6 and prk_points.weak_size("sparse", 5, 16) == 7
    assert prk_points.weak_size("sparse", 5, 2) is None
    assert prk_points.weak_size("stencil", 100, 4) == 200
    assert prk_points.weak_size("dgemm", 100, 8) == 200


def test_seeded_order_is_reproducible_and_seed_dependent():
    points, _ = sweep.expand(PrkConfig.from_config(tiny_config(kernels=list(run.KERNELS))))
    first = measure.seeded_order(points, 11)
    again = measure.seeded_order(sweep.expand(PrkConfig.from_config(tiny_config(kernels=list(run.KERNELS))))[0], 11)
    other = measure.seeded_order(points, 12)
    assert [p.key() for p in first] == [p.key() for p in again]
    assert [p.key() for p in first] != [p.key() for p in other]
    assert sorted(p.key() for p in first) == sorted(p.key() for p in points)


def test_placebo_choice_takes_the_kernels_in_turn():
    """2 x kernels configurations give every kernel the two its pooled A/A run level needs; 0 keeps them all."""
    points, _ = sweep.expand(PrkConfig.from_config(tiny_config(kernels=list(run.KERNELS))))
    chosen = sweep.placebo_points(points, 2 * len(run.KERNELS), seed=3)
    assert sorted(p.kernel for p in chosen) == sorted(list(run.KERNELS) * 2)
    assert len(set(chosen)) == len(chosen)
    assert [p.key() for p in chosen] == [p.key() for p in sweep.placebo_points(points, 2 * len(run.KERNELS), seed=3)]
    assert [p.key() for p in chosen] != [p.key() for p in sweep.placebo_points(points, 2 * len(run.KERNELS), seed=4)]
    assert sorted(p.key() for p in sweep.placebo_points(points, 0, seed=3)) == sorted(p.key() for p in points)


# --- running one program --------------------------------------------------------------------

def test_command_and_environment(fake_kernels):
    inv = run.Invocation("stencil", "mpi4py", (3, 20, 2), ranks=3)
    argv = run.command(inv, fake_kernels)
    assert argv[0].endswith("mpiexec") and argv[1:3] == ["-n", "3"] and argv[-4].endswith("stencil-mpi4py.py")
    assert run.command(inv, fake_kernels, launcher=["srun", "--mpi=pmi2"])[:4] == ["srun", "--mpi=pmi2", "-n", "3"]
    assert run.command(run.Invocation("dgemm", "c-openmp", (2, 10), threads=2), fake_kernels)[0].endswith("dgemm-openmp")
    env = run.environment(run.Invocation("dgemm", "numpy", (2, 10), threads=2), base={})
    assert env == {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    assert run.environment(run.Invocation("nstream", "mpi4py", (2, 10), ranks=2, threads=4), base={})["OMP_NUM_THREADS"] == "1"
    with pytest.raises(KernelError, match="not found"):
        run.command(run.Invocation("nstream", "c-mpi", (2, 10), ranks=2), fake_kernels)
    with pytest.raises(KernelError, match="no mpi4py implementation"):
        run.command(run.Invocation("dgemm", "mpi4py", (2, 10), ranks=2), fake_kernels)


def test_run_returns_checked_json_and_rows(fake_kernels):
    doc = run.run(run.Invocation("nstream", "c-openmp", (3, 2000), threads=2), fake_kernels)
    assert doc["threads"] == 2 and doc["valid"]
    rows = records.to_records(doc, run_id="x", seed=3, scaling="strong", base_size=1000)
    times = [r for r in rows if r["metric"] == "time"]
    assert [r["iteration"] for r in times] == [0, 1, 2, 3] and {r["rank"] for r in times} == {0}
    assert all(r["unit"] == "s" and r["scaling"] == "strong" and r["base_size"] == 1000 for r in times)
    (rate,) = [r for r in rows if r["metric"] == "rate"]
    assert rate["iteration"] == -1 and rate["rank"] == -1 and rate["unit"] == "MB/s"
    assert json.loads(rate["params"])["length"] == 2000


def test_mpi_rows_keep_every_rank():
    doc = run.run(run.Invocation("stencil", "mpi4py", (2, 31, 2), ranks=2))
    rows = records.to_records(doc, run_id="m", seed=0)
    for iteration in (0, 1, 2):
        assert sorted(r["rank"] for r in rows if r["metric"] == "time" and r["iteration"] == iteration) == [0, 1]


@pytest.mark.parametrize("mutate,exit_code,message", [
    ("del doc['iteration_max_times']", "proc.returncode", "lacks required key"),
    ("doc['iteration_times'] = doc['iteration_times'] * 2", "proc.returncode", "rows for 1 rank"),
    ("", "1", "disagrees with valid"),
    ("", "3", "exited with code 3"),
    ("print('{not json')", "proc.returncode", "not valid JSON"),
    ("print(json.dumps(doc))", "proc.returncode", "exactly one JSON object"),
])
def test_contract_violations_raise_kernel_error(tmp_path, mutate, exit_code, message):
    make_fake(tmp_path, "nstream", "serial", mutate=mutate, exit_code=exit_code)
    with pytest.raises(KernelError, match=message):
        run.run(run.Invocation("nstream", "c-serial", (2, 100)), tmp_path)


def test_bad_arguments_raise_kernel_error(fake_kernels):
    with pytest.raises(KernelError, match="rejected its arguments: error: "):
        run.run(run.Invocation("stencil", "c-serial", (2, 5, 3)), fake_kernels)


# --- the sweep ------------------------------------------------------------------------------

@pytest.mark.slow
def test_sweep_writes_a_valid_results_file(tmp_path, fake_kernels, env_json):
    cfg = tiny_config(kernels=["nstream", "p2p"], implementations=["c-openmp", "numpy", "mpi4py"], max_seconds=60)
    out = sweep.sweep(cfg, kernels_dir=fake_kernels, output=tmp_path / "results" / "prk.nc", environment=env_json,
                      progress=False)
    ds = results.open(out)
    assert ds.attrs["family"] == "prk" and ds.attrs["environment_hash"] == "0123456789abcdef"
    assert ds.attrs["config_hash"] == results.canonical_hash(cfg)
    frame = results.to_frame(ds)
    points, _ = sweep.expand(PrkConfig.from_config(cfg))
    order = results.attr_json(ds, "prk_run_order")
    assert order == [p.key() for p in measure.seeded_order(points, cfg["seed"])]
    assert frame["valid"].all() and set(frame["benchmark"]) == {"prk"}
    assert set(frame["scaling"]) == {"single", "strong", "weak"}
    weak = frame[(frame["scaling"] == "weak") & (frame["workload"] == "nstream")]
    assert (weak["size"] == weak["base_size"] * weak["ranks"] * weak["threads"]).all()
    assert set(frame["stop_reason"]) <= set(measure.STOP_REASONS)
    assert (frame["stop_reason"] != "").all()
    runs = frame.groupby("run_id")["run_order"].nunique()
    assert (runs == 1).all()
    assert sorted(frame.groupby("run_id")["run_order"].first()) == list(range(frame["run_id"].nunique()))
    # adaptive repetition: 3 samples per run cannot give a CI, so every configuration ran twice (6 = max_samples)
    assert (frame.groupby(["workload", "implementation", "ranks", "threads", "size", "scaling"])["run_id"].nunique() == 2).all()
    # every program run: warm-up and timed rows per rank, one rate row
    for run_id, group in frame.groupby("run_id"):
        ranks = int(group["ranks"].iloc[0])
        time_rows = group[group["metric"] == "time"]
        assert len(time_rows) == ranks * 4 and (group["metric"] == "rate").sum() == 1, run_id
    assert not results.summarizable(frame).empty
    assert (results.summarizable(frame)["iteration"] != 0).all()


def test_sweep_keeps_invalid_samples_flagged(tmp_path, fake_kernels, env_json):
    cfg = tiny_config(kernels=["p2p"], implementations=["numpy", "c-serial"], threads=[1], ranks=[1], min_invocations=3)
    out = sweep.sweep(cfg, kernels_dir=fake_kernels, output=tmp_path / "prk.nc", environment=env_json, progress=False,
                      extra_env={"TW_PRK_PERTURB": "1"})
    ds = results.open(out)
    frame = results.to_frame(ds)
    assert len(frame) == 2 * (3 + 1 + 1)  # two configurations, one run each: warm-up + 3 iterations + rate
    assert not frame["valid"].any()
    assert set(frame["stop_reason"]) == {sweep.STOP_INVALID}
    assert results.summarizable(frame).empty
    assert len(results.attr_json(ds, "prk_invalid_configurations")) == 2


@pytest.mark.slow
def test_sweep_cli_error_is_one_line(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"prk": {"kernels": ["warpdrive"]}}))
    proc = subprocess.run([sys.executable, "-m", "twelveways.prk.sweep", "--config", str(bad), "--output",
                           str(tmp_path / "prk.nc")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "prk.kernels" in lines[0]
    assert not (tmp_path / "prk.nc").exists()


# --- bounds ---------------------------------------------------------------------------------

def _fake_sysfs(root: Path) -> Path:
    for cpu, shared in ((0, "0-1"), (1, "0-1")):
        for index, (level, kind, size) in enumerate([(1, "Data", "32K"), (1, "Instruction", "32K"),
                                                     (2, "Unified", "1024K"), (3, "Unified", "16384K")]):
            d = root / f"cpu{cpu}" / "cache" / f"index{index}"
            d.mkdir(parents=True)
            (d / "level").write_text(f"{level}\n")
            (d / "type").write_text(f"{kind}\n")
            (d / "size").write_text(f"{size}\n")
            (d / "shared_cpu_list").write_text(f"{shared if level == 3 else cpu}\n")
    return root


def test_last_level_cache_from_sysfs(tmp_path):
    llc = bounds.last_level_cache(_fake_sysfs(tmp_path / "cpu"))
    assert llc["level"] == 3 and llc["instances"] == 1 and llc["bytes"] == 16 * 1024 ** 2
    derived = PrkConfig.from_config(config_module.validate({"prk": {"bounds": {"llc_factor": 4}}})).bounds
    length = bounds.nstream_length(derived, llc["bytes"])
    assert derived.nstream_length == 0 and 3 * 8 * length >= 4 * llc["bytes"]
    assert bounds.nstream_length(dataclasses.replace(derived, nstream_length=10 ** 9), llc["bytes"]) == 10 ** 9


def test_bounds_measure_and_write(tmp_path, monkeypatch, env_json):
    monkeypatch.setattr(bounds, "last_level_cache", lambda: {"level": 3, "bytes": 1 << 20, "bytes_per_instance": 1 << 20,
                                                             "instances": 1, "source": "test"})
    cfg = config_module.validate({"seed": 2, "prk": {"threads": [1], "bounds": {
        "nstream_iterations": 3, "dgemm_order": 96, "repeats": 2}}})
    rows, summary = bounds.measure(cfg, kernels_dir=tmp_path, bandwidth_implementations=("numpy",))
    bounds.write(rows, summary, output=tmp_path / "bounds.nc", json_path=tmp_path / "bounds.json",
                 attrs=results.provenance(env_json, cfg))
    data = json.loads((tmp_path / "bounds.json").read_text())
    assert data["measured"] and data["memory_bandwidth"]["footprint_over_llc"] >= 4
    assert data["roofline"]["bandwidth_MB_per_s"] > 0 and data["roofline"]["peak_MFlop_per_s"] > 0
    frame = results.to_frame(results.open(tmp_path / "bounds.nc"))
    assert set(frame["benchmark"]) == {"bounds"} and frame["valid"].all()
    assert set(frame["unit"]) == {"MB/s", "MFlop/s"}
    usable = results.summarizable(frame)
    levels = {1, bounds.usable_cores()}
    assert set(usable[usable["workload"] == "peak_flops"]["threads"]) <= levels
    assert len(usable[usable["workload"] == "memory_bandwidth"]) == 2 * 3


def test_bounds_disabled_still_writes_files(tmp_path, env_json):
    cfg = config_module.validate({"prk": {"bounds": {"enabled": False}}})
    rows, summary = bounds.measure(cfg, kernels_dir=tmp_path)
    bounds.write(rows, summary, output=tmp_path / "b.nc", json_path=tmp_path / "b.json",
                 attrs=results.provenance(env_json, cfg))
    assert json.loads((tmp_path / "b.json").read_text())["measured"] is False
    assert results.open(tmp_path / "b.nc").sizes.get("sample", 0) == 0


# --- interleaved rounds (RMIT) -------------------------------------------------------------

def _fake_runs(values_by_kernel: dict, calls: list):
    def run_one(state: sweep.Repeating) -> None:
        calls.append(state.point.kernel)
        state.rows.append({"run_id": f"{state.point.key()}#{state.rep.invocations}"})
        measure.add_invocation(state.rep, values_by_kernel[state.point.kernel], state.rep.elapsed_s + 0.1)
    return run_one


def test_rounds_interleave_every_configuration_and_reach_min_invocations():
    """Round 1 in the sweep's order, then one invocation of every configuration still repeating per
    round, each round in its own seeded order; budgets end a configuration only after min_invocations."""
    cfg = tiny_config(kernels=["nstream", "p2p", "sparse"], implementations=["c-serial"], threads=[1], ranks=[1],
                      min_invocations=3, max_seconds=0.05)
    prk = PrkConfig.from_config(cfg)
    points, _ = sweep.expand(prk)
    calls: list[str] = []
    steady, noisy = [1.0, 1.0, 1.0], [1.0, 3.0, 9.0]
    states, rounds = sweep.repeat_all(points, prk, _fake_runs({"nstream": steady, "p2p": noisy, "sparse": noisy}, calls))
    assert [s.rep.invocations for s in states] == [3, 3, 3] and rounds == 3
    assert calls[:3] == [p.kernel for p in points]
    assert all(sorted(calls[i:i + 3]) == sorted(["nstream", "p2p", "sparse"]) for i in (0, 3, 6))
    reasons = {s.point.kernel: s.reason for s in states}
    assert reasons == {"nstream": measure.STOP_CI_MET, "p2p": measure.STOP_MAX_SAMPLES, "sparse": measure.STOP_MAX_SAMPLES}
    sequential = dataclasses.replace(prk, interleaved=False)
    calls.clear()
    states, _ = sweep.repeat_all(points, sequential, _fake_runs({"nstream": steady, "p2p": noisy, "sparse": noisy}, calls))
    assert calls == sorted(calls, key=[p.kernel for p in points].index)  # each configuration to its stop in turn
    assert all(s.rep.invocations == 1 for s in states)  # its time budget ends it after one
