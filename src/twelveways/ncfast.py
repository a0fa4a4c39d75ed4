"""Read the NetCDF4 files :func:`twelveways.results.write` produces straight from HDF5 (h5py), as xarray would.

Why: xarray's h5netcdf backend builds netCDF's whole object model before it reads a byte (dimension
lookups that reopen every HDF5 object tens of thousands of times): about 90 ms of CPU for a results
file of 30 columns, which is most of the time ``twelveways audit`` spends on a tree of 2,000 files.
A results file is simple — one dimension, 1-D columns along it — so it is read here with a handful
of h5py calls, and decoded exactly as ``xarray.open_dataset(path, engine="h5netcdf")`` decodes it
(its CF defaults), giving the same :class:`xarray.Dataset` (``encoding`` aside, which nothing reads).

:func:`read` recognises only this shape, and returns ``None`` for anything else, so the caller reads
the file with xarray as before (never a different answer):

* the root group holds datasets only (no groups, no named types) and no ``coordinates`` attribute;
* exactly one dimension, the one asked for: a netCDF dimension scale that is not a variable, either
  fixed or unlimited with every variable as long as it (no padding);
* every other dataset is a variable along that dimension alone (its ``DIMENSION_LIST`` names the
  scale), of native byte order and of a plain type: integer, float32/64, variable-length string,
  or fixed-length byte string of 2+ bytes (``S1`` is netCDF's character array, which xarray joins);
* variable attributes among :data:`PLAIN_ATTRS` (kept as they are) and the two that xarray decodes
  in our files: ``_FillValue`` on a float variable (values equal to it become NaN) and
  ``dtype = "bool"`` on int8 codes (read as bool).  Scale/offset, time units, ``_Unsigned``,
  ``_Encoding``, ``missing_value``, ``coordinates`` … are not plain: the file goes to xarray.

Attributes are read through h5netcdf's own attribute class (its hidden names, string and one-element
rules), then decoded as xarray's backend does (bytes as UTF-8).  A file h5py cannot open or read
(damaged, a filter not available here) also returns ``None``: xarray's path then words the error.
"""

from __future__ import annotations

import os

import h5py
import numpy as np
import xarray as xr
from h5netcdf.attrs import Attributes

#: The ``NAME`` of a dimension scale that holds no variable (netCDF-C, h5netcdf).
NOT_A_VARIABLE = b"This is a netCDF dimension but not a netCDF variable."
#: Variable attributes that xarray keeps as they are (no decoding depends on them).
PLAIN_ATTRS = frozenset({"twelveways_categories", "long_name", "description", "comment"})
#: HDF5 attributes that mark a dataset as a dimension scale or part of one: never on a plain variable.
_SCALE_ATTRS = frozenset({"CLASS", "NAME", "REFERENCE_LIST"})


class Unrecognised(Exception):
    """The file is not of the simple shape :func:`read` knows: read it with xarray."""


def read(path: str | os.PathLike, dim: str) -> xr.Dataset | None:
    """The file's Dataset as xarray's h5netcdf backend decodes it (loaded), or None: not recognised with certainty."""
    try:
        with h5py.File(path, "r") as root:
            return _dataset(root, dim)
    except Exception:  # unknown shape, damaged or unreadable: xarray's path decides and words it
        return None


def _dataset(root: h5py.File, dim: str) -> xr.Dataset:
    attrs = _attributes(root)
    if "coordinates" in attrs:  # xarray turns a global "coordinates" attribute into coordinates
        raise Unrecognised("global coordinates attribute")
    objects = {name: _Object(root, name) for name in root}  # h5netcdf iterates the group in the same order
    scale = objects.pop(dim, None)
    if not _is_dimension_only(scale):
        raise Unrecognised(f"no dimension {dim!r} without a variable")
    size = _dimension_size(scale, objects.values())
    variables = {name: _variable(root, obj, scale, dim, size) for name, obj in objects.items()}
    return xr.Dataset(variables, attrs=attrs)


