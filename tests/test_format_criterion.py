"""criterion.rs folders: real files of four publishers, criterion 0.3 to 0.5 (sample.json, estimates.json,
benchmark.json, raw.csv alone or beside sample.json, base/ and change/), against criterion's own numbers
(data/formats/criterion/truth.yaml); and property tests (generated and damaged folders)."""

from __future__ import annotations

import json
import shutil
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
from twelveways.readers.head import Head
from twelveways.readers.registry import recognize

sys.path.insert(0, str(Path(__file__).parent))
from sw_mutations import kinds, places, read_mutated, write_tree  # noqa: E402

DATA = Path(__file__).parent / "data" / "formats" / "criterion"
COMPANIONS = Path(__file__).parent / "data" / "companions" / "criterion"
TRUTH = yaml.safe_load((DATA / "truth.yaml").read_text())["folders"]


def _frames(paths) -> list:
    return [(Path(item.path), results.to_frame(item.ds), item.ds.attrs) for item in read_paths(paths)]


@pytest.mark.parametrize("truth", TRUTH, ids=[t["folder"] for t in TRUTH])
def test_publishers_numbers(truth):
    folder = DATA / truth["folder"]
    ((source, frame, attrs),) = _frames([folder])
    assert attrs["source_format"] == "criterion" and source.name == truth.get("read_from", "sample.json")
    time = frame[frame["metric"] == "time"]
    assert len(time) == truth["rows"]
    if (folder / "sample.json").is_file():
        sample = json.loads((folder / "sample.json").read_text())
        assert np.allclose(time["value"], np.array(sample["times"]) / np.array(sample["iters"]), rtol=1e-12)
        assert list(time["iterations"]) == [int(i) for i in sample["iters"]]
        assert set(time["sampling_mode"]) == {truth["sampling_mode"]}
    stated = {s["statistic"]: s for s in json.loads(attrs["summaries"])}
    if "mean" in truth:
        assert stated["arithmetic_mean"]["value"] == truth["mean"] and stated["median"]["value"] == truth["median"]
        assert stated["median"]["ci_method"] == "bootstrap" and stated["median"]["n"] == truth["rows"]
    if "first" in truth:
        first = time.sort_values("iteration").iloc[0]
        assert first["value"] == truth["first"]["sample_measured_value"] / truth["first"]["iteration_count"]
        for column, value in truth["identity"].items():
            assert set(time[column]) == {value}


@pytest.mark.parametrize("name", ["benchmark.json", "estimates.json", "sample.json"])
def test_a_file_named_alone_is_read_with_its_folder(name):
    """A user who names criterion's benchmark.json (or estimates.json) gets the folder's result, not a refusal."""
    folder = DATA / "gg1_circular_threads" / "1" / "new"
    ((_, whole, whole_attrs),) = _frames([folder])
    ((_, alone, alone_attrs),) = _frames([folder / name])
    assert alone["value"].tolist() == whole["value"].tolist() and len(alone) == 100
    assert alone_attrs["summaries"] == whole_attrs["summaries"]


def test_a_companion_no_reader_knows_named_alone_says_to_name_the_folder():
    """criterion's tukey.json (four fences) is not results; the refusal names the folder that is."""
    folder = DATA / "regtail" / "big_file_tail" / "new"
    with pytest.raises(AuditInputError) as caught:
        read_paths([folder / "tukey.json"])
    line = caught.value.one_line()
    assert "not results on its own" in line and f"name the folder {folder}" in line and "criterion" in line
    assert "\n" not in line


def test_raw_csv_is_criterion_certain_not_a_project_csv():
    head = Head.of(DATA / "swap-queue-raw-csv" / "Batching" / "flume" / "1024" / "new" / "raw.csv")
    assert recognize(head).name == "criterion"


def test_raw_csv_beside_sample_json_is_not_counted_twice():
    folder = DATA / "regtail" / "big_file_tail" / "new"
    ((source, frame, _),) = _frames([folder])
    assert source.name == "sample.json" and len(frame) == 100


def test_base_and_change_folders(tmp_path):
    """criterion 0.3's whole folder: base/ (a copy of new/) is not read again, change/ is no result."""
    shutil.copytree(COMPANIONS / "regtail", tmp_path / "regtail")
    skipped = []
    found = read_paths([tmp_path], skipped=skipped)
    assert [Path(x.path).parent.name for x in found] == ["new"]
    assert not any(s.unreadable for s in skipped)
    assert any(s.path.parent.name == "change" for s in skipped)
    shutil.rmtree(tmp_path / "regtail" / "big_file_tail" / "new")  # base/ alone is the only copy: read
    assert [Path(x.path).parent.name for x in read_paths([tmp_path])] == ["base"]


def folder_files(iters, times, throughput=None, raw=False, sample=True) -> dict[str, bytes]:
    means = [t / i for i, t in zip(iters, times)]
    def est(v):
        return {"confidence_interval": {"confidence_level": 0.95, "lower_bound": v * 0.9, "upper_bound": v * 1.1},
                "point_estimate": v, "standard_error": 1.0}
    files = {"estimates.json": {"mean": est(float(np.mean(means))), "median": est(float(np.median(means))),
                                "median_abs_dev": est(1.0), "slope": None, "std_dev": est(2.0)},
             "benchmark.json": {"group_id": "copy", "function_id": "memcpy", "value_str": "64",
                                "throughput": throughput, "full_id": "copy/memcpy/64",
                                "directory_name": "copy/memcpy_64", "title": "copy/memcpy/64"}}
    if sample:
        files["sample.json"] = {"sampling_mode": "Linear", "iters": iters, "times": times}
    out = {f"copy/memcpy/64/new/{k}": json.dumps(v).encode() for k, v in files.items()}
    if raw:
        lines = ["group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count"]
        lines += [f"copy,memcpy,64,,,{t},ns,{int(i)}" for i, t in zip(iters, times)]
        out["copy/memcpy/64/new/raw.csv"] = ("\n".join(lines) + "\n").encode()
    return out


