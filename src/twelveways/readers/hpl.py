"""HPL (High-Performance Linpack) output, ``HPL.out`` or the console (also HPL-NVIDIA and vendor builds).

One ``xhpl`` process runs every combination of the ``HPL.dat`` parameters in turn; each prints
a ``T/V N NB P Q Time Gflops`` line (the encoded variant ``W<map><depth><bcast><rfact><ndiv>
<pfact><nbmin>``) and then its scaled residual check(s) ``... ...... PASSED`` / ``FAILED``.
Each T/V line becomes two rows, ``gflops`` (GFLOP/s, HPL's operation count 2/3 N^3 + 3/2 N^2
over the time) and ``time`` (s), with N as ``size``, NB/P/Q/variant as factors and P x Q ranks;
a FAILED residual makes that run invalid.  The runs after one ``HPLinpack`` banner share a process
(``invocation``: a log of several xhpl runs has several banners); a combination listed twice in
HPL.dat is run twice (``repetition``).  The header's parameters
are the settings; HPL's closing tally (tests passed / failed / skipped) is checked against the
runs read.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import hpc_input
from .head import Head
from .registry import CERTAIN, Format
from .common import INVOCATION_LEVEL, ReaderError, build, row

FORMAT = "hpl"
N = hpc_input.NUMBER
RUN = re.compile(rf"^(W[RC]\S*)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+({N})\s+({N})", re.MULTILINE)
CHECK = re.compile(rf"^(\|\|.*?)=\s*({N})\s*\.+\s*(PASSED|FAILED)\s*$", re.MULTILINE)
SETTINGS = ("N", "NB", "PMAP", "P", "Q", "PFACT", "NBMIN", "NDIV", "RFACT", "BCAST", "DEPTH", "SWAP", "L1", "U",
            "EQUIL", "ALIGN")
TALLY = {"passed": r"(\d+)\s+tests completed and passed residual checks",
         "failed": r"(\d+)\s+tests completed and failed residual checks",
         "skipped": r"(\d+)\s+tests skipped because of illegal input values"}


def _settings(text: str) -> dict:
    """The parameter block HPL prints before its runs (``NAME : values``, long lists wrapped onto
    indented lines) and the residual threshold; the legend above it (``N : The order ...``) is not read."""
    start = text.find("The following parameter values will be used:")
    end = text.find("-" * 20, start)
    found: dict[str, str] = {}
    last = ""
    for line in text[start:end].splitlines()[1:] if start >= 0 else []:
        name, sep, value = line.partition(":")
        if sep and name.strip() in SETTINGS:
            last = name.strip()
            found[last] = " ".join(value.split())
        elif last and line[:1].isspace() and line.strip():
            found[last] += " " + " ".join(line.split())
    found["eps"] = hpc_input.first(rf"relative machine precision \(eps\) is taken to be\s+({N})", text)
    found["residual_threshold"] = hpc_input.first(rf"pass if scaled residuals are less than\s+({N})", text)
    return {k: v for k, v in found.items() if v}


def _checks(text: str, start: int, end: int) -> list[tuple[str, float, bool]]:
    """(check, scaled residual, passed) printed after one run (HPL 2.0 prints three, 2.1+ one)."""
    return [(m.group(1).strip(), float(m.group(2)), m.group(3) == "PASSED")
            for m in CHECK.finditer(text, start, end)]


def _run_rows(text: str, path: Path) -> list[dict]:
    matches = list(RUN.finditer(text))
    banners = [m.start() for m in re.finditer(r"^HPLinpack ", text, re.MULTILINE)]  # one per xhpl process
    seen: dict[tuple, int] = {}
    out = []
    for index, m in enumerate(matches):
        process = max(0, sum(b < m.start() for b in banners) - 1)
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        variant, n, nb, p, q = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))
        time = hpc_input.number(m.group(6), path, FORMAT, f"run {index + 1} ({variant}) Time")
        gflops = hpc_input.number(m.group(7), path, FORMAT, f"run {index + 1} ({variant}) Gflops")
        checks = _checks(text, m.end(), end)
        key = (process, variant, n, nb, p, q)
        repetition = seen.get(key, 0)
        seen[key] = repetition + 1
        valid = all(ok for _, _, ok in checks)
        residual = max((r for _, r, _ in checks), default=-1.0)  # -1: not printed
        status = (f"residual {residual:.4g} {'PASSED' if valid else 'FAILED'}" if checks
                  else "no residual check printed")
        common = dict(benchmark=FORMAT, workload="HPL", implementation="", ranks=p * q, size=n, precision="fp64",
                      run_id=f"run{index + 1}", invocation=process, repetition=repetition, nb=nb, p=p, q=q,
                      variant=variant, residual=residual, valid=valid, status=status)
        out.append(row(**common, metric="gflops", value=gflops, unit="GFLOP/s"))
        out.append(row(**common, metric="time", value=time, unit="s"))
    return out


def _tally(text: str, runs: int, failed: int) -> tuple[dict, list[str]]:
    """HPL's own count of passed / failed / skipped tests (summed over the xhpl processes of a log), and how
    it compares with the runs read."""
    tally = {k: sum(int(v) for v in found) for k, pattern in TALLY.items() if (found := re.findall(pattern, text))}
    warnings = []
    if tally and tally.get("passed", 0) + tally.get("failed", 0) != runs:
        warnings.append(f"HPL reports {tally.get('passed', 0) + tally.get('failed', 0)} completed tests but the file "
                        f"holds {runs} T/V lines (a trimmed or interleaved log)")
    if tally and tally.get("failed", 0) != failed and tally.get("passed", 0) + tally.get("failed", 0) == runs:
        warnings.append(f"HPL reports {tally['failed']} failed residual checks, the runs read show {failed}")
    if not tally:
        warnings.append("no closing 'Finished ... tests' tally (the run may not have ended)")
    return tally, warnings


def read(path: Path) -> list:
    """Every T/V line as a run (gflops, time), its residual check as validity."""
    text = hpc_input.read_text(path, FORMAT)
    records = _run_rows(text, path)
    if not records:
        raise ReaderError(path, f"{FORMAT}: no 'T/V N NB P Q Time Gflops' result line")
    runs = len(records) // 2
    failed = sum(1 for r in records[::2] if not r["valid"])
    tally, warnings = _tally(text, runs, failed)
    if any(r["status"] == "no residual check printed" for r in records):
        warnings.append("a run without a residual check: its correctness is not stated")
    version = hpc_input.first(r"^(HPLinpack \S+)", text)
    vendor = hpc_input.first(r"^(HPL-\S+ \S+)", text)
    environment = {k: v for k, v in (("hpl_version", version), ("hpl_build", vendor)) if v}
    attrs = {"factors": ["nb", "p", "q", "variant"], "source_warnings": warnings, "hpl_tally": tally,
             "levels": {"invocation": INVOCATION_LEVEL + " (HPL: the runs after one HPLinpack banner share an xhpl "
                                                          "process; a log of several xhpl runs has several banners)",
                        "repetition": "the how-many-th run of the same N, NB, P, Q and variant in its process"},
             "metric_kinds": {"gflops": "rate", "time": "cost"},
             "op_count": "formula: HPL credits 2/3 N^3 + 3/2 N^2 operations per solve, whatever it executed",
             "derived_from_time": {"gflops": "HPL computes Gflops as (2/3 N^3 + 3/2 N^2) / time / 1e9"}}
    return [build(path, FORMAT, FORMAT, records, environment=environment or None, config=_settings(text),
                  attrs=attrs)]


def _recognize(head: Head) -> int:
    text = head.text
    return CERTAIN if "HPL_pdgesv() start time" in text or ("HPLinpack" in text and "T/V" in text) else 0


READER = Format(name=FORMAT, title="HPL.out", reads="HPL 2.x output (HPL.out or stdout)", recognize=_recognize,
                read=read)
