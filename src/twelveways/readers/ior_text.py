"""IOR's text output, parsed into the shapes :mod:`.ior` builds rows and summaries from.

The banner and ``Name : value`` lines give the version, machine, command line and options;
the ``Results:`` table (header ``access bw(MiB/s) [IOPS Latency(s)] block(KiB) xfer(KiB) ...
iter``) one line per operation and repetition; ``Summary of all tests:`` one line per operation
with IOR's statistics.  Columns are taken by the names in each header (they changed between IOR
versions); each stated number's resolution is the last digit IOR printed it (and its rows) with.
"""

from __future__ import annotations

from pathlib import Path

from . import hpc_input
from .common import ReaderError
from .ior_rows import FORMAT, TEXT_RESULTS, TEXT_SUMMARY, result_rows, stated_summaries

OPERATIONS = ("write", "read")
#: Columns of the tables that are counts (a fraction is an error, not truncated).
COUNTS = {"iter", "Test#", "#Tasks", "reps", "fPP", "segcnt", "blksiz", "xsize", "tPN"}
#: Name characters of an option line (``Command line        : ior -w ...``).
OPTION_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ /#-")


def _resolution(text: str) -> float:
    """One unit in the last printed digit: ``2928.02`` -> 0.01, ``4655`` -> 1."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 10.0 ** -min(decimals, 300)


def _header(line: str) -> list[str]:
    """Column names of a header line; a second ``StdDev`` is the operation rate's."""
    names = line.split()
    if names.count("StdDev") > 1:
        names[len(names) - 1 - names[::-1].index("StdDev")] = "StdDev(OPs)"
    return names


def _options(lines: list[str]) -> dict:
    """``name : value`` lines (banner facts and the Options block), first occurrence of each."""
    found: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(":")
        key = name.strip()
        if sep and key and line[:1].isalpha() and value[:1].isspace() and set(key) <= OPTION_CHARS:
            found.setdefault(key.lower(), value.strip())
    return found


def _cell(fields: dict, column: str, path: Path, where: str) -> float:
    """One cell of a table: a count where the column is one, else a number >= 0."""
    if column in COUNTS:
        return hpc_input.count(fields[column], path, FORMAT, f"{where} {column}")
    return hpc_input.number(fields[column], path, FORMAT, f"{where} {column}")


def _tables(lines: list[str], path: Path) -> tuple[list[tuple[int, dict]], list[tuple[int, dict]]]:
    """One pass: the write/read lines of every ``Results:`` table and of ``Summary of all tests:``, each
    as (line number, {column: text}) under the header above it."""
    results, summary = [], []
    columns: list[str] = []
    target = results
    expect_header = False
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if line.strip() == "Summary of all tests:":
            target, columns, expect_header = summary, [], True
        elif fields[:2] == ["access", "bw(MiB/s)"]:
            target, columns, expect_header = results, _header(line), False
        elif expect_header:
            columns, expect_header = _header(line), False
        elif columns and fields[0] in OPERATIONS:
            if len(fields) != len(columns):
                where = "Summary of all tests" if target is summary else "Results table"
                raise ReaderError(path, f"{FORMAT}: {where} line {number}: {len(fields)} fields under a header "
                                        f"of {len(columns)}")
            target.append((number, dict(zip(columns, fields))))
    return results, summary


def _results(rows: list[tuple[int, dict]], options: dict, path: Path) -> tuple[list[dict], dict]:
    """Rows of the ``Results:`` tables and the resolution IOR printed each column with."""
    records, resolution, entries = [], {}, []
    tasks = options.get("tasks", "") or options.get("participating tasks", "")
    segments = options.get("segments", "")
    facts = {"id": 0, "api": options.get("api", ""),
             "tasks": hpc_input.count(tasks, path, FORMAT, "tasks", low=1) if tasks else 1,
             "segments": hpc_input.count(segments, path, FORMAT, "segments") if segments else 1,
             "file_per_proc": int(options.get("access", "") == "file-per-process")}
    for number, fields in rows:
        entry = {"access": fields["access"]}
        for column, key in TEXT_RESULTS.items():
            if column in fields and fields[column] != "-":
                entry[key] = _cell(fields, column, path, f"line {number} {fields['access']}")
                resolution[key] = max(resolution.get(key, 0.0), _resolution(fields[column]))
        entries.append(entry)
    records += result_rows(facts, entries, path)
    return records, resolution


def _summary(rows: list[tuple[int, dict]], row_resolution: dict, path: Path) -> list[dict]:
    """``Summary of all tests:`` lines as IOR's stated statistics."""
    entries, resolution = [], {}
    for number, fields in rows:
        if "Operation" not in fields:
            raise ReaderError(path, f"{FORMAT}: Summary of all tests line {number}: no 'Operation' column")
        entry = {"operation": fields["Operation"]}
        for column, key in TEXT_SUMMARY.items():
            if column not in fields or key == "API":
                continue
            entry[key] = _cell(fields, column, path, f"summary line {number} {fields['Operation']}")
            row_key = {"bw": "bwMiB", "OP": "bwMiB", "Me": "totalTime"}.get(key[:2], "")
            resolution[key] = max(_resolution(fields[column]), row_resolution.get(row_key, 0.0))
        entries.append(entry)
    return stated_summaries(entries, resolution)


def parse(path: Path, lines: list[str]) -> tuple[list, list, dict, dict]:
    """(rows, stated summaries, settings, environment) of one IOR text output (lines already capped)."""
    options = _options(lines)
    results, summary = _tables(lines, path)
    records, row_resolution = _results(results, options, path)
    summaries = _summary(summary, row_resolution, path)
    banner = next((line for line in lines if line.startswith("IOR-") and ": MPI Coordinated Test" in line), "")
    version = banner[len("IOR-"):].partition(":")[0] if banner else ""
    environment = {"ior_version": version, "machine": options.get("machine", "")}
    settings = {k: options[k] for k in ("command line", "api", "access", "type", "segments", "ordering in a file",
                                         "ordering inter file", "nodes", "tasks", "clients per node", "repetitions",
                                         "xfersize", "blocksize", "aggregate filesize") if k in options}
    return records, summaries, settings, environment
