"""Google Benchmark JSON (``--benchmark_format=json`` / ``--benchmark_out``), decoded into typed models.

Each ``run_type: iteration`` entry is one repetition: its ``real_time`` and ``cpu_time`` (per
iteration, in ``time_unit``) and its counters become rows (``iterations`` = the loop count the
library chose, ``repetition`` = ``repetition_index``).  All repetitions ran in one process
(``invocation`` 0), so they are not independent processes.  The ``aggregate`` entries (mean,
median, stddev, cv, user-defined) are the library's stated summaries (attr ``summaries``); a
benchmark run with ``--benchmark_report_aggregates_only`` has no repetitions in the file, so its
aggregates are its rows, named ``<metric>_<aggregate>`` and listed in ``derived_metrics`` (stated
numbers, not samples).  An entry the library marked ``error_occurred`` (``SkipWithError``) or
``skipped`` (``SkipWithMessage``) is excluded with its message (attr ``not_measured``), as is a
counter the library wrote as NaN or infinity.  The ``context`` (CPU, caches, build type, library
version) is the environment.  JSON printed after launcher lines (``[0] MPI startup(): …``) is read.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, LIKELY, Format

FORMAT = "google-benchmark"
TIME_UNITS = ("ns", "us", "ms", "s")
STATISTICS = {"mean": "arithmetic_mean", "median": "median", "stddev": "stddev", "cv": "cv"}
#: Entry keys that are bookkeeping, not counters.
NOT_COUNTERS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
                "aggregate_unit", "label", "error_occurred", "error_message", "skipped", "skip_message", "big_o",
                "rms", "complexity_n"}
VOLATILE = {"date", "load_avg", "executable"}


class Entry(decode.Model):
    """One element of ``benchmarks`` (counters are the extra numeric keys)."""

    name: decode.Name
    run_name: str | None = None
    run_type: str = "iteration"
    repetitions: decode.Count | None = None
    repetition_index: decode.Count = 0
    threads: decode.Count = 1
    iterations: decode.Count = 0
    real_time: decode.NonNegative | None = None
    cpu_time: decode.NonNegative | None = None
    time_unit: str | None = None
    aggregate_name: str = ""
    aggregate_unit: str = ""
    error_occurred: bool = False
    error_message: str = ""
    skipped: bool = False
    skip_message: str = ""


class File(decode.Model):
    context: dict = {}
    benchmarks: list[dict]


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


def _entry(path: Path, raw: dict, index: int) -> Entry:
    entry = decode.validate(path, FORMAT, Entry, raw, where=f"benchmarks[{index}]")
    if entry.time_unit is not None and entry.time_unit not in TIME_UNITS:
        raise ReaderError(path, f"{FORMAT}: benchmarks[{index}].time_unit is {decode.shown(entry.time_unit)}, "
                                f"not one of {', '.join(TIME_UNITS)}")
    if entry.threads < 1:
        raise ReaderError(path, f"{FORMAT}: benchmarks[{index}].threads is 0 (a benchmark runs on 1 thread or more)")
    return entry


def _numbers(path: Path, entry: Entry, index: int) -> tuple[dict, list[str]]:
    """{metric: (value, unit)} of the entry's times and counters; names of counters the library wrote as NaN/inf."""
    out, lost = {}, []
    for metric in ("real_time", "cpu_time"):
        value = getattr(entry, metric)
        if value is not None:
            if entry.time_unit is None:
                raise ReaderError(path, f"{FORMAT}: benchmarks[{index}] ({decode.shown(entry.name)}) states "
                                        f"{metric} without a time_unit (the JSON reporter writes one beside it)")
            out[metric] = (value, entry.time_unit)
    for key, value in (entry.model_extra or {}).items():
        if key in NOT_COUNTERS or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not math.isfinite(value):
            lost.append(key)
            continue
        if abs(value) > decode.MAX_INTEGER * 1e6:
            raise ReaderError(path, f"{FORMAT}: benchmarks[{index}].{key} is {value:g}, beyond any counter")
        out[key] = (float(value), _counter_unit(key))
    return out, lost


def _rows(path: Path, entry: Entry, index: int) -> tuple[list[dict], list[dict]]:
    """One repetition's rows, and the counters it could not state (not measured)."""
    name = entry.run_name or entry.name
    for metric in ("real_time", "cpu_time"):
        if getattr(entry, metric) is None:  # the JSON reporter writes both for every repetition
            raise ReaderError(path, f"{FORMAT}: benchmarks[{index}].{metric} is missing ({decode.shown(name)})")
    numbers, lost = _numbers(path, entry, index)
    common = dict(benchmark="gbench", workload=name, run_id=f"{name}#{entry.repetition_index}",
                  repetition=entry.repetition_index, invocation=0, threads=entry.threads,
                  iterations=entry.iterations, status="")
    missing = [{"workload": name, "metric": key, "repetition": entry.repetition_index,
                "not_measured": f"Google Benchmark wrote {key} as a non-finite number"} for key in lost]
    return [row(**common, metric=m, value=v, unit=u) for m, (v, u) in numbers.items()], missing


