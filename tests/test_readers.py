"""Published result formats read by `twelveways audit` / `twelveways import` (docs/formats.md).

Each test writes a small file in the format, from the format's documentation, reads it through
the CLI (in process), and checks rows, units, stated summaries and a verdict; a damaged file
of each format must exit 2 with one line naming it.
"""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest

from twelveways import results, stats
from twelveways.cli import main

MLLOG_T0 = 1_700_000_000_000


def mllog(key, t, value=None, meta=None, event="POINT_IN_TIME"):
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": event, "key": key, "value": value,
                                     "metadata": {"file": "train.py", "lineno": 1, **(meta or {})}})


def write_training(folder, minutes=(100, 110, 120, 130, 140), failed=(4,)):
    """A resnet benchmark folder: one result_<i>.txt per seeded run (MLPerf Training logging rules)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, tt in enumerate(minutes):
        start, stop = MLLOG_T0 + 10, MLLOG_T0 + 10 + tt * 60_000
        lines = [mllog("submission_benchmark", MLLOG_T0, "resnet"), mllog("submission_org", MLLOG_T0, "ACME"),
                 mllog("submission_division", MLLOG_T0, "closed"), mllog("submission_platform", MLLOG_T0, "box1"),
                 mllog("seed", MLLOG_T0, 100 + i), mllog("global_batch_size", MLLOG_T0, 256),
                 mllog("opt_base_learning_rate", MLLOG_T0, 0.1 * (1 + i % 2)),
                 mllog("init_start", MLLOG_T0, event="INTERVAL_START"), mllog("init_stop", start, event="INTERVAL_END"),
                 mllog("run_start", start, event="INTERVAL_START"),
                 mllog("eval_accuracy", stop - 5, 0.70 if i in failed else 0.76, {"epoch_num": 40 + i}),
                 mllog("run_stop", stop, None, {"status": "aborted" if i in failed else "success"}, "INTERVAL_END")]
        (folder / f"result_{i}.txt").write_text("\n".join(lines) + "\n")
    return folder


SUMMARY = """================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : SingleStream
Mode     : PerformanceOnly
90th percentile latency (ns) : {p90}
Result is : {result}
  Min duration satisfied : {duration}
  Min queries satisfied : Yes
  Early stopping satisfied: Yes
Early Stopping Result:
 * Processed at least 64 queries (1200).
 * Would discard 97 highest latency queries.
 * Early stopping 90th percentile estimate: 2100000
 * Early stopping 99th percentile estimate: 2600000

================================================
Additional Stats
================================================
QPS w/ loadgen overhead         : 500.00
QPS w/o loadgen overhead        : 510.00

Min latency (ns)                : 1000000
Max latency (ns)                : 3000000
Mean latency (ns)               : 1900000
50.00 percentile latency (ns)   : 1800000
90.00 percentile latency (ns)   : {p90}
95.00 percentile latency (ns)   : 2200000
97.00 percentile latency (ns)   : 2300000
99.00 percentile latency (ns)   : 2500000
99.90 percentile latency (ns)   : 2900000

================================================
Test Parameters Used
================================================
samples_per_query : 1
target_qps : 500
target_latency (ns): 0
max_async_queries : 1
min_duration (ms): 600000
max_duration (ms): 0
min_query_count : 1024
max_query_count : 0
performance_sample_count : 1024

No warnings encountered during test.

No errors encountered during test.
"""


def write_loadgen(folder, valid=True):
    """One LoadGen run directory: summary + detail log (LoadGen's documented output files)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mlperf_log_summary.txt").write_text(SUMMARY.format(
        p90=2000000, result="VALID" if valid else "INVALID", duration="Yes" if valid else "NO"))
    detail = [":::MLLOG " + json.dumps({"key": k, "value": v, "time_ms": 0, "namespace": "mlperf::logging",
                                        "event_type": "POINT_IN_TIME", "metadata": {"is_error": False, "is_warning": False}})
              for k, v in (("loadgen_version", "6.0.17"), ("effective_scenario", "SingleStream"),
                           ("effective_min_duration_ms", 600000), ("effective_min_query_count", 1024),
                           ("result_validity", "VALID" if valid else "INVALID"))]
    (folder / "mlperf_log_detail.txt").write_text("\n".join(detail) + "\n")
    return folder


