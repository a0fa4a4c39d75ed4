"""asv results: real files of four publishers, API versions 1 and 2, against asv's own results
(data/formats/asv/truth.yaml): failed (null) and skipped (NaN) combinations excluded with their reason,
never the whole file; and property tests (generated and damaged files)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import read_paths

sys.path.insert(0, str(Path(__file__).parent))
from sw_mutations import kinds, places, read_mutated  # noqa: E402

#: Files the Hypothesis examples write (no tmp_path there): removed when the test process ends.
SCRATCH = tempfile.TemporaryDirectory(prefix="twelveways-format-tests-")

DATA = Path(__file__).parent / "data" / "formats" / "asv"
COMPANIONS = Path(__file__).parent / "data" / "companions" / "asv"
TRUTH = yaml.safe_load((DATA / "truth.yaml").read_text())["files"]


def _read(path):
    (loaded,) = read_paths([path])
    return results.to_frame(loaded.ds), loaded.ds.attrs


def _medians(attrs) -> list[dict]:
    return [s for s in json.loads(attrs["summaries"]) if s["statistic"] == "median"]


@pytest.mark.parametrize("truth", TRUTH, ids=[t["file"] for t in TRUTH])
def test_publishers_numbers(truth):
    frame, attrs = _read(DATA / truth["file"])
    assert attrs["source_format"] == "asv" and len(frame) == truth["rows"]
    assert attrs["tool_version"] == f"asv results API version {truth['api_version']}"
    missing = json.loads(attrs["not_measured"])
    assert len(missing) == truth["not_measured"] and {m["not_measured"] for m in missing} <= {"failed", "skipped"}
    medians = _medians(attrs)
    for expected in truth.get("values", []):
        keys = {k: v for k, v in expected.items() if k == "workload" or k.startswith("param_")}
        match = [s for s in medians if all(s["filters"].get(k) == v for k, v in keys.items())]
        assert [s["value"] for s in match] == [expected["value"]], expected
        if "ci" in expected:
            assert match[0]["ci"] == expected["ci"] and match[0]["n"] == expected["n"]
        if "unit" in expected:
            assert match[0]["unit"] == expected["unit"]
    for failed in truth.get("failed", []):
        assert sum(m["workload"] == failed["workload"] for m in missing) == failed["combinations"]


def test_version_1_parameter_names_from_the_catalogue(tmp_path):
    """empymod-bench's benchmarks.json one folder up names the parameters of its version 1 results."""
    shutil.copytree(DATA / "empymod", tmp_path / "empymod")
    shutil.copy(COMPANIONS / "empymod" / "results" / "benchmarks.json", tmp_path / "empymod" / "results")
    frame, attrs = _read(next((tmp_path / "empymod" / "results" / "dtr-latitude").glob("eb*.json")))
    rows = frame[frame["workload"] == "model.Analytical.time_analytical"]
    assert list(rows["param_solution"]) == ["'fs'"] and list(rows["value"]) == [0.00417844983288281]
    assert json.loads(attrs["environment"])["cpu"] == "Intel(R) Core(TM) i7-6600U CPU @ 2.60GHz"


COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25",
           "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]


def version2(benchmarks: dict) -> dict:
    return {"commit_hash": "abc", "env_name": "virtualenv-py3.12", "date": 1, "params": {"machine": "box"},
            "python": "3.12", "requirements": {}, "env_vars": {}, "result_columns": COLUMNS,
            "results": benchmarks, "durations": {}, "version": 2}


def column_entry(results_, params, samples=None):
    n = len(results_)
    return [results_, params, "v", 0, 1.0, [r and r * 0.9 for r in results_], [r and r * 1.1 for r in results_],
            [r and r * 0.95 for r in results_], [r and r * 1.05 for r in results_], [10] * n, [3] * n,
            samples or [None] * n]


def _write(doc, name="abc-virtualenv-py3.12.json") -> Path:
    folder = Path(tempfile.mkdtemp(dir=SCRATCH.name)) / "results" / "box"
    folder.mkdir(parents=True)
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def test_null_and_nan_results_are_excluded_with_their_reason():
    doc = version2({"suite.time_a": column_entry([0.1, None, float("nan")], [["1", "2", "3"]]),
                    "suite.time_b": column_entry([0.2], [])})
    frame, attrs = _read(_write(doc))
    assert sorted(frame["value"]) == [0.1, 0.2]
    assert [(m["param_0"], m["not_measured"]) for m in json.loads(attrs["not_measured"])] == [("2", "failed"),
                                                                                           ("3", "skipped")]


