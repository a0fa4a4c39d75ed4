"""A round of files held once: compact source frames, a merged frame whose rows the files' frames view, and
per-file check work mapped in forked workers (twelveways.forkmap) with the same report as without them."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from twelveways import forkmap, resultset, results
from twelveways.checklist import audit
from twelveways.readers import parallel

ROOT = Path(__file__).resolve().parents[1]
NC_FILES = sorted(p for p in ROOT.glob("data/reference/results/*.nc"))


@pytest.mark.parametrize("path", NC_FILES, ids=lambda p: p.name)
def test_source_frame_holds_what_to_dataframe_holds(path):
    ds = results.open(path)
    expected = results.to_frame(ds)
    expected["valid"] = expected["valid"].astype(bool)
    for name in expected.columns:
        if expected[name].dtype == object or pd.api.types.is_string_dtype(expected[name].dtype):
            expected[name] = expected[name].fillna("").astype(str)
    frame = resultset.source_frame(ds)
    texts = [name for name in frame.columns if isinstance(frame[name].dtype, pd.CategoricalDtype)]
    assert {"workload", "metric", "unit", "run_id"} <= set(texts)
    for name in texts:  # each text once, in text order (sorting by the column sorts the texts)
        categories = list(frame[name].cat.categories)
        assert categories == sorted(set(categories)) and set(categories) == set(expected[name].unique()), name
    pd.testing.assert_frame_equal(frame.astype({name: "str" for name in texts}), expected)


def test_texts_are_what_astype_str_makes_of_them():
    values = np.array([b"fp64", None, 3, "x", b"fp64", float("nan")], dtype=object)
    made = resultset.texts(values)
    assert made.astype(str).tolist() == pd.Series(values).fillna("").astype(str).tolist() == \
        ["fp64", "", "3", "x", "fp64", ""]
    assert list(made.cat.categories) == ["", "3", "fp64", "x"]


def test_texts_from_a_columns_codes_are_what_texts_makes_of_its_strings():
    import xarray as xr

    categories = np.array(["b", "a", "b", "unused", ""], dtype=object)  # "" ends it: code -1, a missing text
    codes = np.array([0, 1, -1, 2, 0, 1])
    strings = categories[codes]
    var = xr.Variable(("sample",), strings, encoding={results.DECODED_FROM_CODES: (strings, codes, categories)})
    made, expected = resultset._texts_of_codes(var, strings), resultset.texts(strings)
    assert list(made.cat.categories) == list(expected.cat.categories) == ["", "a", "b"]
    assert made.cat.codes.tolist() == expected.cat.codes.tolist()
    assert resultset._texts_of_codes(var, strings.copy()) is None  # values replaced since: read the strings


def test_a_source_travels_between_processes_as_its_columns():
    import pickle

    source = resultset.ResultSource.from_dataset("prk.nc", results.open(ROOT / "data/reference/results/prk.nc"))
    expected = source.frame.copy()
    source.kinds  # noqa: B018 - judged where the file was read
    state = source.__getstate__()
    assert state["_frame"] is None and set(state["_columns"]) == set(expected.columns)
    travelled = pickle.loads(pickle.dumps(source))
    pd.testing.assert_frame_equal(travelled.frame, expected)
    assert travelled.kinds.tolist() == source.kinds.tolist() and travelled.rows == len(expected)


def _sources(tmp_path) -> list[resultset.ResultSource]:
    """Three files whose columns differ: prk.nc twice and bounds.nc (which lacks some of prk's columns)."""
    paths = [ROOT / "data/reference/results/prk.nc", ROOT / "data/reference/results/bounds.nc",
             ROOT / "data/reference/results/prk.nc"]
    return [resultset.ResultSource.from_dataset(f"{tmp_path}/f{i}.nc", results.open(p)) for i, p in enumerate(paths)]


def test_merged_frame_is_what_concat_gives_and_files_view_its_rows(tmp_path):
    sources = _sources(tmp_path)
    own = [s.frame.copy() for s in sources]
    as_str = [f.astype({c: "str" for c in f.columns if isinstance(f[c].dtype, pd.CategoricalDtype)}) for f in own]
    expected = pd.concat([f.assign(source_file=s.path) for f, s in zip(as_str, sources)], ignore_index=True, sort=False)
    for name in expected.columns:
        if expected[name].dtype == object or pd.api.types.is_string_dtype(expected[name].dtype):
            expected[name] = expected[name].fillna("").astype(str)
    data = resultset.ResultSet(sources)
    texts = [name for name in data.frame.columns if isinstance(data.frame[name].dtype, pd.CategoricalDtype)]
    assert "source_file" in texts and "timer" in texts  # bounds.nc lacks timer: "" there, as concat + fill gives
    pd.testing.assert_frame_equal(data.frame.astype({name: "str" for name in texts}), expected)
    for source, before in zip(sources, own):  # each file still sees its own rows, texts and types
        pd.testing.assert_frame_equal(source.frame, before, check_categorical=False)
    def same_type(name):
        both_texts = all(isinstance(f[name].dtype, pd.CategoricalDtype) for f in (own[0], data.frame))
        return both_texts or data.frame[name].dtype == own[0][name].dtype

    shared = [name for name in own[0].columns if same_type(name)]
    assert "value" in shared and "workload" in shared
    for name in shared:  # ... and holds none of them a second time
        mine, all_rows = sources[0].frame[name].array, data.frame[name].array
        if isinstance(mine, pd.Categorical):
            mine, all_rows = mine.codes, all_rows.codes
        assert np.shares_memory(np.asarray(mine), np.asarray(all_rows)), name
    widened = [name for name in own[0].columns if not same_type(name)]
    assert "radius" in widened  # integers beside bounds.nc, which lacks them, became floats in the merge
    for name in widened:  # ... and stay the file's own, with its own type
        assert sources[0].frame[name].dtype == own[0][name].dtype


def _square(x: int) -> int:
    if x == 7:
        raise ValueError("seven")
    return x * x


def test_background_map_gives_every_result_in_order_and_an_item_that_fails_fails_here(monkeypatch):
    monkeypatch.setattr(forkmap, "MIN_ITEMS", 2)
    items = list(range(40))
    started = forkmap.BackgroundMap(_square, [i for i in items if i != 7], workers=2)
    assert started.pool is not None
    assert started.results() == [i * i for i in items if i != 7]
    failing = forkmap.BackgroundMap(_square, items, workers=2)
    with pytest.raises(ValueError, match="seven"):  # mapped again here, raised as it is
        failing.results()
    assert forkmap._TASK is None


def test_audit_report_is_the_same_with_per_file_parts_in_workers(tmp_path, monkeypatch):
    round_ = tmp_path / "round"
    for i in range(6):
        (round_ / f"run{i}").mkdir(parents=True)
        shutil.copy(ROOT / "data/reference/results" / ("prk.nc" if i % 2 else "bounds.nc"), round_ / f"run{i}")
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 10**9)
    monkeypatch.setattr(forkmap, "MIN_ITEMS", 10**9)
    alone = audit.run(resultset.load([round_])).to_dict()
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    monkeypatch.setattr(forkmap, "MIN_ITEMS", 2)
    data = resultset.load([round_])
    started = []
    original = forkmap.BackgroundMap.__init__

    def watched(self, *args, **kwargs):
        original(self, *args, **kwargs)
        started.append(self.pool is not None)

    monkeypatch.setattr(forkmap.BackgroundMap, "__init__", watched)
    side_by_side = audit.run(data).to_dict()
    assert started == [True]  # R5's per-file parts ran in forked workers
    assert side_by_side == alone
    r5 = next(c for c in side_by_side["checks"] if c["id"] == "R5")
    assert sum(e["what"].startswith("configurations (confidence") for e in r5["evidence"]) == 6


