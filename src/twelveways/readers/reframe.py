"""ReFrame performance logs (``perflogs/<system>/<partition>/<test>.log``), ReFrame 3 and 4, site formats too.

Sites choose the perflog line in their logging configuration (``format``), so fields are read by
what they say, never by their position:

* ReFrame 3's default line is ``<time>|reframe <version>|<check info>|jobid=<id>|<var>=<value>|
  ref=<ref> (l=<lower>, u=<upper>)|<unit>``; sites move the unit right after the value
  (``<var>=<value>|<unit>|ref=…``), drop the reference, add fields (``num_tasks=4``,
  ``num_nodes=1,num_procs=56``, tags) or write ``<var>=<value> <unit>`` (ReFrame 4's
  ``format_perfvars``, several per line).  The check info is ``<check> on <sys>:<part> using <env>``
  (3.0 to 3.9) or ``<check> [params] [/hash] @<sys>:<part>+<env>`` (3.10 on).  The performance
  variable is the ``name=number`` field beside the ``ref=`` field; without one, the ``name=number``
  fields that are not job attributes (``jobid``, ``num_*``, ``job_*``).
* ReFrame 4 writes a header naming the columns (``job_completion_time|version|display_name|system|
  …|<var>_value|<var>_unit|<var>_ref|<var>_lower_thres|<var>_upper_thres|…``) in any subset and
  order the site chose; columns are read by name.

Each run is one job: a row per performance variable (metric = variable, unit as logged), ``run_id``
= job id, ``system``/``partition`` factors, ``implementation`` = programming environment, and the
reference, its bounds and ``within_reference``.  ReFrame writes perflogs after the sanity check
passed, so every row is valid; a value outside its bounds failed the *performance* check (column
``status``).  A value ReFrame logged as None/null/NaN is excluded and listed in ``not_measured``.
A line that cannot be read is an error naming its number.
"""

from __future__ import annotations

import math
from pathlib import Path

from .common import ReaderError, build, row, text_lines
from .decode import shown
from .head import Head
from .registry import CERTAIN, LIKELY, Format

FORMAT = "reframe-perflog"
PERFVAR_FIELDS = ("value", "unit", "ref", "lower_thres", "upper_thres")
#: Values ReFrame logs where it has no number (an unset threshold, a variable not extracted).
MISSING = {"", "none", "null", "nan", "n/a"}
#: ``key=value`` fields that are attributes of the job or check, not performance variables.
ATTRIBUTE_PREFIXES = ("num_", "job_")
ATTRIBUTES = {"jobid", "ref", "exclusive_access", "use_multithreading", "max_pending_time", "time_limit", "hashcode",
              "seed"}
#: Header columns a ReFrame 4 perflog names (besides ``<var>_value``): a header holds some of them.
V4_COLUMNS = {"job_completion_time", "version", "display_name", "name", "short_name", "unique_name", "system",
              "partition", "environ", "jobid", "result", "info", "job_nodelist", "descr", "num_tasks"}


def _number(text: str) -> float | None:
    """A logged number; None where ReFrame wrote no number (None, null, NaN) or any other word."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _judge(value: float, ref, low, up) -> tuple[bool | None, str]:
    """Within ReFrame's reference bounds (ref × (1 + l) .. ref × (1 + u)); None when no reference was set."""
    if not ref:
        return None, ""
    lower = ref * (1 + low) if low is not None else -float("inf")
    upper = ref * (1 + up) if up is not None else float("inf")
    ok = min(lower, upper) <= value <= max(lower, upper)
    return ok, "" if ok else f"performance check failed: outside the reference [{lower:.6g}, {upper:.6g}]"


def _measure(path: Path, line_no: int, job: dict, var: str, value: str, unit: str, ref: str, low: str, up: str):
    """One performance variable as a row, or (None, not-measured entry) when ReFrame logged no number."""
    text = value.strip()
    number = _number(text)
    if number is None:
        if text.lower() in MISSING:
            return None, {"workload": job["check"], "system": job["system"], "partition": job["partition"],
                          "metric": var, "run_id": job["jobid"], "not_measured": f"ReFrame logged {text or 'no'} "
                                                                                 f"value (line {line_no})"}
        raise ReaderError(path, f"{FORMAT}: line {line_no}: {var} = {shown(text)} is not a number")
    refs = [_number(x.strip()) for x in (ref, low, up)]
    within, status = _judge(number, *refs)
    nan = float("nan")
    return row(benchmark="reframe", workload=job["check"], implementation=job["environ"], system=job["system"],
               partition=job["partition"], metric=var, value=number, unit=unit.strip(), run_id=job["jobid"],
               reference=refs[0] if refs[0] is not None else nan, lower_thres=refs[1] if refs[1] is not None else nan,
               upper_thres=refs[2] if refs[2] is not None else nan, within_reference=within is not False,
               status=status, result=job["result"], job_completion_time=job["time"],
               reframe_version=job["version"], job_nodelist=job["nodelist"]), None


# --- check info ----------------------------------------------------------------------------------

