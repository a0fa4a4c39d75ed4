"""``twelveways import-csv CSV --metadata META.yaml --output OUT.nc``: other people's samples into the schema.

The CSV holds one sample per row with the required columns of ``twelveways.results.COLUMNS``
(benchmark, workload, implementation, ranks, threads, size, precision, seed, run_id, iteration,
rank, metric, value, unit, valid); any further column is an extra factor or annotation.  The
metadata YAML (all keys optional)::

    family: mybench              # default "custom"
    columns: {seed: -1, rank: -1} # constants for required columns the CSV lacks
    attrs: {timer: "clock_gettime", summaries: [...], ...}   # evidence attributes (docs/checklist-evidence.md)
    environment: {...}           # the machine, hashed into environment_hash and kept as attr environment
    config: {...}                # the settings, hashed into config_hash

A required column that is neither in the CSV nor in ``columns`` is an :class:`AuditInputError`
naming it (exit 2), as is a value that does not parse (naming its line).
"""

from __future__ import annotations

import argparse
import csv as _csv
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .. import inputs, results
from ..cliargs import refuse_output_over_input
from ..errors import AuditInputError, ResultsError
from .common import Loaded
from .head import Head
from .registry import FALLBACK, Format

META_KEYS = {"family", "columns", "attrs", "environment", "config", "description"}
TRUE = {"1", "true", "yes", "y", "t"}
FALSE = {"0", "false", "no", "n", "f"}


def read_metadata(path: str | Path | None) -> dict:
    if path is None:
        return {}
    path = Path(path)
    meta = inputs.read_yaml(path, "metadata file", AuditInputError) or {}
    if not isinstance(meta, dict):
        raise AuditInputError(f"{path}: metadata must be a mapping ({', '.join(sorted(META_KEYS))})")
    unknown = sorted(set(meta) - META_KEYS)
    if unknown:
        raise AuditInputError(f"{path}: unknown metadata key {unknown[0]!r} (allowed: {', '.join(sorted(META_KEYS))})")
    for key in ("columns", "attrs", "environment", "config"):
        if key in meta and not isinstance(meta[key], dict):
            raise AuditInputError(f"{path}: metadata key {key!r} must be a mapping")
    return meta


def _parse_column(name: str, kind: str, column: pd.Series, csv: Path, label: str | None = None) -> np.ndarray:
    """The column as ``kind``; a bad value is one error naming its line and column (``label``: as the CSV names it)."""
    name = label or repr(name)
    text = column.astype(str).str.strip()
    blank = column.isna() | (text == "")
    if kind == "str":
        return np.array(["" if b else t for b, t in zip(blank, text)], dtype=object)
    if blank.any():
        raise AuditInputError(f"{csv}: column {name} is empty on line {int(np.argmax(blank.to_numpy())) + 2}")
    if kind == "bool":
        lowered = text.str.lower()
        bad = ~lowered.isin(TRUE | FALSE)
        if bad.any():
            line = int(np.argmax(bad.to_numpy())) + 2
            raise AuditInputError(f"{csv}: column {name} line {line}: {column.iloc[line - 2]!r} is not true/false")
        return lowered.isin(TRUE).to_numpy()
    numbers = pd.to_numeric(text, errors="coerce")
    bad = numbers.isna() & (text.str.lower() != "nan")
    if kind == "int":  # integral and within int64 (beyond it the cast wraps around silently); NaN is no integer
        bad |= numbers.isna() | (numbers != numbers.round()) | (numbers.abs() >= 2.0 ** 63)
    if bad.any():
        line = int(np.argmax(bad.to_numpy())) + 2
        raise AuditInputError(f"{csv}: column {name} line {line}: {column.iloc[line - 2]!r} is not "
                              f"{'an integer of at most 64 bits' if kind == 'int' else 'a number'}")
    return numbers.astype(np.int64).to_numpy() if kind == "int" else numbers.astype(float).to_numpy()


