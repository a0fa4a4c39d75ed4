"""hyperfine JSON (``hyperfine --export-json``).

Every entry of ``results`` is one command: each element of ``times`` is one run of it (its own
process, ``invocation`` = run number) in seconds, with its ``exit_codes`` entry (a non-zero exit
makes the row invalid: hyperfine only keeps such runs under ``--ignore-failure``).  The command
string is the implementation, its ``parameters`` (``--parameter-scan`` / ``-L``) become
``param_<name>`` factor columns, and hyperfine's ``mean``, ``median``, ``stddev``, ``min``,
``max`` and its mean ``user`` / ``system`` times are stated summaries (attr ``summaries``).
hyperfine exports no warm-up times (``--warmup`` runs are discarded by hyperfine itself).
"""

from __future__ import annotations

from pathlib import Path

from .. import inputs
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .common import INVOCATION_LEVEL, ReaderError, build, json_holding, mapping, number, row

FORMAT = "hyperfine"
STATISTICS = {"mean": "arithmetic_mean", "median": "median", "stddev": "stddev", "min": "min", "max": "max"}


def _load(path: Path) -> list:
    return json_holding(path, FORMAT, "results")["results"]


def _command_rows(entry: dict, index: int, path: Path, workload: str) -> list[dict]:
    times, codes = entry.get("times"), entry.get("exit_codes")
    if not isinstance(entry.get("command"), str) or not isinstance(times, list) or not times:
        raise ReaderError(path, f"{FORMAT}: results[{index}] lacks 'command' or a non-empty 'times' list")
    if codes is not None and (not isinstance(codes, list) or len(codes) != len(times)):
        raise ReaderError(path, f"{FORMAT}: results[{index}] has {len(times)} times but "
                                f"{len(codes) if isinstance(codes, list) else 'no list of'} exit codes")
    params = _parameters(entry, index, path)
    out = []
    for run, value in enumerate(times):
        seconds = number(path, f"{FORMAT}: results[{index}].times[{run}]", value)
        code = _exit_code(codes, run, index, path)
        out.append(row(benchmark="hyperfine", workload=workload, implementation=entry["command"], metric="time",
                       value=seconds, unit="s", run_id=f"{index}#{run}", invocation=run, **params,
                       exit_code=-1 if code is None else code, valid=code == 0 or codes is None,
                       status="" if code is not None or codes is None else "killed by a signal (exit code null)"))
    return out


def _parameters(entry: dict, index: int, path: Path) -> dict:
    """``parameters``: an object of name -> value (``--parameter-scan`` / ``-L``), as ``param_<name>`` columns."""
    params = mapping(path, f"{FORMAT}: results[{index}].parameters", entry.get("parameters") or {})
    for name, value in params.items():
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ReaderError(path, f"{FORMAT}: results[{index}].parameters.{inputs.brief(name)} is "
                                    f"{inputs.brief(value)}, not a string or number")
    return {f"param_{k}": str(v) for k, v in params.items()}


def _exit_code(codes: list | None, run: int, index: int, path: Path) -> int | None:
    """A run's exit code: an integer, or null when a signal killed it (hyperfine writes ``Option<i32>``)."""
    if codes is None or codes[run] is None:
        return None
    return number(path, f"{FORMAT}: results[{index}].exit_codes[{run}]", codes[run], low=None, integer=True)


def _summaries(entry: dict, workload: str) -> list[dict]:
    filters = {"workload": workload, "implementation": entry["command"],  # parameters checked by _command_rows
               **{f"param_{k}": str(v) for k, v in (entry.get("parameters") or {}).items()}}
    out = []
    for key, statistic in STATISTICS.items():
        if isinstance(entry.get(key), (int, float)):
            summary = {"metric": "time", "statistic": statistic, "value": float(entry[key]), "unit": "s",
                       "filters": filters, "n": len(entry["times"]), "includes_invalid": True,
                       "note": f"hyperfine {key} of every run, failed ones (non-zero exit code) included"}
            if statistic == "stddev":
                summary["kind"] = "dispersion"
            out.append(summary)
    for key in ("user", "system"):
        if isinstance(entry.get(key), (int, float)):
            out.append({"metric": f"{key}_time", "statistic": "arithmetic_mean", "value": float(entry[key]), "unit": "s",
                        "kind": "cost", "filters": filters, "n": len(entry["times"]), "recomputable": 0,
                        "note": f"hyperfine's mean {key} CPU time; per-run {key} times are not exported"})
    return out


def read(path: Path) -> list:
    """Every run of every command as rows; hyperfine's statistics as stated summaries."""
    entries = _load(path)
    workload = path.name.split(".")[0]
    records, summaries = [], []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ReaderError(path, f"{FORMAT}: results[{index}] is not an object")
        records.extend(_command_rows(entry, index, path, workload))
        summaries.extend(_summaries(entry, workload))
    params = sorted({k for r in records for k in r if k.startswith("param_")})
    attrs = {"summaries": summaries, "factors": params,
             "levels": {"invocation": INVOCATION_LEVEL + " (hyperfine: every time is its own process)"},
             "timer": "hyperfine wall clock per process (includes process start-up)"}
    return [build(path, FORMAT, "hyperfine", records, environment=None,
                  config={"commands": [e["command"] for e in entries]}, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        found = value.get("results")
        return CERTAIN if isinstance(found, list) and all(
            isinstance(r, dict) and ("times" in r or "command" in r) for r in found) else 0
    return LIKELY if value is None and head.json_keys("results") and (
        '"times"' in head.json_text or head.json_keys("command")) else 0


READER = Format(name=FORMAT, title="hyperfine JSON", reads="hyperfine --export-json (1.x)", recognize=_recognize,
                read=read)