def _info(text: str) -> dict | None:
    """``X on sys:part using env`` (ReFrame 3.0-3.9) or ``X [params] [/hash] @sys:part+env`` (3.10 on)."""
    if " on " in text and " using " in text:
        check, _, rest = text.partition(" on ")
        place, _, env = rest.partition(" using ")
    elif "@" in text:
        check, _, rest = text.rpartition("@")
        place, _, env = rest.partition("+")
        check = " ".join(t for t in check.split() if not t.startswith("/"))
    else:
        return None
    system, colon, partition = place.strip().partition(":")
    if not colon or not check.strip() or " " in place.strip():
        return None
    return {"check": check.strip(), "system": system, "partition": partition, "environ": env.strip()}


def _job(**given) -> dict:
    job = {"check": "", "system": "", "partition": "", "environ": "", "jobid": "", "result": "", "time": "",
           "version": "", "nodelist": ""}
    job.update({k: v for k, v in given.items() if v})
    return job


# --- ReFrame 4: a header names the columns --------------------------------------------------------

def _header(text: str, sep: str) -> list[str] | None:
    """The column names when ``text`` is a ReFrame 4 header line, else None."""
    names = [n.strip() for n in text.split(sep)]
    if any(not n.replace("_", "").isalnum() for n in names if n) or "=" in text:
        return None
    if any(n.endswith("_value") for n in names) and set(names) & V4_COLUMNS:
        return names
    return None


def _by_header(path: Path, no: int, text: str, sep: str, header: list[str]):
    fields = text.split(sep)
    if len(fields) != len(header):
        raise ReaderError(path, f"{FORMAT}: line {no} has {len(fields)} '{sep}' fields, the header has {len(header)}")
    rec = {name: value.strip() for name, value in zip(header, fields) if name}
    info = _info(rec.get("info", "")) or {}
    check = next((rec[k] for k in ("display_name", "name", "short_name", "unique_name") if rec.get(k)), "")
    job = _job(check=check or info.get("check") or path.stem, system=rec.get("system") or info.get("system"),
               partition=rec.get("partition") or info.get("partition"),
               environ=rec.get("environ") or info.get("environ"), jobid=rec.get("jobid") or f"line{no}",
               result=rec.get("result"), time=rec.get("job_completion_time"),
               version=rec.get("version", "").removeprefix("reframe "), nodelist=rec.get("job_nodelist"))
    variables = [n[:-6] for n in header if n.endswith("_value")]
    return [_measure(path, no, job, var, *(rec.get(f"{var}_{f}", "") for f in PERFVAR_FIELDS)) for var in variables]


# --- ReFrame 3 and site formats: fields read by what they say -------------------------------------

def _reference(path: Path, no: int, text: str) -> tuple[str, str, str]:
    """``ref=<ref> (l=<lower>, u=<upper>)`` (the bounds part may be absent) as three texts."""
    ref, _, bounds = text.removeprefix("ref=").partition("(")
    low = up = ""
    for part in bounds.rstrip().removesuffix(")").split(","):
        key, eq, value = part.strip().partition("=")
        if part.strip() and not eq or key not in ("l", "u", ""):
            raise ReaderError(path, f"{FORMAT}: line {no}: the reference {shown(text)} is not 'ref=R (l=L, u=U)'")
        low, up = (value, up) if key == "l" else (low, value) if key == "u" else (low, up)
    return ref.strip(), low, up


def _is_time(text: str) -> bool:
    return len(text) >= 10 and text[:4].isdigit() and text[4] == "-" and text[7] == "-"


def _pair(text: str) -> tuple[str, str, str] | None:
    """``name=value`` or ``name=value unit`` (one name without spaces), else None."""
    name, eq, rest = text.partition("=")
    if not eq or not name or " " in name or "%" in name:
        return None
    value, _, unit = rest.strip().partition(" ")
    return name, value, unit.strip()


def _place(text: str) -> bool:
    """``system:partition`` alone in a field (no spaces, no ``=``, not a time)."""
    return text.count(":") == 1 and " " not in text and "=" not in text and not _is_time(text) and \
        all(part for part in text.split(":"))


def _attribute(name: str) -> bool:
    return name in ATTRIBUTES or name.startswith(ATTRIBUTE_PREFIXES)


def _measured(field: str) -> bool:
    """``name=number`` (or a value ReFrame writes for no number) whose name is no job attribute."""
    pair = _pair(field)
    return bool(pair) and not _attribute(pair[0]) and (
        _number(pair[1]) is not None or pair[1].lower() in MISSING - {""})


def _perf_fields(fields: list[str], ref_at: int | None) -> list[int]:
    """Positions of the performance variables: the ``name=value`` field beside ``ref=`` (before it, or before
    its unit); without a reference, every ``name=number`` that is not a job attribute (several when a site's
    ``format_perfvars`` writes ``name=value unit`` per variable, else the last one)."""
    if ref_at is not None:
        near = [at for at in (ref_at - 1, ref_at - 2) if at >= 0 and _pair(fields[at])
                and not _attribute(_pair(fields[at])[0])]
        if near:
            return near[:1]
    found = [i for i, f in enumerate(fields) if _measured(f)]
    inline = [i for i in found if _pair(fields[i])[2]]
    return inline or found[-1:]


