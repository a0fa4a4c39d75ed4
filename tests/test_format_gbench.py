"""Google Benchmark JSON: the publishers' files (tests/corpus/gbench), error/skipped entries excluded with their
message, aggregates-only files, counters, launcher lines before the JSON, property-based generation and mutation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import gbench, read_paths

CORPUS = Path(__file__).parent / "corpus" / "gbench"
PROPS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CONTEXT = {"date": "2024-01-01", "num_cpus": 8, "mhz_per_cpu": 3000, "library_build_type": "release"}


def entry(name="BM_x/8", rep=0, real=10.0, **extra) -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 3, "repetition_index": rep,
            "threads": 1, "iterations": 1000, "real_time": real, "cpu_time": real, "time_unit": "ns", **extra}


def frame_of(path: Path):
    (loaded,) = gbench.read(path)
    return results.to_frame(loaded.ds), loaded.ds


def write(tmp_path: Path, benchmarks: list, prefix: str = "") -> Path:
    path = tmp_path / "gb.json"
    path.write_text(prefix + json.dumps({"context": CONTEXT, "benchmarks": benchmarks}, indent=2))
    return path


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.json")), ids=lambda p: p.name)
def test_publishers_times_are_the_files(path):
    data = gbench.decode.load_json(path, "google-benchmark")
    (loaded,) = read_paths([path])
    frame = results.to_frame(loaded.ds)
    for item in (e for e in data["benchmarks"] if e.get("run_type") != "aggregate" and not e.get("error_occurred")):
        rows = frame[(frame["workload"] == item.get("run_name", item["name"])) & (frame["metric"] == "real_time")]
        assert item["real_time"] in list(rows["value"]) and set(rows["unit"]) == {item["time_unit"]}


def test_three_publishers():
    readme = (CORPUS.parent / "README.md").read_text()
    for repo in ("google/benchmark", "benchmark-action/github-action-benchmark", "CHN-ChenYi/mmap-benchmark"):
        assert f"github.com/{repo}" in readme


def test_error_and_skipped_entries_are_excluded_with_their_message(tmp_path):
    path = write(tmp_path, [entry(), entry("BM_bad", error_occurred=True, error_message="no GPU"),
                            entry("BM_skip", skipped=True, skip_message="too small")])
    frame, ds = frame_of(path)
    assert set(frame["workload"]) == {"BM_x/8"}
    reasons = {m["workload"]: m["not_measured"] for m in results.attr_json(ds, "not_measured")}
    assert "no GPU" in reasons["BM_bad"] and "too small" in reasons["BM_skip"]


def test_aggregates_only_file_gives_stated_rows(tmp_path):
    aggs = [entry(run_type="aggregate", aggregate_name=a, real=v) for a, v in (("mean", 10.0), ("median", 9.0),
                                                                                 ("stddev", 1.0))]
    frame, ds = frame_of(write(tmp_path, aggs))
    assert dict(zip(frame.loc[frame["metric"].str.startswith("real_time"), "metric"],
                    frame.loc[frame["metric"].str.startswith("real_time"), "value"])) == {
        "real_time_mean": 10.0, "real_time_median": 9.0, "real_time_stddev": 1.0}
    assert "real_time_mean" in results.attr_json(ds, "derived_metrics")


def test_counters_and_a_nan_counter(tmp_path):
    frame, ds = frame_of(write(tmp_path, [entry(bytes_per_second=1e9, items=float("nan"))]))
    assert frame.loc[frame["metric"] == "bytes_per_second", "unit"].tolist() == ["B/s"]
    assert results.attr_json(ds, "not_measured")[0]["metric"] == "items"


def test_launcher_lines_before_the_json(tmp_path):
    path = write(tmp_path, [entry()], prefix="[0] MPI startup(): Intel(R) MPI Library\n[0] MPI startup(): ofi\n")
    (loaded,) = read_paths([path])
    assert results.to_frame(loaded.ds)["value"].tolist()[0] == 10.0


@pytest.mark.parametrize("change, needle", [
    ({"real_time": -1.0}, "real_time"), ({"iterations": "1000"}, "iterations"), ({"time_unit": "fortnights"}, "time_unit"),
    ({"threads": 2.5}, "threads"), ({"real_time": "fast"}, "real_time"), ({"repetition_index": 10 ** 30}, "31 digits"),
])
def test_damage_is_one_line_naming_the_field(tmp_path, change, needle):
    with pytest.raises(AuditInputError) as caught:
        read_paths([write(tmp_path, [{**entry(), **change}])])
    assert needle in caught.value.one_line() and "\n" not in caught.value.one_line()


TIMES = st.floats(min_value=0, max_value=1e9, allow_nan=False)


@PROPS
@given(times=st.lists(TIMES, min_size=1, max_size=8))
def test_generated_files_read_back(tmp_path, times):
    frame, _ = frame_of(write(tmp_path, [entry(rep=i, real=t) for i, t in enumerate(times)]))
    real = frame[frame["metric"] == "real_time"].sort_values("repetition")
    assert real["value"].tolist() == times


def _mutations(text: str):
    return st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.sampled_from(["NaN", "-1e308", "1e308", "9" * 400, '"x"', "[]", "{}", "null", "true"]).map(
            lambda v: text.replace("10.0", v, 1)),
        st.integers(1, 200_000).map(lambda d: "[" * d + "]" * d),
        st.just("[0] MPI startup(): x\n" + text), st.just(text.replace('"ns"', '"' + "n" * 1_000_000 + '"')))


@PROPS
@given(data=st.data())
def test_mutations_end_in_rows_or_one_error_line(tmp_path, data):
    text = json.dumps({"context": CONTEXT, "benchmarks": [entry(), entry(rep=1)]})
    mutated = data.draw(_mutations(text))
    path = tmp_path / "m.json"
    path.write_text(mutated)
    try:
        frame, _ = frame_of(path)
        assert all(math.isfinite(v) for v in frame["value"])
    except AuditInputError as exc:
        assert "\n" not in exc.one_line()


def test_manifest_ground_truth():
    import yaml

    entries = yaml.safe_load((CORPUS.parent / "manifest.yaml").read_text())["entries"]
    for entry in (e for e in entries if "gbench" in e.get("ground_truth", {})):
        truth = entry["ground_truth"]["gbench"]
        frame, ds = frame_of(CORPUS.parent / entry["paths"][0])
        rows = frame[(frame["workload"] == truth["workload"]) & (frame["metric"] == "real_time")]
        assert rows.loc[rows["repetition"] == 0, "value"].tolist() == [truth["repetition_0_real_time_ns"]]
        stated = [s for s in results.attr_json(ds, "summaries") if s["filters"]["workload"] == truth["workload"]
                  and s["metric"] == "real_time" and s["statistic"] == "arithmetic_mean"]
        assert stated[0]["value"] == truth["mean_real_time_ns"]
        assert rows["value"].mean() == pytest.approx(truth["mean_real_time_ns"], rel=1e-9)
