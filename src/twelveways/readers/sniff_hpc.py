"""Recognize the HPC benchmarks' outputs by content, and hand each to its reader.

``detect.sniff`` asks :func:`sniff_text` before its CSV fallback and :func:`json_kind` for JSON
of no other known shape.  The marks are lines each tool prints whatever its options:

* OSU Micro-Benchmarks: a header ``# OSU <API> <name> Test v<version>``;
* HPL: ``HPL_pdgesv() start time`` after each run, or the ``HPLinpack`` banner with its ``T/V`` legend;
* HPCG: its report's ``Section::Key=value`` lines (``Final Summary::``, ``Machine Summary::``)
  or its YAML: a ``Final Summary:`` section (HPCG 3.0 writes ``__________ Final Summary __________:``)
  holding HPCG's verdict ``HPCG result is ...``, or ``HPCG-Benchmark:`` with a ``Final Summary``;
* STREAM: ``STREAM version`` and the ``Function ... Rate`` table;
* IOR: the banner ``IOR-<version>: MPI Coordinated Test of Parallel I/O`` or ``Summary of all
  tests:`` with its ``Max(MiB)`` header (text), ``tests`` and ``summary`` lists (JSON).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

OSU, HPL, HPCG, STREAM, IOR = "osu", "hpl", "hpcg", "stream", "ior"
#: format -> module in this package that reads it.
READERS = {OSU: "osu", HPL: "hpl", HPCG: "hpcg", STREAM: "stream", IOR: "ior"}
FORMATS_READ = ("OSU Micro-Benchmarks text, HPL.out, HPCG reports, STREAM output, IOR (text or JSON summary)")

_OSU_HEADER = re.compile(r"^#\s*OSU\b.*\bTest\b", re.MULTILINE | re.IGNORECASE)
_HPCG_REPORT = re.compile(r"^\s*(Final Summary|Machine Summary)\s*::", re.MULTILINE)
_HPCG_YAML = re.compile(r"^HPCG-Benchmark:\s*$", re.MULTILINE)
_HPCG_YAML_SUMMARY = re.compile(r"^[\s_*]*Final Summary[\s_*]*:\s*\n\s+HPCG result is\b", re.MULTILINE)
_IOR_BANNER = re.compile(r"^IOR-\d+\.\d+\S*: MPI Coordinated Test of Parallel I/O", re.MULTILINE)


def sniff_text(text: str) -> str | None:
    """The HPC format of a text head, or None."""
    if _OSU_HEADER.search(text):
        return OSU
    if "HPL_pdgesv() start time" in text or ("HPLinpack" in text and "T/V" in text):
        return HPL
    if _HPCG_REPORT.search(text) or _HPCG_YAML_SUMMARY.search(text) or (
            _HPCG_YAML.search(text) and "Final Summary" in text):
        return HPCG
    if "STREAM version" in text and re.search(r"^Function\s+(Best )?Rate", text, re.MULTILINE):
        return STREAM
    if _IOR_BANNER.search(text) or ("Summary of all tests:" in text and "Max(MiB)" in text):
        return IOR
    return None


def json_kind(value) -> str | None:
    """IOR's JSON summary (``-O summaryFormat=JSON``): a ``tests`` list beside ``summary`` or its banner keys."""
    if isinstance(value, dict) and isinstance(value.get("tests"), list) and (
            "summary" in value or "Command line" in value or "Began" in value):
        return IOR
    return None


def json_guess(window: str) -> str | None:
    """The same judgement on the head of a JSON file too long to parse whole."""
    if '"tests"' in window and ('"Command line"' in window or '"Began"' in window):
        return IOR
    return None


def read(path: Path, fmt: str) -> list:
    """Rows of one file in an HPC format (its reader module's ``read``)."""
    module = importlib.import_module(f".{READERS[fmt]}", __package__)
    return module.read(path)
