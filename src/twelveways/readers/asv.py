"""airspeed velocity (asv) results JSON (``results/<machine>/<commit>-<env>.json``), API versions 1 and 2.

Version 2 (asv 0.5 on): ``results`` maps each benchmark to a list laid out by ``result_columns``:
``result`` (asv's median, one per parameter combination), ``params`` (one list of values per
parameter: the combinations are their product), ``stats_ci_99_a`` / ``_b`` (asv's 99% CI of the
median), ``stats_q_25`` / ``_q_75`` (quartiles, rounded by asv), ``stats_number`` (calls per
sample), ``stats_repeat`` (samples) and, with ``--record-samples``, ``samples``.  Version 1 (older
asv): ``results`` maps each benchmark to its value, or to ``{"result", "params", "stats",
"samples"}`` with one stats object (``ci_99``, ``q_25``, ``q_75``, ``number``, ``repeat``) per
combination; it is brought to the version 2 columns and read the same way.

asv writes ``null`` for a benchmark or combination that failed and NaN for one it skipped: that
combination is left out and listed in attr ``not_measured`` with the reason, never the whole file.
Samples become rows (``time`` in s for ``time_*`` benchmarks, ``B`` for ``mem_*``/``peakmem_*``,
``1`` for ``track_*``); asv's median and CI are stated summaries; without samples the stated numbers
are rows ``<metric>_median`` (derived, not samples).  asv runs the samples in several processes but
does not record which sample came from which, so the samples are the only level.  ``machine.json``
beside the file and the file's ``params`` are the environment; ``benchmarks.json`` one folder up
names the parameters (else ``param_0``, ``param_1``, …).  A parameter product beyond
:data:`MAX_COMBINATIONS` is refused before it is expanded.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

from . import decode
from .common import ReaderError, build, row
from .decode import Count, Finite, MaybeNumber
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .sw_fields import scalars, summary

FORMAT = "asv"
UNITS = (("time_", "time", "s"), ("timeraw_", "time", "s"), ("peakmem_", "peak_memory", "B"),
         ("mem_", "memory", "B"), ("track_", "value", "1"))
#: Most parameter combinations of one benchmark (asv suites hold tens to thousands).
MAX_COMBINATIONS = 100_000
Scalar = str | int | float | bool | None
STAT_KEYS = {"ci_99_a": "stats_ci_99_a", "ci_99_b": "stats_ci_99_b", "q_25": "stats_q_25", "q_75": "stats_q_75",
             "number": "stats_number", "repeat": "stats_repeat"}


class Columns(decode.Model):
    """One benchmark of version 2, its columns by name (``result`` is checked per combination)."""

    result: Any = None
    params: list[list[Scalar]] = []
    stats_ci_99_a: list[MaybeNumber] | None = None
    stats_ci_99_b: list[MaybeNumber] | None = None
    stats_q_25: list[MaybeNumber] | None = None
    stats_q_75: list[MaybeNumber] | None = None
    stats_number: list[Count | None] | None = None
    stats_repeat: list[Count | None] | None = None
    samples: list[list[Finite] | None] | None = None


class Stats1(decode.Model):
    """A version 1 stats object of one combination."""

    ci_99: list[MaybeNumber] | None = None
    q_25: MaybeNumber = None
    q_75: MaybeNumber = None
    number: Count | None = None
    repeat: Count | None = None


class Entry1(decode.Model):
    """One benchmark of version 1 written as an object."""

    result: Any = None
    params: list[list[Scalar]] = []
    stats: list[Stats1 | None] | Stats1 | None = None
    samples: list[list[Finite] | None] | list[Finite] | None = None


def _kind(name: str) -> tuple[str, str]:
    method = name.rsplit(".", 1)[-1]
    return next(((metric, unit) for prefix, metric, unit in UNITS if method.startswith(prefix)), ("value", "1"))


def _param_names(path: Path) -> dict:
    """{benchmark: [parameter names]} from asv's benchmarks.json one folder up, when it is there and readable."""
    catalogue = path.parent.parent / "benchmarks.json"
    if not catalogue.is_file():
        return {}
    try:
        data = decode.load_json(catalogue, "asv benchmarks.json")
    except ReaderError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v["param_names"] for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("param_names"), list)
            and all(isinstance(n, str) for n in v["param_names"])}


