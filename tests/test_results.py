"""The results store: schema, provenance, atomic writes, validation on load."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import numpy as np
import pytest
import xarray as xr

from twelveways import results
from twelveways.errors import EnvironmentMismatchError, ResultsError


def _rows(n=6, valid=True, env_note=""):
    rows = []
    for i in range(n):
        rows.append(dict(benchmark="prk", workload="nstream", implementation="c-serial", ranks=1, threads=1,
                         size=1000, precision="fp64", seed=1, run_id="r1", iteration=i, rank=0, metric="time",
                         value=0.01 + i * 1e-4, unit="s", valid=valid, scaling="single"))
    return rows


def _ds(env_hash="e1", **kw):
    return results.from_records(_rows(**kw), family="prk",
                                attrs={"environment_hash": env_hash, "config_hash": "c1", "git_commit": "abc", "git_dirty": 0})


def test_roundtrip_keeps_every_sample_and_types(tmp_path):
    path = results.write(_ds(), tmp_path / "prk.nc")
    ds = results.open(path)
    frame = results.to_frame(ds)
    assert len(frame) == 6
    assert ds.attrs["schema_version"] == results.SCHEMA_VERSION
    assert ds["valid"].dtype == bool and ds["ranks"].dtype.kind == "i"
    assert list(frame["workload"].unique()) == ["nstream"]
    assert "scaling" in ds  # extra factor kept
    assert len(results.summarizable(frame)) == 5  # iteration 0 (warm-up) never summarized


def test_every_variable_is_stored_shuffled_and_compressed_and_reads_back_exactly(tmp_path):
    written = _ds()
    path = results.write(written, tmp_path / "prk.nc")
    with xr.open_dataset(path, engine="h5netcdf") as stored:
        filters = {name: (stored[name].encoding.get("shuffle"), stored[name].encoding.get("zlib"))
                   for name in stored.data_vars}
    assert filters and set(filters.values()) == {(True, True)}, filters
    assert np.array_equal(results.open(path)["value"].values, written["value"].values)


def test_invalid_samples_excluded_from_summaries(tmp_path):
    ds = results.open(results.write(_ds(valid=False), tmp_path / "x.nc"))
    assert results.summarizable(results.to_frame(ds)).empty


def test_missing_column_and_wrong_version_rejected(tmp_path):
    rows = _rows()
    for row in rows:
        del row["unit"]
    with pytest.raises(ResultsError, match="unit"):
        results.from_records(rows, family="prk")
    ds = _ds()
    ds.attrs["schema_version"] = "0.3"
    ds.to_netcdf(tmp_path / "old.nc", engine="h5netcdf")
    with pytest.raises(ResultsError, match="schema_version '0.3' is not supported"):
        results.open(tmp_path / "old.nc")


def test_not_a_results_file(tmp_path):
    (tmp_path / "junk.nc").write_bytes(b"\x89HDF\r\n\x1a\n truncated")
    with pytest.raises(ResultsError, match="partial or damaged"):
        results.open(tmp_path / "junk.nc")
    xr.Dataset({"value": (("sample",), np.ones(3))}).to_netcdf(tmp_path / "plain.nc", engine="h5netcdf")
    with pytest.raises(ResultsError, match="schema_version"):
        results.open(tmp_path / "plain.nc")
    with pytest.raises(ResultsError, match="not found"):
        results.open(tmp_path / "nope.nc")


def test_mixed_environments_refused_unless_asked(tmp_path):
    a = results.write(_ds("envA"), tmp_path / "a.nc")
    b = results.write(_ds("envB"), tmp_path / "b.nc")
    with pytest.raises(EnvironmentMismatchError):
        results.open_many([a, b])
    merged = results.open_many([a, b], allow_mixed_environments=True)
    assert merged.sizes["sample"] == 12
    assert set(merged["environment_hash"].values) == {"envA", "envB"}
    assert merged.attrs["mixed_environments"] == 1


def _slow_writer(path):
    """Write a large file so the kill lands mid-write."""
    n = 3_000_000
    rows = {name: np.zeros(n, dtype=np.int64) for name in ("ranks", "threads", "size", "seed", "iteration", "rank")}
    import pandas as pd

    frame = pd.DataFrame(rows)
    for name in ("benchmark", "workload", "implementation", "precision", "run_id", "metric", "unit"):
        frame[name] = "x"
    frame["value"] = np.random.default_rng(0).random(n)
    frame["valid"] = True
    results.write(results.from_frame(frame, "prk"), path)


@pytest.mark.slow
def test_killed_write_never_leaves_a_readable_partial_file(tmp_path):
    """SIGKILL during a write: the real name is absent (or the previous complete file), never partial."""
    path = tmp_path / "prk.nc"
    results.write(_ds(), path)  # a previous complete version
    before = results.to_frame(results.open(path))
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_slow_writer, args=(path,))
    proc.start()
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob(".prk.nc.*.partial")):
        time.sleep(0.01)
    assert list(tmp_path.glob(".prk.nc.*.partial")), "writer never started its temporary file"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    after = results.to_frame(results.open(path))  # the old complete file, untouched
    assert after.equals(before)
    for partial in tmp_path.glob(".prk.nc.*.partial"):
        with pytest.raises(ResultsError):
            results.open(partial)


def test_provenance_reads_environment_hash(tmp_path):
    env = tmp_path / "environment.json"
    env.write_text('{"hash": "deadbeef"}')
    attrs = results.provenance(env, {"seed": 1})
    assert attrs["environment_hash"] == "deadbeef"
    assert attrs["config_hash"] == results.canonical_hash({"seed": 1})
    assert len(attrs["git_commit"]) in (40, 7) or attrs["git_commit"] == "unknown"
