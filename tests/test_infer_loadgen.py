"""Inference stage on the real LoadGen: every scenario for a fraction of a second, AccuracyOnly once,
and the results file checked against LoadGen's own summaries (a small MLP trained here on digits)."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from lazy_modules import lazy
from twelveways import config as twconfig
from twelveways import results
from twelveways.infer import harness, parse, run, runs, scenarios
from twelveways.infer.qsl import SampleLibrary
from twelveways.infer.settings import InferConfig, ServerSearch
from twelveways.infer.sut import PythonSUT

#: Imported when a test first uses them (tests/lazy_modules.py): collecting this file for make test-fast,
#: which leaves it out, must not import PyTorch.
torch = lazy("torch")
model = lazy("twelveways.infer.model")
variants = lazy("twelveways.infer.variants")

pytestmark = pytest.mark.slow  # real LoadGen runs of fixed durations and a trained checkpoint

ARCH = {"family": "mlp", "input_shape": [1, 8, 8], "hidden": [32], "num_classes": 10}
DATA = {"source": "sklearn-digits", "test_fraction": 0.2, "seed": 0, "scale": 16.0}


def _train(path: Path) -> Path:
    """A small MLP trained on the digits training split (about a second on one core)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    torch.manual_seed(0)
    bunch = load_digits()
    x, _, y, _ = train_test_split(bunch.data / 16.0, bunch.target, test_size=0.2, random_state=0, stratify=bunch.target)
    x = torch.tensor(x, dtype=torch.float32).reshape(-1, 1, 8, 8)
    y = torch.tensor(y)
    net = model.build(ARCH)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(15):
        for idx in torch.randperm(len(x)).split(64):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    return model.save(net, path, {"name": "tiny-mlp", "architecture": ARCH, "data": DATA,
                                  "quality": {"metric": "accuracy", "target": 0.9},
                                  "training": {"time_to_quality_s": 1.0}})


def _config(**infer) -> dict:
    base = {"models": ["tiny"], "variants": ["fp32"], "min_duration_s": 0.3,
            "server_search": {"max_runs": 3, "rel_tolerance": 0.3}, "server_load_fractions": []}
    base.update(infer)
    return twconfig.validate({"seed": 5, "infer": base})


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return _train(tmp_path_factory.mktemp("model") / "tiny.pt")


@pytest.fixture(scope="module")
def stage(checkpoint, tmp_path_factory):
    """The whole stage once: every scenario, the Server search and AccuracyOnly."""
    out = tmp_path_factory.mktemp("stage")
    cfg = _config()
    ds = run.execute(cfg, [checkpoint], out / "inference.nc", out / "inference", progress=False)
    return cfg, out, ds


def _summary_value(path: Path, pattern: str) -> int:
    """A value read straight from mlperf_log_summary.txt, independently of twelveways.infer.parse."""
    match = re.search(pattern, path.read_text(), re.MULTILINE)
    assert match, f"{pattern!r} not in {path}"
    return int(match.group(1))


def test_every_scenario_and_accuracy_ran_with_logs_kept(stage):
    _, out, ds = stage
    frame = results.to_frame(results.open(out / "inference.nc"))
    assert ds.attrs["family"] == "infer"
    performance = frame[frame["role"].isin(["performance", "search"])]
    assert set(performance["scenario"]) == {"SingleStream", "MultiStream", "Server", "Offline"}
    assert (frame["mode"] == "AccuracyOnly").any()
    for run_id in performance["run_id"].unique():
        folder = out / "inference" / run_id
        assert (folder / "mlperf_log_summary.txt").is_file() and (folder / "mlperf_log_detail.txt").is_file()
        assert not (folder / "audit.config").exists()
    accuracy = frame[(frame["metric"] == "accuracy")]["value"]
    assert len(accuracy) == 1 and accuracy.iloc[0] > 0.85
    items = frame[frame["metric"] == "item_correct"]  # one outcome per test item: what pairs two variants
    counted = frame.set_index("metric")["value"]
    assert sorted(items["sample_index"]) == list(range(int(counted["accuracy_samples"])))
    assert items["value"].sum() == counted["accuracy_correct"] and set(items["mode"]) == {"AccuracyOnly"}
    assert performance["below_statistical_minimum"].all()  # 0.3 s runs with small counts
    assert ds.attrs["statistical_minimum_label"] == "below the MLPerf statistical minimum"


def test_p90_in_results_equals_summary_and_per_query_latencies_reproduce_it(stage):
    _, out, _ = stage
    frame = results.to_frame(results.open(out / "inference.nc"))
    checked = 0
    for scenario in ("SingleStream", "Server", "MultiStream"):
        rows = frame[(frame["scenario"] == scenario) & frame["role"].isin(["performance", "search"])]
        for run_id, part in rows.groupby("run_id"):
            summary = out / "inference" / run_id / "mlperf_log_summary.txt"
            expected = _summary_value(summary, r"^90\.00 percentile latency \(ns\)\s*:\s*(\d+)")
            stored = part.loc[part["metric"] == "latency_p90", "value"]
            assert stored.tolist() == [float(expected)]
            latencies = np.sort(part.loc[part["metric"] == "latency", "value"].to_numpy())
            if part.loc[part["metric"] == "latency_rows_fraction", "value"].iloc[0] == 1.0:
                assert latencies[int(len(latencies) * 0.9)] == expected  # LoadGen's rule: sorted[floor(n p)]
                checked += 1
    assert checked >= 3


def test_validity_is_loadgens_verdict_never_overridden(stage):
    _, out, _ = stage
    frame = results.to_frame(results.open(out / "inference.nc"))
    runs_seen = frame[frame["role"].isin(["performance", "search", "pilot"])].groupby("run_id")
    for run_id, part in runs_seen:
        text = (out / "inference" / run_id / "mlperf_log_summary.txt").read_text()
        verdict = re.search(r"^Result is : (\w+)", text, re.MULTILINE).group(1)
        assert part["valid"].unique().tolist() == [verdict == "VALID"]
        for line, metric in (("Min duration satisfied", "min_duration_satisfied"),
                             ("Early stopping satisfied", "early_stopping_satisfied")):
            flag = re.search(rf"{line}\s*: (\w+)", text).group(1) == "Yes"
            assert part.loc[part["metric"] == metric, "value"].tolist() == [float(flag)]


def test_server_search_and_costs_are_recorded(stage):
    _, out, ds = stage
    frame = results.to_frame(ds)
    search = results.attr_json(ds, "server_search")["tiny-mlp-fp32"]
    probes = frame[(frame["role"] == "search")].groupby("target_qps")["valid"].first()
    assert sorted(probes.index.tolist()) == sorted(p[0] for p in search["probes"])
    best = frame.loc[frame["metric"] == "latency_bounded_qps", "value"].iloc[0]
    if search["best_qps"] is not None:
        assert best == search["best_qps"] and probes[best]
    assert "inference_time_per_sample" in set(frame["metric"])
    assert "training_cost_in_inferences" in set(frame["metric"])


def test_repeated_performance_runs_are_replicates_downstream(checkpoint, tmp_path):
    """infer.performance_runs: each run has its own folder and run_id; the tables summarize over the runs and
    count them; a claim counts the runs as its replicates (n = runs) and has an interval."""
    from twelveways import claims
    from twelveways.infer import analysis

    cfg = _config(variants=["fp32", "int8"], scenarios=["SingleStream", "Offline"], accuracy_mode=False,
                  performance_runs={"single_stream": 3, "offline": 2})
    run.execute(cfg, [checkpoint], tmp_path / "inference.nc", tmp_path / "inference", progress=False)
    frame, _ = analysis.load(tmp_path)
    performance = frame[frame["role"] == "performance"]
    for variant in ("tiny-mlp-fp32", "tiny-mlp-int8"):
        ids = sorted(performance.loc[(performance["variant"] == variant)
                                     & (performance["scenario"] == "SingleStream"), "run_id"].unique())
        assert ids == [f"{variant}/SingleStream/performance/run_{n}" for n in (1, 2, 3)]
        assert all((tmp_path / "inference" / i / "mlperf_log_summary.txt").is_file() for i in ids)
    assert set(performance["stop_reason"]) == {"fixed_loadgen_runs"}
    head = analysis.headline(frame).set_index("variant")
    # the run counts are in the verdicts (the table stays within the page); MultiStream ran once: no count column
    assert head["SingleStream LoadGen result"].str.endswith("(3 runs)").all()
    assert head["Offline LoadGen result"].str.endswith("(2 runs)").all() and "MultiStream runs" not in head
    rates = performance[performance["metric"] == "samples_per_second"].groupby("variant")["value"]
    assert head["Offline samples/s"].to_dict() == pytest.approx(rates.median().to_dict())  # median of 2 runs
    assert analysis.reported(frame)["offline_runs"].tolist() == [2, 2]
    latencies = analysis.latencies(frame)
    summaries = analysis.percentile_summaries(latencies[latencies["scenario"] == "SingleStream"], 0.95)
    assert {s["runs"] for s in summaries} == {3} and all("3 LoadGen runs pooled" in s["note"] for s in summaries)
    claim = claims.parse_claim({"id": "c", "statement": "s", "kind": "ratio", "metric": "latency", "at_least": 0.5,
                                "a": {"workload": "tiny-mlp", "scenario": "SingleStream", "role": "performance",
                                      "precision": "int8"},
                                "b": {"workload": "tiny-mlp", "scenario": "SingleStream", "role": "performance",
                                      "precision": "fp32"}}, "test", 0)
    numbers = claims.check_claim(claim, frame).to_dict()["numbers"]
    assert numbers["design"] == "replicates"
    assert numbers["a"]["n"] == numbers["a"]["runs"] == 3 == numbers["b"]["n"]
    assert numbers["a"]["values"] >= 3 * cfg["infer"]["min_queries"]["single_stream"]  # queries, beside n
    low, high = numbers["interval"]
    assert 0 < low <= numbers["estimate"] <= high


