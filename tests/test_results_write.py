"""The fast writer of results files (h5py, :mod:`twelveways.ncwrite`) makes the HDF5 objects xarray's h5netcdf backend makes.

Every object, creation property (layout, chunks, filters, fill value and time, creation-order tracking),
type, value and attribute (name, order, HDF5 type, character set, space, value; dimension references by
the names they point to) is compared with what ``Dataset.to_netcdf(engine="h5netcdf")`` writes for the
same encoded Dataset, on the reference set's files and on written files with every column type.  The
one expected difference is ``_NCProperties``, which names its writer.  Datasets of any other shape must
take xarray's path, and still be written.
"""

from __future__ import annotations

import io
from pathlib import Path

import h5netcdf.legacyapi
import hdf5_structure
import numpy as np
import pytest
import xarray as xr
from test_results_fast_read import _rows

from twelveways import __version__, ncwrite, results

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = sorted((ROOT / "data" / "reference" / "results").glob("*.nc"))


def _by_xarray(encoded: xr.Dataset) -> bytes:
    encoding = {name: {"zlib": True, "complevel": results.COMPRESSION_LEVEL, "shuffle": True} for name in encoded.data_vars}
    return bytes(encoded.to_netcdf(engine="h5netcdf", encoding=encoding))


def _without_provenance(structure: list) -> tuple[list, str]:
    """The structure with the root's ``_NCProperties`` taken out, and that attribute's text."""
    (*head, attributes), rest = structure[0], structure[1:]
    kept = tuple(a for a in attributes if a[0] != "_NCProperties")
    (provenance,) = [a for a in attributes if a[0] == "_NCProperties"]
    assert provenance[1:6] == ("TypeStringID", len(provenance[6][2]), (0, False), 0, ()), provenance[:6]  # fixed ASCII
    return [(*head, kept), *rest], provenance[6][2].decode("ascii")


def assert_same_objects_as_xarray(ds: xr.Dataset) -> bytes:
    encoded = results._encode_strings(ds)
    fast = ncwrite.netcdf_bytes(encoded, results.SAMPLE_DIM, results.COMPRESSION_LEVEL)
    assert fast is not None, "a results file of the simple shape took xarray's path"
    ours, our_provenance = _without_provenance(hdf5_structure.structure(fast))
    theirs, their_provenance = _without_provenance(hdf5_structure.structure(_by_xarray(encoded)))
    assert len(ours) == len(theirs) == 2 + len(encoded.data_vars)  # the file, the dimension, the columns
    for mine, expected in zip(ours, theirs):
        assert mine == expected, mine[0]
    assert their_provenance.startswith("version=2,h5netcdf=")
    assert our_provenance.startswith(f"version=2,twelveways={__version__},hdf5=") and "h5py=" in our_provenance
    return fast


def _dataset(n: int = 7, **attrs) -> xr.Dataset:
    return results.from_records(_rows(n), family="prk", attrs={"environment_hash": "e", "config_hash": "c",
                                                               "git_commit": "abc", "git_dirty": 1, **attrs})


@pytest.mark.parametrize("path", REFERENCE, ids=lambda p: p.name)
def test_the_reference_files_are_written_with_the_objects_xarray_writes(path):
    assert_same_objects_as_xarray(results.open(path).isel(sample=slice(0, 3000)))  # every column, fewer rows


def test_every_column_type_and_attribute_type_is_written_as_xarray_writes_it(tmp_path):
    ds = _dataset(json_attr={"a": [1, 2]}, ratio=0.25, count=np.int32(3), total=np.int64(7), scale=np.float32(1.5), text="ü µs")
    n = ds.sizes["sample"]
    ds["small"] = ("sample", np.arange(n, dtype=np.int8))
    ds["short"] = ("sample", np.arange(n, dtype=np.int16))
    ds["single"] = ("sample", np.linspace(0, 1, n, dtype=np.float32))
    ds["single"].attrs.update(description="a described column", long_name="single precision")
    fast = assert_same_objects_as_xarray(ds)
    path = tmp_path / "fast.nc"
    path.write_bytes(fast)
    assert results.open(path).identical(results.open(results.write(ds, tmp_path / "written.nc")))
    assert results.read_raw(path)[1] == "h5py"  # the fast reader recognises the fast writer's file


def test_a_file_written_fast_reads_back_what_was_written(tmp_path):
    ds = _dataset()
    back = results.open(results.write(ds, tmp_path / "r.nc"))
    for name in ds.data_vars:
        np.testing.assert_array_equal(back[name].values, ds[name].values, err_msg=name)
    assert back.attrs["git_dirty"] == 1 and back["extra_text"].values[1] == "日本語"


def test_netcdfs_own_view_of_a_fast_file_has_one_dimension_and_every_column(tmp_path):
    """h5netcdf's netCDF4-python-like API (dimension scales, _Netcdf4Dimid) reads the file as netCDF-4."""
    path = tmp_path / "r.nc"
    ds = _dataset()
    path.write_bytes(ncwrite.netcdf_bytes(results._encode_strings(ds), results.SAMPLE_DIM, 4))
    with h5netcdf.legacyapi.Dataset(path, "r") as nc:
        assert dict(nc.dimensions).keys() == {"sample"} and nc.dimensions["sample"].size == ds.sizes["sample"]
        assert set(nc.variables) == set(ds.data_vars)
        assert all(nc.variables[name].dimensions == ("sample",) for name in nc.variables)


def _with_coordinate(ds):
    return ds.assign_coords(sample=np.arange(ds.sizes["sample"]))


def _opened_by_xarray(ds):
    """What xarray gives for a written file: every variable carries the encoding it was read with."""
    return xr.open_dataset(io.BytesIO(_by_xarray(results._encode_strings(ds))), engine="h5netcdf").load()


OTHER_SHAPES = {
    "empty": lambda ds: ds.isel(sample=slice(0, 0)),
    "a coordinate": _with_coordinate,
    "an encoding carried over from a file": _opened_by_xarray,
    "a second dimension": lambda ds: ds.assign(grid=(("x",), np.arange(3))),
    "an unsigned column": lambda ds: ds.assign(u=ds["ranks"].astype(np.uint16)),
    "a bool attribute": lambda ds: ds.assign_attrs(flag=True),
    "a list attribute": lambda ds: ds.assign_attrs(sizes=[1, 2]),
    "a reserved attribute name": lambda ds: ds.assign_attrs(CLASS="x"),
    "a column's own fill value": lambda ds: ds.assign(value=ds["value"].assign_attrs(_FillValue=-1.0)),
    "a column attribute xarray's coders read": lambda ds: ds.assign(value=ds["value"].assign_attrs(units="s")),
    "a global coordinates attribute": lambda ds: ds.assign_attrs(coordinates="value"),
}


@pytest.mark.parametrize("case", OTHER_SHAPES)
def test_any_other_shape_takes_xarrays_path(case):
    encoded = results._encode_strings(OTHER_SHAPES[case](_dataset()))
    assert ncwrite.netcdf_bytes(encoded, results.SAMPLE_DIM, 4) is None


def test_an_empty_results_file_is_still_written_by_xarray(tmp_path):
    path = results.write(_dataset(0), tmp_path / "empty.nc")
    assert results.open(path).sizes.get("sample", 0) == 0
