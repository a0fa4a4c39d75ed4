"""Software-benchmark formats (docs/formats.md): ReFrame, asv, pytest-benchmark, criterion.rs, JMH.

Real public files under tests/data/formats/<format>/ (sources and licenses in each README.md) are
read through the CLI; the numbers are checked against the files themselves, and the verdicts that
follow from each format's replicate levels.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from twelveways import results

sys.path.insert(0, str(Path(__file__).parent))
from readercli import DATA, run_cli  # noqa: E402  (the CLI as every reader test drives it)


def imported(capsys, tmp_path, path):
    out = tmp_path / "imported.nc"
    code, _, err = run_cli(capsys, "import", path, "--output", out)
    assert code == 0, err
    ds = results.open(out)
    return results.to_frame(ds), ds.attrs


def audit(capsys, tmp_path, *paths):
    report = tmp_path / "audit.json"
    code, _, err = run_cli(capsys, "audit", *paths, "--output", report, "--exit-zero", "--format", "json")
    assert code == 0, err
    return {c["id"]: c for c in json.loads(report.read_text())["checks"]}


def one_error(capsys, path, *needles):
    code, _, err = run_cli(capsys, "audit", path)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_pytest_benchmark_is_not_taken_for_pyperf(tmp_path, capsys):
    """The 2015 file from pytest-benchmark's own test suite: stats only, no data saved."""
    path = next((DATA / "pytest-benchmark").glob("0030_*.json"))
    stats = json.loads(path.read_text())["benchmarks"][0]["stats"]
    frame, attrs = imported(capsys, tmp_path, path)
    assert attrs["source_format"] == "pytest-benchmark"
    mean = frame[frame["metric"] == "time_mean"]
    assert list(mean["value"]) == [stats["mean"]] and set(frame["unit"]) == {"s"}
    stated = {s["statistic"]: s for s in json.loads(attrs["summaries"])}
    assert stated["median"]["value"] == stats["median"] and stated["median"]["n"] == 9710
    assert stated["arithmetic_mean"]["recomputable"] == 0  # no samples in the file to recompute from
    assert json.loads(attrs["environment"])["python_version"] == "2.7.3"
    # inside a directory beside another format it no longer stops the audit
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(path, folder / path.name)
    shutil.copy(DATA / "jmh" / "arraycopy-jmh-result.json", folder / "jmh.json")
    checks = audit(capsys, tmp_path, folder)
    assert checks["R3"]["status"] == "warn"
    assert "not recomputed" in json.dumps(checks["R3"]["evidence"])


def test_pytest_benchmark_rounds_recomputed(tmp_path, capsys):
    """conbench's captured pytest-benchmark 4.0.0 output: data saved, so mean/median are recomputed."""
    path = DATA / "pytest-benchmark" / "conbench-pytest-benchmark-4.0.0.json"
    doc = json.loads(path.read_text())
    frame, attrs = imported(capsys, tmp_path, path)
    sleep = frame[frame["workload"].str.endswith("test_sleep")]
    assert list(sleep["value"]) == doc["benchmarks"][1]["stats"]["data"] and set(sleep["iterations"]) == {2}
    checks = audit(capsys, tmp_path, path)
    r3 = json.dumps(checks["R3"]["evidence"])
    assert checks["R3"]["status"] == "pass" and '"contradicts": 0' in r3 and '"agrees": 8' in r3


def test_jmh_forks_are_the_replicates(tmp_path, capsys):
    """tkrs/json-bench: 2 forks x 10 iterations; n is 2 forks, never 20 iterations."""
    path = DATA / "jmh" / "json-bench-jmh-result.json"
    doc = json.loads(path.read_text())
    frame, attrs = imported(capsys, tmp_path, path)
    circe = frame[frame["workload"] == "bench.Case1.decodeCirce"]
    assert len(circe) == 20 and circe["invocation"].nunique() == 2 and set(circe["unit"]) == {"ops/s"}
    assert np.isclose(circe["value"].mean(), doc[0]["primaryMetric"]["score"])
    assert attrs["ci_level"] == "invocation" and json.loads(attrs["environment"])["jdkVersion"] == "11"
    checks = audit(capsys, tmp_path, path)
    worst = [e["what"] for e in checks["R5"]["evidence"] if "n=" in e["what"]]
    assert worst and all("n=2" in w for w in worst) and checks["R5"]["status"] != "pass"
    # JMH's thrpt score is an arithmetic mean of rates over equal-time iterations: total ops / total time
    assert checks["R3"]["status"] == "pass" and '"agrees": 2' in json.dumps(checks["R3"]["evidence"])
    assert checks["R6"]["status"] == "fail"  # its t-interval, and Shapiro-Wilk rejects normality for decodeCirce


