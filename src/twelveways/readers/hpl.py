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

from dataclasses import dataclass, field
from pathlib import Path

from . import hpc_input
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, Format

FORMAT = "hpl"
SETTINGS = ("N", "NB", "PMAP", "P", "Q", "PFACT", "NBMIN", "NDIV", "RFACT", "BCAST", "DEPTH", "SWAP", "L1", "U",
            "EQUIL", "ALIGN")
TALLY = {"passed": "tests completed and passed residual checks",
         "failed": "tests completed and failed residual checks",
         "skipped": "tests skipped because of illegal input values"}
PARAMETERS = "The following parameter values will be used:"
EPS = "relative machine precision (eps) is taken to be"
THRESHOLD = "pass if scaled residuals are less than"
VERDICTS = ("PASSED", "FAILED")


def is_run(fields: list[str]) -> bool:
    """A T/V result line: its first field is HPL's encoded variant ``W<R|C><depth>...`` (``WR11C2R4``,
    HPL-NVIDIA's ``WC02R2R4``); fixed characters, so any line HPL did not print is not taken for one."""
    code = fields[0] if fields else ""
    return len(code) >= 3 and code[0] == "W" and code[1] in "RC" and code[2].isdigit()


@dataclass
class _Run:
    """One T/V line with the residual checks printed after it."""

    line: int
    process: int
    variant: str
    n: int
    nb: int
    p: int
    q: int
    time: float
    gflops: float
    checks: list[tuple[float, bool]] = field(default_factory=list)


def _run(fields: list[str], number: int, process: int, path: Path) -> _Run:
    """A T/V line checked field by field (HPL-NVIDIA adds a per-GPU rate after the seven HPL prints)."""
    where = f"run on line {number} ({fields[0]})"
    if len(fields) < 7:
        raise ReaderError(path, f"{FORMAT}: {where}: {len(fields)} fields, HPL prints 7 (T/V N NB P Q Time Gflops)")
    n, nb, p, q = (hpc_input.count(fields[i], path, FORMAT, f"{where} {name}", low=1)
                   for i, name in ((1, "N"), (2, "NB"), (3, "P"), (4, "Q")))
    time = hpc_input.number(fields[5], path, FORMAT, f"{where} Time")
    gflops = hpc_input.number(fields[6], path, FORMAT, f"{where} Gflops")
    return _Run(number, process, fields[0], n, nb, p, q, time, gflops)


def _check(line: str, number: int, path: Path) -> tuple[float, bool] | None:
    """(scaled residual, passed) of ``||Ax-b||... = 4.45e-03 ...... PASSED``; None for any other line.

    A residual HPL printed as nan with FAILED is kept as FAILED (the run is invalid, not the file)."""
    if not line.startswith("||"):
        return None
    tokens = line.rpartition("=")[2].split()
    if len(tokens) < 2 or tokens[-1] not in VERDICTS:
        return None
    passed = tokens[-1] == "PASSED"
    if not passed and tokens[0].lower() in ("nan", "-nan", "inf", "-inf"):
        return float("nan"), False
    return hpc_input.number(tokens[0], path, FORMAT, f"residual on line {number}"), passed


def _settings(lines: list[str]) -> dict:
    """The parameter block HPL prints before its runs (``NAME : values``, long lists wrapped onto
    indented lines), the eps and the residual threshold; the legend above it is not read."""
    found: dict[str, str] = {}
    inside, last = False, ""
    for line in lines:
        if not inside:
            inside = line.strip() == PARAMETERS and "N" not in found
            for key, label in (("eps", EPS), ("residual_threshold", THRESHOLD)):
                if label in line:
                    found.setdefault(key, hpc_input.first_token(hpc_input.after(line, label)))
            continue
        if line.startswith("-----"):
            inside = False
            continue
        name, sep, value = line.partition(":")
        if sep and name.strip() in SETTINGS:
            last = name.strip()
            found[last] = " ".join(value.split())
        elif last and line[:1].isspace() and line.strip():
            found[last] += " " + " ".join(line.split())
    return {k: v for k, v in found.items() if v}


def _banner(fields: list[str], banners: dict) -> None:
    """An ``HPLinpack 2.3`` banner starts an xhpl process; ``HPL-NVIDIA 1.0.0`` names a vendor build."""
    if fields[0] == "HPLinpack" and len(fields) > 1:
        banners["process"] += 1
        banners["hpl_version"] = banners["hpl_version"] or " ".join(fields[:2])
    elif fields[0].startswith("HPL-") and len(fields) > 1 and not banners["hpl_build"]:
        banners["hpl_build"] = " ".join(fields[:2])


def _tally(fields: list[str], number: int, tally: dict, path: Path) -> None:
    """``     2 tests completed and passed residual checks,`` (and failed, skipped) added to HPL's tally."""
    if len(fields) > 1 and fields[0].isdigit():
        kind = next((k for k, words in TALLY.items() if " ".join(fields[1:]).startswith(words)), "")
        if kind:
            tally[kind] = tally.get(kind, 0) + hpc_input.count(fields[0], path, FORMAT, f"line {number} tally")


