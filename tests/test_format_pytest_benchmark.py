"""pytest-benchmark JSON: real files of three publishers (with, without and with trimmed data) against the tool's
own statistics (data/formats/pytest-benchmark/truth.yaml), and property tests (generated and damaged files)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
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

DATA = Path(__file__).parent / "data" / "formats" / "pytest-benchmark"
TRUTH = yaml.safe_load((DATA / "truth.yaml").read_text())["files"]


def _read(path):
    (loaded,) = read_paths([path])
    return results.to_frame(loaded.ds), loaded.ds.attrs


@pytest.mark.parametrize("truth", TRUTH, ids=[t["file"] for t in TRUTH])
def test_publishers_numbers(truth):
    path = DATA / truth["file"]
    doc = json.loads(path.read_text())
    frame, attrs = _read(path)
    assert attrs["source_format"] == "pytest-benchmark" and len(frame) == truth["rows"]
    stated = json.loads(attrs["summaries"])
    for bench in doc["benchmarks"]:
        name = bench.get("fullname") or bench["name"]
        mine = {s["statistic"]: s for s in stated if s["filters"]["workload"] == name}
        assert mine["arithmetic_mean"]["value"] == bench["stats"]["mean"]
        assert mine["median"]["n"] == bench["stats"]["rounds"]
        rows = frame[(frame["workload"] == name) & (frame["metric"] == "time")]
        if truth["data"] == "rounds":
            assert list(rows["value"]) == bench["stats"]["data"]
        else:
            assert rows.empty and mine["arithmetic_mean"]["recomputable"] == 0
            assert list(frame.loc[(frame["workload"] == name) & (frame["metric"] == "time_mean"), "value"]) == \
                [bench["stats"]["mean"]]
    for expected in truth.get("stated", []):
        match = [s for s in stated if s["statistic"] == expected["statistic"]
                 and s["filters"]["workload"] == expected.get("workload", s["filters"]["workload"])]
        assert match and all(s["n"] == expected["n"] for s in match)
        if "value" in expected:
            assert [s["value"] for s in match] == [expected["value"]]
    assert ("per_iteration_values" in attrs) is (truth["data"] == "trimmed")


def bench(values, rounds=None, name="test_sort[1]", **stats):
    return {"group": "sort", "name": name, "fullname": f"tests/test_sort.py::{name}", "params": {"size": 1},
            "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5},
            "stats": {"min": min(values), "max": max(values), "mean": float(np.mean(values)),
                      "median": float(np.median(values)), "stddev": float(np.std(values)),
                      "rounds": rounds if rounds is not None else len(values), "iterations": 2, "data": values,
                      **stats}}


def document(*benches):
    return {"machine_info": {"node": "box", "python_version": "3.12.1", "cpu": {"brand_raw": "Xeon"}},
            "commit_info": {"id": "abc", "dirty": False}, "benchmarks": list(benches),
            "datetime": "2024-01-01T10:00:00", "version": "4.0.0"}


def _write(doc) -> Path:
    path = Path(tempfile.mkdtemp(dir=SCRATCH.name)) / "0001_abc.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("placeholder", ["[...]", "... omitted", [0.1, 0.2, "..."], [0.1, "(998 more)"]])
def test_trimmed_data_falls_back_to_the_stated_statistics(placeholder):
    doc = document(bench([0.1, 0.2, 0.3]))
    doc["benchmarks"][0]["stats"].update(data=placeholder, rounds=1000)
    frame, attrs = _read(_write(doc))
    assert "time" not in set(frame["metric"]) and "trimmed" in attrs["per_iteration_values"]
    assert list(frame.loc[frame["metric"] == "time_mean", "value"]) == [doc["benchmarks"][0]["stats"]["mean"]]


@pytest.mark.parametrize("change, needles", [
    (lambda d: d["benchmarks"][0].update(options=["disable_gc"]), ["benchmarks[0].options", "a list of 1"]),
    (lambda d: d["benchmarks"][0]["stats"].update(rounds=int("9" * 30)), ["integer of 400 digits"]),
    (lambda d: d["benchmarks"][0]["stats"].update(rounds=2.5), ["stats.rounds", "2.5"]),
    (lambda d: d["benchmarks"][0]["stats"].update(mean=-1.0), ["stats.mean", "is -1, below its minimum 0"]),
    (lambda d: d["benchmarks"][0]["stats"].update(data=[0.1, None, 0.3]), ["stats.data[1]"]),
    (lambda d: d["benchmarks"][0]["stats"].update(data=[0.1, 0.2]), ["2 data values but stats.rounds = 3"]),
    (lambda d: d.update(benchmarks={"a": 1}), ["benchmarks"]),
])
def test_damaged_files_are_one_line(change, needles):
    doc = document(bench([0.1, 0.2, 0.3]))
    change(doc)
    text = json.dumps(doc).replace("9" * 30, "9" * 400) if "9" * 30 in json.dumps(doc) else json.dumps(doc)
    path = Path(tempfile.mkdtemp(dir=SCRATCH.name)) / "0001_abc.json"
    path.write_text(text)
    with pytest.raises(AuditInputError) as caught:
        read_paths([path])
    line = str(caught.value)
    assert "\n" not in line and "0001_abc.json" in line
    for needle in needles:
        assert needle in line, line


rounds = st.lists(st.floats(min_value=1e-9, max_value=10.0, allow_nan=False), min_size=1, max_size=20)


@st.composite
def documents(draw):
    benches = [bench(draw(rounds), name=f"test_{i}") for i in range(draw(st.integers(1, 3)))]
    for b in benches:
        if draw(st.booleans()):
            del b["stats"]["data"]
    return document(*benches)


@settings(max_examples=examples(40), deadline=None)
@given(documents())
def test_generated_files_read_back_to_the_same_numbers(doc):
    frame, attrs = _read(_write(doc))
    for b in doc["benchmarks"]:
        rows = frame[frame["workload"] == b["fullname"]]
        if "data" in b["stats"]:
            assert list(rows.loc[rows["metric"] == "time", "value"]) == b["stats"]["data"]
            assert set(rows["iterations"]) == {2}
        else:
            assert list(rows.loc[rows["metric"] == "time_mean", "value"]) == [b["stats"]["mean"]]


@settings(max_examples=examples(60), deadline=None)
@given(documents(), kinds, places)
def test_damaged_files_end_in_rows_or_one_line(doc, kind, place):
    got = read_mutated({"0001_abc.json": json.dumps(doc, indent=2).encode()}, "0001_abc.json", kind, place)
    assert isinstance(got, (list, str))
