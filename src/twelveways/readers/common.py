"""What every reader shares: the dataset it returns, its provenance attributes, its one-line errors.

A reader turns one published result (a file, or a directory for formats whose result spans
files) into a Dataset in the results schema (``twelveways.results``).  The attributes follow
the conventions of files the workflow writes: ``environment_hash`` is the canonical hash of the
environment facts the format states (kept as attr ``environment``), ``config_hash`` that of the
settings it states, ``git_commit`` is ``unknown`` and ``git_dirty`` 0 (not our checkout), and
``source_format`` / ``imported_from`` say where the rows came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import xarray as xr

from .. import inputs, results
from ..errors import AuditInputError, ResultsError

#: Defaults for the required columns a format has no notion of (documented in docs/formats.md).
NEUTRAL = {"benchmark": "", "workload": "", "implementation": "", "ranks": 1, "threads": 1, "size": 0,
           "precision": "", "seed": -1, "run_id": "", "iteration": -1, "rank": -1, "metric": "", "value": float("nan"),
           "unit": "", "valid": True}

#: Describes the ``invocation`` column wherever a reader writes it (attr ``levels``).
INVOCATION_LEVEL = ("invocation: the process (program invocation) a value was measured in; values of one "
                    "process share its state (layout, JIT, caches), so a CI must resample processes "
                    "(e.g. a CI over process means), not pool the values")


class ReaderError(AuditInputError):
    """A file in a known format that is damaged or inconsistent (exit 2, one line naming the file)."""

    def __init__(self, path, problem: str, *, cause: BaseException | None = None):
        super().__init__(f"{path}: {problem}", cause=cause)


def json_holding(path: Path, fmt: str, key: str) -> dict:
    """A published JSON result that must hold a list under ``key`` (its format's main table)."""
    data = inputs.read_json_object(path, f"{fmt} file", AuditInputError)
    if not isinstance(data.get(key), list):
        raise ReaderError(path, f"{fmt}: no '{key}' list")
    return data


@dataclass
class Loaded:
    """One result read from a published format: where from, which format, and the schema Dataset."""

    path: str
    format: str
    ds: xr.Dataset


def row(**values) -> dict:
    """A record with every required column (neutral values where the format says nothing)."""
    return {**NEUTRAL, **values}


def build(path, fmt: str, family: str, records: Iterable[Mapping], *, environment: Mapping | None = None,
          config: Mapping | None = None, attrs: Mapping | None = None) -> Loaded:
    """The validated Dataset of ``records`` with the provenance attributes of an imported file."""
    records = list(records)
    if not records:
        raise ReaderError(path, f"{fmt}: no measurements in the file")
    extra = dict(attrs or {})
    extra.update({"source_format": fmt, "imported_from": Path(path).name, "git_commit": "unknown", "git_dirty": 0,
                  "environment_hash": results.canonical_hash(dict(environment)) if environment else "unknown",
                  "config_hash": results.canonical_hash(dict(config)) if config else "unknown"})
    if environment:
        extra["environment"] = dict(environment)
    if config:
        extra["settings"] = dict(config)
    try:
        ds = results.from_records(records, family, attrs=extra)
        return Loaded(str(path), fmt, results.validate(ds, source=str(path)))
    except ResultsError as exc:
        raise ReaderError(path, exc.one_line()) from exc
