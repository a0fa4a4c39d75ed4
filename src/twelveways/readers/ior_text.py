"""IOR's text output, parsed into the shapes :mod:`.ior` builds rows and summaries from.

The banner and ``Name : value`` lines give the version, machine, command line and options;
the ``Results:`` table (header ``access bw(MiB/s) [IOPS Latency(s)] block(KiB) xfer(KiB) ...
iter``) one line per operation and repetition; ``Summary of all tests:`` one line per operation
with IOR's statistics.  Columns are taken by the names in each header (they changed between IOR
versions); each stated number's resolution is the last digit IOR printed it (and its rows) with.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import hpc_input
from .common import ReaderError
from .ior import TEXT_RESULTS, TEXT_SUMMARY, _result_rows, _summaries

FORMAT = "ior"
OPERATIONS = ("write", "read")


def _resolution(text: str) -> float:
    """One unit in the last printed digit: ``2928.02`` -> 0.01, ``4655`` -> 1."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 10.0 ** -decimals


def _header(line: str) -> list[str]:
    """Column names of a header line; a second ``StdDev`` is the operation rate's."""
    names = line.split()
    if names.count("StdDev") > 1:
        names[len(names) - 1 - names[::-1].index("StdDev")] = "StdDev(OPs)"
    return names


def _table(lines: list[str], start: int, columns: list[str], path: Path, where: str) -> list[dict]:
    """The write/read lines under a header, each as {column: text}, until the table ends."""
    rows = []
    for number, line in enumerate(lines[start:], start=start + 1):
        fields = line.split()
        if not fields or fields[0] not in OPERATIONS:
            if fields and fields[0] in ("remove", "Commencing", "stonewalling", "WARNING:", "------", "Max", "access"):
                continue
            if rows or (fields and fields[0] in ("Summary", "Finished")):
                break
            continue
        if len(fields) != len(columns):
            raise ReaderError(path, f"{FORMAT}: {where} line {number}: {len(fields)} fields under a header of "
                                    f"{len(columns)}")
        rows.append(dict(zip(columns, fields)))
    return rows


def _options(text: str) -> dict:
    """``name : value`` lines (banner facts and the Options block), first occurrence of each."""
    found: dict[str, str] = {}
    for m in re.finditer(r"^([A-Za-z][\w /#-]*?)\s*:\s(.*)$", text, re.MULTILINE):
        found.setdefault(m.group(1).strip().lower(), m.group(2).strip())
    return found


def _results(lines: list[str], options: dict, path: Path) -> tuple[list[dict], dict]:
    """Rows of every ``Results:`` table and the resolution IOR printed each column with."""
    records, resolution = [], {}
    tasks = options.get("tasks", "") or options.get("participating tasks", "")
    facts = {"id": 0, "api": options.get("api", ""), "tasks": int(tasks) if tasks.isdigit() else 1,
             "segments": int(options["segments"]) if options.get("segments", "").isdigit() else 1,
             "file_per_proc": int(options.get("access", "") == "file-per-process")}
    for index, line in enumerate(lines):
        if line.split()[:2] != ["access", "bw(MiB/s)"]:
            continue
        columns = _header(line)
        table = _table(lines, index + 1, columns, path, "Results table")
        entries = []
        for fields in table:
            entry = {"access": fields["access"]}
            for column, key in TEXT_RESULTS.items():
                if column in fields and fields[column] != "-":
                    entry[key] = hpc_input.number(fields[column], path, FORMAT, f"{fields['access']} {column}")
                    resolution[key] = max(resolution.get(key, 0.0), _resolution(fields[column]))
            entries.append(entry)
        records += _result_rows(facts, entries)
    return records, resolution


def _summary(lines: list[str], row_resolution: dict, path: Path) -> list[dict]:
    """``Summary of all tests:`` lines as IOR's stated statistics."""
    for index, line in enumerate(lines):
        if line.strip() != "Summary of all tests:" or index + 1 >= len(lines):
            continue
        columns = _header(lines[index + 1])
        entries, resolution = [], {}
        for fields in _table(lines, index + 2, columns, path, "Summary of all tests"):
            entry = {"operation": fields["Operation"]}
            for column, key in TEXT_SUMMARY.items():
                if column not in fields or key == "API":
                    continue
                entry[key] = hpc_input.number(fields[column], path, FORMAT, f"summary {fields['Operation']} {column}")
                row_key = {"bw": "bwMiB", "OP": "bwMiB", "Me": "totalTime"}.get(key[:2], "")
                resolution[key] = max(_resolution(fields[column]), row_resolution.get(row_key, 0.0))
            entries.append(entry)
        return _summaries(entries, resolution)
    return []


def parse(path: Path, text: str) -> tuple[list, list, dict, dict]:
    """(rows, stated summaries, settings, environment) of one IOR text output."""
    lines = text.splitlines()
    options = _options(text)
    records, row_resolution = _results([line for line in lines if line.strip()], options, path)
    summaries = _summary([line for line in lines if line.strip()], row_resolution, path)
    version = hpc_input.first(r"^IOR-(\S+): MPI Coordinated Test of Parallel I/O", text)
    environment = {"ior_version": version, "machine": options.get("machine", "")}
    settings = {k: options[k] for k in ("command line", "api", "access", "type", "segments", "ordering in a file",
                                         "ordering inter file", "nodes", "tasks", "clients per node", "repetitions",
                                         "xfersize", "blocksize", "aggregate filesize") if k in options}
    return records, summaries, settings, environment