class _Object:
    """One object of the root group, opened with h5py's low-level calls: what this module asks of a dataset.

    Why not ``root[name]``: h5py's high-level Dataset reads the object's creation properties and
    filters when it is made (about half of a column's cost, and a results file has 30 columns).
    Shape, type, attributes and the stored values are the same calls h5py's Dataset makes.
    """

    def __init__(self, root: h5py.File, name: str):
        self.id = h5py.h5o.open(root.id, name.encode("utf-8"))
        self.name = f"/{name}"

    @property
    def is_dataset(self) -> bool:
        return isinstance(self.id, h5py.h5d.DatasetID)

    @property
    def attrs(self) -> h5py.AttributeManager:
        return h5py.AttributeManager(self)

    @property
    def shape(self) -> tuple:
        return self.id.shape

    @property
    def ndim(self) -> int:
        return len(self.id.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.id.dtype

    @property
    def maxshape(self) -> tuple | None:
        dims = self.id.get_space().get_simple_extent_dims(True)
        return None if dims is None else tuple(None if d == h5py.h5s.UNLIMITED else d for d in dims)

    def values(self) -> np.ndarray:
        """Every stored value, in the dataset's own type (numbers; strings go through :meth:`dataset`)."""
        values = np.empty(self.shape, dtype=self.dtype)
        if values.size:
            self.id.read(h5py.h5s.ALL, h5py.h5s.ALL, values)
        return values

    def dataset(self) -> h5py.Dataset:
        return h5py.Dataset(self.id)


def _is_dimension_only(obj) -> bool:
    if obj is None or not obj.is_dataset or obj.ndim != 1:
        return False
    keys = set(obj.attrs)
    if "CLASS" not in keys or "NAME" not in keys:
        return False
    return obj.attrs["CLASS"] == b"DIMENSION_SCALE" and NOT_A_VARIABLE in bytes(obj.attrs["NAME"])


def _dimension_size(scale: _Object, objects) -> int:
    """The dimension's length; an unlimited one only where every variable is exactly as long (no padding)."""
    size = scale.shape[0]
    if scale.maxshape == (None,):
        lengths = {obj.shape[0] for obj in objects if obj.is_dataset and obj.ndim == 1}
        if lengths - {size}:
            raise Unrecognised("unlimited dimension with variables of other lengths")
    elif scale.maxshape != scale.shape:
        raise Unrecognised("dimension scale of unexpected maximum shape")
    return size


def _variable(root: h5py.File, obj: _Object, scale: _Object, dim: str, size: int) -> xr.Variable:
    if not obj.is_dataset:
        raise Unrecognised(f"{obj!r}: a group or a named type")
    keys = list(obj.attrs)
    if not _SCALE_ATTRS.isdisjoint(keys) or "DIMENSION_LIST" not in keys:
        raise Unrecognised(f"{obj.name}: another dimension (scale), or no dimension attached")
    if obj.shape != (size,) or not obj.dtype.isnative:
        raise Unrecognised(f"{obj.name}: shape {obj.shape} or byte order other than a column's")
    refs = obj.attrs["DIMENSION_LIST"]  # h5netcdf takes the last scale attached to an axis
    if len(refs) != 1 or h5py.h5r.dereference(refs[0][-1], root.id) != scale.id:
        raise Unrecognised(f"{obj.name}: not along the dimension {dim!r}")
    attrs = _attributes(obj, keys)
    data = _decoded(_values(obj), attrs)
    if not set(attrs) <= PLAIN_ATTRS:
        raise Unrecognised(f"{obj.name}: attributes {sorted(set(attrs) - PLAIN_ATTRS)} may need decoding")
    return xr.Variable((dim,), data, attrs)


def _values(obj: _Object) -> np.ndarray:
    """The stored values as h5netcdf hands them to xarray (vlen strings decoded), then as xarray decodes them:
    UTF-8 vlen strings become a numpy str array (``astype(str)``), ASCII ones stay an object array of str."""
    dtype = obj.dtype
    string = h5py.check_string_dtype(dtype)
    if dtype.kind == "O" and string is not None and string.length is None:
        texts = obj.dataset().asstr()[:]
        return texts.astype(str) if h5py.check_vlen_dtype(dtype) is str else texts
    if dtype.kind == "S" and string is not None and dtype.itemsize > 1:  # fixed-length bytes stay bytes
        return obj.dataset()[:]
    if not dtype.metadata and (dtype.kind in "iu" or (dtype.kind == "f" and dtype.itemsize in (4, 8))):
        return obj.values()  # metadata would mark an enum, a reference or another special h5py type
    raise Unrecognised(f"{obj.name}: type {dtype} is not read here")


def _decoded(data: np.ndarray, attrs: dict) -> np.ndarray:
    """xarray's CF mask (``_FillValue`` -> NaN, floats only here) and bool coding; pops what it decodes."""
    if "_FillValue" in attrs:
        fill = np.ravel(attrs.pop("_FillValue"))
        if data.dtype.kind != "f" or fill.size != 1 or fill.dtype.kind not in "fiu":
            raise Unrecognised("_FillValue that is not one number on a float variable")
        if not np.isnan(fill[0]):
            data[data == fill[0]] = np.nan
    if "dtype" in attrs:
        if attrs.pop("dtype") != "bool" or data.dtype != np.int8:
            raise Unrecognised("dtype attribute other than xarray's bool coding of int8")
        data = data.astype(bool)
    return data


def _attributes(obj, keys: list[str] | None = None) -> dict:
    """Attributes as xarray's h5netcdf backend reads them: h5netcdf's rules, then bytes decoded as UTF-8."""
    attrs = {}
    for key, value in Attributes(_ReadOnce(obj.attrs, keys), None, h5py).items():
        if key not in ("_FillValue", "missing_value") and isinstance(value, bytes):
            value = value.decode("utf-8")  # xarray would warn and keep bytes: UnicodeDecodeError falls back
        attrs[key] = value
    return attrs


class _ReadOnce:
    """h5py attributes as h5netcdf's :class:`~h5netcdf.attrs.Attributes` uses them, each value read once (it reads twice)."""

    def __init__(self, attrs, keys: list[str] | None):
        self._attrs = attrs
        self._keys = list(attrs) if keys is None else keys
        self._values: dict = {}

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def get_id(self, key):
        return self._attrs.get_id(key)

    def __getitem__(self, key):
        if key not in self._values:
            self._values[key] = self._attrs[key]
        return self._values[key]
