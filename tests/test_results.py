"""The results store: schema, provenance, atomic writes, validation on load."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import numpy as np
import pytest
import xarray as xr

from twelveways import atomic, results
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


def _killed_writer(path):
    """A writer stopped mid-write: half the bytes in its temporary file, then it waits to be killed."""
    with atomic.replacing(path, "results file") as tmp:
        tmp.write_bytes(b"\x89HDF half a file")
        time.sleep(600)


@pytest.mark.slow
def test_killed_write_leaves_the_old_file_and_the_next_write_removes_its_partial(tmp_path):
    """SIGKILL during a write: the real name keeps the previous complete file; the killed writer's hidden
    temporary file is removed by the next write of the same file, while a live writer's stays."""
    path = tmp_path / "prk.nc"
    results.write(_ds(), path)  # a previous complete version
    before = results.to_frame(results.open(path))
    proc = multiprocessing.get_context("spawn").Process(target=_killed_writer, args=(path,))
    proc.start()
    deadline = time.time() + 120
    while time.time() < deadline and not any(p.stat().st_size for p in tmp_path.glob(".prk.nc.*.partial")):
        time.sleep(0.01)
    killed = list(tmp_path.glob(".prk.nc.*.partial"))
    assert killed, "writer never started its temporary file"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    assert results.to_frame(results.open(path)).equals(before)  # the old complete file, untouched
    with atomic.replacing(path, "results file") as live:  # a writer of this process, still alive
        live.write_bytes(b"in progress")
        results.write(_ds(), path)  # the next write: the killed writer's partial goes, the live one stays
        assert not any(p.exists() for p in killed) and live.exists()
    assert not list(tmp_path.glob(".prk.nc.*.partial"))


def test_provenance_reads_environment_hash(tmp_path):
    env = tmp_path / "environment.json"
    env.write_text('{"hash": "deadbeef"}')
    attrs = results.provenance(env, {"seed": 1})
    assert attrs["environment_hash"] == "deadbeef"
    assert attrs["config_hash"] == results.canonical_hash({"seed": 1})
    assert len(attrs["git_commit"]) in (40, 7) or attrs["git_commit"] == "unknown"
