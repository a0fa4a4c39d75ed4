"""The results store: every sample as one row, in NetCDF4, with provenance, validated on load.

The format is documented in docs/results-schema.md (checked against :data:`COLUMNS` and :data:`ATTRS`) so
that other people can write it and audit their own results.  Format history:

* ``1.0`` (2026-11): first version.
* ``1.1`` (2026-11): string columns stored as int32 codes with their categories in the
  variable's ``twelveways_categories`` attribute (JSON list), every variable zlib-compressed:
  HDF5 variable-length strings cannot be compressed and made files ~30x larger.  1.0 files
  (plain variable-length strings) are still read.
* derived results (2026-11, still ``1.1``): the analysis stage writes what it derives —
  speedups with their base case, summaries with CI, n and coverage, fits, figure declarations —
  as ordinary 1.1 files with attribute ``derived`` = 1 (``results/derived/<family>.nc``, see
  :mod:`twelveways.derived` and docs/results-schema.md, "Derived results"); readers of 1.1 read them unchanged.

Design points (DESIGN.md, "Results store"):

* long form: one row per sample along the ``sample`` dimension; nothing pre-aggregated;
* the required columns below; any further 1-D variable along ``sample`` is an extra factor
  (``batch_size``, ``scenario``, ``scaling`` ...);
* attributes carry the schema version and provenance (environment hash, config hash, git);
* writes are atomic (temporary file in the same folder, then ``os.replace``), so a killed run
  never leaves a partial file under the real name; :func:`open` validates everything it reads;
* reads are fast: files of the shape :func:`write` produces are read with h5py directly
  (:mod:`twelveways.ncfast`, ~15 ms instead of ~80 ms for a PRK file of 30 columns: a tree of
  2,000 files is audited in seconds, not minutes), decoded exactly as xarray decodes them; any
  other file, and every damaged one, is read by xarray as before (:func:`read_raw` says which);
* writes are fast too: a Dataset of that shape is written with h5py directly (:mod:`twelveways.ncwrite`,
  the HDF5 objects xarray's h5netcdf backend makes, ~20 ms instead of ~70 ms for a PRK file); any
  other Dataset is written by xarray;
* value rules (docs/results-schema.md): no infinite value; times finite, >= 0, at most a year;
  integer columns >= -1 and never wrapped; ``git_dirty`` 0/1; category lists JSON lists of strings.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from . import atomic, inputs, ncfast, ncwrite
from .errors import EnvironmentMismatchError, ResultsError
from .jsonvalue import plain

SCHEMA_VERSION = "1.1"
SUPPORTED_VERSIONS = ("1.0", "1.1")
CATEGORIES_ATTR = "twelveways_categories"
#: ``encoding`` key of a decoded string column: (the decoded array, its codes, its category list + [""]), so
#: ``resultset.source_frame`` can build the column's categories from the codes, not from every row's string.
DECODED_FROM_CODES = "twelveways_decoded_from_codes"
SAMPLE_DIM = "sample"
#: zlib level of every column (after HDF5's byte shuffle).
COMPRESSION_LEVEL = 4

#: Required columns: name -> (kind, meaning).  Kinds: "str", "int", "float", "bool".
COLUMNS: dict[str, tuple[str, str]] = {
    "benchmark": ("str", "benchmark family: prk, bounds, train, infer, or your own"),
    "workload": ("str", "kernel or model name (nstream, transpose, mlp-small, ...)"),
    "implementation": ("str", "implementation or variant (c-serial, c-openmp, c-mpi, numpy, mpi4py, torch, ...)"),
    "ranks": ("int", "number of processes (MPI ranks); 1 for serial"),
    "threads": ("int", "threads per process"),
    "size": ("int", "primary problem size (vector length, matrix order, grid n, input side, ...); 0 if not applicable"),
    "precision": ("str", "number format of the data as executed: fp64, fp32, bf16, int8, mixed:..."),
    "seed": ("int", "random seed of the run (-1 if none)"),
    "run_id": ("str", "identifier shared by all samples of one program invocation"),
    "iteration": ("int", "iteration index; 0 is the warm-up and is never summarized; -1 if not iterative"),
    "rank": ("int", "rank that measured the sample; -1 when the sample belongs to the whole run"),
    "metric": ("str", "what was measured: time, rate, val_accuracy, latency, ..."),
    "value": ("float", "the measured value"),
    "unit": ("str", "unit of value: s, MB/s, MFlop/s, 1 (dimensionless), ..."),
    "valid": ("bool", "false when the run's self-validation failed: never summarized"),
}

#: Required attributes (provenance).
ATTRS: dict[str, str] = {
    "schema_version": "format version of this file (see the format history)",
    "family": "benchmark family this file holds (prk, train, infer, ...)",
    "environment_hash": "sha256 of the canonical environment capture (results/environment.json)",
    "config_hash": "sha256 of the canonical validated configuration",
    "git_commit": "commit of the project that produced the file ('unknown' outside git)",
    "git_dirty": "1 if the working tree had uncommitted changes, else 0",
}

_NUMPY_KIND = {"str": object, "int": np.int64, "float": np.float64, "bool": bool}

#: Units of cost rows (times): their values must be finite, non-negative and plausible.
TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9,
              "min": 60.0, "h": 3600.0}
#: Longest time a row may hold, in seconds (a year): anything longer is a unit or parsing error.
MAX_COST_SECONDS = 365 * 24 * 3600.0
#: Smallest value of each required integer column (-1: "not applicable" or "whole run").
INT_MINIMUM = {"ranks": -1, "threads": -1, "size": -1, "iteration": -1, "rank": -1}
_INT64_LIMIT = 2.0 ** 63  # float(int64 max) rounds up to this, so compare with <


def canonical_hash(obj) -> str:
    """Stable sha256 of a JSON-serialisable object (sorted keys, no whitespace)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def git_state(root: str | os.PathLike | None = None) -> tuple[str, bool]:
    """(commit, dirty) of the project checkout; ('unknown', False) outside git."""
    cwd = Path(root) if root else Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                                capture_output=True, text=True, check=True).stdout
        return commit, bool(status.strip())
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False


