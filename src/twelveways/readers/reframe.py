"""ReFrame performance logs (``perflogs/<system>/<partition>/<test>.log``), ReFrame 3 and 4.

ReFrame 3 writes one line per performance variable (its default ``format``)::

    <completion time>|reframe <version>|<check> on|@ <system>:<partition> using|+ <environ>|jobid=<id>|
    <var>=<value>|ref=<ref> (l=<lower>, u=<upper>)|<unit>      (one line in the file)

ReFrame 4 writes a ``|``-separated header, then one line per test run with, for every performance
variable, ``<var>_value``, ``<var>_unit``, ``<var>_ref``, ``<var>_lower_thres``, ``<var>_upper_thres``
beside ``result``, ``system``, ``partition``, ``environ``, ``jobid``, ``job_nodelist``, ``name``…
Each run is one job: a row per performance variable (metric = variable, unit as logged), ``run_id``
= job id, columns ``system``, ``partition`` (factors), ``implementation`` = programming environment,
``reference`` / ``lower_thres`` / ``upper_thres`` and ``within_reference``.  ReFrame writes perflogs
after the sanity check passed, so every row is valid; a value outside its reference bounds failed
the *performance* check (column ``status``), which says nothing about the measurement itself.
ReFrame states no summaries and no spread: each job is one number per variable.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import inputs
from ..errors import AuditInputError
from .head import Head
from .registry import CERTAIN, Format
from .common import ReaderError, build, row

FORMAT = "reframe-perflog"
V3_INFO = re.compile(r"^(?P<check>\S+)\s+(?:on\s+|@)(?P<system>[^:\s]+):(?P<partition>\S+?)(?:\s+using\s+|\+)(?P<env>\S+)$")
V3_REF = re.compile(r"^\s*ref=(?P<ref>\S+)\s*\(l=(?P<low>[^,]+),\s*u=(?P<up>[^)]+)\)\s*$")
PERFVAR_FIELDS = ("value", "unit", "ref", "lower_thres", "upper_thres")


def _optional(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _judge(value: float, ref, low, up) -> tuple[bool | None, str]:
    """Within ReFrame's reference bounds (ref × (1 + l) .. ref × (1 + u)); None when no reference was set."""
    if not ref:
        return None, ""
    lower = ref * (1 + low) if low is not None else -float("inf")
    upper = ref * (1 + up) if up is not None else float("inf")
    ok = min(lower, upper) <= value <= max(lower, upper)
    return ok, "" if ok else f"performance check failed: outside the reference [{lower:.6g}, {upper:.6g}]"


def _row(path, line_no, check, system, partition, env, jobid, var, value, unit, ref, low, up, **extra) -> dict:
    number = _optional(value)
    if number is None:
        raise ReaderError(path, f"{FORMAT}: line {line_no}: {var} = {value!r} is not a number")
    within, status = _judge(number, _optional(ref), _optional(low), _optional(up))
    return row(benchmark="reframe", workload=check, implementation=env, system=system, partition=partition,
               metric=var, value=number, unit=unit.strip(), run_id=str(jobid), reference=_optional(ref) or float("nan"),
               lower_thres=_optional(low) or float("nan"), upper_thres=_optional(up) or float("nan"),
               within_reference=within if within is not None else True, status=status, **extra)


def _v3(path: Path, lines: list[str]) -> list[dict]:
    out = []
    for no, line in enumerate(lines, start=1):
        fields = line.split("|")
        if len(fields) < 7:
            raise ReaderError(path, f"{FORMAT}: line {no} has {len(fields)} '|' fields, ReFrame 3 writes 7")
        info, ref = V3_INFO.match(fields[2].strip()), V3_REF.match(fields[5])
        if not info or not ref or "=" not in fields[4]:
            raise ReaderError(path, f"{FORMAT}: line {no} is not 'check on system:partition using env|jobid=…|"
                                    f"var=value|ref=… (l=…, u=…)|unit'")
        var, value = fields[4].split("=", 1)
        out.append(_row(path, no, info["check"], info["system"], info["partition"], info["env"],
                        fields[3].removeprefix("jobid="), var.strip(), value, fields[6], ref["ref"], ref["low"],
                        ref["up"], job_completion_time=fields[0], reframe_version=fields[1].removeprefix("reframe ")))
    return out


def _v4(path: Path, lines: list[str]) -> list[dict]:
    header = lines[0].split("|")
    variables = [n[:-6] for n in header if n.endswith("_value") and n[:-6] + "_unit" in header]
    out = []
    for no, line in enumerate(lines[1:], start=2):
        fields = line.split("|")
        if len(fields) != len(header):
            raise ReaderError(path, f"{FORMAT}: line {no} has {len(fields)} '|' fields, the header has {len(header)}")
        rec = dict(zip(header, fields))
        check = rec.get("display_name") or rec.get("name") or rec.get("unique_name") or path.stem
        for var in variables:
            vals = [rec.get(f"{var}_{f}", "") for f in PERFVAR_FIELDS]
            out.append(_row(path, no, check, rec.get("system", ""), rec.get("partition", ""), rec.get("environ", ""),
                            rec.get("jobid", f"line{no}"), var, *vals, result=rec.get("result", ""),
                            job_nodelist=rec.get("job_nodelist", ""),
                            job_completion_time=rec.get("job_completion_time", "")))
    return out


def read(path: Path) -> list:
    """One row per performance variable per logged run."""
    lines = [line for line in inputs.read_text(path, f"{FORMAT} file", AuditInputError).splitlines() if line.strip()]
    if not lines:
        raise ReaderError(path, f"{FORMAT}: empty")
    records = _v3(path, lines) if "|reframe " in lines[0] else _v4(path, lines)
    attrs = {"factors": ["system", "partition"],
             "levels": {"run_id": "ReFrame job: each logged run is one replicate (one number per variable)"},
             "references": sorted({f"{r['workload']} {r['metric']}: {r['reference']:g} {r['unit']}"
                                   for r in records if r["reference"] == r["reference"]})}
    return [build(path, FORMAT, "reframe", records, environment=None, config=None, attrs=attrs)]


V3_LINE = re.compile(r"^[^|\n]*\|reframe \d[^|\n]*\|[^|\n]+\|[^|\n]*\|[^|=\n]+=[^|\n]*\|", re.MULTILINE)
V4_COLUMNS = {"job_completion_time", "result", "display_name", "name", "system"}


def _recognize(head: Head) -> int:
    """ReFrame 3 perflog lines (``date|reframe X.Y|check …|jobid=…|var=value|ref=…|unit``) or a ReFrame 4
    perflog (a ``|``-separated header naming ``<var>_value`` / ``<var>_unit`` columns)."""
    if V3_LINE.search(head.text):
        return CERTAIN
    header = head.text.lstrip().split("\n", 1)[0].split("|")
    names = set(header)
    if len(header) > 3 and any(n.endswith("_value") and n[:-6] + "_unit" in names for n in names) \
            and names & V4_COLUMNS:
        return CERTAIN
    return 0


READER = Format(name=FORMAT, title="ReFrame performance logs", reads="ReFrame 3 (default format) and ReFrame 4",
                recognize=_recognize, read=read)