def test_jmh_avgt_no_fork(tmp_path, capsys):
    path = DATA / "jmh" / "arraycopy-jmh-result.json"
    frame, attrs = imported(capsys, tmp_path, path)
    assert set(frame["unit"]) == {"ns"} and set(frame["invocation"]) == {0} and len(frame) == 15
    assert json.loads(attrs["settings"])["forks"] == 0
    assert audit(capsys, tmp_path, path)["R3"]["status"] == "pass"


def test_jmh_damaged(tmp_path, capsys):
    doc = json.loads((DATA / "jmh" / "json-bench-jmh-result.json").read_text())
    doc[1]["primaryMetric"]["rawData"] = doc[1]["primaryMetric"]["rawData"][:1]
    path = tmp_path / "jmh.json"
    path.write_text(json.dumps(doc))
    one_error(capsys, path, "jmh.json", "forks = 2 but rawData holds 1 fork")


def test_criterion_bootstrap_estimates_are_stated(tmp_path, capsys):
    folder = DATA / "criterion" / "gg1_circular_threads" / "1" / "new"
    sample = json.loads((folder / "sample.json").read_text())
    estimates = json.loads((folder / "estimates.json").read_text())
    frame, attrs = imported(capsys, tmp_path, folder)
    assert len(frame) == 100 and set(frame["unit"]) == {"ns"} and set(frame["iterations"]) == {1}
    assert np.isclose(frame["value"].sum(), sum(sample["times"]))
    stated = {s["statistic"]: s for s in json.loads(attrs["summaries"])}
    assert stated["arithmetic_mean"]["value"] == estimates["mean"]["point_estimate"]
    assert stated["median"]["ci_method"] == "bootstrap" and stated["stddev"]["kind"] == "dispersion"
    checks = audit(capsys, tmp_path, DATA / "criterion")
    assert checks["R3"]["status"] == "pass" and checks["R6"]["status"] == "pass"
    assert "arithmetic_mean stated 1.61131e+08, recomputed 1.61131e+08" in json.dumps(checks["R3"]["evidence"])


def test_criterion_folder_without_sample(tmp_path, capsys):
    folder = tmp_path / "bench" / "new"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "criterion" / "gg1_circular_threads" / "1" / "new" / "estimates.json", folder)
    one_error(capsys, tmp_path / "bench", "no sample.json")


def test_asv_samples_quartiles_and_machine(tmp_path, capsys):
    path = DATA / "asv" / "results" / "ubuntu-22.04" / "00370342-conda-py3.10.json"
    doc = json.loads(path.read_text())
    name = next(iter(doc["results"]))
    entry = dict(zip(doc["result_columns"], doc["results"][name]))
    frame, attrs = imported(capsys, tmp_path, path)
    rows = frame[frame["workload"] == name]
    assert sorted(rows["value"]) == sorted(entry["samples"][0]) and set(rows["unit"]) == {"s"}
    assert float(np.median(rows["value"])) == entry["result"][0]
    stated = [s for s in json.loads(attrs["summaries"]) if s["filters"]["workload"] == name]
    assert {s["statistic"] for s in stated} == {"median", "p25", "p75"} and {s["n"] for s in stated} == {10}
    assert [s["ci"] for s in stated if s["statistic"] == "median"] == [[entry["stats_ci_99_a"][0],
                                                                       entry["stats_ci_99_b"][0]]]
    assert set(rows["iterations"]) == {entry["stats_number"][0]}
    assert json.loads(attrs["environment"])["machine"] == "ubuntu-22.04"
    checks = audit(capsys, tmp_path, DATA / "asv")
    assert '"contradicts": 0' in json.dumps(checks["R3"]["evidence"])


