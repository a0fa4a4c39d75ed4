"""hyperfine JSON (``hyperfine --export-json``), decoded into typed models.

Every entry of ``results`` is one command: each element of ``times`` is one run of it (its own
process, ``invocation`` = run number) in seconds, with its ``exit_codes`` entry (a non-zero exit
makes the row invalid: hyperfine only keeps such runs under ``--ignore-failure``; null = killed by a
signal).  The command string is the implementation, its ``parameters`` (``--parameter-scan`` /
``-L``) become ``param_<name>`` factor columns, and hyperfine's ``mean``, ``median``, ``stddev``,
``min``, ``max`` and its mean ``user`` / ``system`` times are stated summaries (attr ``summaries``).
Exports of hyperfine before 1.6 (and trimmed ones) hold no ``times``: the command's stated
statistics are then its rows, ``time_<statistic>``, listed in ``derived_metrics`` (not samples).
hyperfine writes ``stddev`` null for a single run: that statistic is not stated, not an error.
hyperfine exports no warm-up times (``--warmup`` runs are discarded by hyperfine itself).
"""

from __future__ import annotations

from pathlib import Path

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, LIKELY, Format

FORMAT = "hyperfine"
STATISTICS = {"mean": "arithmetic_mean", "median": "median", "stddev": "stddev", "min": "min", "max": "max"}
#: hyperfine writes parameter values as strings; numbers are taken too (an integer stays one: "4", not "4.0").
Parameter = str | decode.Whole | decode.Finite


class Command(decode.Model):
    """One element of ``results``."""

    command: decode.Name
    mean: decode.MaybeNumber = None
    stddev: decode.MaybeNumber = None
    median: decode.MaybeNumber = None
    user: decode.MaybeNumber = None
    system: decode.MaybeNumber = None
    min: decode.MaybeNumber = None
    max: decode.MaybeNumber = None
    times: list[decode.NonNegative] | None = None
    exit_codes: list[decode.Whole | None] | None = None
    parameters: dict[str, Parameter] | None = None


class File(decode.Model):
    results: list[Command]


def _checked(path: Path, entry: Command, index: int) -> Command:
    """Stated statistics are times (not negative); one exit code per time."""
    for key in (*STATISTICS, "user", "system"):
        value = getattr(entry, key)
        if value is not None and value < 0:
            raise ReaderError(path, f"{FORMAT}: results[{index}].{key} is {value:g}, below its minimum 0")
    if entry.times is not None and entry.exit_codes is not None and len(entry.exit_codes) != len(entry.times):
        raise ReaderError(path, f"{FORMAT}: results[{index}] has {len(entry.times)} times but "
                                f"{len(entry.exit_codes)} exit codes")
    if not entry.times and entry.mean is None:
        raise ReaderError(path, f"{FORMAT}: results[{index}] ({decode.shown(entry.command)}) states neither times "
                                "nor a mean")
    return entry


def _params(entry: Command) -> dict:
    return {f"param_{k}": str(v) for k, v in (entry.parameters or {}).items()}


def _command_rows(entry: Command, index: int, workload: str) -> list[dict]:
    """A row per run (``times``), or per stated statistic when the export holds no times."""
    common = dict(benchmark="hyperfine", workload=workload, implementation=entry.command, **_params(entry))
    if not entry.times:
        return [row(**common, metric=f"time_{key}", value=getattr(entry, key), unit="s", run_id=f"{index}#stated",
                    exit_code=-1, status="stated by hyperfine (the export holds no times)")
                for key in STATISTICS if getattr(entry, key) is not None]
    codes = entry.exit_codes
    out = []
    for run, seconds in enumerate(entry.times):
        code = None if codes is None else codes[run]
        killed = codes is not None and code is None
        out.append(row(**common, metric="time", value=seconds, unit="s", run_id=f"{index}#{run}", invocation=run,
                       exit_code=-1 if code is None else code, valid=codes is None or code == 0,
                       status="killed by a signal (exit code null)" if killed else
                       f"exit code {code}" if code else ""))
    return out


def _summaries(entry: Command, workload: str) -> list[dict]:
    filters = {"workload": workload, "implementation": entry.command, **_params(entry)}
    n = len(entry.times) if entry.times else None
    out = []
    for key, statistic in STATISTICS.items():
        value = getattr(entry, key)
        if value is not None:
            summary = {"metric": "time", "statistic": statistic, "value": value, "unit": "s", "filters": filters,
                       "n": n, "includes_invalid": True,
                       "note": f"hyperfine {key} of every run, failed ones (non-zero exit code) included"}
            if statistic == "stddev":
                summary["kind"] = "dispersion"
            if n is None:
                summary["recomputable"] = 0
            out.append(summary)
    for key in ("user", "system"):
        value = getattr(entry, key)
        if value is not None:
            out.append({"metric": f"{key}_time", "statistic": "arithmetic_mean", "value": value, "unit": "s",
                        "kind": "cost", "filters": filters, "n": n, "recomputable": 0,
                        "note": f"hyperfine's mean {key} CPU time; per-run {key} times are not exported"})
    return out


def read(path: Path) -> list:
    """Every run of every command as rows; hyperfine's statistics as stated summaries."""
    data = decode.validate(path, FORMAT, File, decode.load_json(path, FORMAT))
    if not data.results:
        raise ReaderError(path, f"{FORMAT}: 'results' is empty (no command was benchmarked)")
    workload = path.name.split(".")[0]
    records, summaries = [], []
    for index, entry in enumerate(data.results):
        entry = _checked(path, entry, index)
        records.extend(_command_rows(entry, index, workload))
        summaries.extend(_summaries(entry, workload))
    params = sorted({k for r in records for k in r if k.startswith("param_")})
    derived = sorted({r["metric"] for r in records if r["metric"] != "time"})
    attrs = {"summaries": summaries, "factors": params, "derived_metrics": derived,
             "levels": {"invocation": INVOCATION_LEVEL + " (hyperfine: every time is its own process)"},
             "timer": "hyperfine wall clock per process (includes process start-up)"}
    return [build(path, FORMAT, "hyperfine", records, environment=None,
                  config={"commands": [e.command for e in data.results]}, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        found = value.get("results")
        return CERTAIN if isinstance(found, list) and found and all(
            isinstance(r, dict) and ("times" in r or "command" in r) for r in found) else 0
    return LIKELY if value is None and head.json_keys("results") and (
        '"times"' in head.json_text or head.json_keys("command")) else 0


READER = Format(name=FORMAT, title="hyperfine JSON",
                reads="hyperfine --export-json (1.x): with or without times, exit_codes (null = signal), parameters; "
                      "after launcher lines", recognize=_recognize, read=read)