def _combinations(path: Path, where: str, params: list[list]) -> int:
    """How many combinations the parameters make, refused past :data:`MAX_COMBINATIONS` before any is built."""
    count = 1
    for values in params:
        count *= len(values)
        if count > MAX_COMBINATIONS:
            sizes = " x ".join(str(len(v)) for v in params)
            raise ReaderError(path, f"{FORMAT}: {where}.params make {sizes} combinations, more than "
                                    f"{MAX_COMBINATIONS:,} (damaged file?)")
    return count


def _results(path: Path, where: str, result, count: int) -> list[float | None | str]:
    """One result per combination: a number, "failed" (asv wrote null) or "skipped" (NaN)."""
    values = result if isinstance(result, list) else [result]
    if all(v is None for v in values):
        return ["failed"] * count
    if len(values) == 1 and count > 1 and isinstance(values[0], float) and math.isnan(values[0]):
        return ["skipped"] * count
    if len(values) != count:
        raise ReaderError(path, f"{FORMAT}: {where}.result holds {len(values)} value(s) for {count} parameter "
                                "combination(s)")
    out = []
    for i, value in enumerate(values):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            out.append("failed" if value is None else "skipped")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ReaderError(path, f"{FORMAT}: {where}.result[{i}] is {decode.shown(value)}, not a finite number")
        else:
            out.append(float(value))
    return out


def _at(values, index: int):
    return values[index] if isinstance(values, list) and index < len(values) else None


def _combination(path, name, cols: Columns, index, combo, names, outcome) -> tuple[list[dict], list[dict]]:
    params = {f"param_{names[i] if i < len(names) else i}": str(v) for i, v in enumerate(combo)}
    if isinstance(outcome, str):  # no number to keep: listed in attr not_measured instead
        return [], [{"not_measured": outcome, "workload": name, **params}]
    metric, unit = _kind(name)
    if unit != "1" and outcome < 0:
        raise ReaderError(path, f"{FORMAT}: results[{name!r}].result[{index}] is {outcome:g}, below 0 {unit}")
    common = dict(benchmark=FORMAT, workload=name, **params, run_id=f"{name}{sorted(params.items())}")
    number, repeat, samples = _at(cols.stats_number, index), _at(cols.stats_repeat, index), _at(cols.samples, index)
    filters = {"workload": name, "metric": metric, **params}
    if samples and unit != "1" and min(samples) < 0:
        raise ReaderError(path, f"{FORMAT}: results[{name!r}].samples[{index}] holds {min(samples):g}, below 0 {unit}")
    if samples:
        records = [row(**common, metric=metric, unit=unit, iteration=i, iterations=number or 1, value=v)
                   for i, v in enumerate(samples, 1)]
    else:
        records = [row(**common, metric=f"{metric}_median", unit=unit, value=outcome)]
    n = len(samples) if samples else repeat
    return records, _stated(cols, index, metric, unit, filters, outcome, n, bool(samples))


def _stated(cols: Columns, index, metric, unit, filters, result, n, sampled: bool) -> list[dict]:
    low, high = _at(cols.stats_ci_99_a, index), _at(cols.stats_ci_99_b, index)
    ci = [low, high] if low is not None and high is not None else None
    out = [summary(metric, "median", result, unit, filters, n, "asv's result: the median of its samples",
                   ci=ci, confidence=0.99 if ci else None, ci_method="asv_quantile_ci" if ci else None,
                   recomputable=None if sampled else 0)]
    for value, statistic in ((_at(cols.stats_q_25, index), "p25"), (_at(cols.stats_q_75, index), "p75")):
        if value is not None:
            out.append(summary(metric, statistic, value, unit, filters, n, "asv's quartile, rounded to 5 "
                               "significant digits: its measure of spread", kind="dispersion"))
    return out


def _benchmark(path, name, cols: Columns, names) -> tuple[list[dict], list[dict]]:
    where = f"results[{name!r}]"
    count = _combinations(path, where, cols.params)
    outcomes = _results(path, where, cols.result, count)
    records, stated = [], []
    for index, combo in enumerate(itertools.product(*cols.params)):
        found, said = _combination(path, name, cols, index, combo, names or [], outcomes[index])
        records += found
        stated += said
    return records, stated


def _version2(path: Path, data: dict) -> dict[str, Columns]:
    columns = data.get("result_columns")
    if not isinstance(columns, list) or "result" not in columns or not all(isinstance(c, str) for c in columns):
        raise ReaderError(path, f"{FORMAT}: result_columns does not name a 'result' column")
    out = {}
    for name, values in data["results"].items():
        if not isinstance(values, list):
            raise ReaderError(path, f"{FORMAT}: results[{name!r}] is {decode.shown(values)}, not a list laid out "
                                    "by result_columns")
        out[name] = decode.validate(path, FORMAT, Columns, dict(zip(columns, values)), f"results[{name!r}]")
    return out


