"""pyperf / pyperformance JSON (plain or ``.json.gz``), read with pyperf itself.

A pyperf benchmark is nested: each *process* (pyperf "run") computes warm-up values, then
values; each value is the time of ``loops × inner_loops`` executions divided by that count.
Every value and warm-up becomes a row: ``invocation`` = process number (the level a CI must
resample), ``iteration`` = 0 for warm-ups (never summarized; also column ``warmup``) and
1, 2, … for values, ``loops`` / ``inner_loops`` beside.  Metadata shared by the benchmarks
(CPU, kernel, Python build, compiler flags, ASLR, governor, …) are the environment facts; the
metadata that change every process (date, load, duration) are left out of the hash.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import LIKELY, Format

FORMAT = "pyperf"
UNITS = {"second": "s", "byte": "B", "integer": "1"}
#: Metadata that change per process or per benchmark: not facts about the machine.
VOLATILE = {"date", "duration", "load_avg_1min", "mem_max_rss", "mem_peak_pagefile_usage", "uptime", "cpu_freq",
            "cpu_temp", "runnable_threads", "command", "loops", "inner_loops", "calibrate_loops",
            "recalibrate_loops", "calibrate_warmups", "recalibrate_warmups", "name", "unit", "tags",
            "description", "boot_time", "warmups", "values"}


class _Run(decode.Model):
    """What pyperf's loader iterates over without checking its type (it checks the numbers itself)."""

    metadata: dict = {}
    values: list = []
    warmups: list[list] | None = None


class _Bench(decode.Model):
    metadata: dict = {}
    runs: list[_Run]


class _Suite(decode.Model):
    version: decode.Name
    metadata: dict = {}
    benchmarks: list[_Bench]


def load_suite(path: Path):
    """pyperf's own loader on the file's JSON, after the input layer bounded it (size, gzip expansion,
    64-bit integers, depth) and checked the containers pyperf iterates without checking (a damaged
    file is one ReaderError, whatever pyperf raises)."""
    import pyperf

    document = decode.load_json(path, FORMAT)
    decode.validate(path, FORMAT, _Suite, document)
    try:
        return pyperf.BenchmarkSuite.loads(json.dumps(document))
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        raise ReaderError(path, f"{FORMAT}: not a readable pyperf file ({type(exc).__name__}: "
                                f"{' '.join(str(exc).split())[:200]})") from exc


def _finite(path: Path, name: str, process: int, what: str, value) -> float:
    """pyperf refuses NaN values but not infinity, nor NaN warm-ups: neither is a time."""
    value = float(value)
    if not math.isfinite(value):
        raise ReaderError(path, f"{FORMAT}: benchmark {decode.shown(name)} process {process} {what} is {value}, "
                                "not a finite number")
    return value


def _rows(path: Path, bench, name: str, unit: str) -> list[dict]:
    out = []
    for process, run in enumerate(bench.get_runs()):
        meta = run.get_metadata()
        loops, inner = int(meta.get("loops", 1)), int(meta.get("inner_loops", 1))
        common = dict(benchmark="pyperf", workload=name, run_id=f"{name}#{process}", invocation=process,
                      metric="time" if unit == "s" else name, unit=unit, inner_loops=inner)
        for number, (warm_loops, value) in enumerate(run.warmups):
            out.append(row(**common, iteration=0, value=_finite(path, name, process, f"warm-up {number}", value),
                           warmup=True, loops=int(warm_loops), warmup_index=number))
        for number, value in enumerate(run.values, start=1):
            out.append(row(**common, iteration=number, value=_finite(path, name, process, f"value {number}", value),
                           warmup=False, loops=loops, warmup_index=-1))
    return out


def read(path: Path) -> list:
    """Every benchmark of the suite in one Dataset (rows per value and warm-up, by process)."""
    suite = load_suite(path)
    records, per_bench = [], {}
    for bench in suite.get_benchmarks():
        name = bench.get_name()
        unit = UNITS.get(bench.get_unit(), bench.get_unit())
        records.extend(_rows(path, bench, name, unit))
        per_bench[name] = {k: str(v) for k, v in bench.get_metadata().items() if k not in VOLATILE}
    if not records:
        raise ReaderError(path, f"{FORMAT}: the suite holds no runs")
    common = _common(per_bench.values())
    attrs = {
        "levels": {"invocation": INVOCATION_LEVEL,
                   "iteration": "value number inside its process; 0 = warm-up (column warmup), never summarized"},
        "nesting": ["invocation", "iteration"],
        "ci_level": "invocation",
        "benchmark_metadata": {k: {m: v for m, v in md.items() if m not in common} for k, md in per_bench.items()},
        "factors": [],
        "machine": machine_fields(suite),
    }
    return [build(path, FORMAT, "pyperf", records, environment=common,
                  config={"benchmarks": sorted(per_bench)}, attrs=attrs)]


def _common(dicts) -> dict:
    dicts = list(dicts)
    if not dicts:
        return {}
    return {k: v for k, v in dicts[0].items() if all(d.get(k) == v for d in dicts[1:])}


def machine_fields(suite) -> dict:
    """The metadata that identify the machine (boot_time is volatile for the hash, but names the boot)."""
    from ..evidence.machine import IDENTITY_KEYS

    wanted = {key for keys in IDENTITY_KEYS.values() for key in keys if "." not in key}
    found = {}
    for bench in suite.get_benchmarks():
        for key, value in bench.get_metadata().items():
            if key in wanted:
                found.setdefault(key, str(value))
    return found


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        benchmarks = value.get("benchmarks")
        return LIKELY if isinstance(benchmarks, list) and (
            "version" in value or any(isinstance(b, dict) and "runs" in b for b in benchmarks)) else 0
    if value is None and head.json_keys("benchmarks") and ('"runs"' in head.json_text or head.json_keys("version")):
        return LIKELY - 1
    return 0


READER = Format(name=FORMAT, title="pyperf/pyperformance JSON",
                reads="pyperf 1.x and 2.x files (.json or .json.gz), loaded by pyperf itself; after launcher lines",
                recognize=_recognize, read=read)
