"""A tiny training study end to end: every family trains, the mllog logs pass MLPerf's compliance
checker (its CLI), the olympic mean recomputed from the logs equals the stored score, the saved
model reloads, and the data-parallel runs really ran on 2 MPI ranks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest

from lazy_modules import lazy
from twelveways import results
from twelveways.config import validate
from twelveways.train import data, mllog_io
from twelveways.train.score import olympic_mean
from twelveways.train.settings import TrainConfig

#: Imported when a test first uses them (tests/lazy_modules.py): collecting this file for make test-fast,
#: which leaves it out, must not import PyTorch.
torch = lazy("torch")
models = lazy("twelveways.train.models")
sweeps = lazy("twelveways.train.sweeps")

pytestmark = pytest.mark.slow

TINY = {
    "datasets": ["digits"],
    "models": ["mlp-small", "cnn-small"],  # one per family (both sizes build in test_train_units)
    "seeds": 3,
    "max_epochs": 10,
    "batch_sizes": [32, 256],
    "studies": ["families", "batch_size", "io", "lr_search", "parallel"],
    "input_sizes": [8],
    "parallel": {"ranks": [1, 2], "scaling": ["strong"], "model": "mlp-small", "batch_size": 32, "topk_ratio": 0.05},
    "lr_search": {"lrs": [0.05, 0.5], "seeds": 1},
}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("train")
    config = validate({"seed": 5, "train": dict(TINY, data_dir=str(root / "data"))})
    data.prepare(root / "data", TrainConfig.from_config(config))
    out = sweeps.execute(config, root / "results" / "train.nc", None, root / "results" / "train" / "mllog", root / "models")
    return {"root": root, "ds": results.open(out), "logs": root / "results" / "train" / "mllog", "config": config}


def _runs(frame):
    runs = frame[(frame["iteration"] == -1) & (frame["seed"] >= 0)]
    return runs.pivot_table(index="run_id", columns="metric", values="value")


def test_every_family_trains_and_records_train_and_test_accuracy(study):
    frame = results.to_frame(study["ds"])
    assert study["ds"].attrs["family"] == "train"
    per_run = frame[(frame["iteration"] == -1) & (frame["metric"] == "test_accuracy")]
    assert set(TINY["models"]) <= set(per_run["workload"])
    runs = _runs(frame)
    assert runs["train_accuracy"].notna().all() and runs["test_accuracy"].notna().all()
    families = frame[frame["study"].str.contains("families") & (frame["metric"] == "converged")]
    # every family learns: most runs reach 95% validation accuracy within 10 epochs
    assert families.groupby("workload")["value"].mean().min() >= 0.6
    best = runs.loc[runs["converged"] == 1, "test_accuracy"]
    assert (best > 0.85).all()
    # curves: one row per epoch, samples_seen grows by the training split each epoch
    curve = frame[(frame["metric"] == "samples_seen") & (frame["iteration"] > 0)]
    n_train = results.attr_json(study["ds"], "datasets")["digits"]["n_train"]
    first = curve[curve["iteration"] == 1]["value"]
    assert (first == n_train).all()


def test_mllog_logs_pass_the_compliance_checker_cli(study, tmp_path):
    logs = sorted(study["logs"].glob("*.log"))
    frame = results.to_frame(study["ds"])
    assert len(logs) == frame[frame["seed"] >= 0]["run_id"].nunique()
    assert (frame[frame["metric"] == "compliant"]["value"] == 1).all()
    # the CLI itself, on one log per configuration (a subprocess each)
    by_config = {}
    for log in logs:
        by_config.setdefault(mllog_io.run_summary(log)["config_id"], log)
    for log in by_config.values():
        proc = subprocess.run(mllog_io.checker_command(log, tmp_path / "checker.log"), capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "SUCCESS" in proc.stderr


def test_the_ruleset_rejects_a_log_that_breaks_the_timing_rules(study, tmp_path):
    log = next(p for p in sorted(study["logs"].glob("*.log")) if "/io/" in mllog_io.run_summary(p)["config_id"])
    lines = log.read_text().splitlines()
    # the io variant read its data before run_start: the timed region would hide the I/O (F10)
    read = next(i for i, line in enumerate(lines) if '"tw_data_read"' in line)
    start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    moved = lines[:start] + [lines[read]] + [line for i, line in enumerate(lines[start:], start) if i != read]
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(moved) + "\n")
    ok, messages = mllog_io.check(bad)
    assert not ok and any("tw_data_read" in m for m in messages)
    proc = subprocess.run(mllog_io.checker_command(bad, tmp_path / "c.log"), capture_output=True, text=True)
    assert proc.returncode == 1
    # an eval after the target was reached (the run did not stop at the first one) fails too
    evals = [line for line in lines if '"eval_accuracy"' in line]
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    if '"success"' in lines[stop]:
        late = lines[:stop] + [evals[-1]] + lines[stop:]
        bad.write_text("\n".join(late) + "\n")
        assert not mllog_io.check(bad)[0]


def test_olympic_mean_from_the_logs_equals_the_stored_score(study):
    grouped = defaultdict(list)
    for log in study["logs"].glob("*.log"):
        summary = mllog_io.run_summary(log)
        grouped[summary["config_id"]].append(summary)
    scores = results.attr_json(study["ds"], "scores")
    assert scores, "no scores stored"
    for config_id, stored in scores.items():
        runs = grouped[config_id]
        assert len(runs) == TINY["seeds"]
        recomputed = olympic_mean([r["time_to_train_s"] for r in runs], [r["status"] == "success" for r in runs])
        assert recomputed.valid == stored["valid"]
        if stored["valid"]:
            assert recomputed.score_s == pytest.approx(stored["score_s"], rel=0, abs=1e-9)
    # and the per-run rows hold the same times as the logs
    frame = results.to_frame(study["ds"])
    ttt = frame[frame["metric"] == "time_to_train"].set_index("run_id")["value"]
    for runs in grouped.values():
        for r in runs:
            matches = ttt[[rid for rid in ttt.index if rid.endswith(f"/s{r['seed']}") and rid.startswith(r["config_id"] + "/")]]
            assert matches.iloc[0] == pytest.approx(r["time_to_train_s"], abs=1e-9)


def test_batch_sweep_lr_search_and_io_variant_are_recorded(study):
    frame = results.to_frame(study["ds"])
    runs = frame[frame["iteration"] == -1]
    batch = runs[runs["study"].str.contains("batch_size") & (runs["metric"] == "epochs_to_target")]
    assert set(batch["batch_size"]) == {32, 256}
    assert batch[batch["batch_size"] == 256]["lr"].tolist() == pytest.approx([0.05 * 256 / 32] * TINY["seeds"])
    assert set(runs["lr_rule"]) == {"linear"}
    lr = results.attr_json(study["ds"], "lr_search")
    trial_rows = runs[(runs["role"] == "tuning") & (runs["metric"] == "run_wall_time")]
    assert lr["n_trials"] == len(trial_rows) == 2
    assert lr["total_cost_s"] == pytest.approx(trial_rows["value"].sum())
    cost = frame[frame["metric"] == "tuning_cost"]["value"]
    assert cost.iloc[0] == pytest.approx(lr["total_cost_s"])
    variants = set(runs[runs["study"].str.contains("io")]["variant"])
    assert variants == {"io", "preloaded"}
    # the io variant reads inside the timed region, the preloaded one does not
    io_log = next(p for p in study["logs"].glob("*.log") if "/io/" in mllog_io.run_summary(p)["config_id"])
    pre_log = next(p for p in study["logs"].glob("*.log") if "/preloaded/" in mllog_io.run_summary(p)["config_id"])
    for log, inside in ((io_log, True), (pre_log, False)):
        keys = [line.key for line in mllog_io.parse(log)]
        assert (keys.index("tw_data_read") > keys.index("run_start")) == inside


def test_data_parallel_runs_used_two_mpi_ranks_and_sparsified_less(study):
    ds = study["ds"]
    assert results.attr_json(ds, "mpi")["2"]["comm_size"] == 2
    frame = results.to_frame(ds)
    par = frame[(frame["iteration"] == -1) & (frame["ranks"] == 2) & (frame["metric"] == "comm_bytes_per_step")]
    dense = par[par["sparsification"] == "none"]["value"].unique()
    sparse = par[par["sparsification"] != "none"]["value"].unique()
    assert len(dense) == len(sparse) == 1
    n_params = models.n_parameters(models.build("mlp-small", (1, 8, 8), 10))
    assert dense[0] == 4 * n_params and sparse[0] == 8 * round(0.05 * n_params)
    assert set(frame[frame["ranks"] == 2]["scaling"]) == {"strong"}
    assert set(frame[frame["ranks"] == 2]["implementation"]) == {"torch+mpi4py"}


def test_reference_model_reloads_with_its_recorded_accuracy(study):
    model, info = models.load_checkpoint(study["root"] / "models" / "reference.json")
    assert info["model"] == "mlp-small" and info["input_shape"] == [1, 8, 8] and info["quality_target"] == 0.95
    arrays = data.load_npz(study["root"] / "data" / "digits.npz", ("test",))
    with torch.no_grad():
        predicted = model(torch.from_numpy(arrays["x_test"])).argmax(1).numpy()
    assert np.mean(predicted == arrays["y_test"]) == pytest.approx(info["quality"]["test_accuracy"])
    for name in TINY["models"]:
        assert (study["root"] / "models" / f"{name}.pt").is_file()


def test_sweeps_cli_reports_errors_in_one_line(tmp_path):
    config = validate({"train": {"data_dir": str(tmp_path / "nowhere")}})
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    proc = subprocess.run([sys.executable, "-m", "twelveways.train.sweeps", "--config", str(path),
                           "--output", str(tmp_path / "train.nc")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "train.nc").exists()


def test_analysis_tables_for_the_notebook(study):
    from twelveways.train import analysis as ta

    samples, attrs = ta.load(study["root"] / "results")
    runs = ta.per_run(samples)
    assert runs["run_id"].is_unique and len(runs) == len(list(study["logs"].glob("*.log")))
    missed = runs[runs["converged"] == 0]
    assert missed["time_to_train"].isna().all() and missed["time_to_train_spent"].notna().all()
    assert list(ta.batch_sweep(runs)["batch_size"]) == [32, 256]
    speed = ta.speedups(runs, ta.scores(attrs))
    base = speed[speed["ranks"] == 1].iloc[0]
    assert base["per_iteration_speedup"] == pytest.approx(1.0) and base["end_to_end_speedup"] == pytest.approx(1.0)
    sparse = speed[speed["sparsification"] != "none"].iloc[0]
    assert sparse["comm_reduction"] == pytest.approx(1 / 0.05 / 2, rel=0.02)  # 4 B dense vs 8 B per sent entry
    trials, totals = ta.tuning(attrs)
    assert list(trials["lr"]) == TINY["lr_search"]["lrs"]
    assert totals["total_tuning_cost_s"] == pytest.approx(trials["cost_s"].sum())
    ops = ta.ops_by_dtype(samples)
    assert (ops["ops_per_step"] > 0).all() and set(ops["op_kind"]) == {"matmul_conv", "elementwise"}