def test_asv_stats_without_samples(tmp_path, capsys):
    """django-asv's windows-2022 run kept no samples: asv's medians are stated numbers, n = stats_repeat."""
    path = DATA / "asv" / "results" / "windows-2022" / "fde6fb28-virtualenv-py3.10.json"
    doc = json.loads(path.read_text())
    frame, attrs = imported(capsys, tmp_path, path)
    assert len(frame) == len(doc["results"]) and set(frame["metric"]) == {"time_median"}
    medians = {s["filters"]["workload"]: s for s in json.loads(attrs["summaries"]) if s["statistic"] == "median"}
    for name, values in doc["results"].items():
        entry = dict(zip(doc["result_columns"], values))
        assert medians[name]["value"] == entry["result"][0] and medians[name]["n"] == entry["stats_repeat"][0] == 10
        assert medians[name]["recomputable"] == 0
    assert json.loads(attrs["environment"])["machine"] == "windows-2022"


def test_asv_machine_json_alone_is_not_results(tmp_path, capsys):
    one_error(capsys, DATA / "asv" / "results" / "ubuntu-22.04" / "machine.json", "machine description")


def test_reframe_3_and_4(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "reframe" / "StreamWithRefTest.log")
    assert len(frame) == 8 and set(frame["metric"]) == {"Copy", "Scale", "Add", "Triad"}
    copy = frame[frame["metric"] == "Copy"].sort_values("run_id")
    assert list(copy["value"]) == [24672.4, 24584.3] and list(copy["within_reference"]) == [True, False]
    assert set(frame["system"]) == {"catalina"} and set(frame["unit"]) == {"MB/s"}
    frame4, _ = imported(capsys, tmp_path, DATA / "reframe" / "stream_test.log")
    assert len(frame4) == 8 and set(frame4["implementation"]) == {"gnu", "clang"}
    assert sorted(frame4.loc[frame4["metric"] == "copy_bw", "value"]) == [11429.4, 11909.9, 18405.7, 21116.7]
    r5 = audit(capsys, tmp_path, DATA / "reframe")["R5"]
    assert r5["status"] != "pass"  # one number per job, two jobs per configuration: no CI


def test_reframe_bad_value(tmp_path, capsys):
    text = (DATA / "reframe" / "StreamWithRefTest.log").read_text().replace("Copy=24672.4", "Copy=fast")
    path = tmp_path / "bad.log"
    path.write_text(text)
    one_error(capsys, path, "bad.log", "line 1", "Copy")


def test_mean_of_rates_passes_only_over_equal_times():
    """R3's one exception: rates that each cover the same time (JMH thrpt) average arithmetically."""
    from twelveways.checklist.model import Status
    from twelveways.checklist.rules import _judge_statistic
    from twelveways.evidence.summary import StatedSummary

    equal = StatedSummary(metric="throughput", statistic="arithmetic_mean", rate_intervals="equal_time")
    assert _judge_statistic(None, equal, "rate") == (Status.PASS, "arithmetic_mean")
    assert _judge_statistic(None, StatedSummary(metric="throughput", statistic="arithmetic_mean"), "rate") == (
        Status.FAIL, "arithmetic_mean")


# ------------------------------------------------------------------ files written from each format's documentation

def pytest_benchmark_doc(version="3.2.2"):
    """``pytest --benchmark-json``: a parametrized test with its rounds saved (pytest-benchmark's documented keys)."""
    data = [0.010, 0.011, 0.012, 0.010, 0.013, 0.011]
    def entry(size):
        values = [v * size for v in data]
        return {"group": "sort", "name": f"test_sort[{size}]", "fullname": f"tests/test_sort.py::test_sort[{size}]",
                "params": {"size": size}, "param": str(size), "extra_info": {},
                "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5, "max_time": 1.0,
                            "min_time": 5e-06, "warmup": False},
                "stats": {"min": min(values), "max": max(values), "mean": float(np.mean(values)),
                          "stddev": float(np.std(values, ddof=1)), "rounds": len(values),
                          "median": float(np.median(values)), "iterations": 4, "data": values}}
    return {"machine_info": {"node": "box1", "processor": "x86_64", "python_version": "3.11.4",
                             "cpu": {"brand_raw": "Xeon", "count": 8}},
            "commit_info": {"id": "abc123", "dirty": False, "branch": "main"},
            "benchmarks": [entry(1), entry(2)], "datetime": "2024-01-01T10:00:00", "version": version}