def test_version_1_bare_values_and_stats_objects():
    doc = {"commit_hash": "abc", "date": 1, "env_name": "py", "python": "3.6", "params": {"machine": "box"},
           "requirements": {}, "version": 1,
           "results": {"suite.time_bare": 0.5, "suite.time_failed": None,
                       "suite.track_param": {"result": [3.0, None], "params": [["'a'", "'b'"]],
                                             "stats": [{"ci_99": [2.5, 3.5], "q_25": 2.9, "q_75": 3.1, "repeat": 7,
                                                        "number": 1}, None]}}}
    frame, attrs = _read(_write(doc))
    assert sorted(frame["value"]) == [0.5, 3.0] and set(frame["metric"]) == {"time_median", "value_median"}
    (track,) = [s for s in _medians(attrs) if s["filters"]["workload"] == "suite.track_param"]
    assert track["ci"] == [2.5, 3.5] and track["n"] == 7
    assert len(json.loads(attrs["not_measured"])) == 2


@pytest.mark.parametrize("doc, needles", [
    (version2({"s.time_a": column_entry([0.1], [["1"]])}) | {"results": {"s.time_a": [[0.1], [["1"]], "v", 0, 1.0,
                                                                                       "abc"]}},
     ["stats_ci_99_a", "'abc'"]),
    ({"commit_hash": "a", "version": 1, "results": {"s.time_a": {"result": [0.1], "stats": "fast"}}},
     ["results['s.time_a'].stats"]),
    (version2({"s.time_a": [[0.1] * 3, [["1", "2"], ["3", "4"]]]}), ["result holds 3 value(s) for 4"]),
    (version2({"s.time_a": [[0.1], [[str(i) for i in range(1000)]] * 3]}), ["1000 x 1000 x 1000", "combinations"]),
    (version2({"s.time_a": [["slow"], []]}), ["result[0]", "'slow'"]),
    (version2({"s.time_a": [[-0.1], []]}), ["result[0]", "below 0"]),
    (version2({"s.time_a": column_entry([0.1], [], samples=[[0.1, "x"]])}), ["samples[0][1]", "'x'"]),
])
def test_damaged_files_are_one_line(doc, needles):
    with pytest.raises(AuditInputError) as caught:
        read_paths([_write(doc)])
    line = str(caught.value)
    assert "\n" not in line and "abc-virtualenv-py3.12.json" in line
    for needle in needles:
        assert needle in line, line


def test_a_parameter_product_of_a_billion_is_refused_before_it_is_built():
    doc = version2({"s.time_a": [[0.1], [[str(i) for i in range(1000)]] * 3]})
    with pytest.raises(AuditInputError, match="more than 100,000"):
        read_paths([_write(doc)])


values = st.floats(min_value=1e-9, max_value=1e3, allow_nan=False)


@st.composite
def documents(draw):
    """A version 2 (or 1) results file: benchmarks with parameters, some failed or skipped."""
    benchmarks, expected = {}, {}
    for i in range(draw(st.integers(1, 3))):
        params = [[f"'{j}'" for j in range(draw(st.integers(1, 3)))] for _ in range(draw(st.integers(0, 2)))]
        count = 1
        for p in params:
            count *= len(p)
        outcome = [draw(st.one_of(values, st.just(None))) for _ in range(count)]
        if all(v is None for v in outcome):
            outcome[0] = 0.5
        benchmarks[f"suite.time_{i}"] = column_entry(outcome, params)
        expected[f"suite.time_{i}"] = outcome
    return version2(benchmarks), expected


@settings(max_examples=examples(40), deadline=None)
@given(documents())
def test_generated_files_read_back_to_the_same_numbers(generated):
    doc, expected = generated
    frame, attrs = _read(_write(doc))
    for name, outcome in expected.items():
        got = [s["value"] for s in _medians(attrs) if s["filters"]["workload"] == name]
        assert got == [v for v in outcome if v is not None]
    assert len(json.loads(attrs["not_measured"])) == sum(v is None for o in expected.values() for v in o)


@settings(max_examples=examples(60), deadline=None)
@given(documents(), kinds, places)
def test_damaged_files_end_in_rows_or_one_line(generated, kind, place):
    files = {"results/box/abc-py.json": json.dumps(generated[0], indent=1).encode(),
             "results/box/machine.json": json.dumps({"machine": "box", "version": 1}).encode()}
    got = read_mutated(files, "results/box/abc-py.json", kind, place)
    assert isinstance(got, (list, str))


def test_negative_time_samples_are_an_error():
    doc = version2({"s.time_a": column_entry([0.1], [], samples=[[0.1, -0.2]])})
    with pytest.raises(AuditInputError, match=r"samples\[0\] holds -0.2, below 0 s"):
        read_paths([_write(doc)])
