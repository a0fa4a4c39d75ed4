"""Inference stage, parts without LoadGen runs: query counts, search, accuracy forms, parsing, loading, config."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from lazy_modules import TORCH, lazy
from twelveways import config
from twelveways.errors import ConfigError, MeasurementError
from twelveways.infer import accuracy, min_query_count, parse, records, server_search
from twelveways.infer.querycount import BELOW_MINIMUM_LABEL, below_statistical_minimum
from twelveways.infer.settings import InferConfig

torch = lazy("torch")
model = lazy("twelveways.infer.model")
variants = lazy("twelveways.infer.variants")


# ---------------------------------------------------------------- query counts

@pytest.mark.parametrize("percentile, count", [(0.90, 24_576), (0.95, 57_344), (0.97, 90_112), (0.99, 270_336)])
def test_min_query_count_reproduces_mlperf(percentile, count):
    assert min_query_count(percentile) == count
    assert min_query_count(percentile, confidence=0.99) % 2 ** 13 == 0


def test_min_query_count_grows_with_confidence_and_rejects_nonsense():
    assert min_query_count(0.9, confidence=0.95) < min_query_count(0.9)
    with pytest.raises(ConfigError, match="percentile"):
        min_query_count(1.0)
    with pytest.raises(ConfigError, match="confidence"):
        min_query_count(0.9, confidence=0)


def test_below_statistical_minimum_needs_count_and_duration():
    assert below_statistical_minimum(1024, 0.9, 60.0)
    assert below_statistical_minimum(24_576, 0.9, 10.0)
    assert not below_statistical_minimum(24_576, 0.9, 60.0)
    assert BELOW_MINIMUM_LABEL == "below the MLPerf statistical minimum"


# ---------------------------------------------------------------- Server search (a fake SUT with a true capacity)

@pytest.mark.parametrize("start", [100.0, 3000.0, 40_000.0])
def test_server_search_brackets_the_capacity(start):
    capacity = 2345.0
    seen = []

    def run_at(qps):
        seen.append(qps)
        return qps <= capacity

    result = server_search.search(run_at, start, max_runs=12, rel_tolerance=0.05)
    assert result.best_qps is not None and result.best_qps <= capacity
    low, high = result.bracket
    assert high is not None and high > capacity
    assert high / low - 1 <= 0.05 or result.stop_reason == "max_runs"
    assert len(seen) == len(result.probes) <= 12


def _prepared(latency_single_s: float, source: str, throughput_sps: float = 0.0):
    from types import SimpleNamespace

    return SimpleNamespace(calibration={"latency_single_s": latency_single_s, "source": source,
                                        "throughput_sps": throughput_sps})


def test_the_first_server_probe_is_the_middle_of_the_capacity_bounds_on_a_log_scale():
    from twelveways.infer import runs

    cfg = InferConfig.from_config(config.validate({}))
    pilots = _prepared(1e-4, "LoadGen pilot runs", 4e5)  # 10,000 queries/s one at a time; 400,000 samples/s Offline
    assert runs.start_qps(pilots, cfg, ceiling=1e6) == pytest.approx(1e5)  # the Offline run's throughput, given
    assert runs.start_qps(pilots, cfg) == pytest.approx((1e4 * 4e5) ** 0.5)  # else the Offline pilots'
    assert runs.start_qps(_prepared(1e-4, "runner only"), cfg) == pytest.approx(1e4)  # no throughput: the lower bound
    assert runs.start_qps(pilots, cfg, ceiling=5e3) == pytest.approx(5e3)  # never above the ceiling
    configured = dataclasses.replace(cfg, server_search=dataclasses.replace(cfg.server_search, start_qps=1234.0))
    assert runs.start_qps(pilots, configured, ceiling=1e6) == 1234.0


def test_starting_in_the_middle_of_the_bounds_takes_fewer_probes_than_starting_at_the_lower_one():
    single, ceiling = 1e4, 1e6
    middle = (single * ceiling) ** 0.5
    counts = {"lower": [], "middle": []}
    for capacity in np.geomspace(single * 1.05, ceiling * 0.95, 25):
        for name, start in (("lower", single), ("middle", middle)):
            result = server_search.search(lambda q, c=capacity: q <= c, start, max_runs=12, rel_tolerance=0.2,
                                          ceiling_qps=ceiling)
            assert result.best_qps <= capacity < result.bracket[1] <= result.best_qps * 1.2
            counts[name].append(len(result.probes))
    assert np.mean(counts["middle"]) < np.mean(counts["lower"]) - 1


def test_server_search_reports_none_when_nothing_is_valid_and_respects_ceiling():
    result = server_search.search(lambda q: False, 100.0, max_runs=20, floor_qps=10.0)
    assert result.best_qps is None and result.stop_reason == "floor_reached"
    capped = server_search.search(lambda q: True, 100.0, max_runs=20, ceiling_qps=500.0)
    assert capped.best_qps == 500.0 and capped.stop_reason == "ceiling_reached"
    assert max(p.target_qps for p in capped.probes) == 500.0


def test_server_search_keeps_highest_valid_even_if_noise_inverts():
    verdicts = {100.0: True, 200.0: False, 141.4: True, 168.2: True}
    result = server_search.search(lambda q: verdicts.get(q, False), 100.0, max_runs=4, rel_tolerance=0.01)
    assert result.best_qps == 168.2


def test_server_search_stays_within_floor_and_ceiling_and_closes_on_the_ceiling():
    capacity, seen = 900.0, []

    def run_at(qps):
        seen.append(qps)
        return qps <= capacity

    result = server_search.search(run_at, 50.0, max_runs=12, rel_tolerance=0.15, floor_qps=200.0, ceiling_qps=1000.0)
    assert min(seen) >= 200.0 and max(seen) <= 1000.0
    assert result.best_qps <= capacity and result.bracket[1] <= 1000.0
    always = server_search.search(lambda q: True, 300.0, max_runs=12, rel_tolerance=0.5, ceiling_qps=800.0)
    assert always.stop_reason == "ceiling_bracket" and always.bracket == (600.0, 800.0)  # 800/600 within 50%
    assert [p.target_qps for p in always.probes] == [300.0, 600.0]
    empty = server_search.search(run_at, 50.0, max_runs=5, floor_qps=2000.0, ceiling_qps=1000.0)
    assert empty.probes == [] and empty.best_qps is None and empty.stop_reason == "floor_reached"


def test_probe_cap_bounds_the_loadgen_settings_and_its_floor():
    from twelveways.infer import scenarios

    cfg = InferConfig.from_config(config.validate({"infer": {"min_duration_s": 10.0}}))
    server = scenarios.get("Server")
    calibration = {"latency_single_s": 1e-3, "latency_multi_s": 1e-3, "throughput_sps": 1e4}
    capped = scenarios.settings(server, "PerformanceOnly", cfg, calibration, 1, target_qps=50.0, cap_s=6.0)
    assert capped.max_duration_ms <= 6000 * scenarios.PROBE_ISSUE_SHARE
    assert capped.min_duration_ms <= 6000 * scenarios.PROBE_SCHEDULE_SHARE
    free = scenarios.settings(server, "PerformanceOnly", cfg, calibration, 1, target_qps=50.0)
    assert free.min_duration_ms == 10_000 and free.max_duration_ms > 6000
    floor = scenarios.probe_floor_qps(cfg, 6.0)
    assert floor * 6.0 * scenarios.PROBE_SCHEDULE_SHARE == pytest.approx(scenarios.min_queries(server, cfg))
    with pytest.raises(ConfigError, match="probe_cap_s"):
        scenarios.probe_floor_qps(dataclasses.replace(cfg, server_latency_bound_ms=1000.0), 6.0)


def test_work_units_put_each_server_search_after_its_offline_run():
    from twelveways.infer.run import work_units

    cfg = InferConfig.from_config(config.validate({"infer": {"variants": ["fp32", "bf16", "int8"]}}))
    units = work_units(cfg, 2, seed=11)
    kinds = list(cfg.scenarios) + ["accuracy"]
    assert sorted(units) == sorted((i, v, k, 1) for i in range(2) for v in cfg.variants for k in kinds)
    for i in range(2):
        for v in cfg.variants:
            assert units.index((i, v, "Server", 1)) > units.index((i, v, "Offline", 1))
    assert work_units(cfg, 2, seed=11) == units and work_units(cfg, 2, seed=12) != units


def test_each_repeated_performance_run_is_its_own_shuffled_unit_with_its_own_folder():
    from twelveways.infer.run import performance_folder, work_units

    cfg = InferConfig.from_config(config.validate({"infer": {
        "variants": ["fp32", "int8"], "performance_runs": {"single_stream": 3, "offline": 2}}}))
    assert [cfg.runs_per_variant(s) for s in ("SingleStream", "MultiStream", "Server", "Offline")] == [3, 1, 1, 2]
    units = work_units(cfg, 1, seed=5)
    single = [u for u in units if u[2] == "SingleStream"]
    assert sorted(single) == [(0, v, "SingleStream", n) for v in ("fp32", "int8") for n in (1, 2, 3)]
    assert sum(u[2] == "Server" for u in units) == 2  # Server is not repeated by the key
    for v in cfg.variants:  # after the variant's first Offline run, whose rate brackets the search
        first_offline = min(units.index((0, v, "Offline", n)) for n in (1, 2))
        assert units.index((0, v, "Server", 1)) > first_offline
    positions = [i for i, u in enumerate(units) if u[2] == "SingleStream"]
    assert positions != list(range(positions[0], positions[0] + 6))  # interleaved, not one block of repeats
    folders = [performance_folder(n, 3) for n in (1, 2, 3)]
    assert folders == ["performance/run_1", "performance/run_2", "performance/run_3"]
    assert performance_folder(1, 1) == "performance"
    with pytest.raises(Exception, match="server"):
        config.validate({"infer": {"performance_runs": {"server": 2}}})


# ---------------------------------------------------------------- accuracy definitions (F12)

def test_relative_accuracy_three_forms_disagree_as_they_should():
    cmp = accuracy.compare(0.975, 0.98, "relative", 0.01)
    assert cmp["accuracy_delta_points"] == pytest.approx(-0.5)
    assert cmp["relative_accuracy"] == pytest.approx(0.975 / 0.98)
    assert cmp["relative_errors"] == pytest.approx(1.25)  # 2.5% errors instead of 2%: 125% of the errors
    assert cmp["within_tolerance"]  # 99.5% of the fp32 accuracy
    assert not accuracy.compare(0.975, 0.98, "relative_to_errors", 0.01)["within_tolerance"]
    assert accuracy.compare(0.975, 0.98, "absolute_points", 0.01)["within_tolerance"]
    assert not accuracy.compare(0.969, 0.98, "absolute_points", 0.01)["within_tolerance"]
    assert not accuracy.compare(0.97, 0.98, "relative", 0.01)["within_tolerance"]  # 98.98% < 99%
    with pytest.raises(MeasurementError, match="definition"):
        accuracy.compare(0.9, 0.9, "percent")


def test_accuracy_score_requires_each_sample_once():
    labels = np.array([0, 1, 2, 3])
    ok = accuracy.score(np.array([3, 1, 0, 2]), np.array([3, 1, 0, 0]), labels)
    assert ok["accuracy"] == 0.75 and ok["correct"] == 3
    with pytest.raises(MeasurementError, match="one response per sample"):
        accuracy.score(np.array([0, 0, 1, 2]), np.array([0, 0, 1, 2]), labels)


def test_item_outcomes_are_in_qsl_order_and_become_one_row_per_item():
    labels = np.array([0, 1, 2, 3])
    outcomes = accuracy.item_outcomes(np.array([3, 1, 0, 2]), np.array([3, 1, 0, 0]), labels)
    assert outcomes.tolist() == [True, True, False, True]  # sample 2 was answered 0
    assert accuracy.summary(outcomes) == {"samples": 4, "correct": 3, "accuracy": 0.75}
    rows = records.item_rows({"run_id": "m-int8/Offline/accuracy", "role": "accuracy"}, outcomes)
    assert rows["metric"].unique().tolist() == ["item_correct"] and rows["sample_index"].tolist() == [0, 1, 2, 3]
    assert rows["value"].tolist() == [1.0, 1.0, 0.0, 1.0] and set(rows["run_id"]) == {"m-int8/Offline/accuracy"}
    assert "item_correct" in records.METRICS and records.METRIC_KINDS["item_correct"] == "other"


def test_accuracy_log_decoding_and_script(tmp_path, capsys):
    entries = [{"seq_id": i, "qsl_idx": idx, "data": np.array([pred], "<i4").tobytes().hex().upper()}
               for i, (idx, pred) in enumerate([(2, 7), (0, 1), (1, 5)])]
    log = tmp_path / "mlperf_log_accuracy.json"
    log.write_text(json.dumps(entries))
    index, predicted = parse.accuracy_log(tmp_path)
    assert index.tolist() == [2, 0, 1] and predicted.tolist() == [7, 1, 5]
    np.save(tmp_path / "labels.npy", np.array([1, 5, 0]))
    assert accuracy.main(["--log", str(log), "--labels", str(tmp_path / "labels.npy"),
                          "--reference-accuracy", "1.0", "--target", "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["accuracy"] == pytest.approx(2 / 3) and out["quality_target_met"] and not out["within_tolerance"]
    assert "relative" in out["definition_text"]
    assert accuracy.main(["--log", str(log), "--labels", str(tmp_path / "missing.npy")]) == 1
    assert capsys.readouterr().err.startswith("error: ")


# ---------------------------------------------------------------- summary parsing

SUMMARY = """================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : SingleStream
Mode     : PerformanceOnly
90.0th percentile latency (ns) : 2604
Result is : INVALID
  Min duration satisfied : NO
  Min queries satisfied : Yes
  Early stopping satisfied: Yes
