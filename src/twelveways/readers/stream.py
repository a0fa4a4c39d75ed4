"""STREAM output (McCalpin's ``stream.c`` 5.x and its OpenMP/MPI builds).

STREAM runs each kernel (Copy, Scale, Add, Triad) NTIMES times in one process, drops the first
iteration and prints, per kernel, the *best* rate (MB/s = 1e6 bytes/s, from the minimum time) and
the average, minimum and maximum time of the other NTIMES-1 iterations.  The best rate of each
kernel is a row (metric ``bandwidth``, one per kernel: no spread); the times are stated
summaries over NTIMES-1 iterations that the file does not hold.  The best rate is recomputed from
the bytes each kernel moves (2 arrays for Copy/Scale, 3 for Add/Triad, x bytes per element x array
size) and the minimum time.  "Solution Validates" (or "Failed Validation") is the validity.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from . import hpc_input
from .head import Head
from .registry import CERTAIN, Format
from .common import INVOCATION_LEVEL, ReaderError, build, row

FORMAT = "stream"
N = hpc_input.NUMBER
KERNELS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}  # arrays each kernel reads or writes
KERNEL_LINE = re.compile(rf"^(Copy|Scale|Add|Triad):\s+({N})\s+({N})\s+({N})\s+({N})\s*$", re.MULTILINE)
PRECISION = {8: "fp64", 4: "fp32", 2: "fp16"}
#: Relative gap between the printed best rate and bytes / min time beyond which the file contradicts itself.
RATE_RTOL = 1e-3


def _facts(text: str, path: Path) -> dict:
    """Array size, bytes per element, NTIMES, offset and threads as the header states them (0 when not)."""
    def grab(pattern: str, what: str) -> int:
        found = hpc_input.first(pattern, text)
        return hpc_input.integer(found, path, FORMAT, what) if found else 0

    return {"array_size": grab(r"^Array size\s*=\s*(\d+)", "Array size"),
            "offset": grab(r"^Array size.*Offset\s*=\s*(\d+)", "Offset"),
            "bytes_per_element": grab(r"uses\s+(\d+)\s+bytes per (?:array element|DOUBLE PRECISION word)",
                                      "bytes per element"),
            "ntimes": grab(r"(?:Each kernel will be executed|Each test is run)\s+(\d+)\s+times", "NTIMES"),
            "threads_requested": grab(r"Number of Threads requested\s*=\s*(\d+)", "threads requested"),
            "threads": grab(r"Number of Threads counted\s*=\s*(\d+)", "threads counted")}


def _validity(text: str) -> tuple[bool, str, list[str]]:
    """(valid, status, warnings) from STREAM's own check of the arrays."""
    if re.search(r"Failed Validation|did not validate", text):
        line = hpc_input.first(r"^(.*(?:Failed Validation|did not validate).*)$", text)
        return False, f"STREAM validation failed: {line or 'see the file'}", []
    if "Solution Validates" in text:
        return True, "Solution Validates", []
    return True, "validation not printed", ["no 'Solution Validates' line: STREAM's check of the results is not "
                                            "in the file (trimmed output or a modified stream.c)"]


def _kernel(m: re.Match, facts: dict, common: dict, path: Path) -> tuple[dict, list[dict], str]:
    """The best-rate row, the stated time summaries and a warning when the rate contradicts the minimum time."""
    kernel = m.group(1).lower()
    rate, avg, low, high = (hpc_input.number(m.group(i), path, FORMAT, f"{m.group(1)} column {i}") for i in range(2, 6))
    n = facts["ntimes"] - 1 if facts["ntimes"] > 1 else None
    record = row(**common, workload=kernel, metric="bandwidth", value=rate, unit="MB/s", run_id="stream")
    filters = {"workload": kernel}
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
            warning = (f"{m.group(1)} best rate {rate:g} MB/s but {KERNELS[kernel]} arrays x {facts['array_size']} x "
                       f"{facts['bytes_per_element']} B / min time {low:g} s = {expected:.6g} MB/s")
    return record, summaries, warning


def read(path: Path) -> list:
    """Each kernel's best rate as a row; its times as stated summaries; the validation as validity."""
    text = hpc_input.read_text(path, FORMAT)
    facts = _facts(text, path)
    valid, status, warnings = _validity(text)
    common = dict(benchmark=FORMAT, implementation="stream.c", size=facts["array_size"],
                  threads=facts["threads"] or 1, precision=PRECISION.get(facts["bytes_per_element"], ""),
                  invocation=0, valid=valid, status=status)
    records, summaries = [], []
    for m in KERNEL_LINE.finditer(text):
        record, stated, warning = _kernel(m, facts, common, path)
        records.append(record)
        summaries += stated
        warnings += [warning] if warning else []
    if not records:
        raise ReaderError(path, f"{FORMAT}: no 'Copy:/Scale:/Add:/Triad:' result lines")
    attrs = {"summaries": summaries, "factors": [], "source_warnings": warnings,
             "levels": {"invocation": INVOCATION_LEVEL + " (STREAM: one process runs every kernel NTIMES times)"},
             "per_iteration_values": "not printed (STREAM prints the best rate and avg/min/max time per kernel)",
             "rate_unit": "MB/s = 1e6 bytes per second, bytes counted as STREAM counts them (no write-allocate)"}
    version = hpc_input.first(r"STREAM version \$?Revision:\s*([\d.]+)", text)
    return [build(path, FORMAT, FORMAT, records, environment={"stream_version": version} if version else None,
                  config={k: v for k, v in facts.items() if v}, attrs=attrs)]


_TABLE = re.compile(r"^Function\s+(Best )?Rate", re.MULTILINE)


def _recognize(head: Head) -> int:
    return CERTAIN if "STREAM version" in head.text and _TABLE.search(head.text) else 0


READER = Format(name=FORMAT, title="STREAM output", reads="STREAM 5.x (C and Fortran)", recognize=_recognize,
                read=read)
