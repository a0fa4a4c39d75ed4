"""Every HDF5 object, creation property, type and attribute of a file, as comparable values (tests of the writers)."""

from __future__ import annotations

import io

import h5py
import numpy as np


def structure(data: bytes) -> list:
    """The file's objects in link order, each with its creation properties, type, values and attributes in order."""
    with h5py.File(io.BytesIO(data), "r") as root:
        group_plist = h5py.h5g.open(root.id, b"/").get_create_plist()
        out = [("file", root.id.get_access_plist().get_libver_bounds(), root.id.get_create_plist().get_userblock(),
                group_plist.get_link_creation_order(), group_plist.get_attr_creation_order(), _attributes(root, root))]
        for name in root:
            out.append((name,) + _dataset(root, root[name]))
    return out


def _dataset(root: h5py.File, dataset: h5py.Dataset) -> tuple:
    plist = dataset.id.get_create_plist()
    filters = tuple(plist.get_filter(i)[:3] for i in range(plist.get_nfilters()))
    return (dataset.shape, dataset.maxshape, dataset.dtype.str, repr(dataset.dtype.metadata), plist.get_layout(),
            dataset.chunks, filters, plist.get_fill_time(), plist.get_alloc_time(), _comparable(dataset.fillvalue),
            plist.get_attr_creation_order(), _comparable(dataset[()]), _attributes(root, dataset))


def _attributes(root: h5py.File, obj) -> tuple:
    """(name, HDF5 type class, size, character set, variable-length, space, value) in creation order."""
    out = []
    for key in obj.attrs:
        attribute = h5py.h5a.open(obj.id, key.encode("utf-8"))
        kind, space = attribute.get_type(), attribute.get_space()
        text = (kind.get_cset(), kind.is_variable_str()) if isinstance(kind, h5py.h5t.TypeStringID) else None
        out.append((key, type(kind).__name__, kind.get_size(), text, space.get_simple_extent_type(), space.shape,
                    _attribute_value(root, key, obj.attrs[key])))
    return tuple(out)


def _attribute_value(root: h5py.File, key: str, value):
    if key == "DIMENSION_LIST":  # object references: compare the names they point to
        return tuple(tuple(root[ref].name for ref in refs) for refs in value)
    if key == "REFERENCE_LIST":
        return tuple((root[ref].name, int(index)) for ref, index in value)
    return _comparable(value)


def _comparable(value):
    """Values equal when their bytes are equal (NaN equals NaN), with their type."""
    array = np.asarray(value)
    if array.dtype.kind == "O":
        return (array.dtype.str, repr(array.tolist()))
    return (array.dtype.str, array.shape, array.tobytes())