def _stats_columns(stats, count: int) -> dict:
    """Version 1 stats (one object, or one per combination) as version 2 columns."""
    each = stats if isinstance(stats, list) else [stats] * count
    columns: dict[str, list] = {column: [] for column in STAT_KEYS.values()}
    for one in each:
        ci = (one.ci_99 if one is not None else None) or [None, None]
        found = {"ci_99_a": ci[0], "ci_99_b": ci[1] if len(ci) > 1 else None}
        if one is not None:
            found.update(q_25=one.q_25, q_75=one.q_75, number=one.number, repeat=one.repeat)
        for key, column in STAT_KEYS.items():
            columns[column].append(found.get(key))
    return columns


def _version1(path: Path, data: dict) -> dict[str, Columns]:
    """Version 1 benchmarks (a bare value, or an object with result/params/stats) as version 2 columns."""
    out = {}
    for name, value in data["results"].items():
        where = f"results[{name!r}]"
        entry = decode.validate(path, FORMAT, Entry1, value if isinstance(value, dict) else {"result": value}, where)
        count = _combinations(path, where, entry.params)
        samples = entry.samples
        if samples and not isinstance(samples[0], (list, type(None))):
            samples = [samples]
        out[name] = Columns.model_construct(result=entry.result, params=entry.params, samples=samples,
                                            **_stats_columns(entry.stats, count))
    return out


def _environment(path: Path, data: dict) -> dict:
    machine_file = path.parent / "machine.json"
    machine = {}
    if machine_file.is_file():
        machine = decode.load_json(machine_file, "asv machine.json")
        if not isinstance(machine, dict):
            raise ReaderError(machine_file, "asv machine.json: not an object")
    params = data.get("params") if isinstance(data.get("params"), dict) else {}
    facts = {**scalars(params), **scalars(machine)}
    facts.pop("version", None)
    facts.update({k: data[k] for k in ("env_name", "python") if isinstance(data.get(k), str)})
    return facts


def _settings(data: dict) -> dict:
    return {k: data[k] if isinstance(data.get(k), dict) else {} for k in ("requirements", "env_vars")}


def read(path: Path) -> list:
    """Samples (or asv's medians) per benchmark and parameter combination; machine.json as the environment."""
    data = decode.load_json(path, FORMAT)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReaderError(path, f"{FORMAT}: no 'results' object")
    benchmarks = _version2(path, data) if "result_columns" in data else _version1(path, data)
    names, records, stated, missing = _param_names(path), [], [], []
    for name, cols in benchmarks.items():
        if not name.strip():
            raise ReaderError(path, f"{FORMAT}: a results key is empty, not a benchmark name")
        found, said = _benchmark(path, name, cols, names.get(name))
        records += found
        stated += [s for s in said if "not_measured" not in s]
        missing += [s for s in said if "not_measured" in s]
    if not records:
        raise ReaderError(path, f"{FORMAT}: every benchmark of the file failed or was skipped "
                                f"({len(missing)} combination(s) without a result)")
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    derived = sorted({r["metric"] for r in records if r["metric"].endswith("_median")})
    attrs = {"summaries": stated, "factors": factors, "derived_metrics": derived, "not_measured": missing,
             "benchmarked_commit": str(data.get("commit_hash", "")), "run_date": str(data.get("date", "")),
             "tool_version": f"asv results API version {data.get('version', 1 if 'result_columns' not in data else 2)}",
             "levels": {"iteration": "sample number; asv ran the samples in several processes without saying which"},
             "metric_kinds": {"iterations": "count"}}
    return [build(path, FORMAT, FORMAT, records, environment=_environment(path, data), config=_settings(data),
                  attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        if not isinstance(value.get("results"), dict):
            return 0
        if "result_columns" in value:
            return CERTAIN
        return CERTAIN if value.get("version") == 1 and "commit_hash" in value else 0
    if value is None and head.json_keys("results") and (head.json_keys("result_columns")
                                                       or head.json_keys("commit_hash", "env_name")):
        return LIKELY
    return 0


READER = Format(name=FORMAT, title="asv results JSON",
                reads="asv results API versions 1 and 2 (results/<machine>/*.json); failed (null) and skipped (NaN) "
                      "combinations listed as not measured",
                recognize=_recognize, read=read,
                publishers=("django/django-asv", "emsig/empymod-bench", "Unidata/MetPy-benchmark",
                            "Flowminder/FlowKit-benchmarks"))
