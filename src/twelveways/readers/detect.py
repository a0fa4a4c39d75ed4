"""Which format a file is in, judged by its content (never its name), and PATH expansion.

``sniff`` reads the first bytes: HDF5 signature -> our NetCDF schema; gzip -> the JSON inside;
JSON objects by their keys (pyperf: ``benchmarks`` entries with ``runs``; Google Benchmark:
``context`` + ``benchmarks``; hyperfine: ``results`` entries with ``times``; LoadGen accuracy
log: a list of ``qsl_idx`` entries); text: ``:::MLLOG`` lines (LoadGen detail when they carry
LoadGen's keys, else MLPerf Training), LoadGen's "MLPerf Results Summary", the HPC benchmarks'
outputs (:mod:`.sniff_hpc`: OSU, HPL, HPCG, STREAM, IOR), else a comma-separated header (CSV).
A directory is walked; MLPerf Training logs and LoadGen logs are grouped by folder.
"""

from __future__ import annotations

import csv as _csv
import gzip
import json
import os
import zlib
from pathlib import Path

from .. import inputs
from . import sniff_hpc, sniff_sw
from .common import ReaderError

NETCDF, CSV = "twelveways-netcdf", "csv"
TRAINING, LOADGEN_SUMMARY, LOADGEN_DETAIL, LOADGEN_ACCURACY = ("mlperf-training", "loadgen-summary",
                                                               "loadgen-detail", "loadgen-accuracy")
PYPERF, GBENCH, HYPERFINE = "pyperf", "google-benchmark", "hyperfine"
FORMATS_READ = ("twelveways NetCDF results, MLPerf Training logs (:::MLLOG), MLPerf Inference LoadGen logs, "
                "pyperf/pyperformance JSON (.json or .json.gz), Google Benchmark JSON, hyperfine JSON, "
                "CSV (schema columns, or --map/--set), " + sniff_sw.FORMATS_READ + ", " + sniff_hpc.FORMATS_READ)
HEAD_BYTES = 1 << 16
LOADGEN_KEYS = ('"loadgen_version"', '"effective_scenario"', '"requested_scenario"', '"result_validity"')


def _head(path: Path) -> bytes:
    """The first bytes (decompressed when gzip: only as many as the head needs, never the whole stream)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as handle:
                return handle.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ReaderError(path, f"cannot read ({type(exc).__name__}: {exc})") from exc
    return head


def _json_kind(value) -> str | None:
    software = sniff_sw.json_kind(value)  # first: a pytest-benchmark file also has benchmarks + version
    if software:
        return software
    if isinstance(value, list):
        return LOADGEN_ACCURACY if all(isinstance(e, dict) and "qsl_idx" in e for e in value) else None
    if not isinstance(value, dict):
        return None
    benchmarks, results = value.get("benchmarks"), value.get("results")
    if isinstance(benchmarks, list) and "context" in value:
        return GBENCH
    if isinstance(benchmarks, list) and ("version" in value or any(isinstance(b, dict) and "runs" in b for b in benchmarks)):
        return PYPERF
    if isinstance(results, list) and all(isinstance(r, dict) and ("times" in r or "command" in r) for r in results):
        return HYPERFINE
    return sniff_hpc.json_kind(value)


def sniff(path: Path) -> str | None:
    """The format of one file, or None when none of the readers knows it."""
    head = _head(path)
    if head.startswith(b"\x89HDF") or head.startswith(b"CDF"):
        return NETCDF
    text = head.decode("utf-8", errors="replace")
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        try:
            return _json_kind(json.loads(text))
        except ValueError:
            return _json_guess(stripped)
    if sniff_sw.text_kind(text):
        return sniff_sw.text_kind(text)
    if ":::MLLOG" in text:
        return LOADGEN_DETAIL if any(k in text for k in LOADGEN_KEYS) else TRAINING
    if "MLPerf Results Summary" in text:
        return LOADGEN_SUMMARY
    return sniff_hpc.sniff_text(text) or (CSV if _is_csv(stripped) else None)


def _is_csv(text: str) -> bool:
    """A header of two or more named fields and a first row as wide (later ragged rows are the reader's error)."""
    if "\x00" in text:
        return False
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if len(lines) > 1 and len(text) >= HEAD_BYTES:
        lines = lines[:-1]  # the last line of a cut head may be partial
    rows = list(_csv.reader(lines))
    if len(rows) < 2 or text.startswith("<") or len(rows[0]) < 2 or not all(cell.strip() for cell in rows[0]):
        return False  # a header without rows, or markup (HTML, XML) with commas, is no CSV table
    return len(rows[1]) == len(rows[0])


def _json_guess(text: str) -> str | None:
    """A JSON file too long (or too damaged) to parse from its head: judge by its first keys."""
    window = text[:4000]
    if sniff_sw.json_guess(window):
        return sniff_sw.json_guess(window)
    if '"context"' in window and '"benchmarks"' in window:
        return GBENCH
    if '"benchmarks"' in window and ('"runs"' in text or '"version"' in window):
        return PYPERF
    if '"results"' in window and ('"times"' in text or '"command"' in window):
        return HYPERFINE
    if window.startswith("[") and '"qsl_idx"' in window:
        return LOADGEN_ACCURACY
    return sniff_hpc.json_guess(window)


def looks_like(path: Path) -> str:
    """A few words on what an unrecognized file seems to be."""
    head = _head(path)
    text = head.decode("utf-8", errors="replace").lstrip()
    if not head:
        return "an empty file"
    if b"\x00" in head[:1024]:
        return "a binary file"
    if text[:1] in "[{":
        try:
            value = json.loads(text)
        except ValueError:
            return "JSON that does not parse, or of no known shape"
        keys = list(value)[:5] if isinstance(value, dict) else []
        return f"JSON with top-level keys {keys}" if keys else "a JSON list"
    return f"text starting {text.splitlines()[0][:60]!r}" if text else "blank text"


def walk(path: Path, skipped: list | None = None) -> list[Path]:
    """The regular files under a directory (sorted; hidden files and folders skipped), or the file itself.
    FIFOs, sockets and devices in a tree are never opened: each is added to ``skipped`` as (path, why)."""
    if not path.is_dir():
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".")):
            kind = inputs.special_kind(Path(root) / name) or (None if (Path(root) / name).exists()
                                                              else "a broken symbolic link")
            if kind is None:
                found.append(Path(root) / name)
            elif skipped is not None:
                skipped.append((Path(root) / name, f"{kind}: not opened"))
    return found