def _summaries(path: Path, entry: Entry, index: int) -> list[dict]:
    """An aggregate entry as stated summaries of real_time and cpu_time (and its counters)."""
    statistic = STATISTICS.get(entry.aggregate_name, entry.aggregate_name)
    percent = entry.aggregate_unit == "percentage"
    numbers, _ = _numbers(path, entry, index)
    out = []
    for metric, (value, unit) in numbers.items():
        summary = {"metric": metric, "statistic": statistic, "value": value, "unit": "1" if percent else unit,
                   "filters": {"workload": entry.run_name or entry.name}, "n": entry.repetitions,
                   "note": f"Google Benchmark aggregate {entry.aggregate_name!r} over the repetitions of one process"}
        if statistic not in ("arithmetic_mean", "median"):
            summary["kind"] = "dispersion"
        out.append(summary)
    return out


def _aggregate_rows(path: Path, entry: Entry, index: int) -> list[dict]:
    """A benchmark with only aggregates in the file: the stated numbers as rows ``<metric>_<aggregate>``."""
    name = entry.run_name or entry.name
    numbers, _ = _numbers(path, entry, index)
    unit_of = (lambda u: "1") if entry.aggregate_unit == "percentage" else (lambda u: u)
    return [row(benchmark="gbench", workload=name, run_id=f"{name}#aggregate", invocation=0, threads=entry.threads,
                iterations=entry.iterations, repetition=-1, status="", metric=f"{m}_{entry.aggregate_name}",
                value=v, unit=unit_of(u)) for m, (v, u) in numbers.items()]


def _skipped(entry: Entry) -> dict:
    why = entry.error_message if entry.error_occurred else entry.skip_message
    kind = "error" if entry.error_occurred else "skipped"
    return {"workload": entry.run_name or entry.name, "repetition": entry.repetition_index,
            "not_measured": f"Google Benchmark {kind}: {why or 'no message'}"}


def read(path: Path) -> list:
    """Per-repetition rows, aggregates as stated summaries (rows when no repetition is in the file)."""
    data = decode.validate(path, FORMAT, File, decode.load_json(path, FORMAT))
    entries = [_entry(path, raw, i) for i, raw in enumerate(data.benchmarks)]
    records, summaries, missing, aggregates = [], [], [], []
    for index, entry in enumerate(entries):
        if entry.error_occurred or entry.skipped:
            missing.append(_skipped(entry))
        elif entry.run_type == "aggregate" or entry.aggregate_name:  # an entry naming its aggregate is one
            summaries.extend(_summaries(path, entry, index))
            aggregates.append((index, entry))
        else:
            rows, lost = _rows(path, entry, index)
            records.extend(rows)
            missing.extend(lost)
    repeated = {r["workload"] for r in records}
    derived = [r for i, e in aggregates if (e.run_name or e.name) not in repeated for r in _aggregate_rows(path, e, i)]
    records.extend(derived)
    if not records and missing:
        raise ReaderError(path, f"{FORMAT}: every benchmark was skipped or failed ({missing[0]['not_measured']})")
    context = {k: v for k, v in data.context.items() if k not in VOLATILE}
    attrs = {"summaries": summaries, "factors": [], "run_date": str(data.context.get("date", "")),
             "levels": {"invocation": INVOCATION_LEVEL + " (Google Benchmark: every repetition in one process)",
                        "repetition": "repetition_index of the entry"},
             "build_type": str(data.context.get("library_build_type", "")), "not_measured": missing,
             "derived_metrics": sorted({r["metric"] for r in derived}),
             "metric_kinds": {"iterations": "count"}}
    return [build(path, FORMAT, "gbench", records, environment=context, config={}, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        return CERTAIN if isinstance(value.get("benchmarks"), list) and "context" in value else 0
    return LIKELY if value is None and head.json_keys("context", "benchmarks") else 0


READER = Format(name=FORMAT, title="Google Benchmark JSON",
                reads="--benchmark_format=json / --benchmark_out (1.x): repetitions, aggregates (aggregates-only "
                      "files too), counters, error_occurred/skipped entries excluded with their message; after "
                      "launcher lines", recognize=_recognize, read=read)