Recommendations:
 * Decrease the expected latency so the loadgen pre-generates more queries.
Early Stopping Result:
 * Processed at least 64 queries (20001).
 * Would discard 1900 highest latency queries.
 * Early stopping 90.0th percentile estimate: 2614
 * Early stopping 99.0th percentile estimate: 3234

================================================
Additional Stats
================================================
QPS w/ loadgen overhead         : 191771.61
QPS w/o loadgen overhead        : 378644.45

Min latency (ns)                : 1101
Max latency (ns)                : 4077479
Mean latency (ns)               : 2641
50.00 percentile latency (ns)   : 2243
90.00 percentile latency (ns)   : 2604
99.90 percentile latency (ns)   : 32498

================================================
Test Parameters Used
================================================
samples_per_query : 1
min_duration (ms): 1000
"""


def test_summary_parse_keeps_verdict_and_each_criterion(tmp_path):
    (tmp_path / parse.SUMMARY).write_text(SUMMARY)
    s = parse.summary(tmp_path)
    assert s["result"] == "INVALID" and s["scenario"] == "SingleStream"
    assert s["criteria"] == {"min_duration_satisfied": False, "min_queries_satisfied": True,
                             "early_stopping_satisfied": True}
    assert s["percentiles"] == {0.5: 2243, 0.9: 2604, 0.999: 32498}
    assert s["early_stopping"] == {0.9: 2614, 0.99: 3234}
    assert s["values"]["QPS w/ loadgen overhead"] == pytest.approx(191771.61)
    assert s["values"]["param:min_duration (ms)"] == 1000


def test_summary_without_verdict_is_refused(tmp_path):
    (tmp_path / parse.SUMMARY).write_text(SUMMARY.replace("Result is : INVALID\n", ""))
    with pytest.raises(MeasurementError, match="Result is"):
        parse.summary(tmp_path)


def test_loadgen_percentile_is_floor_index():
    values = np.arange(1, 11)  # 10 sorted values
    assert parse.loadgen_percentile(values, 0.9) == 10  # sorted[floor(10*0.9)] = sorted[9]
    assert parse.loadgen_percentile(values, 0.5) == 6


def test_keep_rows_subsamples_deterministically():
    assert records.keep_rows(100, 0, "a", 1) is None and records.keep_rows(100, 200, "a", 1) is None
    a, b = records.keep_rows(1000, 50, "run", 3), records.keep_rows(1000, 50, "run", 3)
    assert a.tolist() == b.tolist() and len(set(a.tolist())) == 50


# ---------------------------------------------------------------- checkpoints and variants

def _mlp():
    arch = {"family": "mlp", "input_shape": [1, 8, 8], "hidden": [16], "num_classes": 10}
    return arch, model.build(arch)


@TORCH
def test_checkpoint_roundtrip_and_mismatch(tmp_path):
    arch, net = _mlp()
    path = model.save(net, tmp_path / "m.pt", {"name": "tiny", "architecture": arch})
    loaded = model.load(path)
    assert loaded.name == "tiny" and loaded.parameters == sum(p.numel() for p in net.parameters())
    x = torch.rand(3, 1, 8, 8)
    assert torch.equal(loaded.module(x), net.eval()(x))
    (tmp_path / "m.json").write_text(json.dumps({"architecture": dict(arch, hidden=[17])}))
    with pytest.raises(model.ModelError, match="do not match"):
        model.load(path)
    (tmp_path / "m.json").write_text(json.dumps({"architecture": {"builder": "os:system"}}))
    with pytest.raises(model.ModelError, match="twelveways"):
        model.load(path)
    with pytest.raises(ConfigError, match="not found"):
        model.load(tmp_path / "nothing.pt")


@TORCH
def test_training_stage_checkpoint_contract(tmp_path):
    """The training stage's save_checkpoint output loads here (the interface between training and inference)."""
    train_models = pytest.importorskip("twelveways.train.models")
    net = train_models.build("mlp-small", (1, 8, 8), 10)
    info = {"architecture": train_models.architecture("mlp-small", (1, 8, 8), 10)}
    train_models.save_checkpoint(net, tmp_path / "reference.pt", info)
    loaded = model.load(tmp_path / "reference.pt")
    x = torch.rand(2, 1, 8, 8)
    assert torch.equal(loaded.module(x), net.eval()(x))