def _scan(lines: list[str], path: Path) -> tuple[list[_Run], dict, dict]:
    """One pass over the lines: the runs (residual checks attached to the run before them), HPL's
    closing tallies summed over its processes, and the banners (each ``HPLinpack`` banner a process)."""
    runs: list[_Run] = []
    tally: dict[str, int] = {}
    banners = {"process": -1, "hpl_version": "", "hpl_build": ""}
    for number, line in enumerate(lines, start=1):
        first = line[:1]
        if first == "W" and is_run(fields := line.split()):  # a fixed first character: most lines are not split
            runs.append(_run(fields, number, max(banners["process"], 0), path))
        elif first == "|":
            check = _check(line, number, path)
            if check is not None and runs:
                runs[-1].checks.append(check)
        elif first == "H" and line.startswith(("HPLinpack ", "HPL-")):
            _banner(line.split(), banners)
        elif "tests" in line:
            _tally(line.split(), number, tally, path)
    return runs, tally, banners


def _rows(runs: list[_Run]) -> list[dict]:
    """Two rows per run (gflops, time), validity from its residual checks."""
    seen: dict[tuple, int] = {}
    out = []
    for index, run in enumerate(runs):
        key = (run.process, run.variant, run.n, run.nb, run.p, run.q)
        repetition = seen.get(key, 0)
        seen[key] = repetition + 1
        valid = all(ok for _, ok in run.checks)
        residuals = [r for r, _ in run.checks]
        residual = -1.0 if not residuals else float("nan") if any(r != r for r in residuals) else max(residuals)
        status = (f"residual {residual:.4g} {'PASSED' if valid else 'FAILED'}" if run.checks
                  else "no residual check printed")
        common = dict(benchmark=FORMAT, workload="HPL", implementation="", ranks=run.p * run.q, size=run.n,
                      precision="fp64", run_id=f"run{index + 1}", invocation=run.process, repetition=repetition,
                      nb=run.nb, p=run.p, q=run.q, variant=run.variant, residual=residual, valid=valid,
                      status=status)
        out.append(row(**common, metric="gflops", value=run.gflops, unit="GFLOP/s"))
        out.append(row(**common, metric="time", value=run.time, unit="s"))
    return out


def _warnings(tally: dict, runs: list[_Run]) -> list[str]:
    """How HPL's own count of passed / failed tests compares with the runs read."""
    failed = sum(1 for run in runs if not all(ok for _, ok in run.checks))
    completed = tally.get("passed", 0) + tally.get("failed", 0)
    warnings = []
    if tally and completed != len(runs):
        warnings.append(f"HPL reports {completed} completed tests but the file holds {len(runs)} T/V lines "
                        "(a trimmed or interleaved log)")
    if tally and tally.get("failed", 0) != failed and completed == len(runs):
        warnings.append(f"HPL reports {tally['failed']} failed residual checks, the runs read show {failed}")
    if not tally:
        warnings.append("no closing 'Finished ... tests' tally (the run may not have ended)")
    if any(not run.checks for run in runs):
        warnings.append("a run without a residual check: its correctness is not stated")
    return warnings


def read(path: Path) -> list:
    """Every T/V line as a run (gflops, time), its residual check as validity; one pass, linear in the file."""
    lines = hpc_input.read_lines(path, FORMAT)
    runs, tally, banners = _scan(lines, path)
    if not runs:
        raise ReaderError(path, f"{FORMAT}: no 'T/V N NB P Q Time Gflops' result line")
    records = _rows(runs)
    environment = {k: banners[k] for k in ("hpl_version", "hpl_build") if banners[k]}
    attrs = {"factors": ["nb", "p", "q", "variant"], "source_warnings": _warnings(tally, runs), "hpl_tally": tally,
             "levels": {"invocation": INVOCATION_LEVEL + " (HPL: the runs after one HPLinpack banner share an xhpl "
                                                          "process; a log of several xhpl runs has several banners)",
                        "repetition": "the how-many-th run of the same N, NB, P, Q and variant in its process"},
             "metric_kinds": {"gflops": "rate", "time": "cost"},
             "op_count": "formula: HPL credits 2/3 N^3 + 3/2 N^2 operations per solve, whatever it executed",
             "derived_from_time": {"gflops": "HPL computes Gflops as (2/3 N^3 + 3/2 N^2) / time / 1e9"}}
    return [build(path, FORMAT, FORMAT, records, environment=environment or None, config=_settings(lines),
                  attrs=attrs)]


def _recognize(head: Head) -> int:
    """HPL's timing line, or its banner with the T/V legend, each at the start of a line of the head (launcher
    lines may come first; a note that merely names HPLinpack is not HPL's output)."""
    starts = {line[:9] for line in head.text.splitlines()}
    banner, legend = "HPLinpack" in starts, any(start.startswith("T/V") for start in starts)
    return CERTAIN if "HPL_pdges" in starts or (banner and legend) else 0


READER = Format(name=FORMAT, title="HPL.out", reads="HPL 2.x output (HPL.out or stdout; HPL-NVIDIA and other vendor "
                "builds; launcher and scheduler lines around it)", recognize=_recognize, read=read)