def test_pytest_benchmark_in_a_tree_beside_pyperf(tmp_path, capsys):
    """The reported bug: version 3.2.2 was sent to pyperf ("file format version '3.2.2' not supported", exit 2)."""
    tree = tmp_path / "results"
    (tree / ".benchmarks").mkdir(parents=True)
    (tree / "0001_abc.json").write_text(json.dumps(pytest_benchmark_doc()))
    pyperf = {"version": "1.0", "metadata": {"unit": "second", "loops": 8},
              "benchmarks": [{"metadata": {"name": "json_dumps"},
                              "runs": [{"metadata": {}, "warmups": [[8, 0.07]], "values": [0.01, 0.011]}]}]}
    (tree / "pyperf.json").write_text(json.dumps(pyperf))
    (tree / "notes.txt").write_text("not results\n")
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "import", tree, "--output", out)
    assert code == 0, err
    formats = {results.open(f).attrs["source_format"] for f in out.glob("*.nc")}
    assert formats == {"pytest-benchmark", "pyperf"}
    frame, attrs = imported(capsys, tmp_path, tree / "0001_abc.json")
    assert len(frame) == 12 and set(frame["param_size"]) == {"1", "2"} and json.loads(attrs["factors"]) == ["param_size"]
    assert set(frame["implementation"]) == {"sort"} and json.loads(attrs["settings"])["timer"] == "perf_counter"


def test_jmh_sample_mode_histogram(tmp_path, capsys):
    """``-bm sample`` without rawData: each iteration's histogram of [value, count] pairs becomes its mean."""
    entry = {"jmhVersion": "1.37", "benchmark": "org.example.MyBench.render", "mode": "sample", "threads": 1,
             "forks": 2, "jvm": "/usr/bin/java", "jvmArgs": ["-Xmx1g"], "jdkVersion": "21", "vmName": "OpenJDK",
             "vmVersion": "21+35", "warmupIterations": 2, "warmupTime": "1 s", "measurementIterations": 2,
             "measurementTime": "1 s", "params": {"size": "64"},
             "primaryMetric": {"score": 2.0, "scoreError": 0.5, "scoreConfidence": [1.5, 2.5], "scoreUnit": "us/op",
                               "rawDataHistogram": [[[[1.0, 1], [3.0, 1]], [[2.0, 2]]], [[[1.5, 2]], [[2.5, 2]]]]},
             "secondaryMetrics": {}}
    path = tmp_path / "sample.json"
    path.write_text(json.dumps([entry]))
    frame, _ = imported(capsys, tmp_path, path)
    assert sorted(frame["value"]) == [1.5, 2.0, 2.0, 2.5] and set(frame["unit"]) == {"us"}
    assert sorted(frame.groupby("invocation")["value"].mean()) == [2.0, 2.0]


def test_criterion_linear_sampling_with_throughput(tmp_path, capsys):
    """criterion's documented files: Linear sampling (iters 1, 2, 3, …), a Bytes throughput, a slope estimate."""
    folder = tmp_path / "target" / "criterion" / "copy" / "1024" / "new"
    folder.mkdir(parents=True)
    iters = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    times = [100.0, 210.0, 300.0, 400.0, 520.0, 600.0]
    per_iter = [t / i for t, i in zip(times, iters)]
    def est(value):
        return {"confidence_interval": {"confidence_level": 0.95, "lower_bound": value * 0.98,
                                        "upper_bound": value * 1.02}, "point_estimate": value, "standard_error": 1.0}
    (folder / "sample.json").write_text(json.dumps({"sampling_mode": "Linear", "iters": iters, "times": times}))
    (folder / "estimates.json").write_text(json.dumps({
        "mean": est(float(np.mean(per_iter))), "median": est(float(np.median(per_iter))), "median_abs_dev": est(2.0),
        "slope": est(100.5), "std_dev": est(3.0)}))
    (folder / "benchmark.json").write_text(json.dumps({
        "group_id": "copy", "function_id": "memcpy", "value_str": "1024", "throughput": {"Bytes": 1024},
        "full_id": "copy/memcpy/1024", "directory_name": "copy/memcpy_1024", "title": "copy/memcpy/1024"}))
    (folder.parent / "change").mkdir()
    (folder.parent / "change" / "estimates.json").write_text(json.dumps({"mean": est(0.01), "median": est(0.02)}))
    frame, attrs = imported(capsys, tmp_path, tmp_path / "target")
    time = frame[frame["metric"] == "time"]
    assert list(time["value"]) == per_iter and list(time["iterations"]) == [1, 2, 3, 4, 5, 6]
    rate = frame[frame["metric"] == "throughput"]
    assert set(rate["unit"]) == {"B/s"} and np.isclose(rate["value"].iloc[0], 1024 / 100e-9)
    assert set(frame["implementation"]) == {"memcpy"} and set(frame["param_value"]) == {"1024"}
    assert json.loads(attrs["criterion_slope"])["point_estimate"] == 100.5


