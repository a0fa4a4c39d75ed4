"""What every reader shares: the dataset it returns, its provenance attributes, its one-line errors.

A reader turns one published result (a file, or a directory for formats whose result spans
files) into a Dataset in the results schema (``twelveways.results``).  The attributes follow
the conventions of files the workflow writes: ``environment_hash`` is the canonical hash of the
environment facts the format states (kept as attr ``environment``), ``config_hash`` that of the
settings it states, ``git_commit`` is ``unknown`` and ``git_dirty`` 0 (not our checkout), and
``source_format`` / ``imported_from`` say where the rows came from.
"""

from __future__ import annotations

import gzip
import io
import math
import zlib
from collections.abc import Iterable, Iterator, Mapping
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


#: Longest line of a line-based log (bytes): MLLOG and LoadGen lines are a few hundred bytes, and
#: mlperf_logging's per-line regex takes time quadratic in a line's length.
MAX_LINE_BYTES = 64 * 1024
#: Most bytes a compressed result may expand to (a 1 MB gzip of zeros expands to 1 GB).
MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"


def regular_file(path: Path, fmt: str) -> Path:
    """``path`` when it is a regular file (FIFOs, devices and sockets are never opened), else one error line."""
    return inputs.require_regular_file(path, f"{fmt} file", AuditInputError)


def text_lines(path: Path, fmt: str, max_line: int | None = None) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line, read in bounded pieces: a line longer than ``max_line`` bytes
    or one that is not UTF-8 is one error naming its number, found before the rest is read."""
    limit = max_line or MAX_LINE_BYTES
    try:
        with _opened(regular_file(path, fmt)) as handle:
            for number, raw in enumerate(iter(lambda: handle.readline(limit + 1), b""), start=1):
                if len(raw) > limit and not raw.endswith(b"\n"):
                    raise ReaderError(path, f"{fmt}: line {number} is longer than {limit:,} bytes (damaged log?)")
                try:
                    yield number, raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise ReaderError(path, f"{fmt}: line {number} is not UTF-8 text (byte {exc.start + 1} of the "
                                            "line cannot be decoded)") from exc
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        why = getattr(exc, "strerror", None) or f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
        raise ReaderError(path, f"{fmt}: cannot read ({why})") from exc


class _Capped(io.RawIOBase):
    """A decompressed stream that stops with an error once more than :data:`MAX_DECOMPRESSED_BYTES` came out."""

    def __init__(self, stream):
        self.stream, self.count = stream, 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.stream.close()
        super().close()

    def readinto(self, buffer) -> int:
        size = self.stream.readinto(buffer)
        self.count += size
        if self.count > MAX_DECOMPRESSED_BYTES:
            raise OSError(f"more than {MAX_DECOMPRESSED_BYTES:,} bytes once decompressed")
        return size


def _opened(path: Path):
    """The file for reading bytes, gunzipped (and capped) when it is gzip: recognition looks through gzip
    (:mod:`.head`), so every reader of lines must too."""
    with path.open("rb") as probe:
        gzipped = probe.read(2) == GZIP_MAGIC
    if not gzipped:
        return path.open("rb")
    return io.BufferedReader(_Capped(gzip.open(path, "rb")))


def read_bytes(path: Path, fmt: str, limit: int | None = None) -> bytes:
    """The file's bytes, gunzipped when it is gzip; refused once more than ``limit`` bytes come out,
    so a small file that expands to gigabytes never fills the memory."""
    limit = limit or MAX_DECOMPRESSED_BYTES
    try:
        with regular_file(path, fmt).open("rb") as raw:
            handle = gzip.GzipFile(fileobj=raw) if raw.read(2) == GZIP_MAGIC else raw
            raw.seek(0)
            data = handle.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise ReaderError(path, f"{fmt}: cannot read ({type(exc).__name__}: {exc})") from exc
    if len(data) > limit:
        raise ReaderError(path, f"{fmt}: holds more than {limit:,} bytes once decompressed (refused before reading on)")
    return data


def number(path: Path, where: str, value, *, low: float | None = 0.0, high: float | None = None,
           integer: bool = False) -> float:
    """``value`` as a number checked for type and range, else one error line naming ``where``."""
    kind = "an integer" if integer else "a number"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok and integer and not float(value).is_integer():
        ok = False
    if not ok:
        raise ReaderError(path, f"{where} is {inputs.brief(value)}, not {kind}")
    if low is not None and value < low:
        raise ReaderError(path, f"{where} is {value:g}, below its minimum {low:g}")
    if high is not None and value > high:
        raise ReaderError(path, f"{where} is {value:g}, above its maximum {high:g} (damaged or not in its unit?)")
    return int(value) if integer else float(value)


def mapping(path: Path, where: str, value) -> dict:
    """``value`` when it is a JSON object, else one error line naming ``where``."""
    if not isinstance(value, dict):
        raise ReaderError(path, f"{where} is {inputs.brief(value)}, not an object")
    return value


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
