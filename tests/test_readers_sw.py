"""Software-benchmark formats (docs/formats.md): ReFrame, asv, pytest-benchmark, criterion.rs, JMH.

Real public files under tests/data/formats/<format>/ (sources and licenses in each README.md) are
read through the CLI; the numbers are checked against the files themselves, and the verdicts that
follow from each format's replicate levels.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from twelveways import results
from twelveways.cli import main

DATA = Path(__file__).parent / "data" / "formats"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


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
    assert {s["statistic"] for s in stated} == {"median", "p25", "p75"}
    assert [s["ci"] for s in stated if s["statistic"] == "median"] == [[entry["stats_ci_99_a"][0],
                                                                       entry["stats_ci_99_b"][0]]]
    assert set(rows["iterations"]) == {entry["stats_number"][0]}
    assert json.loads(attrs["environment"])["machine"] == "ubuntu-22.04"
    checks = audit(capsys, tmp_path, DATA / "asv")
    assert '"contradicts": 0' in json.dumps(checks["R3"]["evidence"])


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

    equal = {"statistic": "arithmetic_mean", "rate_intervals": "equal_time"}
    assert _judge_statistic(None, equal, "rate") == (Status.PASS, "arithmetic_mean")
    assert _judge_statistic(None, {"statistic": "arithmetic_mean"}, "rate") == (Status.FAIL, "arithmetic_mean")