def test_asv_parameters_failures_and_catalogue(tmp_path, capsys):
    """asv's documented layout: results/benchmarks.json names the parameters; a null result is a failure."""
    machine_dir = tmp_path / "results" / "box1"
    machine_dir.mkdir(parents=True)
    (machine_dir / "machine.json").write_text(json.dumps({"arch": "x86_64", "cpu": "Xeon", "machine": "box1",
                                                          "num_cpu": "8", "os": "Linux 6.1", "ram": "32GB",
                                                          "version": 1}))
    (tmp_path / "results" / "benchmarks.json").write_text(json.dumps({
        "bench.Suite.time_sort": {"name": "bench.Suite.time_sort", "param_names": ["n", "dtype"], "type": "time",
                                  "unit": "seconds"}, "version": 2}))
    columns = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
               "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
    samples = [[0.10, 0.11, 0.12], [0.20, 0.22, 0.21], None, [0.40, 0.41, 0.39]]
    result = [0.11, 0.21, None, 0.40]
    doc = {"commit_hash": "abc", "env_name": "virtualenv-py3.11", "date": 1, "params": {"machine": "box1"},
           "python": "3.11", "requirements": {"numpy": "1.26"}, "env_vars": {}, "result_columns": columns,
           "results": {"bench.Suite.time_sort": [result, [["10", "100"], ["'f4'", "'f8'"]], "v", 0, 1.0,
                                                 [0.09, 0.19, None, 0.38], [0.13, 0.23, None, 0.42],
                                                 [0.105, 0.205, None, 0.395], [0.115, 0.215, None, 0.405],
                                                 [10, 5, None, 2], [3, 3, None, 3], samples]},
           "durations": {}, "version": 2}
    (machine_dir / "abc-virtualenv-py3.11.json").write_text(json.dumps(doc))
    frame, attrs = imported(capsys, tmp_path, machine_dir / "abc-virtualenv-py3.11.json")
    good = frame[frame["valid"]]
    assert len(good) == len(frame) == 9 and set(good["param_n"]) == {"10", "100"}
    assert set(good["param_dtype"]) == {"'f4'", "'f8'"}
    assert json.loads(attrs["not_measured"]) == [{"not_measured": "failed", "workload": "bench.Suite.time_sort",
                                                  "param_n": "100", "param_dtype": "'f4'"}]
    assert json.loads(attrs["environment"])["cpu"] == "Xeon"
    assert set(good.loc[good["param_n"] == "10", "iterations"]) == {10, 5}


def test_reframe_3_older_check_info_and_4_performance_failure(tmp_path, capsys):
    """ReFrame 3's 'X on sys:part using env' check_info; ReFrame 4's result column beside a missed reference."""
    v3 = ("2020-06-24T00:27:06|reframe 3.1|StreamTest on daint:gpu using PrgEnv-gnu|jobid=58384|Copy=24762.2|"
          "ref=25200 (l=-0.05, u=0.05)|MB/s\n"
          "2020-06-24T00:27:06|reframe 3.1|StreamTest on daint:gpu using PrgEnv-gnu|jobid=58384|time=0.62|"
          "ref=0 (l=null, u=null)|s\n")
    (tmp_path / "v3.log").write_text(v3)
    frame, _ = imported(capsys, tmp_path, tmp_path / "v3.log")
    assert list(frame["partition"]) == ["gpu", "gpu"] and list(frame["implementation"]) == ["PrgEnv-gnu"] * 2
    assert list(frame["within_reference"]) == [True, True] and list(frame["unit"]) == ["MB/s", "s"]
    header = "job_completion_time|version|display_name|system|partition|environ|jobid|result|" \
             "bw_value|bw_unit|bw_ref|bw_lower_thres|bw_upper_thres"
    lines = [header, "2024-01-01T10:00:00|4.5.0|Stream %size=1|cluster|cpu|gnu|7|fail|90.0|GB/s|100|-0.05|0.05"]
    (tmp_path / "v4.log").write_text("\n".join(lines) + "\n")
    frame4, _ = imported(capsys, tmp_path, tmp_path / "v4.log")
    assert list(frame4["result"]) == ["fail"] and list(frame4["within_reference"]) == [False]
    assert frame4["valid"].all() and "outside the reference [95, 105]" in frame4["status"].iloc[0]