def job_context() -> dict:
    """Scheduler facts of the job writing a file (recorded per job), as attributes."""
    if os.environ.get("SLURM_JOB_ID"):
        return {
            "scheduler": "slurm",
            "scheduler_job_id": os.environ["SLURM_JOB_ID"],
            "scheduler_node_list": os.environ.get("SLURM_JOB_NODELIST", os.environ.get("SLURM_NODELIST", "")),
            "scheduler_ntasks": os.environ.get("SLURM_NTASKS", ""),
        }
    return {"scheduler": "none", "scheduler_job_id": "", "scheduler_node_list": os.uname().nodename, "scheduler_ntasks": ""}


def provenance(environment: str | os.PathLike | Mapping | None = None, config: Mapping | None = None) -> dict:
    """Provenance attributes for a new results file.

    ``environment`` is the path of ``environment.json`` (or the capture itself); its stored
    ``hash`` is used.  ``config`` is the validated configuration.
    """
    env_hash = "unknown"
    if isinstance(environment, Mapping):
        env_hash = environment.get("hash") or canonical_hash(environment)
    elif environment is not None:
        try:
            env_hash = json.loads(Path(environment).read_text())["hash"]
        except (OSError, ValueError, KeyError) as exc:
            raise ResultsError(f"cannot read the environment hash from {environment}", cause=exc) from exc
    commit, dirty = git_state()
    return {
        **job_context(),
        "schema_version": SCHEMA_VERSION,
        "environment_hash": env_hash,
        "config_hash": canonical_hash(dict(config)) if config is not None else "unknown",
        "git_commit": commit,
        "git_dirty": int(dirty),
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def from_records(records: Iterable[Mapping], family: str, attrs: Mapping | None = None) -> xr.Dataset:
    """Build a results Dataset from row dicts (each holding at least the required columns).

    Keys beyond the required columns become extra factor variables; a key missing from some
    rows gets a neutral fill ("" / -1 / NaN).
    """
    frame = pd.DataFrame.from_records(list(records))
    if frame.empty:
        frame = pd.DataFrame({name: pd.Series(dtype=_NUMPY_KIND[kind]) for name, (kind, _) in COLUMNS.items()})
    missing = [name for name in COLUMNS if name not in frame.columns]
    if missing:
        raise ResultsError(f"records lack required column(s): {', '.join(missing)}")
    return from_frame(frame, family, attrs)


def from_frame(frame: pd.DataFrame, family: str, attrs: Mapping | None = None) -> xr.Dataset:
    """Build a results Dataset from a long-form DataFrame (see :data:`COLUMNS`)."""
    data_vars = {}
    for name in frame.columns:
        column = frame[name]
        kind = COLUMNS.get(name, (None, ""))[0]
        try:
            values = _to_int64(column, name) if kind == "int" else _coerce(column, kind)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ResultsError(f"column {name!r} cannot be read as {kind or 'a value'}", cause=exc) from exc
        data_vars[name] = ((SAMPLE_DIM,), values)
    ds = xr.Dataset(data_vars)
    ds.attrs.update({"schema_version": SCHEMA_VERSION, "family": family})
    if attrs:
        ds.attrs.update({k: _attr_value(v) for k, v in attrs.items()})
    ds.attrs["family"] = family
    for key in ATTRS:
        ds.attrs.setdefault(key, "unknown" if key != "git_dirty" else 0)
    return ds


def _coerce(column: pd.Series, kind: str | None) -> np.ndarray:
    if kind == "str" or (kind is None and (column.dtype == object or pd.api.types.is_string_dtype(column))):
        return _texts(column)
    if kind == "float":
        return column.astype(np.float64).to_numpy()
    if kind == "bool":
        return column.fillna(False).astype(bool).to_numpy()
    if pd.api.types.is_bool_dtype(column):
        return column.to_numpy(dtype=bool)
    return column.to_numpy()


def _texts(column: pd.Series) -> np.ndarray:
    """A text column as an object array of str, missing ("None" / NaN) as "".

    Done once per distinct value: results repeat a few names over a million rows.
    """
    codes, distinct = pd.factorize(column.to_numpy(dtype=object), use_na_sentinel=True)
    texts = np.array([str(v) for v in distinct] + [""], dtype=object)
    return texts[codes]  # code -1 (missing) takes the trailing ""


def _to_int64(column: pd.Series, name: str) -> np.ndarray:
    """An integer column as int64: missing -> -1; a fraction, non-number or overflow is an error, never a wrap."""
    filled = column.fillna(-1)
    if filled.dtype.kind in "iu" and (filled.dtype.kind == "i" or filled.max() < _INT64_LIMIT):
        return filled.to_numpy(dtype=np.int64)
    numbers = pd.to_numeric(filled, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(numbers) | (np.abs(numbers) >= _INT64_LIMIT) | (numbers != np.round(numbers))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ResultsError(f"row {row}, column {name!r}: {_short(filled.iloc[row])} is not an integer "
                           "within the 64-bit range")
    exact = [int(v) for v in filled] if filled.dtype == object else None  # big ints lose digits as floats
    return np.array(exact, dtype=np.int64) if exact is not None else numbers.astype(np.int64)


def _short(value) -> str:
    """A value for an error message: never the repr of something large."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _attr_value(value):
    """NetCDF attributes hold numbers and strings: bools become 0/1, containers JSON."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(plain(value, finite=False), sort_keys=True, default=str)
    if value is None:
        return ""
    return value


def write(ds: xr.Dataset, path: str | os.PathLike) -> Path:
    """Validate, encode in memory, then write atomically: a temporary file in the same folder, then ``os.replace``.

    Every variable is zlib-compressed after HDF5's byte shuffle, which groups the bytes of neighbouring
    values: per-query latencies (hundreds of thousands of float64 and int64 rows) shrink by a quarter
    more than with zlib alone, and readers undo both without being told."""
    validate(ds, source="the dataset being written")
    path = Path(path)
    encoded = _encode_strings(ds)
    # encoded in memory: a full disk is then a plain OSError of one write, never HDF5's own failure modes
    data = ncwrite.netcdf_bytes(encoded, SAMPLE_DIM, COMPRESSION_LEVEL)
    if data is None:  # not of the simple shape: xarray writes it (the same objects, ~5x slower)
        encoding = {name: {"zlib": True, "complevel": COMPRESSION_LEVEL, "shuffle": True} for name in encoded.data_vars}
        try:
            data = bytes(encoded.to_netcdf(engine="h5netcdf", encoding=encoding))
        except (TypeError, ValueError) as exc:
            raise ResultsError(f"cannot encode the results for {path}", cause=exc) from exc
    atomic.write_bytes(path, data, "results file", make_parents=True)
    return path


def _encode_strings(ds: xr.Dataset) -> xr.Dataset:
    """String columns as int32 codes + a JSON category list (compressible, fast to read)."""
    coded = {}
    for name in ds.data_vars:
        var = ds.variables[name]
        if var.dtype.kind in "OUS" and var.dims == (SAMPLE_DIM,):
            codes, categories = pd.factorize(pd.Series(var.values, dtype=object).fillna(""), sort=False)
            attrs = dict(var.attrs)
            attrs[CATEGORIES_ATTR] = json.dumps([str(c) for c in categories])
            coded[name] = xr.Variable((SAMPLE_DIM,), codes.astype(np.int32), attrs)
    out = ds.assign(coded)  # one merge for all columns, not one per column
    out.attrs["schema_version"] = SCHEMA_VERSION
    return out


def _decode_strings(ds: xr.Dataset, source: str = "results") -> xr.Dataset:
    """String columns back from int32 codes and their category list, assigned in one step (one merge, not one per column)."""
    decoded = {}
    for name in ds.data_vars:
        var = ds.variables[name]
        raw = var.attrs.get(CATEGORIES_ATTR)
        if raw is None:
            continue
        categories = np.array(_category_list(raw, name, source) + [""], dtype=object)  # code -1 (missing) -> ""
        attrs = {k: v for k, v in var.attrs.items() if k != CATEGORIES_ATTR}
        if var.dtype.kind not in "iu":
            raise ResultsError(f"{source}: column {name!r} has {CATEGORIES_ATTR} but holds {var.dtype}, not integer codes")
        codes = var.values.astype(np.int64)
        if codes.size and (codes.max() >= len(categories) - 1 or codes.min() < -1):
            raise ResultsError(f"{source}: column {name!r}: string codes outside its category list")
        # fastpath: the object array holds str only, so xarray's check for dates (a pandas round trip that
        # rebuilds every string, 40 ms for a 400,000-row file) has nothing to find; the strings stay shared
        strings = categories[codes]
        decoded[name] = xr.Variable(var.dims, strings, attrs, encoding={DECODED_FROM_CODES: (strings, codes, categories)},
                                    fastpath=True)
    return ds.assign(decoded) if decoded else ds


def _category_list(raw, name: str, source: str) -> list[str]:
    """The JSON list of strings in a column's ``twelveways_categories`` attribute, or one-line error."""
    try:
        categories = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        categories = None
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise ResultsError(f"{source}: column {name!r}: attribute {CATEGORIES_ATTR} must be a JSON list of strings")
    return categories


def validate(ds: xr.Dataset, source: str = "results") -> xr.Dataset:
    """Check schema version, attributes, required columns and their kinds; return ``ds``."""
    version = str(ds.attrs.get("schema_version", ""))
    if not version:
        raise ResultsError(f"{source}: no schema_version attribute (not a twelveways results file?)")
    if version not in SUPPORTED_VERSIONS:
        raise ResultsError(f"{source}: schema_version {version!r} is not supported "
                           f"(this twelveways reads {', '.join(SUPPORTED_VERSIONS)})")
    for key in ATTRS:
        if key not in ds.attrs:
            raise ResultsError(f"{source}: missing attribute {key!r} ({ATTRS[key]})")
    for name, (kind, meaning) in COLUMNS.items():
        if name not in ds.variables:
            raise ResultsError(f"{source}: missing column {name!r} ({meaning})")
        var = ds.variables[name]  # a Variable: no DataArray built per column
        if var.dims != (SAMPLE_DIM,):
            raise ResultsError(f"{source}: column {name!r} must have the single dimension {SAMPLE_DIM!r}, has {var.dims}")
        if not _kind_ok(var.values, kind):
            raise ResultsError(f"{source}: column {name!r} must hold {kind} values, holds {var.dtype}")
    _check_git_dirty(ds, source)
    _check_attr_integers(ds, source)
    _check_values(ds, source)
    return ds


def _check_attr_integers(ds: xr.Dataset, source: str) -> None:
    """NetCDF attributes hold integers of at most 64 bits: a larger one has no HDF5 type (refuse it by name)."""
    for owner, attrs in [("", ds.attrs)] + [(f"column {name!r} ", var.attrs) for name, var in ds.variables.items()]:
        for key, value in attrs.items():
            if isinstance(value, int) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 64:
                raise ResultsError(f"{source}: {owner}attribute {key!r} is an integer wider than 64 bits, which a "
                                   "results file cannot store (write it as a string)")


def _check_git_dirty(ds: xr.Dataset, source: str) -> None:
    raw = ds.attrs["git_dirty"]
    if isinstance(raw, np.ndarray) and raw.size == 1:
        raw = raw.item()
    if str(raw).strip() not in ("0", "1", "True", "False"):
        raise ResultsError(f"{source}: attribute 'git_dirty' must be 0 or 1, got {_short(raw)}")


def _check_values(ds: xr.Dataset, source: str) -> None:
    """The value rules of the schema: no infinities, sane times, integer columns in range."""
    value = np.asarray(ds.variables["value"].values, dtype=np.float64)
    _refuse(source, "value", np.isinf(value), "is infinite")
    codes, units = pd.factorize(ds.variables["unit"].values)  # one hash pass; the few units are mapped once
    scale = np.array([TIME_UNITS.get(unit, np.nan) for unit in units] + [np.nan])[codes]
    cost = ~np.isnan(scale)
    if cost.any():
        seconds = np.where(cost, value * np.nan_to_num(scale), 0.0)
        _refuse(source, "value", cost & np.isnan(value), "is a time (cost) and is NaN")
        _refuse(source, "value", cost & (seconds < 0), "is a negative time")
        _refuse(source, "value", cost & (seconds > MAX_COST_SECONDS), f"is a time over {MAX_COST_SECONDS:.0f} s (a year)")
    for name, minimum in INT_MINIMUM.items():
        column = ds.variables[name].values
        if column.dtype.kind == "u":
            _refuse(source, name, column >= np.uint64(2 ** 63), "exceeds the 64-bit integer range")
            continue
        _refuse(source, name, column < minimum, f"is below {minimum}")


def _refuse(source: str, column: str, bad: np.ndarray, problem: str) -> None:
    if bad.any():
        rows = np.flatnonzero(bad)
        more = f" (and {rows.size - 1} more rows)" if rows.size > 1 else ""
        raise ResultsError(f"{source}: row {int(rows[0])}, column {column!r} {problem}{more}")


def require_samples(ds: xr.Dataset, source: str = "results") -> xr.Dataset:
    """``ds``, or a ResultsError 'no samples' (an empty file cannot be described or audited)."""
    if ds.sizes.get(SAMPLE_DIM, 0) == 0:
        raise ResultsError(f"{source}: no samples (the {SAMPLE_DIM!r} dimension is empty)")
    return ds


def _kind_ok(values: np.ndarray, kind: str) -> bool:
    if kind == "str":
        return values.dtype == object or values.dtype.kind in "US"
    if kind == "int":
        return values.dtype.kind in "iu"
    if kind == "float":
        return values.dtype.kind in "fiu"
    if kind == "bool":
        return values.dtype.kind == "b" or (values.dtype.kind in "iu" and set(np.unique(values)).issubset({0, 1}))
    return True


def open(path: str | os.PathLike) -> xr.Dataset:  # noqa: A001 - mirrors xarray.open_dataset
    """Open and validate one results file; load it fully so the file handle is released."""
    path = inputs.require_regular_file(path, "results file", ResultsError)  # a FIFO would block forever
    ds, _reader = read_raw(path)
    return finish(ds, str(path))


def read_raw(path: str | os.PathLike) -> tuple[xr.Dataset, str]:
    """The file's Dataset as ``xarray.open_dataset(path, engine="h5netcdf")`` decodes it, loaded, and which
    reader gave it: ``"h5py"`` (:mod:`twelveways.ncfast`, files of the shape :func:`write` produces, ~10x
    faster) or ``"xarray"`` (everything else, and every damaged file: its error is worded here)."""
    fast = ncfast.read(path, SAMPLE_DIM)
    if fast is not None:
        return fast, "h5py"
    try:
        with xr.open_dataset(path, engine="h5netcdf") as handle:
            return handle.load(), "xarray"
    except Exception as exc:  # h5py / netCDF raise many types for a damaged file
        raise ResultsError(f"{path}: not a readable NetCDF4 results file (partial or damaged?)", cause=exc) from exc


def finish(ds: xr.Dataset, source: str) -> xr.Dataset:
    """A file's Dataset as :func:`open` returns it: strings decoded, validated, ``valid`` bool, ``git_dirty`` 0/1."""
    ds = _decode_strings(ds, source)
    validate(ds, source=source)
    if ds["valid"].dtype.kind != "b":
        ds["valid"] = ds["valid"].astype(bool)
    ds.attrs["git_dirty"] = int(str(ds.attrs["git_dirty"]).strip() in ("1", "True"))
    return ds


def open_many(paths: Sequence[str | os.PathLike], allow_mixed_environments: bool = False) -> xr.Dataset:
    """Open several results files and concatenate their samples.

    Refuses to merge files whose environment hashes differ unless ``allow_mixed_environments``;
    then every sample is labelled with its ``environment_hash`` and ``source_file``.
    """
    datasets = [open(p) for p in paths]
    if not datasets:
        raise ResultsError("no results files given")
    hashes = {ds.attrs["environment_hash"] for ds in datasets}
    if len(hashes) > 1 and not allow_mixed_environments:
        raise EnvironmentMismatchError(
            f"results come from {len(hashes)} different environments ({', '.join(sorted(h[:12] for h in hashes))}); "
            "pass allow_mixed_environments=True to merge them labelled")
    labelled = []
    for path, ds in zip(paths, datasets):
        n = ds.sizes[SAMPLE_DIM]
        ds = ds.assign(environment_hash=((SAMPLE_DIM,), np.array([ds.attrs["environment_hash"]] * n, dtype=object)),
                       source_file=((SAMPLE_DIM,), np.array([str(path)] * n, dtype=object)))
        labelled.append(ds)
    merged = xr.concat(labelled, dim=SAMPLE_DIM, data_vars="all", join="outer", combine_attrs="drop_conflicts")
    merged.attrs["schema_version"] = SCHEMA_VERSION
    merged.attrs["mixed_environments"] = int(len(hashes) > 1)
    for key in ATTRS:
        merged.attrs.setdefault(key, "mixed")
    return merged


def to_frame(ds: xr.Dataset) -> pd.DataFrame:
    """The samples as a pandas DataFrame (one row per sample)."""
    return ds.to_dataframe().reset_index(drop=True)


def summarizable_mask(frame: pd.DataFrame) -> pd.Series:
    """Which rows may enter a summary: valid and not the warm-up iteration."""
    return frame["valid"].astype(bool) & (frame["iteration"] != 0)


def summarizable(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows that may enter a summary (see :func:`summarizable_mask`)."""
    return frame[summarizable_mask(frame)]


def attr_json(ds: xr.Dataset, key: str, default=None):
    """Read an attribute that was stored as JSON (see :func:`from_frame`)."""
    raw = ds.attrs.get(key)
    if raw is None:
        return default
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw
