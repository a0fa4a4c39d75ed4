"""JMH JSON: real files of five publishers against JMH's own numbers (data/formats/jmh/truth.yaml),
every mode, one iteration (NaN error), secondary metrics, and property tests (generated and damaged files)."""

from __future__ import annotations

import json
import math
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
from sw_mutations import kinds, outcome, places, read_mutated  # noqa: E402

#: Files the Hypothesis examples write (no tmp_path there): removed when the test process ends.
SCRATCH = tempfile.TemporaryDirectory(prefix="twelveways-format-tests-")

DATA = Path(__file__).parent / "data" / "formats" / "jmh"
TRUTH = yaml.safe_load((DATA / "truth.yaml").read_text())["files"]


def _read(path):
    (loaded,) = read_paths([path])
    return results.to_frame(loaded.ds), loaded.ds.attrs


def _summaries(attrs) -> list[dict]:
    return json.loads(attrs["summaries"])


@pytest.mark.parametrize("truth", TRUTH, ids=[t["file"] for t in TRUTH])
def test_publishers_numbers(truth):
    frame, attrs = _read(DATA / truth["file"])
    assert attrs["source_format"] == "jmh" and len(frame) == truth["rows"]
    for mode, unit in truth["modes"].items():
        assert set(frame.loc[frame["metric"] == mode, "unit"]) == {unit}
    modes = set(truth["modes"])
    assert frame.loc[frame["metric"].isin(modes), "invocation"].nunique() == truth["forks"]
    doc = json.loads((DATA / truth["file"]).read_text())
    stated = _summaries(attrs)
    assert [s["value"] for s in stated] == [e["primaryMetric"]["score"] for e in doc]
    for expected in truth.get("scores", []):
        match = [s for s in stated if s["metric"] == expected["mode"] and s["value"] == expected["value"]
                 and all(s["filters"].get(k) == v for k, v in expected.items() if k.startswith("param_"))]
        assert len(match) == 1, expected
        low, high = match[0]["ci"]
        assert math.isclose((high - low) / 2, expected["error"], rel_tol=1e-9)
        assert match[0].get("recomputable", 1) == expected.get("recomputable", 1)
    for entry in doc:  # every fork's every iteration is a row, in order
        raw = entry["primaryMetric"].get("rawData")
        if raw:
            rows = frame[(frame["workload"] == entry["benchmark"]) & (frame["metric"] == entry["mode"])]
            assert [v for fork in raw for v in fork] in _row_groups(rows, entry)


def _row_groups(rows, entry) -> list[list[float]]:
    params = {f"param_{k}": v for k, v in (entry.get("params") or {}).items()}
    mine = rows
    for column, value in params.items():
        mine = mine[mine[column] == value]
    return [list(mine.sort_values(["invocation", "iteration"])["value"])]


def test_sample_mode_histogram_and_percentiles():
    """Netflix/hollow's sample mode: iteration means of the histogram; the percentiles JMH states with a NaN error."""
    frame, attrs = _read(DATA / "hollow-all-modes-jmh-result.json")
    truth = next(t for t in TRUTH if t["file"] == "hollow-all-modes-jmh-result.json")["secondary"]
    p50 = frame[frame["metric"] == truth["metric"]]
    assert list(p50["value"]) == truth["values"] and set(p50["unit"]) == {truth["unit"]}
    sample = frame[frame["metric"] == "sample"]
    assert len(sample) == 3 and (sample["value"] > 0.2).all()


def entry(mode="thrpt", forks=1, raw=None, score=None, error="NaN", **extra):
    raw = raw if raw is not None else [[100.0]]
    flat = [v for fork in raw for v in fork]
    score = score if score is not None else sum(flat) / len(flat)
    confidence = ["NaN", "NaN"] if error == "NaN" else [score - error, score + error]
    doc = {"jmhVersion": "1.37", "benchmark": "org.example.Bench.run", "mode": mode, "threads": 1, "forks": forks,
           "jvm": "/usr/bin/java", "jvmArgs": [], "jdkVersion": "21", "vmName": "OpenJDK 64-Bit Server VM",
           "vmVersion": "21+35", "warmupIterations": 0, "warmupTime": "1 s", "warmupBatchSize": 1,
           "measurementIterations": len(raw[0]), "measurementTime": "1 s", "measurementBatchSize": 1,
           "primaryMetric": {"score": score, "scoreError": error, "scoreConfidence": confidence,
                             "scorePercentiles": {"0.0": min(flat), "100.0": max(flat)},
                             "scoreUnit": "ops/s" if mode == "thrpt" else "us/op", "rawData": raw},
           "secondaryMetrics": {}}
    doc.update(extra)
    return doc


def _write(doc) -> Path:
    folder = Path(tempfile.mkdtemp(dir=SCRATCH.name))
    path = folder / "jmh-result.json"
    path.write_text(json.dumps(doc, indent=4))
    return path


def test_one_iteration_nan_error_is_a_score_without_ci():
    """JMH writes "NaN" for scoreError and scoreConfidence after one iteration: the score is kept, no CI stated."""
    frame, attrs = _read(_write([entry(raw=[[17551.660360749385]])]))
    (stated,) = _summaries(attrs)
    assert list(frame["value"]) == [17551.660360749385] and stated["value"] == 17551.660360749385
    assert "ci" not in stated and "confidence" not in stated and "no error" in stated["note"]