@pytest.mark.slow  # a whole reference set re-read or re-audited: make test, not the unit tier
def test_every_software_fixture_in_one_tree(tmp_path, capsys):
    """tests/data/formats read in one command: each of these five formats recognized, READMEs skipped."""
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "import", DATA, "--output", out)
    assert code == 0, err
    formats = [results.open(f).attrs["source_format"] for f in out.glob("*.nc")]
    assert {"reframe-perflog", "asv", "pytest-benchmark", "criterion", "jmh"} <= set(formats)
    assert formats.count("criterion") == 6 and formats.count("asv") == 5 and formats.count("jmh") == 5


def test_files_longer_than_the_sniffed_head(tmp_path, capsys):
    """Past 64 KiB the head does not parse: JMH (old JMH writes no jmhVersion) and pytest-benchmark are still
    recognized from their first keys, the latter not as pyperf."""
    entries = json.loads((DATA / "jmh" / "arraycopy-jmh-result.json").read_text()) * 40
    jmh = tmp_path / "long-jmh.json"
    jmh.write_text(json.dumps(entries, indent=4))
    doc = pytest_benchmark_doc()
    doc["benchmarks"][0]["stats"].update(data=[0.0123456789012] * 9000, rounds=9000)
    pb = tmp_path / "long-pb.json"
    pb.write_text(json.dumps(doc))
    assert jmh.stat().st_size > 1 << 16 and pb.stat().st_size > 1 << 16
    assert imported(capsys, tmp_path, jmh)[1]["source_format"] == "jmh"
    frame, attrs = imported(capsys, tmp_path, pb)
    assert attrs["source_format"] == "pytest-benchmark" and len(frame) == 9006


def _damaged_pytest_benchmark(doc):
    doc["benchmarks"][0]["stats"]["data"] = doc["benchmarks"][0]["stats"]["data"][:3]
    return doc, ["benchmarks[0]", "3 data values but stats.rounds = 6"]


def _damaged_asv(doc):
    doc["result_columns"] = ["median"] + doc["result_columns"][1:]
    return doc, ["result_columns does not name a 'result' column"]


def _damaged_asv_sample(doc):
    name = next(iter(doc["results"]))
    doc["results"][name][11][0][0] = "slow"
    return doc, ["samples[0]", "'slow'", "not a number"]


@pytest.mark.parametrize("source, damage", [
    (None, _damaged_pytest_benchmark),
    (DATA / "asv" / "results" / "ubuntu-22.04" / "00370342-conda-py3.10.json", _damaged_asv),
    (DATA / "asv" / "results" / "ubuntu-22.04" / "00370342-conda-py3.10.json", _damaged_asv_sample),
])
def test_damaged_files_are_one_line(tmp_path, capsys, source, damage):
    doc = json.loads(source.read_text()) if source else pytest_benchmark_doc()
    doc, needles = damage(doc)
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(doc))
    one_error(capsys, path, "damaged.json", *needles)


def test_criterion_iteration_counts_must_match(tmp_path, capsys):
    folder = tmp_path / "bench" / "new"
    shutil.copytree(DATA / "criterion" / "gg1_circular_threads" / "1" / "new", folder)
    sample = json.loads((folder / "sample.json").read_text())
    sample["iters"] = sample["iters"][:-1]
    (folder / "sample.json").write_text(json.dumps(sample))
    one_error(capsys, tmp_path / "bench", "sample.json", "99 iteration counts for 100 times")


def test_criterion_folder_names_without_benchmark_json(tmp_path, capsys):
    folder = tmp_path / "criterion" / "fib" / "20" / "new"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "criterion" / "gg1_circular_threads" / "1" / "new" / "sample.json", folder)
    frame, _ = imported(capsys, tmp_path, tmp_path / "criterion")
    assert set(frame["workload"]) == {"fib"} and set(frame["param_value"]) == {"20"} and len(frame) == 100
