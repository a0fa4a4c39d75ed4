"""STREAM output (McCalpin's ``stream.c`` 5.x and its OpenMP/MPI builds).

STREAM runs each kernel (Copy, Scale, Add, Triad) NTIMES times in one process, drops the first
iteration and prints, per kernel, the *best* rate (MB/s = 1e6 bytes/s, from the minimum time) and
the average, minimum and maximum time of the other NTIMES-1 iterations.  The best rate of each
kernel is a row (metric ``bandwidth``, one per kernel: no spread); the times are stated
summaries over NTIMES-1 iterations that the file does not hold.  The best rate is recomputed from
the bytes each kernel moves (2 arrays for Copy/Scale, 3 for Add/Triad, x bytes per element x array
size) and the minimum time.  "Solution Validates" (or "Failed Validation") is the validity.
Each ``STREAM version`` banner starts a run (a log of several runs has several: ``invocation``).
"""

from __future__ import annotations

import math
from pathlib import Path

from . import hpc_input
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, Format

FORMAT = "stream"
KERNELS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}  # arrays each kernel reads or writes
KERNEL_LABELS = {"Copy:", "Scale:", "Add:", "Triad:"}
PRECISION = {8: "fp64", 4: "fp32", 2: "fp16"}
#: Relative gap between the printed best rate and bytes / min time beyond which the file contradicts itself.
RATE_RTOL = 1e-3
BANNER = "STREAM version"
FAILED = ("Failed Validation", "did not validate")
NTIMES = ("Each kernel will be executed", "Each test is run", "running each test")


def _token_before(line: str, word: str) -> str:
    """The token just before ``word`` in ``line`` (``10`` in ``Each kernel will be executed 10 times.``)."""
    tokens = line.split()
    at = next((i for i, t in enumerate(tokens) if t.rstrip(".") == word), 0)
    return tokens[at - 1] if at > 0 else ""


def _facts_of(line: str) -> list[tuple[str, str, str]]:
    """(fact, printed value, what) of each header fact a line states (``Array size = ..., Offset = ...``
    states two); none for any other line."""
    text = line.strip()
    found = []
    if text.startswith("Array size"):
        found.append(("array_size", hpc_input.first_token(text.partition("=")[2]), "Array size"))
    if text.startswith("Offset") or ", Offset" in text:
        found.append(("offset", hpc_input.first_token(text.rpartition("Offset")[2].partition("=")[2]), "Offset"))
    if "bytes per array element" in text or "bytes per DOUBLE PRECISION word" in text:
        found.append(("bytes_per_element", _token_before(text, "bytes"), "bytes per element"))
    if text.startswith(NTIMES):
        found.append(("ntimes", _token_before(text, "times"), "NTIMES"))
    for label, fact, what in (("Number of Threads requested", "threads_requested", "threads requested"),
                              ("Number of Threads counted", "threads", "threads counted")):
        if text.startswith(label):
            found.append((fact, hpc_input.first_token(text.partition("=")[2]), what))
    return found


def _runs(lines: list[str]) -> list[list[tuple[int, str]]]:
    """The (line number, line) of each run: a ``STREAM version`` banner starts one (a file without a banner,
    an excerpt, is one run)."""
    runs: list[list[tuple[int, str]]] = [[]]
    banner_seen = False
    for number, line in enumerate(lines, start=1):
        if BANNER in line:
            if banner_seen:
                runs.append([])
            banner_seen = True
        runs[-1].append((number, line))
    return runs


def _facts(run: list[tuple[int, str]], path: Path) -> dict:
    """Array size, bytes per element, NTIMES, offset and threads as the header states them (0 when not);
    the first statement of each wins."""
    facts = dict.fromkeys(("array_size", "offset", "bytes_per_element", "ntimes", "threads_requested", "threads"), 0)
    seen: set[str] = set()
    for number, line in run:
        for fact, text, what in _facts_of(line):
            if fact not in seen and text:
                seen.add(fact)
                facts[fact] = hpc_input.count(text, path, FORMAT, f"{what} (line {number})")
    return facts


def _validity(run: list[tuple[int, str]]) -> tuple[bool, str, list[str]]:
    """(valid, status, warnings) from STREAM's own check of the arrays."""
    failed = next((line.strip() for _, line in run if any(word in line for word in FAILED)), "")
    if failed:
        return False, f"STREAM validation failed: {failed[:200]}", []
    if any("Solution Validates" in line for _, line in run):
        return True, "Solution Validates", []
    return True, "validation not printed", ["no 'Solution Validates' line: STREAM's check of the results is not "
                                            "in the file (trimmed output or a modified stream.c)"]


def _numbers(fields: list[str], number: int, path: Path) -> list[float]:
    """The best rate and the avg, min and max time of a kernel line: four numbers, each finite and >= 0."""
    label = fields[0]
    if len(fields) != 5:
        raise ReaderError(path, f"{FORMAT}: {label} line {number} has {len(fields) - 1} numbers, STREAM prints 4 "
                                "(best rate, avg time, min time, max time)")
    names = ("best rate", "avg time", "min time", "max time")
    return [hpc_input.number(text, path, FORMAT, f"{label} {name} (line {number})")
            for text, name in zip(fields[1:], names)]


