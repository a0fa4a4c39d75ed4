"""The fast reader of results files (h5py, :mod:`twelveways.ncfast`) gives what xarray's h5netcdf backend gives.

Every NetCDF file of the repository and files written here (every column type, NaN, empty and unicode
strings, bools, the 1.0 layout with plain strings, other writers' types) are read both ways and must be
identical, before and after :func:`twelveways.results.finish`.  Files of any other shape (another
dimension, a coordinate variable, groups, CF scale/offset or time units …) must take xarray's path, and
our own files must not: a silent fall back would only show as a slower audit.
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest
import xarray as xr

from twelveways import ncfast, results
from twelveways.errors import ResultsError

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY_FILES = sorted({*ROOT.glob("data/**/*.nc"), *ROOT.glob("tests/**/*.nc")})


def _xarray(path) -> xr.Dataset:
    with xr.open_dataset(path, engine="h5netcdf") as handle:
        return handle.load()


def _same_attrs(left: dict, right: dict, where: str) -> None:
    """Equal attributes, each value of the same type (assert_identical lets np.int64(1) equal 1)."""
    assert list(left) == list(right), where
    for key in left:
        assert type(left[key]) is type(right[key]), (where, key, type(left[key]), type(right[key]))
        assert np.array_equal(left[key], right[key]) or (left[key] != left[key] and right[key] != right[key]), (where, key)


def _assert_same(fast: xr.Dataset, slow: xr.Dataset) -> None:
    xr.testing.assert_identical(fast, slow)
    assert list(fast.variables) == list(slow.variables)
    _same_attrs(fast.attrs, slow.attrs, "file")
    for name, var in slow.variables.items():
        assert fast.variables[name].dtype == var.dtype, name
        assert fast.variables[name].dims == var.dims, name
        _same_attrs(fast.variables[name].attrs, var.attrs, name)


def _finished(ds: xr.Dataset):
    """:func:`results.finish` of a copy, or its one-line error."""
    try:
        return results.finish(ds.copy(deep=True), "source")
    except ResultsError as exc:
        return exc.one_line()


def assert_fast_equals_xarray(path, reader: str = "h5py") -> xr.Dataset:
    """Both readers give the same Dataset (raw and finished); ``read_raw`` names ``reader`` as the one used."""
    slow = _xarray(path)
    fast = ncfast.read(path, results.SAMPLE_DIM)
    assert results.read_raw(path)[1] == reader
    if reader == "xarray":
        assert fast is None
        xr.testing.assert_identical(results.read_raw(path)[0], slow)
        return slow
    _assert_same(fast, slow)
    done_fast, done_slow = _finished(fast), _finished(slow)
    if isinstance(done_slow, str):
        assert done_fast == done_slow
    else:
        _assert_same(done_fast, done_slow)
    return fast


def _rows(n: int = 7) -> list[dict]:
    names = ["nstream", "transpose", "", "stencil ✓ µs", "naïve/ü", "dgemm", "nstream"]
    return [dict(benchmark="prk", workload=names[i % len(names)], implementation="c-serial", ranks=1 + i % 2,
                 threads=2, size=10 ** (i + 3), precision="fp64", seed=-1, run_id=f"r{i // 3}", iteration=i, rank=-1,
                 metric="rate" if i % 3 else "time", value=np.nan if i == 2 else 0.5 + i,
                 unit="MB/s" if i % 3 else "s", valid=i != 4,
                 scaling="" if i % 2 else "strong", note="", extra_float=np.nan if i % 2 else 1.5 * i,
                 extra_int=-i, extra_bool=bool(i % 3), extra_text="日本語" if i == 1 else "x")
            for i in range(n)]


def _written(tmp_path, name: str = "all.nc", n: int = 7, attrs: dict | None = None) -> Path:
    ds = results.from_records(_rows(n), family="prk",
                              attrs={"environment_hash": "e", "config_hash": "c", "git_commit": "abc", "git_dirty": 1,
                                     "json_attr": {"a": [1, 2]}, "flag": True, "ratio": 0.25, **(attrs or {})})
    return results.write(ds, tmp_path / name)


@pytest.mark.parametrize("path", REPOSITORY_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_results_file_of_the_repository_reads_the_same_and_fast(path):
    assert_fast_equals_xarray(path, "h5py")


def test_the_reference_files_are_there():
    assert {p.name for p in REPOSITORY_FILES} >= {"prk.nc", "train.nc", "inference.nc", "bounds.nc"}


def test_a_written_file_with_every_column_type_reads_the_same_and_fast(tmp_path):
    path = _written(tmp_path)
    assert_fast_equals_xarray(path, "h5py")
    ds = results.open(path)
    assert ds["valid"].dtype == bool and ds["extra_bool"].dtype == bool
    assert list(ds["workload"].values[:5]) == ["nstream", "transpose", "", "stencil ✓ µs", "naïve/ü"]
    assert np.isnan(ds["value"].values[2]) and ds["extra_text"].values[1] == "日本語"
    assert list(ds["note"].values) == [""] * 7 and ds.attrs["git_dirty"] == 1


def test_an_empty_written_file_reads_the_same_and_fast(tmp_path):
    ds = results.from_records([], family="prk")
    path = results.write(ds, tmp_path / "empty.nc")
    assert_fast_equals_xarray(path, "h5py")
    assert results.open(path).sizes.get("sample", 0) == 0


def test_other_numeric_types_and_plain_strings_read_the_same_and_fast(tmp_path):
    """Layout 1.0 (variable-length strings) and what other writers may store: narrow ints, unsigned, float32, bytes."""
    ds = results.open(_written(tmp_path))
    n = ds.sizes["sample"]
    ds["small"] = ("sample", np.arange(n, dtype=np.int8))
    ds["unsigned"] = ("sample", np.arange(n, dtype=np.uint32))
    ds["single"] = ("sample", np.linspace(0, 1, n, dtype=np.float32))
    ds["long_text"] = ("sample", np.array(["a" * 40, "", "ü"] + ["z"] * (n - 3), dtype=object))
    ds["single"].attrs.update(description="a described column", long_name="single precision")
    ds.attrs["schema_version"] = "1.0"
    ds.to_netcdf(tmp_path / "v10.nc", engine="h5netcdf")
    fast = assert_fast_equals_xarray(tmp_path / "v10.nc", "h5py")
    assert fast["workload"].dtype.kind == "U" and results.open(tmp_path / "v10.nc")["single"].dtype == np.float32


def test_a_fill_value_other_than_nan_becomes_nan_as_in_xarray(tmp_path):
    values = np.array([1.0, -999.0, np.nan, 4.0])
    for dtype in (np.float64, np.float32):
        path = tmp_path / f"fill-{np.dtype(dtype).name}.nc"
        xr.Dataset({"value": ("sample", values.astype(dtype))}).to_netcdf(
            path, engine="h5netcdf", encoding={"value": {"_FillValue": -999.0}})
        fast = assert_fast_equals_xarray(path, "h5py")
        assert np.isnan(fast["value"].values[1]) and fast["value"].dtype == dtype


def test_fixed_length_and_ascii_strings_of_other_writers_read_the_same_and_fast(tmp_path):
    path = tmp_path / "fixed.nc"
    xr.Dataset({"value": ("sample", np.ones(3))}).to_netcdf(path, engine="h5netcdf")
    with h5py.File(path, "a") as f:
        f.create_dataset("label", data=np.array([b"ab", b"cde", b""], dtype="S3"))
        f.create_dataset("ascii", data=np.array([b"x", b"", b"yz"], dtype=object), dtype=h5py.string_dtype("ascii"))
        for name in ("label", "ascii"):
            f[name].dims[0].attach_scale(f["sample"])
    fast = assert_fast_equals_xarray(path, "h5py")
    assert list(fast["label"].values) == [b"ab", b"cde", b""]
    assert fast["ascii"].dtype == object and list(fast["ascii"].values) == ["x", "", "yz"]


def _plain(path, **variables) -> Path:
    data = {"value": ("sample", np.arange(4.0)), **variables}
    xr.Dataset(data, attrs={"schema_version": "1.1"}).to_netcdf(path, engine="h5netcdf")
    return path


FALLBACKS = {
    "extra dimension": lambda p: _plain(p, grid=(("sample", "x"), np.ones((4, 2)))),
    "second dimension of the same length": lambda p: _plain(p, other=("x", np.ones(4))),
    "sample coordinate": lambda p: xr.Dataset({"value": ("sample", np.ones(4))},
                                              coords={"sample": np.arange(4)}).to_netcdf(p, engine="h5netcdf"),
    "scalar variable": lambda p: _plain(p, scalar=((), 3.0)),
    "big-endian column": lambda p: _plain(p, wide=("sample", np.arange(4, dtype=">i8"))),
    "scale and offset": lambda p: xr.Dataset({"value": ("sample", np.arange(4.0))}).to_netcdf(
        p, engine="h5netcdf", encoding={"value": {"dtype": "int16", "scale_factor": 0.5, "add_offset": 1.0}}),
    "time units": lambda p: _plain(p, when=("sample", np.array(["2026-01-01", "2026-01-02", "NaT", "2026-01-04"],
                                                               dtype="datetime64[ns]"))),
    "unsigned flag": lambda p: _plain(p, codes=("sample", np.arange(4, dtype=np.int8), {"_Unsigned": "true"})),
    "character array": lambda p: xr.Dataset({"label": ("sample", np.array([b"a", b"b", b"c", b"d"]))}).to_netcdf(
        p, engine="h5netcdf"),
    "coordinates attribute": lambda p: _plain(p, other=("sample", np.ones(4), {"coordinates": "value"})),
    "units attribute": lambda p: _plain(p, span=("sample", np.arange(4), {"units": "seconds"})),
    "integer fill value": lambda p: xr.Dataset({"count": ("sample", np.arange(4))}).to_netcdf(
        p, engine="h5netcdf", encoding={"count": {"_FillValue": 2}}),
    "bool flag on floats": lambda p: _plain(p, odd=("sample", np.ones(4), {"dtype": "bool"})),
}


@pytest.mark.filterwarnings("ignore:saving variable value with floating point data as an integer")
@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_a_file_of_another_shape_takes_xarrays_path(tmp_path, case):
    path = tmp_path / "other.nc"
    FALLBACKS[case](path)
    assert_fast_equals_xarray(path, "xarray")


def test_groups_and_global_coordinates_take_xarrays_path(tmp_path):
    grouped = _plain(tmp_path / "grouped.nc")
    xr.Dataset({"inner": ("sample", np.ones(4))}).to_netcdf(grouped, engine="h5netcdf", mode="a", group="more")
    assert_fast_equals_xarray(grouped, "xarray")
    coords = tmp_path / "coords.nc"
    xr.Dataset({"value": ("sample", np.ones(4)), "other": ("sample", np.ones(4))},
               attrs={"coordinates": "other"}).to_netcdf(coords, engine="h5netcdf")
    assert_fast_equals_xarray(coords, "xarray")


def test_an_unlimited_dimension_with_a_shorter_variable_takes_xarrays_path(tmp_path):
    path = tmp_path / "ragged.nc"
    xr.Dataset({"value": ("sample", np.ones(4))}).to_netcdf(path, engine="h5netcdf", unlimited_dims=["sample"])
    with h5py.File(path, "a") as f:
        f["value"].resize((5,))
    assert_fast_equals_xarray(path, "xarray")


def test_a_read_error_in_the_fast_path_falls_back(tmp_path, monkeypatch):
    path = _written(tmp_path)

    def unreadable(obj):
        raise OSError("Can't read data (required filter is not registered)")

    monkeypatch.setattr(ncfast, "_values", unreadable)
    assert ncfast.read(path, results.SAMPLE_DIM) is None
    ds, reader = results.read_raw(path)
    assert reader == "xarray"
    xr.testing.assert_identical(ds, _xarray(path))


@pytest.mark.parametrize("content", [b"\x89HDF\r\n\x1a\n truncated", b"CDF\x01 netCDF-3 header", b""])
def test_a_damaged_file_keeps_its_one_line_error(tmp_path, content):
    path = tmp_path / "bad.nc"
    path.write_bytes(content)
    assert ncfast.read(path, results.SAMPLE_DIM) is None
    with pytest.raises(ResultsError, match=r"bad.nc: not a readable NetCDF4 results file \(partial or damaged\?\)"):
        results.open(path)


def test_a_truncated_results_file_keeps_its_one_line_error(tmp_path):
    whole = _written(tmp_path).read_bytes()
    path = tmp_path / "cut.nc"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ResultsError, match="partial or damaged"):
        results.open(path)


def test_validation_errors_are_worded_the_same_on_the_fast_path(tmp_path):
    bad = _written(tmp_path, "bad.nc")
    with h5py.File(bad, "a") as f:
        f["workload"].attrs["twelveways_categories"] = "not json"
        del f.attrs["config_hash"]
    assert results.read_raw(bad)[1] == "h5py"
    with pytest.raises(ResultsError, match="column 'workload': attribute twelveways_categories must be a JSON list"):
        results.open(bad)
    old = _written(tmp_path, "old.nc", attrs={})
    with h5py.File(old, "a") as f:
        f.attrs["schema_version"] = "0.3"
    with pytest.raises(ResultsError, match="schema_version '0.3' is not supported"):
        results.open(old)