@pytest.mark.parametrize("change, needles", [
    (lambda f: f.update({"copy/memcpy/64/new/benchmark.json": f["copy/memcpy/64/new/benchmark.json"].replace(
        b'"throughput": null', b'"throughput": {"Bytes": "4 KiB"}')}), ["throughput.Bytes", "'4 KiB'"]),
    (lambda f: f.update({"copy/memcpy/64/new/benchmark.json": f["copy/memcpy/64/new/benchmark.json"].replace(
        b'"throughput": null', b'"throughput": {"Bytes": 4096}'), "copy/memcpy/64/new/sample.json":
        b'{"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [0.0, 10.0]}'}), ["0 ns", "zero-duration"]),
    (lambda f: f.update({"copy/memcpy/64/new/sample.json": b'{"iters": [1.5, 2.0], "times": [1.0, 2.0]}'}),
     ["iters[0]", "1.5"]),
    (lambda f: f.update({"copy/memcpy/64/new/sample.json": b'{"iters": [1.0, 2.0], "times": [1.0, -2.0]}'}),
     ["times[1]"]),
    (lambda f: f.update({"copy/memcpy/64/new/estimates.json": b'{"mean": {"point_estimate": "x"}, "std_dev": null}'}),
     ["mean.point_estimate", "'x'"]),
])
def test_damaged_folders_are_one_line(change, needles):
    files = folder_files([1.0, 2.0], [100.0, 210.0])
    change(files)
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), files)
        with pytest.raises(AuditInputError) as caught:
            read_paths([Path(tmp) / "copy"])
    line = str(caught.value)
    assert "\n" not in line
    for needle in needles:
        assert needle in line, line


def test_raw_csv_alone_with_throughput_and_damaged_lines(tmp_path):
    files = folder_files([1.0, 2.0, 3.0], [100.0, 210.0, 300.0], raw=True, sample=False)
    text = files["copy/memcpy/64/new/raw.csv"].decode().replace(",,,", ",1024,bytes,")
    files["copy/memcpy/64/new/raw.csv"] = text.encode()
    write_tree(tmp_path / "ok", files)
    ((source, frame, _),) = _frames([tmp_path / "ok"])
    assert source.name == "raw.csv" and list(frame.loc[frame["metric"] == "time", "value"]) == [100.0, 105.0, 100.0]
    assert np.isclose(frame.loc[frame["metric"] == "throughput", "value"].iloc[0], 1024 / 100e-9)
    files["copy/memcpy/64/new/raw.csv"] = text.replace("210.0", "fast").encode()
    write_tree(tmp_path / "bad", files)
    with pytest.raises(AuditInputError, match="raw.csv line 3 sample_measured_value is 'fast'"):
        read_paths([tmp_path / "bad"])


samples = st.lists(st.tuples(st.integers(1, 10_000), st.floats(min_value=1.0, max_value=1e9, allow_nan=False)),
                   min_size=1, max_size=30)


@settings(max_examples=examples(40), deadline=None)
@given(samples, st.booleans(), st.one_of(st.none(), st.integers(1, 1 << 20)))
def test_generated_folders_read_back_to_the_same_numbers(pairs, raw, amount):
    iters, times = [float(i) for i, _ in pairs], [t for _, t in pairs]
    files = folder_files(iters, times, throughput={"Bytes": amount} if amount else None, raw=raw)
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), files)
        ((_, frame, _),) = _frames([Path(tmp)])
    time = frame[frame["metric"] == "time"]
    assert np.allclose(time["value"], np.array(times) / np.array(iters), rtol=1e-12)
    assert len(frame) == len(pairs) * (2 if amount else 1)


@settings(max_examples=examples(60), deadline=None)
@given(samples, kinds, places, st.sampled_from(["sample.json", "estimates.json", "benchmark.json", "raw.csv"]))
def test_damaged_folders_end_in_rows_or_one_line(pairs, kind, place, target):
    files = folder_files([float(i) for i, _ in pairs], [t for _, t in pairs], throughput={"Elements": 10}, raw=True,
                         sample=target != "raw.csv")
    got = read_mutated(files, f"copy/memcpy/64/new/{target}", kind, place, name_folder=True)
    assert isinstance(got, (list, str))


def test_older_sample_json_longer_than_the_head_is_recognized(tmp_path):
    """criterion before 0.3.4 wrote no sampling_mode; a file past 64 KiB is recognized by its first keys."""
    folder = tmp_path / "fib" / "20" / "new"
    folder.mkdir(parents=True)
    iters = [float(i) for i in range(1, 5001)]
    (folder / "sample.json").write_text(json.dumps({"iters": iters, "times": [i * 101.5 for i in iters]}))
    assert (folder / "sample.json").stat().st_size > 1 << 16
    ((_, frame, _),) = _frames([tmp_path])
    assert len(frame) == 5000 and set(frame["workload"]) == {"fib"} and np.allclose(frame["value"], 101.5)
