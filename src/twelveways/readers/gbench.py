"""Google Benchmark JSON (``--benchmark_format=json`` / ``--benchmark_out``).

Each ``run_type: iteration`` entry is one repetition: its ``real_time`` and ``cpu_time`` (per
iteration, in ``time_unit``) and its counters become rows (``iterations`` = the loop count the
library chose, ``repetition`` = ``repetition_index``).  All repetitions ran in one process
(``invocation`` 0), so they are not independent processes.  The ``aggregate`` entries
(mean, median, stddev, cv, user-defined) are the library's stated summaries (attr
``summaries``); the ``context`` (CPU, caches, build type, library version) is the environment.
"""

from __future__ import annotations

from pathlib import Path

from .. import inputs
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .common import INVOCATION_LEVEL, ReaderError, build, json_holding, number, row

FORMAT = "google-benchmark"
TIME_UNITS = {"ns", "us", "ms", "s"}
STATISTICS = {"mean": "arithmetic_mean", "median": "median", "stddev": "stddev", "cv": "cv"}
#: Entry keys that are bookkeeping, not counters.
NOT_COUNTERS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
                "aggregate_unit", "label", "error_occurred", "error_message", "big_o", "rms", "complexity_n"}
VOLATILE = {"date", "load_avg", "executable"}


def _load(path: Path) -> dict:
    return json_holding(path, FORMAT, "benchmarks")


def _counter_unit(name: str) -> str:
    if name == "bytes_per_second":
        return "B/s"
    if name == "items_per_second":
        return "items/s"
    return per_second_unit(name) or "1"


def per_second_unit(name: str) -> str | None:
    """A counter whose name says it is per second keeps that unit ('ops per second' -> 'ops/s')."""
    from ..evidence.kinds import PER_SECOND

    match = PER_SECOND.match(name.replace("-", " "))
    return f"{match.group('thing').strip().replace(' ', '_')}/s" if match else None


def _entry_rows(entry: dict, path: Path, index: int) -> list[dict]:
    """One repetition's rows.  The JSON reporter writes ``time_unit`` beside every time: a time without
    it has no unit, and is refused rather than assumed to be nanoseconds."""
    where = f"{FORMAT}: benchmarks[{index}] ({inputs.brief(entry.get('name', '?'))})"
    unit = entry.get("time_unit")
    if not isinstance(unit, str) or unit not in TIME_UNITS or not isinstance(entry.get("real_time"), (int, float)):
        raise ReaderError(path, f"{where} has no numeric real_time with a time_unit in {sorted(TIME_UNITS)}")
    name = str(entry.get("run_name", entry.get("name", "")))
    rep = number(path, f"{where} repetition_index", entry.get("repetition_index", 0), integer=True)
    valid = not entry.get("error_occurred", False)
    common = dict(benchmark="gbench", workload=name, run_id=f"{name}#{rep}", repetition=rep, invocation=0,
                  threads=number(path, f"{where} threads", entry.get("threads", 1), low=1, integer=True),
                  iterations=number(path, f"{where} iterations", entry.get("iterations", 0), integer=True),
                  valid=valid, status=str(entry.get("error_message", "")))
    out = [row(**common, metric=m, value=number(path, f"{where} {m}", entry[m]), unit=unit)
           for m in ("real_time", "cpu_time") if m in entry]
    for key, value in entry.items():
        if key not in NOT_COUNTERS and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(row(**common, metric=key, value=number(path, f"{where} {key}", value, low=None),
                           unit=_counter_unit(key)))
    return out


def _summaries(entry: dict, path: Path, index: int) -> list[dict]:
    """An aggregate entry as stated summaries of real_time and cpu_time (and its counters)."""
    where = f"{FORMAT}: benchmarks[{index}] ({inputs.brief(entry.get('name', '?'))})"
    repetitions = entry.get("repetitions")
    if repetitions is not None:
        repetitions = number(path, f"{where} repetitions", repetitions, low=1, integer=True)
    aggregate = str(entry.get("aggregate_name", ""))
    statistic = STATISTICS.get(aggregate, aggregate)
    percent = entry.get("aggregate_unit") == "percentage"
    kind = None if statistic in ("arithmetic_mean", "median") else "dispersion"
    name = str(entry.get("run_name", ""))
    out = []
    for metric, value in entry.items():
        if metric in NOT_COUNTERS - {"real_time", "cpu_time"} or not isinstance(value, (int, float)) \
                or isinstance(value, bool):
            continue
        unit = entry.get("time_unit") if metric in ("real_time", "cpu_time") else _counter_unit(metric)
        if not isinstance(unit, str) or unit not in TIME_UNITS | {"B/s", "items/s", "1"}:
            raise ReaderError(path, f"{where} states {metric} without a time_unit in {sorted(TIME_UNITS)}")
        summary = {"metric": metric, "statistic": statistic, "value": number(path, f"{where} {metric}", value, low=None),
                   "unit": "1" if percent else unit, "filters": {"workload": name}, "n": repetitions,
                   "note": f"Google Benchmark aggregate {aggregate!r} over the repetitions of one process"}
        if kind:
            summary["kind"] = kind
        out.append(summary)
    return out


def read(path: Path) -> list:
    """Per-repetition rows, aggregates as stated summaries, context as the environment."""
    data = _load(path)
    records, summaries = [], []
    for index, entry in enumerate(data["benchmarks"]):
        if not isinstance(entry, dict):
            raise ReaderError(path, f"{FORMAT}: benchmarks[{index}] is not an object")
        if entry.get("run_type") == "aggregate":
            summaries.extend(_summaries(entry, path, index))
        else:
            records.extend(_entry_rows(entry, path, index))
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    environment = {k: v for k, v in context.items() if k not in VOLATILE}
    attrs = {"summaries": summaries, "factors": [], "run_date": str(context.get("date", "")),
             "levels": {"invocation": INVOCATION_LEVEL + " (Google Benchmark: every repetition in one process)",
                        "repetition": "repetition_index of the entry"},
             "build_type": str(context.get("library_build_type", "")),
             "metric_kinds": {"iterations": "count"}}
    return [build(path, FORMAT, "gbench", records, environment=environment, config={}, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        return CERTAIN if isinstance(value.get("benchmarks"), list) and "context" in value else 0
    return LIKELY if value is None and head.json_keys("context", "benchmarks") else 0


READER = Format(name=FORMAT, title="Google Benchmark JSON", reads="--benchmark_format=json / --benchmark_out",
                recognize=_recognize, read=read)
