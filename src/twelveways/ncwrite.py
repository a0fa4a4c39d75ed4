"""Write a results file of the simple shape straight with h5py: the HDF5 objects xarray's h5netcdf backend makes.

Why: ``Dataset.to_netcdf(engine="h5netcdf")`` looks up netCDF's dimension objects again for every
variable it creates (tens of thousands of HDF5 object lookups): about 50 ms for a results file of
30 columns, where the compressed data take a few.  A results file is simple — one dimension, 1-D
columns along it — so it is written here with the h5py calls h5netcdf itself makes, in its order:

* the dimension: a ``>f4`` dataset of the dimension's length with ``_Netcdf4Dimid`` 0, made a
  dimension scale named netCDF's "not a variable" text (its length right-aligned in 10 columns);
* each variable, in the Dataset's order: created (creation order tracked), the scale attached
  (``DIMENSION_LIST``), then ``_Netcdf4Coordinates`` [0], ``_Netcdf4Dimid`` 0, ``_FillValue``
  (floats: NaN, also the HDF5 fill value), then its own attributes in order;
* attributes written by h5netcdf's own attribute class (its scalar and string rules), the file's
  first, as xarray's store writes them before any dimension; last, as h5netcdf does when it closes a
  file, ``_NCProperties`` (netCDF's provenance attribute: version=2, then the writer — twelveways
  here, where h5netcdf names itself — and the HDF5 and h5py versions).

The values are encoded as xarray's CF coders encode these types: floats keep NaN with ``_FillValue``
NaN, bools become int8 with ``dtype = "bool"``, integers stay as they are.  :func:`netcdf_bytes`
writes only this shape and returns ``None`` for anything else (another dimension or none, a
coordinate, an encoding carried over from a file, a type or attribute value outside these, an
empty dimension, which h5netcdf makes unlimited; a column attribute other than the plain ones the fast
reader keeps, :data:`~twelveways.ncfast.PLAIN_ATTRS`), so the caller writes it with xarray as before.
``tests/test_results_write.py`` compares every HDF5 object, property and attribute of both writers.
"""

from __future__ import annotations

import io
import numbers

import h5py
import numpy as np
import xarray as xr
from h5netcdf.attrs import Attributes

from . import __version__
from .ncfast import NOT_A_VARIABLE, PLAIN_ATTRS

#: Attribute names the netCDF-4 format keeps for itself (h5netcdf refuses to write them as attributes).
RESERVED_ATTRS = frozenset({"REFERENCE_LIST", "CLASS", "DIMENSION_LIST", "NAME", "_Netcdf4Dimid", "_Netcdf4Coordinates",
                            "_nc3_strict", "_NCProperties"})
#: Column types written here: (kind, itemsize) pairs; anything else goes to xarray.
_TYPES = frozenset({("i", 1), ("i", 2), ("i", 4), ("i", 8), ("f", 4), ("f", 8), ("b", 1)})


def netcdf_bytes(ds: xr.Dataset, dim: str, compression_level: int) -> bytes | None:
    """The NetCDF4 file of ``ds`` (every variable zlib at ``compression_level`` after the byte shuffle), or None."""
    if not _simple(ds, dim):
        return None
    buffer = io.BytesIO()
    with h5py.File(buffer, "w", track_order=True) as root:
        _write_attributes(root, ds.attrs)
        scale = root.create_dataset(dim, shape=(ds.sizes[dim],), dtype=">f4", track_order=True)
        scale.attrs["_Netcdf4Dimid"] = np.array(0, dtype=np.int32)
        scale.make_scale(NOT_A_VARIABLE + f"{ds.sizes[dim]:10}".encode("ascii"))
        for name, variable in ds.data_vars.items():
            _write_variable(root, scale, str(name), variable, compression_level)
        properties = f"version=2,twelveways={__version__},hdf5={h5py.version.hdf5_version},h5py={h5py.__version__}"
        root.attrs["_NCProperties"] = np.array(properties, dtype=h5py.string_dtype("ascii", len(properties)))
    return buffer.getvalue()


def _simple(ds: xr.Dataset, dim: str) -> bool:
    """Only one non-empty dimension, no coordinate, no encoding to honour, types and attributes of this module."""
    if dict(ds.sizes) != {dim: ds.sizes.get(dim, 0)} or not ds.sizes.get(dim) or ds.coords or ds.encoding:
        return False
    if not _plain_attributes(ds.attrs) or "coordinates" in ds.attrs:  # xarray reads it back as coordinates
        return False
    for name, variable in ds.data_vars.items():
        if not isinstance(name, str) or not name or "/" in name or name == dim or name.startswith("_nc4_"):
            return False
        dtype = variable.dtype
        if variable.dims != (dim,) or variable.encoding or (dtype.kind, dtype.itemsize) not in _TYPES or dtype.metadata:
            return False
        if not dtype.isnative or not _plain_attributes(variable.attrs) or not set(variable.attrs) <= PLAIN_ATTRS:
            return False  # an attribute xarray's coders read (units, missing_value, dtype ...) is theirs to write
    return True


def _plain_attributes(attrs) -> bool:
    """Names netCDF allows and values of one string or one number (not a bool: h5py would store an enum)."""
    for key, value in attrs.items():
        if not isinstance(key, str) or not key or key in RESERVED_ATTRS or key == "_FillValue":
            return False
        if isinstance(value, (bool, np.bool_)):
            return False
        if not isinstance(value, (str, numbers.Integral, numbers.Real)):
            return False
        if not isinstance(value, str) and np.asarray(value).dtype.kind not in "iuf":
            return False  # an integer too large for int64 becomes an object array
    return True


def _write_variable(root: h5py.File, scale: h5py.Dataset, name: str, variable: xr.Variable, level: int) -> None:
    data = np.asarray(variable.values)
    attrs = dict(variable.attrs)
    fillvalue = None
    if data.dtype.kind == "b":
        data = data.astype(np.int8)
        attrs["dtype"] = "bool"
    elif data.dtype.kind == "f":
        fillvalue = data.dtype.type(np.nan)
    dataset = root.create_dataset(name, shape=data.shape, dtype=data.dtype, data=data, fillvalue=fillvalue,
                                  compression="gzip", compression_opts=level, shuffle=True, track_order=True)
    dataset.dims[0].attach_scale(scale)
    dataset.attrs["_Netcdf4Coordinates"] = np.array([0], dtype=np.int32)
    dataset.attrs["_Netcdf4Dimid"] = scale.attrs["_Netcdf4Dimid"]
    _write_attributes(dataset, attrs if fillvalue is None else {"_FillValue": fillvalue, **attrs})


def _write_attributes(obj, attrs) -> None:
    netcdf_attrs = Attributes(obj.attrs, _no_check, h5py)
    for key, value in attrs.items():
        netcdf_attrs[key] = value


def _no_check(dtype) -> None:
    """h5netcdf's type check refuses types netCDF cannot hold; :func:`_simple` admitted none of those."""
