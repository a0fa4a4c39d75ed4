"""Public conformance corpus (tests/corpus): real published result files, read and audited.

Every number the publisher states (MLPerf's score as its result summarizer computes it, LoadGen's
result line, pyperf's own means, hyperfine's and Google Benchmark's own numbers) must come out of
the readers unchanged, and every check named in tests/corpus/manifest.yaml must give its expected
verdict for the reason written beside it (a phrase of that reason must appear in its evidence).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyperf
import pytest
import yaml

from twelveways import results
from twelveways import resultset
from twelveways.checklist import audit
from twelveways.readers import read_paths

CORPUS = Path(__file__).parent / "corpus"
MANIFEST = yaml.safe_load((CORPUS / "manifest.yaml").read_text())["entries"]
BY_ID = {entry["id"]: entry for entry in MANIFEST}


def _paths(entry) -> list[Path]:
    return [CORPUS / p for p in entry["paths"]]


def test_corpus_is_large_and_varied_enough():
    files = [p for p in CORPUS.rglob("*") if p.is_file() and p.name not in ("manifest.yaml", "README.md")]
    assert len(files) >= 30
    assert sum(p.stat().st_size for p in files) < 4 * 2 ** 20
    readme = (CORPUS / "README.md").read_text()
    sources = [line for line in readme.splitlines() if line.startswith("| ") and "github.com" in line]
    assert len(sources) >= 8


@pytest.mark.parametrize("entry_id", [e["id"] for e in MANIFEST if "mlperf_score_min" in e.get("ground_truth", {})])
def test_mlperf_training_score_is_mlperfs(entry_id):
    truth = BY_ID[entry_id]["ground_truth"]
    (loaded,) = read_paths(_paths(BY_ID[entry_id]))
    score = results.attr_json(loaded.ds, "mlperf_score")
    assert math.isclose(score["value_min"], truth["mlperf_score_min"], rel_tol=1e-3)
    assert score["scaling_factor"] == pytest.approx(truth["scaling_factor"], rel=1e-12)
    assert math.isclose(score["olympic_mean_s"] * score["scaling_factor"] / 60, score["value_min"])
    compliance = results.attr_json(loaded.ds, "compliance")
    expected = truth["compliance"]
    assert compliance["round"] == expected["round"] and f"training_{expected['ruleset']}" in compliance["checker"]
    assert sum(bool(r["passed"]) for r in compliance["runs"].values()) == expected["runs_passed"]
    assert len(compliance["runs"]) == expected["runs"]


def _frame(entry) -> "pd.DataFrame":  # noqa: F821 - pandas through results
    import pandas as pd

    return pd.concat([results.to_frame(item.ds).assign(source=item.path) for item in read_paths(_paths(entry))])


@pytest.mark.parametrize("entry_id", [e["id"] for e in MANIFEST if "loadgen" in e.get("ground_truth", {})
                                      or "accuracy" in e.get("ground_truth", {})])
def test_loadgen_numbers_and_validity_are_loadgens(entry_id):
    truth = BY_ID[entry_id]["ground_truth"]
    stated = truth.get("loadgen") or truth["accuracy"]
    frame = _frame(BY_ID[entry_id])
    row = frame[frame["metric"] == stated["metric"]]
    assert len(row) == 1 and row["value"].iloc[0] == pytest.approx(stated["value"], rel=1e-9)
    assert row["unit"].iloc[0] == stated["unit"] and row["workload"].iloc[0] == stated["workload"]
    if "result" in stated:
        assert bool(row["valid"].iloc[0]) is (stated["result"] == "VALID")


def test_compliance_tests_are_evidence_of_their_benchmark():
    entry = BY_ID["mlperf-inference-v4.1-resnet50-compliance"]
    loaded = read_paths(_paths(entry))
    tests = {}
    for item in loaded:
        frame = results.to_frame(item.ds)
        attr = results.attr_json(item.ds, "compliance_test")
        assert set(frame["workload"]) == {entry["ground_truth"]["workload"]} and attr["benchmark"] == "resnet50"
        assert attr["verdicts"]["verify_performance.txt"] == "PASS"
        tests[attr["test"]] = float(frame.loc[frame["metric"] == "samples_per_second", "value"].iloc[0])
    assert tests == entry["ground_truth"]["compliance_tests"]


def _pyperf_means(path: Path) -> dict:
    return {b.get_name(): b.mean() for b in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks()}


@pytest.mark.parametrize("name", ["mult_list_py36.json", "mult_list_py38.json", "telco.json", "py2.json.gz",
                                  "py3.json.gz", "mult_list_py37.json"])
def test_pyperf_values_are_pyperfs(name):
    path = CORPUS / "pyperf" / name
    frame = _frame({"paths": [f"pyperf/{name}"]})
    values = frame[~frame["warmup"].astype(bool)]
    for bench, mean in _pyperf_means(path).items():
        assert values.loc[values["workload"] == bench, "value"].mean() == pytest.approx(mean, rel=1e-12)
    stated = {k: v for e in MANIFEST for f, m in e.get("ground_truth", {}).get("pyperf_means", {}).items()
              if f == name for k, v in m.items()}
    for bench, mean in stated.items():
        assert _pyperf_means(path)[bench] == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize("path", sorted((CORPUS / "hyperfine").glob("*.json")), ids=lambda p: p.name)
def test_hyperfine_times_and_means_are_hyperfines(path):
    data = json.loads(path.read_text())
    frame = _frame({"paths": [f"hyperfine/{path.name}"]})
    for entry in data["results"]:
        rows = frame[frame["implementation"] == entry["command"]]
        assert list(rows["value"]) == entry["times"]
        assert np.mean(rows["value"]) == pytest.approx(entry["mean"], rel=1e-9)
        assert np.median(rows["value"]) == pytest.approx(entry["median"], rel=1e-9)


@pytest.mark.parametrize("path", sorted((CORPUS / "gbench").glob("*.json")), ids=lambda p: p.name)
def test_google_benchmark_times_are_the_files(path):
    data = json.loads(path.read_text())
    frame = _frame({"paths": [f"gbench/{path.name}"]})
    for entry in (e for e in data["benchmarks"] if e.get("run_type") != "aggregate"):
        rows = frame[(frame["workload"] == entry.get("run_name", entry["name"])) & (frame["metric"] == "real_time")]
        assert entry["real_time"] in list(rows["value"])
        assert set(rows["unit"]) == {entry.get("time_unit", "ns")}


def _audit(entry_id: str):
    return audit.run(resultset.load([str(p) for p in _paths(BY_ID[entry_id])]))


VERDICTS = [(e["id"], check_id) for e in MANIFEST for check_id in e.get("verdicts", {})]


@pytest.fixture(scope="module")
def audits():
    return {}


@pytest.mark.parametrize("entry_id, check_id", VERDICTS)
def test_expected_verdict_holds_with_its_reason(audits, entry_id, check_id):
    if entry_id not in audits:
        audits[entry_id] = _audit(entry_id)
    expected = BY_ID[entry_id]["verdicts"][check_id]
    result = next(c for c in audits[entry_id].checks if c.id == check_id)
    text = " ".join(f"{e.what} {e.value}" for e in result.evidence)
    assert result.status.value.replace("_", " ") == expected["status"], (result.status, text[:400])
    assert expected["evidence"] in text, text[:400]


def test_an_invalid_loadgen_run_is_listed_as_excluded_with_its_criterion():
    report = _audit("mlperf-inference-invalid-run-issue-1666").to_dict()
    assert any(BY_ID["mlperf-inference-invalid-run-issue-1666"]["ground_truth"]["loadgen"]["excluded"] in line
               for line in report["excluded"])


@pytest.mark.parametrize("entry_id", ["mlperf-inference-v4.1-resnet50-offline", "mlperf-inference-v4.1-resnet50-server",
                                      "mlperf-inference-v4.1-resnet50-compliance"])
def test_runs_loadgen_calls_valid_are_not_called_invalid(audits, entry_id):
    """LoadGen's own words ("Result is: INVALID") never stand on a run LoadGen marks VALID for a rate F5 cannot judge."""
    if entry_id not in audits:
        audits[entry_id] = _audit(entry_id)
    assert audits[entry_id].verdict == "VALID", [c.id for c in audits[entry_id].checks if c.status.value == "fail"]