def pyperf_doc(values_per_process):
    """A pyperf JSON suite (format version 1.0): a calibration process, then processes of values."""
    runs = [{"metadata": {"date": "2024-01-01 10:00:00", "calibrate_loops": 8}, "warmups": [[1, 0.1], [8, 0.07]]}]
    runs += [{"metadata": {"date": f"2024-01-01 10:00:0{i}"}, "warmups": [[8, 0.07]], "values": vals}
             for i, vals in enumerate(values_per_process, start=1)]
    return {"version": "1.0", "metadata": {"cpu_model_name": "Xeon", "platform": "Linux-6.1", "aslr": "Full randomization",
                                           "cpu_config": "0-3=governor:performance", "python_cflags": "-O3",
                                           "unit": "second", "loops": 8, "inner_loops": 2},
            "benchmarks": [{"metadata": {"name": "json_dumps"}, "runs": runs}]}


GBENCH = {
    "context": {"date": "2024-01-01T10:00:00", "host_name": "box1", "executable": "./bench", "num_cpus": 8,
                "mhz_per_cpu": 3000, "cpu_scaling_enabled": False, "library_build_type": "release",
                "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1}]},
    "benchmarks": [
        *[{"name": "BM_copy/64/repeats:3", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_copy/64",
           "run_type": "iteration", "repetitions": 3, "repetition_index": i, "threads": 1, "iterations": 1000,
           "real_time": t, "cpu_time": t * 0.99, "time_unit": "ns", "bytes_per_second": 64e9 / t}
          for i, t in enumerate((10.0, 12.0, 11.0))],
        {"name": "BM_copy/64/repeats:3_mean", "run_name": "BM_copy/64", "run_type": "aggregate", "repetitions": 3,
         "threads": 1, "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 3, "real_time": 11.0,
         "cpu_time": 10.89, "time_unit": "ns"},
        {"name": "BM_copy/64/repeats:3_stddev", "run_name": "BM_copy/64", "run_type": "aggregate", "repetitions": 3,
         "threads": 1, "aggregate_name": "stddev", "aggregate_unit": "time", "iterations": 3, "real_time": 1.0,
         "cpu_time": 0.99, "time_unit": "ns"},
        {"name": "BM_copy/64/repeats:3_cv", "run_name": "BM_copy/64", "run_type": "aggregate", "repetitions": 3,
         "threads": 1, "aggregate_name": "cv", "aggregate_unit": "percentage", "iterations": 3, "real_time": 0.0909,
         "cpu_time": 0.0909, "time_unit": "ns"}]}

HYPERFINE = {"results": [
    {"command": "sort -n data.txt", "mean": 0.2, "stddev": 0.0158, "median": 0.2, "user": 0.15, "system": 0.04,
     "min": 0.18, "max": 0.22, "times": [0.18, 0.2, 0.22, 0.19, 0.21], "exit_codes": [0, 0, 0, 0, 0],
     "parameters": {"threads": "1"}},
    {"command": "sort -n --parallel=4 data.txt", "mean": 0.1, "stddev": 0.0158, "median": 0.1, "user": 0.3,
     "system": 0.05, "min": 0.08, "max": 0.12, "times": [0.08, 0.1, 0.12, 0.09, 0.11], "exit_codes": [0, 0, 0, 0, 1],
     "parameters": {"threads": "4"}}]}


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def import_one(capsys, tmp_path, *inputs, extra=()):
    out = tmp_path / "imported.nc"
    code, _, err = run_cli(capsys, "import", *inputs, "--output", out, *extra)
    assert code == 0, err
    return results.to_frame(results.open(out)), results.open(out).attrs


def audit_json(capsys, tmp_path, *inputs, extra=()):
    report = tmp_path / "audit.json"
    code, _, err = run_cli(capsys, "audit", *inputs, "--output", report, "--exit-zero", *extra)
    assert code == 0, err
    return json.loads(report.read_text())


def check(report, check_id):
    return next(c for c in report["checks"] if c["id"] == check_id)


def assert_one_error(capsys, argv, *needles):
    code, _, err = run_cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------ MLPerf Training

def test_mlperf_training_runs_score_and_invalid_run(tmp_path, capsys):
    tree = tmp_path / "results" / "box1" / "resnet"
    write_training(tree)
    frame, attrs = import_one(capsys, tmp_path, tmp_path / "results")
    ttt = frame[frame["metric"] == "time_to_train"].sort_values("run_id")
    assert list(ttt["value"]) == [6000.0, 6600.0, 7200.0, 7800.0, 8400.0] and set(ttt["unit"]) == {"s"}
    assert list(ttt["valid"]) == [True, True, True, True, False]  # the aborted run did not reach the target
    assert list(ttt["seed"]) == [100, 101, 102, 103, 104] and set(ttt["workload"]) == {"resnet"}
    (summary,) = json.loads(attrs["summaries"])
    assert summary["statistic"] == "olympic_mean" and summary["runs_required"] == 5 and summary["n_invalid"] == 1
    # recompute as the rules say: drop the fastest valid run; the invalid run is the dropped slowest one
    counted = sorted(ttt.loc[ttt["valid"], "value"])[1:]
    assert math.isclose(summary["value"], float(np.mean(counted)))
    assert json.loads(attrs["submission"])["submission_org"] == "ACME"
    hyper = json.loads(attrs["hyperparameters"])
    assert hyper["result_0"]["global_batch_size"] == 256
    assert json.loads(attrs["compliance"])["passed"] is False  # our tiny logs lack required keys
    report = audit_json(capsys, tmp_path, tree / "result_0.txt", tree / "result_1.txt", tree / "result_2.txt",
                        tree / "result_3.txt", tree / "result_4.txt")
    r3 = check(report, "R3")
    # the olympic mean is the reader's own computation, not a number the logs state: nothing to restate (R3)
    assert r3["status"] == "not_applicable"
    assert any("computed by the reader, not stated by the publisher" in e["what"] for e in r3["evidence"])


def test_mlperf_training_too_many_failures_has_no_score(tmp_path, capsys):
    write_training(tmp_path / "resnet", failed=(3, 4))
    _, attrs = import_one(capsys, tmp_path, tmp_path / "resnet")
    (summary,) = json.loads(attrs["summaries"])
    assert summary["value"] is None and "2 of 5 runs did not reach the target" in summary["note"]


def test_mlperf_training_truncated_log_is_one_error(tmp_path, capsys):
    folder = write_training(tmp_path / "resnet")
    text = (folder / "result_2.txt").read_text().splitlines()
    (folder / "result_2.txt").write_text("\n".join(text[:-1]) + "\n")
    assert_one_error(capsys, ["audit", folder], "result_2.txt", "no run_stop line")


# ------------------------------------------------------------------ LoadGen

def test_loadgen_valid_and_invalid_runs(tmp_path, capsys):
    base = tmp_path / "results" / "box1" / "resnet50" / "SingleStream" / "performance"
    write_loadgen(base / "run_1")
    write_loadgen(base / "run_2", valid=False)
    out = tmp_path / "imported"
    code, _, err = run_cli(capsys, "import", tmp_path / "results", "--output", out)
    assert code == 0, err
    files = sorted(out.glob("*.nc"))
    frames = {results.open(f).attrs["imported_from"]: (results.to_frame(results.open(f)), results.open(f).attrs)
              for f in files}
    good, good_attrs = frames["run_1"]
    bad, bad_attrs = frames["run_2"]
    p90 = good[good["metric"] == "latency_p90"]
    assert list(p90["value"]) == [2000000.0] and list(p90["unit"]) == ["ns"] and set(good["workload"]) == {"resnet50"}
    assert set(good["scenario"]) == {"SingleStream"} and good["valid"].all()
    assert good.loc[good["metric"] == "qps_w_loadgen_overhead", "unit"].item() == "queries/s"
    assert good_attrs["per_query_latency_source"] == "loadgen_summary"
    stated = json.loads(good_attrs["summaries"])
    assert {s["statistic"] for s in stated} >= {"p50", "p90", "p99"} and all(s["recomputable"] == 0 for s in stated)
    assert json.loads(good_attrs["settings"])["effective_min_query_count"] == 1024
    assert not bad["valid"].any() and set(bad["status"]) == {"INVALID: min_duration_satisfied not satisfied"}
    assert json.loads(bad_attrs["loadgen_result"])["result"] == "INVALID"
    report = audit_json(capsys, tmp_path, tmp_path / "results")
    r8 = check(report, "R8")
    assert r8["status"] == "pass" and "p90" in json.dumps(r8["evidence"])


def test_loadgen_damaged_summary_is_one_error(tmp_path, capsys):
    run = write_loadgen(tmp_path / "run_1")
    text = (run / "mlperf_log_summary.txt").read_text()
    (run / "mlperf_log_summary.txt").write_text(text.replace("Result is : VALID\n", ""))
    assert_one_error(capsys, ["audit", run], "mlperf_log_summary.txt", "no 'Result is' line")


# ------------------------------------------------------------------ pyperf

@pytest.mark.parametrize("compressed", [False, True])
def test_pyperf_nested_values(tmp_path, capsys, compressed):
    processes = [[0.0100, 0.0101, 0.0102], [0.0120, 0.0121, 0.0119], [0.0110, 0.0111, 0.0109],
                 [0.0105, 0.0104, 0.0106], [0.0115, 0.0116, 0.0114], [0.0108, 0.0107, 0.0109]]
    path = tmp_path / ("suite.json.gz" if compressed else "suite.json")
    text = json.dumps(pyperf_doc(processes))
    path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    frame, attrs = import_one(capsys, tmp_path, path)
    values = frame[frame["iteration"] > 0]
    warmups = frame[frame["iteration"] == 0]
    assert len(values) == 18 and values["invocation"].nunique() == 6 and set(values["unit"]) == {"s"}
    assert warmups["warmup"].all() and len(warmups) == 2 + 6  # calibration process + one per process
    assert set(values["loops"]) == {8} and set(values["inner_loops"]) == {2}
    env = json.loads(attrs["environment"])
    assert env["cpu_model_name"] == "Xeon" and "date" not in env and attrs["environment_hash"] != "unknown"
    assert attrs["ci_level"] == "invocation" and "invocation" in json.loads(attrs["levels"])
    # the CI respects the nesting: one mean per process, not 18 pooled values
    means = values.groupby("invocation")["value"].mean()
    summary = stats.ci(means.to_numpy(), 0.95, "cost")
    assert summary.n == 6 and summary.ci[0] <= summary.value <= summary.ci[1]
    report = audit_json(capsys, tmp_path, path)
    assert report["inputs"] == [str(path)]
    r5 = check(report, "R5")  # the checklist's CI is over the 6 process means too
    assert "nested measurements" in json.dumps(r5["evidence"]) and '"configurations": 1' in json.dumps(r5["evidence"])
    worst = [e for e in r5["evidence"] if "n=" in e["what"]]
    assert worst and all("n=6" in e["what"] for e in worst)  # ±10% over process means: wider than the default
    assert r5["status"] == "warn" and "no CI target stated" in json.dumps(r5["evidence"])


def test_pyperf_damaged_file_is_one_error(tmp_path, capsys):
    path = tmp_path / "bad.json"
    doc = pyperf_doc([[0.01, 0.02]])
    doc["benchmarks"][0]["runs"][1]["values"] = ["fast"]
    path.write_text(json.dumps(doc))
    assert_one_error(capsys, ["import", path, "--output", tmp_path / "x.nc"], "bad.json", "pyperf")
    gz = tmp_path / "cut.json.gz"
    gz.write_bytes(gzip.compress(json.dumps(pyperf_doc([[0.01]])).encode())[:40])
    assert_one_error(capsys, ["audit", gz], "cut.json.gz")


# ------------------------------------------------------------------ Google Benchmark

def test_google_benchmark_repetitions_and_aggregates(tmp_path, capsys):
    path = tmp_path / "gbench.json"
    path.write_text(json.dumps(GBENCH))
    frame, attrs = import_one(capsys, tmp_path, path)
    real = frame[frame["metric"] == "real_time"]
    assert sorted(real["value"]) == [10.0, 11.0, 12.0] and set(real["unit"]) == {"ns"}
    assert set(real["iterations"]) == {1000} and sorted(real["repetition"]) == [0, 1, 2]
    assert set(frame.loc[frame["metric"] == "bytes_per_second", "unit"]) == {"B/s"}
    stated = {(s["metric"], s["statistic"]): s for s in json.loads(attrs["summaries"])}
    assert stated[("real_time", "arithmetic_mean")]["value"] == float(np.mean(real["value"]))
    assert stated[("real_time", "cv")]["kind"] == "dispersion" and stated[("real_time", "cv")]["unit"] == "1"
    env = json.loads(attrs["environment"])
    assert env["library_build_type"] == "release" and env["caches"][0]["size"] == 32768 and "date" not in env
    r3 = check(audit_json(capsys, tmp_path, path), "R3")
    assert r3["status"] == "pass" and '"contradicts": 0' in json.dumps(r3["evidence"])
    assert "stated" in json.dumps(r3["evidence"]) and "3 rows" in json.dumps(r3["evidence"])


def test_google_benchmark_damaged_is_one_error(tmp_path, capsys):
    doc = json.loads(json.dumps(GBENCH))
    del doc["benchmarks"][1]["real_time"]
    path = tmp_path / "gb.json"
    path.write_text(json.dumps(doc))
    assert_one_error(capsys, ["audit", path], "gb.json", "benchmarks[1]", "real_time")


# ------------------------------------------------------------------ hyperfine

def test_hyperfine_runs_per_command(tmp_path, capsys):
    path = tmp_path / "sort.json"
    path.write_text(json.dumps(HYPERFINE))
    frame, attrs = import_one(capsys, tmp_path, path)
    assert len(frame) == 10 and set(frame["unit"]) == {"s"} and frame["implementation"].nunique() == 2
    failed = frame[frame["exit_code"] != 0]
    assert len(failed) == 1 and not failed["valid"].any()  # a run that exited 1 is not a valid sample
    assert set(frame["param_threads"]) == {"1", "4"} and json.loads(attrs["factors"]) == ["param_threads"]
    stated = [s for s in json.loads(attrs["summaries"]) if s["statistic"] == "arithmetic_mean" and s["metric"] == "time"]
    assert {s["filters"]["implementation"]: s["value"] for s in stated} == {"sort -n data.txt": 0.2,
                                                                            "sort -n --parallel=4 data.txt": 0.1}
    assert any(s["metric"] == "user_time" for s in json.loads(attrs["summaries"]))
    r3 = check(audit_json(capsys, tmp_path, path), "R3")
    text = json.dumps(r3["evidence"])
    # hyperfine's own statistics include the failed run; per-run user/system times are not exported
    assert r3["status"] == "warn" and "includes 1 failed run" in text and "user_time" in text and '"contradicts": 0' in text


def test_hyperfine_damaged_is_one_error(tmp_path, capsys):
    doc = json.loads(json.dumps(HYPERFINE))
    doc["results"][0]["exit_codes"] = [0, 0]
    path = tmp_path / "hf.json"
    path.write_text(json.dumps(doc))
    assert_one_error(capsys, ["audit", path], "hf.json", "5 times but 2 exit codes")


# ------------------------------------------------------------------ CSV with a column map

CSV_TEXT = "benchmark,run,time_s\nsort,1,0.20\nsort,2,0.21\nsort,3,0.19\nscan,1,0.50\nscan,2,0.52\nscan,3,0.49\n"
CSV_MAP = ["--map", "benchmark=workload,run=run_id,time_s=value", "--set", "unit=s"]


def test_csv_with_a_column_map(tmp_path, capsys):
    path = tmp_path / "suite.csv"
    path.write_text(CSV_TEXT)
    frame, attrs = import_one(capsys, tmp_path, path, extra=CSV_MAP)
    assert len(frame) == 6 and set(frame["workload"]) == {"sort", "scan"} and set(frame["unit"]) == {"s"}
    assert set(frame["metric"]) == {"time_s"} and set(frame["run_id"]) == {"1", "2", "3"}
    assert json.loads(attrs["column_map"]) == {"benchmark": "workload", "run": "run_id", "time_s": "value"}
    assert "ranks" in json.loads(attrs["csv_defaults"])
    report = audit_json(capsys, tmp_path, path, extra=CSV_MAP)
    assert check(report, "R9")["status"] != "fail"


@pytest.mark.parametrize("text, extra, needles", [
    ("benchmark,run,time_s\nsort,1,0.2\nsort,2\n", CSV_MAP, ["line 3 has 2 fields", "header has 3"]),
    ("benchmark,run,time_s\nsort,1,0.2\nsort,2,fast\n", CSV_MAP, ["'time_s' (mapped to value)", "line 3", "'fast'"]),
    ("benchmark,run,secs\nsort,1,0.2\n", CSV_MAP, ["--map names column 'time_s'"]),
    ("benchmark,run,time_s\nsort,1,0.2\n", ["--map", "run=run_id"], ["missing column 'value'"]),
])
def test_csv_map_problems_are_one_line(tmp_path, capsys, text, extra, needles):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    assert_one_error(capsys, ["audit", path, *extra], "bad.csv", *needles)


# ------------------------------------------------------------------ unrecognized input

def test_unrecognized_file_says_what_it_looks_like(tmp_path, capsys):
    path = tmp_path / "notes.json"
    path.write_text(json.dumps({"title": "my results", "numbers": [1, 2]}))
    assert_one_error(capsys, ["audit", path], "notes.json", "JSON with top-level keys ['title', 'numbers']",
                     "pyperf", "hyperfine", "Google Benchmark")