def test_a_per_file_part_that_raises_fails_only_its_own_check(tmp_path, monkeypatch):
    from twelveways.checklist import model
    from twelveways.errors import StatisticsError

    round_ = tmp_path / "round"
    for i in range(4):
        (round_ / f"run{i}").mkdir(parents=True)
        shutil.copy(ROOT / "data/reference/results/prk.nc", round_ / f"run{i}")
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    monkeypatch.setattr(forkmap, "MIN_ITEMS", 2)
    before = {c["id"]: c for c in audit.run(resultset.load([round_])).to_dict()["checks"]}

    def broken(results, source):
        raise StatisticsError(f"cannot judge {source.path}")

    monkeypatch.setitem(model.PER_SOURCE, "R10", broken)
    after = {c["id"]: c for c in audit.run(resultset.load([round_])).to_dict()["checks"]}
    assert after["R10"]["status"] == "needs_human" and "cannot judge" in str(after["R10"]["evidence"])
    assert after["R5"] == before["R5"]


def test_group_codes_group_as_groupby_does_whatever_the_columns_hold():
    rng = np.random.default_rng(3)
    n = 400
    texts = pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c", "unused"])
    many = pd.Categorical(rng.choice(["x", "y"], 5), categories=[f"t{i}" for i in range(50)] + ["x", "y"])  # > rows
    with_missing = pd.Categorical(rng.choice(["p", None], n), categories=["p"])
    frame = pd.DataFrame({"text": texts, "missing": with_missing, "number": rng.choice([1.0, 2.0, np.nan], n),
                          "object": rng.choice(np.array(["u", "v", None], dtype=object), n), "int": rng.integers(0, 3, n)})
    keys = list(frame.columns)
    expected = frame.groupby(keys, sort=False, dropna=False, observed=True).ngroup().to_numpy()
    assert resultset.group_codes(frame, keys).tolist() == expected.tolist()
    small = pd.DataFrame({"many": many, "int": np.arange(5) % 2})
    assert resultset.group_codes(small, ["many", "int"]).tolist() == \
        small.groupby(["many", "int"], sort=False, observed=True).ngroup().tolist()