def test_gc_profiler_secondary_metrics_are_rows_and_nan_ones_not_measured():
    secondary = {"·gc.alloc.rate": {"score": 1021.3, "scoreError": 12.0, "scoreConfidence": [1009.3, 1033.3],
                                    "scoreUnit": "MB/sec", "rawData": [[1015.0, 1027.6]]},
                 "·gc.alloc.rate.norm": {"score": 56.0, "scoreError": 0.001, "scoreConfidence": [55.999, 56.001],
                                         "scoreUnit": "B/op", "rawData": [[56.0, 56.0]]},
                 "·gc.time": {"score": "NaN", "scoreError": "NaN", "scoreConfidence": ["NaN", "NaN"],
                              "scoreUnit": "ms", "rawData": [["NaN", "NaN"]]}}
    frame, attrs = _read(_write([entry(raw=[[5.0, 7.0]], error=1.0, secondaryMetrics=secondary)]))
    assert list(frame.loc[frame["metric"] == "gc.alloc.rate.norm", "value"]) == [56.0, 56.0]
    assert set(frame.loc[frame["metric"] == "gc.alloc.rate", "unit"]) == {"MB/sec"}
    (missing,) = json.loads(attrs["not_measured"])
    assert missing["metric"] == "gc.time" and "NaN" in missing["not_measured"]


@pytest.mark.parametrize("change, needles", [
    (lambda d: d[0]["primaryMetric"].update(rawDataHistogram=[[[[1.0, 2, 3]]]], rawData=None),
     ["rawDataHistogram[0][0][0]", "2 items"]),
    (lambda d: d[0]["primaryMetric"].update(rawDataHistogram=[[[["x", 1]]]], rawData=None),
     ["rawDataHistogram[0][0][0][0]", "'x'"]),
    (lambda d: d[0].update(threads="two"), ["[0].threads", "'two'"]),
    (lambda d: d[0].update(forks=2.5), ["[0].forks", "2.5"]),
    (lambda d: d[0]["primaryMetric"].update(rawData=[[-1.0]]), ["rawData[0][0]", "is -1, below its minimum 0"]),
    (lambda d: d[0].update(mode="fast"), ["[0].mode", "'fast'", "not a JMH mode"]),
    (lambda d: d[0].update(primaryMetric=[1, 2]), ["[0].primaryMetric"]),
])
def test_damaged_entries_are_one_line(change, needles):
    doc = [entry(raw=[[1.0, 2.0]], error=0.5)]
    change(doc)
    with pytest.raises(AuditInputError) as caught:
        read_paths([_write(doc)])
    line = str(caught.value)
    assert "\n" not in line and "jmh-result.json" in line
    for needle in needles:
        assert needle in line, line


values = st.floats(min_value=1e-6, max_value=1e9, allow_nan=False, allow_infinity=False)


@st.composite
def documents(draw):
    """A JMH result list: modes, forks, iterations and values drawn; one iteration gives a NaN error."""
    out = []
    for i in range(draw(st.integers(1, 3))):
        forks = draw(st.integers(1, 3))
        iterations = draw(st.integers(1, 4))
        raw = [[draw(values) for _ in range(iterations)] for _ in range(forks)]
        error = "NaN" if iterations * forks == 1 else draw(st.floats(0, 10))
        out.append(entry(mode=draw(st.sampled_from(["thrpt", "avgt", "sample", "ss"])), forks=forks, raw=raw,
                         error=error, params={"size": str(i)}))
    return out


@settings(max_examples=examples(40), deadline=None)
@given(documents())
def test_generated_files_read_back_to_the_same_numbers(doc):
    frame, attrs = _read(_write(doc))
    for i, item in enumerate(doc):
        rows = frame[frame["param_size"] == str(i)].sort_values(["invocation", "iteration"])
        assert np.allclose(rows["value"], [v for fork in item["primaryMetric"]["rawData"] for v in fork], rtol=0)
        assert rows["invocation"].nunique() == item["forks"]
    assert [s["value"] for s in _summaries(attrs)] == [e["primaryMetric"]["score"] for e in doc]


@settings(max_examples=examples(60), deadline=None)
@given(documents(), kinds, places)
def test_damaged_files_end_in_rows_or_one_line(doc, kind, place):
    got = read_mutated({"jmh-result.json": json.dumps(doc, indent=4).encode()}, "jmh-result.json", kind, place)
    assert isinstance(got, (list, str))


def test_a_damaged_file_in_a_tree_is_skipped_and_the_rest_read(tmp_path):
    (tmp_path / "good.json").write_text(json.dumps([entry(raw=[[1.0, 2.0]], error=0.5)]))
    (tmp_path / "bad.json").write_text(json.dumps([entry(raw=[[1.0]], score=1.0)]).replace("[\n", "[").replace(
        '"rawData": [[1.0]]', '"rawData": [["x"]]'))
    skipped = []
    loaded = read_paths([tmp_path], skipped=skipped)
    assert [Path(x.path).name for x in loaded] == ["good.json"]
    assert [s.path.name for s in skipped if s.unreadable] == ["bad.json"]
    assert outcome([tmp_path / "good.json"])