def read_csv(csv: str | Path, metadata: str | Path | None = None, mapping: dict | None = None,
             constants: dict | None = None) -> xr.Dataset:
    """A validated results Dataset from a CSV of samples and its metadata (see the module docstring).

    With ``mapping`` ({CSV column: schema column}) or ``constants`` ({schema column: value}) the
    CSV is read as published (:func:`read_mapped`): required columns it lacks get neutral
    defaults, listed in attr ``csv_defaults``.
    """
    csv = Path(csv)
    if not csv.is_file():
        raise AuditInputError(f"CSV file not found: {csv}")
    if metadata is None:
        sibling = csv.with_suffix(".yaml")
        metadata = sibling if sibling.is_file() else None
    meta = read_metadata(metadata)
    if mapping or constants:
        raw, labels, defaults = read_mapped(csv, mapping or {}, constants or {})
    else:
        raw, labels, defaults = _read_plain(csv), {}, {}
    ds = _to_dataset(raw, meta, csv, labels, defaults)
    if mapping:
        ds.attrs["column_map"] = json.dumps(mapping, sort_keys=True)
    return ds


def _read_plain(csv: Path) -> pd.DataFrame:
    try:
        raw = pd.read_csv(csv, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise AuditInputError(f"{csv}: not a readable CSV ({' '.join(str(exc).split())})") from exc
    raw.columns = [str(c).strip() for c in raw.columns]
    if raw.empty:
        raise AuditInputError(f"{csv}: no samples (header only)")
    return raw


def _to_dataset(raw: pd.DataFrame, meta: dict, csv: Path, labels: dict, defaults: dict) -> xr.Dataset:
    constants = {**defaults, **meta.get("columns", {})}
    frame = pd.DataFrame(index=raw.index)
    for name, (kind, meaning) in results.COLUMNS.items():
        if name in raw.columns:
            frame[name] = _parse_column(name, kind, raw[name], csv, labels.get(name))
        elif name in constants:
            frame[name] = _parse_column(name, kind, pd.Series([str(constants[name])] * len(raw)), csv)
        else:
            raise AuditInputError(f"{csv}: missing column {name!r} ({meaning}); add it to the CSV or to "
                                  "'columns' in the metadata, or map a column to it with --map")
    for name in raw.columns:
        if name in results.COLUMNS:
            continue
        numbers = pd.to_numeric(raw[name], errors="coerce")
        frame[name] = numbers.to_numpy() if not numbers.isna().any() else raw[name].to_numpy(dtype=object)
    attrs = dict(meta.get("attrs", {}))
    if "environment" in meta:
        attrs.setdefault("environment_hash", results.canonical_hash(meta["environment"]))
        attrs["environment"] = meta["environment"]
    if "config" in meta:
        attrs.setdefault("config_hash", results.canonical_hash(meta["config"]))
    attrs["imported_from"] = csv.name
    if labels or defaults:
        attrs.update({"source_format": "csv-mapped", "csv_defaults": {k: v for k, v in defaults.items() if k not in raw.columns}})
    try:
        ds = results.from_frame(frame, str(meta.get("family", "custom")), attrs=attrs)
        return results.validate(ds, source=str(csv))
    except ResultsError as exc:
        raise AuditInputError(exc.one_line()) from exc


# ------------------------------------------------------------------ CSV as published, with a column map

#: Neutral values of the required columns a mapped CSV does not state (attr csv_defaults lists them).
MAPPED_DEFAULTS = {"benchmark": "csv", "workload": "", "implementation": "", "ranks": 1, "threads": 1, "size": 0,
                   "precision": "", "seed": -1, "iteration": -1, "rank": -1, "unit": "", "valid": "true"}


def parse_pairs(texts, option: str) -> dict:
    """``a=b,c=d`` (repeatable) as a dict; a malformed pair is one error naming the option."""
    pairs = {}
    for text in texts or []:
        for item in str(text).split(","):
            if not item.strip():
                continue
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise AuditInputError(f"{option}: {item!r} is not NAME=VALUE")
            if key.strip() in pairs:
                raise AuditInputError(f"{option}: {key.strip()!r} given twice")
            pairs[key.strip()] = value.strip()
    return pairs


def _rows(csv: Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows; a ragged row is one error naming its line."""
    try:
        with csv.open(newline="") as handle:
            lines = [(n, r) for n, r in enumerate(_csv.reader(handle), start=1) if any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError, _csv.Error) as exc:
        raise AuditInputError(f"{csv}: not a readable CSV ({' '.join(str(exc).split())})") from exc
    if len(lines) < 2:
        raise AuditInputError(f"{csv}: no samples (header only)" if lines else f"{csv}: empty file")
    header = [c.strip() for c in lines[0][1]]
    for number, cells in lines[1:]:
        if len(cells) != len(header):
            raise AuditInputError(f"{csv}: line {number} has {len(cells)} fields, the header has {len(header)} "
                                  f"(ragged row)")
    return header, [cells for _, cells in lines[1:]]


def read_mapped(csv: Path, mapping: dict, constants: dict) -> tuple[pd.DataFrame, dict, dict]:
    """(frame renamed to the schema, {schema column: CSV column}, defaults) of a CSV read as published."""
    header, cells = _rows(csv)
    for source in mapping:
        if source not in header:
            raise AuditInputError(f"{csv}: --map names column {source!r}, which the CSV lacks "
                                  f"(columns: {', '.join(header)})")
    renamed = [mapping.get(c, c) for c in header]
    clash = sorted({n for n in renamed if renamed.count(n) > 1} | (set(renamed) & set(constants)))
    if clash:
        raise AuditInputError(f"{csv}: column {clash[0]!r} would be given twice (by the CSV/--map and --set)")
    raw = pd.DataFrame(cells, columns=renamed, dtype=str)
    if "value" not in raw.columns:
        raise AuditInputError(f"{csv}: missing column 'value' (the measured value): map a column to it, "
                              "e.g. --map time_s=value")
    value_source = next((s for s, d in mapping.items() if d == "value"), "value")
    defaults = {**MAPPED_DEFAULTS, "metric": value_source, **constants}
    if "run_id" not in raw.columns and "run_id" not in constants:
        raw["run_id"] = [f"row{n}" for n in range(1, len(raw) + 1)]
        defaults["run_id"] = "row<N> (one run per row)"
    labels = {target: f"{source!r} (mapped to {target})" for source, target in mapping.items()}
    return raw, labels, defaults


def import_csv(args: argparse.Namespace) -> None:
    """``twelveways import-csv`` once its arguments are parsed (:func:`twelveways.cli.import_csv_parser`)."""
    refuse_output_over_input([args.output], [args.csv, args.metadata], AuditInputError, "twelveways import-csv")
    ds = read_csv(args.csv, args.metadata)
    try:
        path = results.write(ds, args.output)
    except OSError as exc:
        raise AuditInputError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    print(f"wrote {path} ({ds.sizes[results.SAMPLE_DIM]} samples, family {ds.attrs['family']})", file=sys.stderr)


def _is_table(head: Head) -> bool:
    """A header of two or more named fields and a first row as wide (later ragged rows are the reader's error)."""
    text = head.text.lstrip()
    if head.binary or text.startswith("<"):  # markup (HTML, XML) with commas is no CSV table
        return False
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if len(lines) > 1 and not head.whole:
        lines = lines[:-1]  # the last line of a cut head may be partial
    rows = list(_csv.reader(lines))
    if len(rows) < 2 or len(rows[0]) < 2 or not all(_is_column_name(cell) for cell in rows[0]):
        return False
    return len(rows[1]) == len(rows[0])


def _is_column_name(cell: str) -> bool:
    """A header cell names a column: short, not blank, and no sentence of a launcher or log line
    (``[0] MPI startup(): Intel(R) MPI Library, Version …`` has a comma but is no header)."""
    cell = cell.strip()
    return 0 < len(cell) <= 64 and ": " not in cell and not cell.startswith(("[", "#"))


def _read(path: Path, options) -> list:
    return [Loaded(str(path), FORMAT, read_csv(path, options.csv_metadata, options.mapping, options.constants))]


FORMAT = "csv"
READER = Format(name=FORMAT, title="CSV (schema columns, or --map/--set)", reads="comma-separated, a header row",
                recognize=lambda head: FALLBACK if _is_table(head) else 0, read=_read, takes_options=True)

