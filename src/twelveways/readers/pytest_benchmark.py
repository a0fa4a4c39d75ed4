"""pytest-benchmark JSON (``--benchmark-json`` / ``--benchmark-autosave``, ``.benchmarks/<machine>/NNNN_*.json``).

Every entry of ``benchmarks`` is one test: its ``stats.data`` (saved with ``--benchmark-save-data``,
``--benchmark-json`` always) holds one value per *round*: the time of ``stats.iterations`` calls
divided by that count, in seconds.  All rounds ran in one pytest process (``invocation`` 0), so they
describe that process, not independent runs.  ``stats`` (min, max, mean, median, stddev, quartiles,
IQR) are the tool's statements (attr ``summaries``): recomputed from ``data`` when it is there, else
kept as stated numbers the file holds no samples for (rows ``time_<statistic>``, derived metrics).
``machine_info`` is the environment, ``commit_info`` the benchmarked commit, ``options`` the settings
and ``params`` the factors (``param_<name>``).
"""

from __future__ import annotations

from pathlib import Path

from .. import inputs
from ..errors import AuditInputError
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .sw_fields import common_items, mapping, number, numbers, scalars, summary, text

from .head import Head
from .registry import CERTAIN, LIKELY, Format

FORMAT = "pytest-benchmark"
CENTRES = {"mean": "arithmetic_mean", "median": "median", "min": "min", "max": "max"}
SPREADS = {"stddev": "stddev", "q1": "p25", "q3": "p75", "iqr": "iqr"}
VOLATILE = {"node"}


def _load(path: Path) -> dict:
    data = inputs.read_json_object(path, f"{FORMAT} file", AuditInputError)
    if not isinstance(data.get("benchmarks"), list) or not data["benchmarks"]:
        raise ReaderError(path, f"{FORMAT}: no 'benchmarks' list")
    return data


def _identity(entry: dict, path: Path, index: int) -> tuple[dict, dict]:
    """The row columns naming a test (name, group, params) and the filters that select its rows."""
    where = f"benchmarks[{index}]"
    name = text(path, FORMAT, f"{where}.fullname", entry.get("fullname") or entry.get("name"))
    params = {f"param_{k}": str(v) for k, v in mapping(path, FORMAT, f"{where}.params", entry.get("params"),
                                                      required=False).items()}
    columns = dict(benchmark=FORMAT, workload=name, implementation=str(entry.get("group") or ""), **params)
    return columns, {"workload": name, **params}


def _entry(entry, path: Path, index: int) -> tuple[list[dict], list[dict]]:
    where = f"benchmarks[{index}]"
    stats = mapping(path, FORMAT, f"{where}.stats", entry.get("stats") if isinstance(entry, dict) else None)
    columns, filters = _identity(entry, path, index)
    rounds = int(number(path, FORMAT, f"{where}.stats.rounds", stats.get("rounds")))
    loops = int(number(path, FORMAT, f"{where}.stats.iterations", stats.get("iterations", 1)))
    data = stats.get("data")
    records = []
    if data is not None:
        values = numbers(path, FORMAT, f"{where}.stats.data", data)
        if len(values) != rounds:
            raise ReaderError(path, f"{FORMAT}: {where} has {len(values)} data values but stats.rounds = {rounds}")
        records = [row(**columns, metric="time", value=v, unit="s", run_id=f"{filters['workload']}#0", invocation=0,
                       iteration=i, iterations=loops) for i, v in enumerate(values, start=1)]
    stated, has_data = [], bool(records)
    for key, statistic in {**CENTRES, **SPREADS}.items():
        if key not in stats:
            continue
        value = number(path, FORMAT, f"{where}.stats.{key}", stats[key])
        spread = key in SPREADS
        note = (f"pytest-benchmark's {key} over {rounds} rounds of one process"
                + ("; its quartile method is its own, so it is kept as a spread, not recomputed" if spread else ""))
        stated.append(summary("time", statistic, value, "s", filters, rounds, note,
                              kind="dispersion" if spread else None,
                              recomputable=None if has_data or spread else 0))
        if not has_data:
            records.append(row(**columns, metric=f"time_{key}", value=value, unit="s", run_id=f"{filters['workload']}#0",
                               invocation=0, iterations=loops))
    return records, stated


def read(path: Path) -> list:
    """Rows per round (or the stated statistics when no data was saved), machine_info as the environment."""
    data = _load(path)
    records, stated = [], []
    for index, entry in enumerate(data["benchmarks"]):
        found, said = _entry(entry, path, index)
        records += found
        stated += said
    machine = mapping(path, FORMAT, "machine_info", data.get("machine_info"), required=False)
    environment = {k: v for k, v in machine.items() if k not in VOLATILE}
    options = [scalars(e.get("options") or {}) for e in data["benchmarks"] if isinstance(e, dict)]
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    derived = sorted({r["metric"] for r in records if r["metric"] != "time"})
    attrs = {"summaries": stated, "factors": factors, "derived_metrics": derived,
             "levels": {"invocation": INVOCATION_LEVEL + " (pytest-benchmark: every round in one pytest process)",
                        "iteration": "round number; each value is the mean of 'iterations' calls"},
             "commit_info": data.get("commit_info") or {}, "run_date": str(data.get("datetime", "")),
             "tool_version": str(data.get("version", "")), "metric_kinds": {"iterations": "count"}}
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


READER = Format(name=FORMAT, title="pytest-benchmark JSON", reads="pytest-benchmark 3 and 4 (--benchmark-json)",
                recognize=_recognize, read=read)
