"""pytest-benchmark JSON (``--benchmark-json`` / ``--benchmark-autosave``, ``.benchmarks/<machine>/NNNN_*.json``).

Every entry of ``benchmarks`` is one test: its ``stats.data`` (saved with ``--benchmark-save-data``,
``--benchmark-json`` always) holds one value per *round*: the time of ``stats.iterations`` calls
divided by that count, in seconds.  All rounds ran in one pytest process (``invocation`` 0), so they
describe that process, not independent runs.  ``stats`` (min, max, mean, median, stddev, quartiles,
IQR) are the tool's statements (attr ``summaries``): recomputed from ``data`` when it is there, else
kept as stated numbers the file holds no samples for (rows ``time_<statistic>``, derived metrics).
A ``data`` that a publishing tool trimmed (a placeholder string instead of the list, or a few values
followed by one such as ``"... omitted"``) is no set of rounds: the stated statistics are kept, and
attr ``per_iteration_values`` says so.  ``machine_info`` is the environment, ``commit_info`` the
benchmarked commit, ``options`` the settings and ``params`` the factors (``param_<name>``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .decode import Count, NonNegative
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .sw_fields import common_items, scalars, summary

FORMAT = "pytest-benchmark"
CENTRES = {"mean": "arithmetic_mean", "median": "median", "min": "min", "max": "max"}
SPREADS = {"stddev": "stddev", "q1": "p25", "q3": "p75", "iqr": "iqr"}
VOLATILE = {"node"}


class Stats(decode.Model):
    """``stats`` of one test: seconds per call (rounds of ``iterations`` calls); ``data`` is checked apart."""

    rounds: Count
    iterations: Count = 1
    data: Any = None
    min: NonNegative | None = None
    max: NonNegative | None = None
    mean: NonNegative | None = None
    median: NonNegative | None = None
    stddev: NonNegative | None = None
    q1: NonNegative | None = None
    q3: NonNegative | None = None
    iqr: NonNegative | None = None


class Bench(decode.Model):
    name: str = ""
    fullname: str = ""
    group: str | None = None
    params: dict[str, Any] | None = None
    options: dict[str, Any] | None = None
    stats: Stats


class Document(decode.Model):
    benchmarks: list[dict[str, Any]]
    machine_info: dict[str, Any] | None = None
    commit_info: dict[str, Any] | None = None
    datetime: str | None = None
    version: str | None = None


class Rounds(decode.Model):
    data: list[NonNegative]


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _trimmed(data, rounds: int) -> bool:
    """A placeholder a publishing tool put where the rounds were: a string, or values ending in strings."""
    if isinstance(data, str):
        return True
    if not isinstance(data, list):
        return False
    strings = [v for v in data if isinstance(v, str)]
    return bool(strings) and all(_is_number(v) or isinstance(v, str) for v in data) and len(data) - len(strings) < rounds


def _rounds(path: Path, where: str, stats: Stats) -> list[float] | None:
    """The per-round values; None when the file holds none (not saved, or trimmed by whoever published it)."""
    if stats.data is None or _trimmed(stats.data, stats.rounds):
        return None
    values = decode.validate(path, FORMAT, Rounds, {"data": stats.data}, f"{where}.stats").data
    if len(values) != stats.rounds:
        raise ReaderError(path, f"{FORMAT}: {where} has {len(values)} data values but stats.rounds = {stats.rounds}")
    return values


def _entry(raw, path: Path, index: int) -> tuple[list[dict], list[dict], bool]:
    """Rows and stated summaries of one test, and whether its data was trimmed."""
    where = f"benchmarks[{index}]"
    bench = decode.validate(path, FORMAT, Bench, raw, where)
    name = bench.fullname or bench.name
    if not name.strip():
        raise ReaderError(path, f"{FORMAT}: {where} has neither a fullname nor a name")
    params = {f"param_{k}": str(v)[:200] for k, v in (bench.params or {}).items()}
    columns = dict(benchmark=FORMAT, workload=name, implementation=str(bench.group or ""), **params)
    filters = {"workload": name, **params}
    stats = bench.stats
    values = _rounds(path, where, stats)
    common = dict(**columns, unit="s", run_id=f"{name}#0", invocation=0, iterations=stats.iterations)
    records = [row(**common, metric="time", value=v, iteration=i) for i, v in enumerate(values or [], start=1)]
    stated = []
    for key, statistic in {**CENTRES, **SPREADS}.items():
        value = getattr(stats, key)
        if value is None:
            continue
        spread = key in SPREADS
        note = (f"pytest-benchmark's {key} over {stats.rounds} rounds of one process"
                + ("; its quartile method is its own, so it is kept as a spread, not recomputed" if spread else ""))
        stated.append(summary("time", statistic, value, "s", filters, stats.rounds, note,
                              kind="dispersion" if spread else None,
                              recomputable=None if values is not None or spread else 0))
        if values is None:
            records.append(row(**common, metric=f"time_{key}", value=value))
    return records, stated, stats.data is not None and values is None


def read(path: Path) -> list:
    """Rows per round (or the stated statistics when no data was saved), machine_info as the environment."""
    doc = decode.validate(path, FORMAT, Document, decode.load_json(path, FORMAT))
    if not doc.benchmarks:
        raise ReaderError(path, f"{FORMAT}: the 'benchmarks' list is empty")
    records, stated, trimmed = [], [], 0
    for index, entry in enumerate(doc.benchmarks):
        found, said, cut = _entry(entry, path, index)
        records += found
        stated += said
        trimmed += cut
    environment = {k: v for k, v in (doc.machine_info or {}).items() if k not in VOLATILE}
    options = [scalars(e.get("options") or {}) for e in doc.benchmarks]
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    derived = sorted({r["metric"] for r in records if r["metric"] != "time"})
    attrs = {"summaries": stated, "factors": factors, "derived_metrics": derived,
             "levels": {"invocation": INVOCATION_LEVEL + " (pytest-benchmark: every round in one pytest process)",
                        "iteration": "round number; each value is the mean of 'iterations' calls"},
             "commit_info": doc.commit_info or {}, "run_date": str(doc.datetime or ""),
             "tool_version": str(doc.version or ""), "metric_kinds": {"iterations": "count"}}
    if trimmed:
        attrs["per_iteration_values"] = (f"the per-round data of {trimmed} test(s) was trimmed by whoever published "
                                         "the file (a placeholder instead of the rounds): their stated statistics "
                                         "are kept as derived rows")
    return [build(path, FORMAT, FORMAT, records, environment=environment, config=common_items(options), attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        benchmarks = value.get("benchmarks")
        return CERTAIN if isinstance(benchmarks, list) and (
            "machine_info" in value or "commit_info" in value
            or any(isinstance(b, dict) and "stats" in b for b in benchmarks)) else 0
    if value is None and head.json_keys("benchmarks") and (head.json_keys("machine_info")
                                                          or head.json_keys("commit_info")):
        return LIKELY
    return 0


READER = Format(name=FORMAT, title="pytest-benchmark JSON",
                reads="pytest-benchmark 2.5 to 4 (--benchmark-json, autosave): with per-round data, without, and "
                      "with data trimmed by a publishing tool (stated statistics kept)",
                recognize=_recognize, read=read,
                publishers=("ionelmc/pytest-benchmark", "conbench/conbench",
                            "benchmark-action/github-action-benchmark"))