def _header_like(text: str, sep: str) -> bool:
    """A header line of a site's own format (``perf_var=copy_value copy_unit``…): names, no numbers, no time."""
    fields = [f.strip() for f in text.split(sep) if f.strip()]
    if "_value" not in text or any(_is_time(f) for f in fields):
        return False
    words = [w for f in fields for w in f.replace("=", " ").split()]
    return all(_number(w) is None and w.lower() not in MISSING for w in words)


def _by_meaning(path: Path, no: int, text: str, sep: str, stem: str):
    fields = [f.strip() for f in text.split(sep)]
    found: dict = {}
    ref_at = next((i for i, f in enumerate(fields) if f.startswith("ref=")), None)
    for field in fields:
        if not found.get("time") and _is_time(field) and " " not in field:
            found["time"] = field
        elif field.startswith("reframe "):
            found["version"] = field.removeprefix("reframe ")
        elif field.startswith("jobid="):
            found["jobid"] = field.removeprefix("jobid=")
        elif "check" not in found and (info := _info(field)):
            found.update(info)
        elif "system" not in found and _place(field):  # a site's own %(check_system)s:%(check_partition)s
            found["system"], _, found["partition"] = field.partition(":")
    perf = _perf_fields(fields, ref_at)
    if not perf:
        raise ReaderError(path, f"{FORMAT}: line {no} holds no performance variable (a 'name=value' field)")
    ref, low, up = _reference(path, no, fields[ref_at]) if ref_at is not None else ("", "", "")
    job = _job(**{**found, "check": found.get("check") or stem, "jobid": found.get("jobid") or f"line{no}"})
    out = []
    for at in perf:
        var, value, unit = _pair(fields[at])
        if not unit:
            after = [f for f in fields[at + 1:] if f and "=" not in f]
            unit = after[0] if after else ""
        out.append(_measure(path, no, job, var, value, unit, ref, low, up))
    return out


def read(path: Path) -> list:
    """One row per performance variable per logged run."""
    records, missing, header, sep = [], [], None, "|"
    for no, text in text_lines(path, FORMAT):
        if not text.strip():
            continue
        if not records and not missing and header is None:
            sep = "|" if "|" in text else "\t"
        new_header = _header(text, sep)
        if new_header is not None:  # ReFrame 4 writes a header (again when the site's format changed)
            header = new_header
            continue
        if _header_like(text, sep):  # a header naming no columns we can use: the lines are read by meaning
            header = None
            continue
        measured = _by_header(path, no, text, sep, header) if header else _by_meaning(path, no, text, sep, path.stem)
        for rec, lost in measured:
            records.append(rec) if rec is not None else missing.append(lost)
    if not records:
        raise ReaderError(path, f"{FORMAT}: no performance values (an empty log, a header alone, or only values "
                                "ReFrame logged as None)")
    attrs = {"factors": ["system", "partition"], "not_measured": missing,
             "levels": {"run_id": "ReFrame job: each logged run is one replicate (one number per variable)"},
             "references": sorted({f"{r['workload']} {r['metric']}: {r['reference']:g} {r['unit']}"
                                   for r in records if r["reference"] == r["reference"]})}
    return [build(path, FORMAT, "reframe", records, environment=None, config=None, attrs=attrs)]


def _site_line(fields: list[str]) -> bool:
    """A tab-separated line of a site's format: a completion time first, ``system:partition``, ``name=value unit``."""
    return bool(fields) and _is_time(fields[0]) and any(_place(f) for f in fields[1:]) and any(
        _measured(f) and _pair(f)[2] for f in fields)


def _recognize(head: Head) -> int:
    """A ReFrame 4 header (``<var>_value`` among ReFrame's column names) or ReFrame 3 lines
    (``|reframe X.Y|`` beside a ``jobid=`` or check info field)."""
    lines = [line for line in head.text.splitlines()[:20] if line.strip()]
    if not lines:
        return 0
    sep = "|" if "|" in lines[0] else "\t"
    if _header(lines[0], sep):
        return CERTAIN
    if _header_like(lines[0], sep) and "job_completion_time" in lines[0]:
        return LIKELY
    if sep == "\t" and _site_line([f.strip() for f in lines[-1].split(sep)]):
        return LIKELY
    for line in lines[:5]:
        fields = [f.strip() for f in line.split(sep)]
        if any(f.startswith("reframe ") and f[8:9].isdigit() for f in fields) and \
                any(f.startswith("jobid=") or _info(f) for f in fields):
            return CERTAIN
    return 0


READER = Format(name=FORMAT, title="ReFrame performance logs",
                reads="ReFrame 3 (default and site-configured formats: unit after the value, no reference, extra "
                      "fields, either check info) and ReFrame 4 (header-named columns in any subset and order)",
                recognize=_recognize, read=read)