@TORCH
def test_variants_state_their_precision():
    arch, net = _mlp()
    assert variants.make(net, "fp32").precision == "fp32"
    bf16 = variants.make(net, "bf16")
    assert next(bf16.module.parameters()).dtype == torch.bfloat16
    assert next(net.parameters()).dtype == torch.float32  # the original is untouched
    assert variants.make(net, "int8").precision == "int8"
    cnn = model.build({"family": "cnn", "input_shape": [1, 8, 8], "channels": [4], "num_classes": 10})
    assert variants.make(cnn, "int8").precision == "mixed:int8-linear+fp32-conv"
    with pytest.raises(ConfigError, match="unknown inference variant"):
        variants.make(net, "fp16")
    runner = variants.TorchRunner(variants.make(net, "int8"), torch.rand(5, 1, 8, 8))
    out = runner([4, 0, 2])
    assert out.dtype == np.int32 and out.shape == (3,)
    assert variants.NullRunner()([1, 2]).tolist() == [0, 0]


# ---------------------------------------------------------------- config

@pytest.mark.parametrize("section, message", [
    ({"variants": ["fp16"]}, "infer.variants"),
    ({"min_duration_s": 0}, "infer.min_duration_s"),
    ({"accuracy": {"definition": "percent"}}, "infer.accuracy.definition"),
    ({"scenarios": []}, "infer.scenarios"),
    ({"percentiles": {"server": 1.0}}, "infer.percentiles.server"),
    ({"warp": 9}, "infer.warp"),
])
def test_bad_infer_config_fails_with_one_line(section, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")) as info:
        config.validate({"infer": section})
    assert "\n" not in info.value.one_line()


def test_infer_defaults_are_mlperf_values():
    infer = config.validate({})["infer"]
    assert infer["percentiles"] == {"single_stream": 0.9, "multi_stream": 0.99, "server": 0.99}
    assert infer["multistream_samples_per_query"] == 8 and infer["confidence"] == 0.99


@TORCH
def test_ops_by_dtype_states_where_a_mixed_variant_ran_what():
    """F5: an int8 CNN is int8 only in its linear layers; the convolutions' work stays fp32."""
    from torch import nn

    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 10))
    conv = 2 * (1 * 9) * (4 * 8 * 8)  # 2 x (in_channels x kernel) per output element
    linear = 2 * 256 * 10
    assert variants.ops_by_dtype(variants.make(net, "fp32"), (1, 8, 8)) == {"conv:fp32": conv, "linear:fp32": linear}
    mixed = variants.make(net, "int8")
    assert mixed.precision == "mixed:int8-linear+fp32-conv"
    assert variants.ops_by_dtype(mixed, (1, 8, 8)) == {"conv:fp32": conv, "linear:int8": linear}
    assert variants.ops_by_dtype(variants.make(net, "bf16"), (1, 8, 8)) == {"conv:bf16": conv, "linear:bf16": linear}