def test_invalid_server_run_is_kept_invalid(checkpoint, tmp_path):
    """A latency bound nobody can meet: LoadGen says INVALID and so does the results file."""
    cfg = InferConfig.from_config(_config(server_latency_bound_ms=0.000001))
    loaded = model.load(checkpoint)
    from twelveways.infer import data

    split = data.load_split(DATA, loaded.input_shape)
    variant = variants.make(loaded.module, "fp32")
    prep = runs.prepare(loaded, variant, variants.TorchRunner(variant, split.features), len(split), split.labels, cfg)
    parsed = runs.performance_run(prep, "Server", cfg, 1, tmp_path / "server", target_qps=500.0)
    assert parsed["summary"]["result"] == "INVALID" and not parsed["valid"]
    assert parsed["summary"]["criteria"]["latency_bound_satisfied"] is False


def test_a_capped_probe_the_model_cannot_keep_up_with_is_invalid_and_stops(checkpoint, tmp_path):
    """A target far beyond a slow model: LoadGen stops issuing at the cap's 85%, the rest is answered
    without the model after the cap, and the probe counts as INVALID (as LoadGen also says)."""
    cfg = InferConfig.from_config(_config(min_duration_s=0.5))
    loaded = model.load(checkpoint)
    from twelveways.infer import data

    split = data.load_split(DATA, loaded.input_shape)
    variant = variants.make(loaded.module, "fp32")
    slow = variants.NullRunner()

    def runner(indices):
        time.sleep(0.002 * len(indices))
        return slow(indices)

    prep = runs.prepare(loaded, variant, runner, len(split), split.labels, cfg)
    parsed = runs.performance_run(prep, "Server", cfg, 1, tmp_path / "capped", target_qps=5000.0, cap_s=1.0)
    assert parsed["skipped_samples"] > 0 and not parsed["valid"]
    assert parsed["detail"]["values"]["effective_max_duration_ms"] <= 850
    capped = dataclasses.replace(cfg, server_search=ServerSearch(max_runs=2, rel_tolerance=0.1, start_qps=0.0,
                                                                 probe_cap_s=1.0))
    result = runs.server_search(prep, capped, 1, tmp_path / "search", start=5000.0, ceiling=20000.0)
    assert all(p.target_qps >= result.floor_qps for p in result.probes)
    assert result.floor_qps == pytest.approx(cfg.min_queries["server"] / 0.7)


def test_each_run_gets_a_fresh_directory_so_audit_config_cannot_leak(checkpoint, tmp_path):
    cfg = InferConfig.from_config(_config(min_duration_s=0.1))
    loaded = model.load(checkpoint)
    from twelveways.infer import data

    split = data.load_split(DATA, loaded.input_shape)
    variant = variants.make(loaded.module, "fp32")
    prep = runs.prepare(loaded, variant, variants.NullRunner(), len(split), split.labels, cfg)
    folder = tmp_path / "ss"
    folder.mkdir()
    (folder / "audit.config").write_text("*.SingleStream.min_query_count = 7777\n")
    parsed = runs.performance_run(prep, "SingleStream", cfg, 1, folder)
    assert not (folder / "audit.config").exists()
    assert parsed["detail"]["values"]["effective_min_query_count"] == cfg.min_queries["single_stream"]
    assert (folder / (harness.TRACE + ".gz")).is_file()  # the trace is kept, compressed


def test_cli_errors_are_one_line(tmp_path, checkpoint, capsys):
    cfg_path = tmp_path / "config.json"
    twconfig.write_json(_config(), cfg_path)
    code = run.main(["--config", str(cfg_path), "--model", str(tmp_path / "absent.pt"), "--output", str(tmp_path / "x.nc")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1 and "absent.pt" in err
    assert not (tmp_path / "x.nc").exists()
    cfg_path.write_text(json.dumps({"infer": {"variants": ["fp8"]}}))
    code = run.main(["--config", str(cfg_path), "--model", str(checkpoint), "--output", str(tmp_path / "x.nc")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and "infer.variants" in err and "Traceback" not in err


@pytest.mark.parametrize("queued, max_batch", [(True, 300), (True, 7), (False, 1)])
def test_accuracy_log_carries_each_samples_own_prediction(tmp_path, queued, max_batch):
    """The SUT reuses its response objects and prediction buffer across batches: every sample
    must still be logged with its own prediction (here qsl_index mod 7), whatever the batching,
    including batches larger than the pool first built (64)."""
    total = 500
    cfg = InferConfig.from_config(_config())
    calibration = {"latency_single_s": 1e-4, "throughput_sps": 1e5, "source": "test"}
    scenario = scenarios.get("Offline" if queued else "SingleStream")
    settings = scenarios.settings(scenario, "AccuracyOnly", cfg, calibration, 3)
    runner = lambda indices: np.asarray(indices, dtype=np.int64) % 7  # noqa: E731 - a stand-in model
    with SampleLibrary(total, total) as qsl, PythonSUT(runner, queued=queued, max_batch=max_batch) as sut:
        run_dir = harness.run(sut, qsl, settings, tmp_path / "acc", trace=False)
        sut.check()
    index, predicted = parse.accuracy_log(run_dir)
    assert sorted(index.tolist()) == list(range(total))
    assert (np.asarray(predicted) == np.asarray(index) % 7).all()
