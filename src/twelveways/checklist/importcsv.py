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
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
import yaml

from .. import results
from ..errors import AuditInputError, ResultsError, TwelveWaysError

META_KEYS = {"family", "columns", "attrs", "environment", "config", "description"}
TRUE = {"1", "true", "yes", "y", "t"}
FALSE = {"0", "false", "no", "n", "f"}


def read_metadata(path: str | Path | None) -> dict:
    if path is None:
        return {}
    path = Path(path)
    if not path.is_file():
        raise AuditInputError(f"metadata file not found: {path}")
    try:
        meta = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise AuditInputError(f"{path}: malformed YAML ({getattr(exc, 'problem', None) or 'syntax'})") from exc
    if not isinstance(meta, dict):
        raise AuditInputError(f"{path}: metadata must be a mapping ({', '.join(sorted(META_KEYS))})")
    unknown = sorted(set(meta) - META_KEYS)
    if unknown:
        raise AuditInputError(f"{path}: unknown metadata key {unknown[0]!r} (allowed: {', '.join(sorted(META_KEYS))})")
    for key in ("columns", "attrs", "environment", "config"):
        if key in meta and not isinstance(meta[key], dict):
            raise AuditInputError(f"{path}: metadata key {key!r} must be a mapping")
    return meta


def _parse_column(name: str, kind: str, column: pd.Series, csv: Path) -> np.ndarray:
    text = column.astype(str).str.strip()
    blank = column.isna() | (text == "")
    if kind == "str":
        return np.array(["" if b else t for b, t in zip(blank, text)], dtype=object)
    if blank.any():
        raise AuditInputError(f"{csv}: column {name!r} is empty on line {int(np.argmax(blank.to_numpy())) + 2}")
    if kind == "bool":
        lowered = text.str.lower()
        bad = ~lowered.isin(TRUE | FALSE)
        if bad.any():
            line = int(np.argmax(bad.to_numpy())) + 2
            raise AuditInputError(f"{csv}: column {name!r} line {line}: {column.iloc[line - 2]!r} is not true/false")
        return lowered.isin(TRUE).to_numpy()
    numbers = pd.to_numeric(text, errors="coerce")
    bad = numbers.isna() & (text.str.lower() != "nan")
    if kind == "int":
        bad |= ~numbers.isna() & (numbers != numbers.round())
    if bad.any():
        line = int(np.argmax(bad.to_numpy())) + 2
        raise AuditInputError(f"{csv}: column {name!r} line {line}: {column.iloc[line - 2]!r} is not "
                              f"{'an integer' if kind == 'int' else 'a number'}")
    return numbers.astype(np.int64).to_numpy() if kind == "int" else numbers.astype(float).to_numpy()


def read_csv(csv: str | Path, metadata: str | Path | None = None) -> xr.Dataset:
    """A validated results Dataset from a CSV of samples and its metadata (see the module docstring)."""
    csv = Path(csv)
    if not csv.is_file():
        raise AuditInputError(f"CSV file not found: {csv}")
    if metadata is None:
        sibling = csv.with_suffix(".yaml")
        metadata = sibling if sibling.is_file() else None
    meta = read_metadata(metadata)
    try:
        raw = pd.read_csv(csv, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise AuditInputError(f"{csv}: not a readable CSV ({' '.join(str(exc).split())})") from exc
    raw.columns = [str(c).strip() for c in raw.columns]
    if raw.empty:
        raise AuditInputError(f"{csv}: no samples (header only)")
    constants = meta.get("columns", {})
    frame = pd.DataFrame(index=raw.index)
    for name, (kind, meaning) in results.COLUMNS.items():
        if name in raw.columns:
            frame[name] = _parse_column(name, kind, raw[name], csv)
        elif name in constants:
            frame[name] = _parse_column(name, kind, pd.Series([str(constants[name])] * len(raw)), csv)
        else:
            raise AuditInputError(f"{csv}: missing column {name!r} ({meaning}); add it to the CSV or to "
                                  "'columns' in the metadata")
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
    try:
        ds = results.from_frame(frame, str(meta.get("family", "custom")), attrs=attrs)
        return results.validate(ds, source=str(csv))
    except ResultsError as exc:
        raise AuditInputError(exc.one_line()) from exc


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise AuditInputError(f"{self.prog}: {message}")


def import_csv_main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="twelveways import-csv", description="Convert a CSV of samples plus a metadata YAML "
                     "into a twelveways results file (NetCDF4) that `twelveways audit` reads.")
    parser.add_argument("csv", help="CSV of samples, one per row")
    parser.add_argument("--metadata", help="metadata YAML (family, columns, attrs, environment, config)")
    parser.add_argument("--output", required=True, help="results file to write (.nc)")
    try:
        args = parser.parse_args(argv)
        ds = read_csv(args.csv, args.metadata)
        try:
            path = results.write(ds, args.output)
        except OSError as exc:
            raise AuditInputError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({ds.sizes[results.SAMPLE_DIM]} samples, family {ds.attrs['family']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(import_csv_main())