def _kernel(label: str, numbers: list[float], facts: dict, common: dict) -> tuple[dict, list[dict], str]:
    """The best-rate row, the stated time summaries and a warning when the rate contradicts the minimum time."""
    kernel = label.rstrip(":").lower()
    rate, avg, low, high = numbers
    n = facts["ntimes"] - 1 if facts["ntimes"] > 1 else None
    record = row(**common, workload=kernel, metric="bandwidth", value=rate, unit="MB/s",
                 run_id=f"stream#{common['invocation']}" if common["invocation"] else "stream")
    filters = {"workload": kernel, "invocation": common["invocation"]}
    note = f"stated by STREAM over the {n or 'NTIMES-1'} timed iterations (first iteration dropped); not in the file"
    summaries = [{"metric": "time", "statistic": stat, "value": value, "unit": "s", "filters": filters, "n": n,
                  "recomputable": 0, "kind": "cost", "note": note}
                 for stat, value in (("arithmetic_mean", avg), ("min", low), ("max", high))]
    summaries.append({"metric": "bandwidth", "statistic": "max", "value": rate, "unit": "MB/s", "filters": filters,
                      "n": n, "recomputable": 0, "note": "STREAM's best rate: bytes moved / the minimum time"})
    warning = ""
    if facts["array_size"] and facts["bytes_per_element"] and low > 0:
        expected = KERNELS[kernel] * facts["bytes_per_element"] * facts["array_size"] / low / 1e6
        if not math.isclose(rate, expected, rel_tol=RATE_RTOL):
            warning = (f"{label.rstrip(':')} best rate {rate:g} MB/s but {KERNELS[kernel]} arrays x "
                       f"{facts['array_size']} x {facts['bytes_per_element']} B / min time {low:g} s = "
                       f"{expected:.6g} MB/s")
    return record, summaries, warning


def _run_rows(run: list[tuple[int, str]], invocation: int, path: Path) -> tuple[list, list, list, dict]:
    """(rows, summaries, warnings, facts) of one STREAM run; a run STREAM's check failed keeps its rows, invalid
    (the audit lists it once, with STREAM's words, among the runs it leaves out)."""
    facts = _facts(run, path)
    valid, status, warnings = _validity(run)
    common = dict(benchmark=FORMAT, implementation="stream.c", size=facts["array_size"],
                  threads=facts["threads"] or 1, precision=PRECISION.get(facts["bytes_per_element"], ""),
                  invocation=invocation, valid=valid, status=status)
    records, summaries = [], []
    for number, line in run:
        fields = line.split()
        if fields and fields[0] in KERNEL_LABELS:
            record, stated, warning = _kernel(fields[0], _numbers(fields, number, path), facts, common)
            records.append(record)
            summaries += stated
            warnings += [warning] if warning else []
    return records, summaries, warnings, facts


def _version(lines: list[str]) -> str:
    """``5.10`` of ``STREAM version $Revision: 5.10 $``."""
    line = next((line for line in lines if BANNER in line), "")
    return hpc_input.first_token(hpc_input.after(line, "Revision:")).rstrip("$")


def read(path: Path) -> list:
    """Each kernel's best rate as a row; its times as stated summaries; the validation as validity."""
    lines = hpc_input.read_lines(path, FORMAT)
    records, summaries, warnings, config = [], [], [], {}
    for invocation, run in enumerate(_runs(lines)):
        rows, stated, warned, facts = _run_rows(run, invocation, path)
        records += rows
        summaries += stated
        warnings += warned
        config = config or {k: v for k, v in facts.items() if v and rows}
    if not records:
        raise ReaderError(path, f"{FORMAT}: no 'Copy:/Scale:/Add:/Triad:' result lines")
    attrs = {"summaries": summaries, "factors": [], "source_warnings": warnings,
             "levels": {"invocation": INVOCATION_LEVEL + " (STREAM: one process runs every kernel NTIMES times; "
                                                          "each 'STREAM version' banner in a log starts a process)"},
             "per_iteration_values": "not printed (STREAM prints the best rate and avg/min/max time per kernel)",
             "rate_unit": "MB/s = 1e6 bytes per second, bytes counted as STREAM counts them (no write-allocate)"}
    version = _version(lines)
    return [build(path, FORMAT, FORMAT, records, environment={"stream_version": version} if version else None,
                  config=config, attrs=attrs)]


def _recognize(head: Head) -> int:
    """STREAM's banner and its ``Function ... Rate`` table header, on any lines of the head."""
    if BANNER not in head.text:
        return 0
    table = any(line.split()[:1] == ["Function"] and "Rate" in line.split()[1:3] for line in head.text.splitlines())
    return CERTAIN if table else 0


READER = Format(name=FORMAT, title="STREAM output", reads="STREAM 5.x (C and Fortran; several runs in one log; "
                "launcher and scheduler lines around them)", recognize=_recognize, read=read)
