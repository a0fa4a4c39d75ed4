"""airspeed velocity (asv) results JSON (``results/<machine>/<commit>-<env>.json``, format version 2).

``results`` maps each benchmark to a list laid out by ``result_columns``: ``result`` (asv's median,
one per parameter combination; null = failed, NaN = skipped: listed in attr ``not_measured``), ``params`` (one list of values per
parameter: the combinations are their product), ``stats_ci_99_a`` / ``_b`` (asv's 99% CI of the
median), ``stats_q_25`` / ``_q_75`` (quartiles, rounded by asv), ``stats_number`` (calls per
sample), ``stats_repeat`` (samples) and, with ``--record-samples``, ``samples``.  Samples become
rows (``time`` in s for ``time_*`` benchmarks, ``B`` for ``mem_*``/``peakmem_*``, ``1`` for
``track_*``); asv's median and CI are stated summaries; without samples the stated numbers are
rows ``<metric>_median`` (derived, not samples).  asv runs the samples in several processes but
does not record which sample came from which, so the samples are the only level.  ``machine.json``
beside the file and the file's ``params`` are the environment; ``benchmarks.json`` one folder up
names the parameters (else ``param_0``, ``param_1``, …).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

from .. import inputs
from ..errors import AuditInputError
from .common import ReaderError, build, row
from .sw_fields import mapping, number, scalars, summary, text

from .head import Head
from .registry import CERTAIN, LIKELY, Format

FORMAT = "asv"
UNITS = (("time_", "time", "s"), ("timeraw_", "time", "s"), ("peakmem_", "peak_memory", "B"),
         ("mem_", "memory", "B"), ("track_", "value", "1"))


def _kind(name: str) -> tuple[str, str]:
    method = name.rsplit(".", 1)[-1]
    return next(((metric, unit) for prefix, metric, unit in UNITS if method.startswith(prefix)), ("value", "1"))


def _param_names(path: Path) -> dict:
    """{benchmark: [parameter names]} from asv's benchmarks.json one folder up, when it is there."""
    catalogue = path.parent.parent / "benchmarks.json"
    try:
        data = json.loads(catalogue.read_text())
    except (OSError, ValueError):
        return {}
    return {k: v.get("param_names") for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _column(entry: dict, key: str, index: int):
    values = entry.get(key)
    return values[index] if isinstance(values, list) and index < len(values) else None


def _combination_rows(path, name, entry, index, combo, names) -> tuple[list[dict], list[dict]]:
    metric, unit = _kind(name)
    params = {f"param_{names[i] if i < len(names) else i}": str(v) for i, v in enumerate(combo)}
    where = f"results[{name!r}] combination {index}"
    result = number(path, FORMAT, f"{where} result", _column(entry, "result", index), allow_none=True) \
        if not _is_nan(_column(entry, "result", index)) else math.nan
    common = dict(benchmark=FORMAT, workload=name, **params, run_id=f"{name}{sorted(params.items())}")
    number_ = _column(entry, "stats_number", index)
    repeat = _column(entry, "stats_repeat", index)
    if result is None or math.isnan(result):  # no number to keep: listed in attr not_measured instead
        return [], [{"not_measured": "failed" if result is None else "skipped", "workload": name, **params}]
    samples = _column(entry, "samples", index)
    filters = {"workload": name, "metric": metric, **params}
    if isinstance(samples, list) and samples:
        records = [row(**common, metric=metric, unit=unit, iteration=i, iterations=int(number_ or 1),
                       value=number(path, FORMAT, f"{where} samples[{i - 1}]", v)) for i, v in enumerate(samples, 1)]
    else:
        records = [row(**common, metric=f"{metric}_median", unit=unit, value=result)]
    sampled = isinstance(samples, list) and bool(samples)
    n = len(samples) if sampled else repeat if isinstance(repeat, int) and not isinstance(repeat, bool) else None
    return records, _stated(entry, index, metric, unit, filters, result, n, sampled)


def _stated(entry, index, metric, unit, filters, result, n, sampled: bool) -> list[dict]:
    low, high = _column(entry, "stats_ci_99_a", index), _column(entry, "stats_ci_99_b", index)
    ci = [low, high] if all(isinstance(v, (int, float)) for v in (low, high)) else None
    out = [summary(metric, "median", result, unit, filters, n, "asv's result: the median of its samples",
                   ci=ci, confidence=0.99 if ci else None, ci_method="asv_quantile_ci" if ci else None,
                   recomputable=None if sampled else 0)]
    for key, statistic in (("stats_q_25", "p25"), ("stats_q_75", "p75")):
        value = _column(entry, key, index)
        if isinstance(value, (int, float)):
            out.append(summary(metric, statistic, value, unit, filters, n, "asv's quartile, rounded to 5 "
                               "significant digits: its measure of spread", kind="dispersion"))
    return out


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _benchmark(path, name, values, columns, names) -> tuple[list[dict], list[dict]]:
    if not isinstance(values, list):
        raise ReaderError(path, f"{FORMAT}: results[{name!r}] is not a list laid out by result_columns")
    entry = dict(zip(columns, values))
    params = entry.get("params") or []
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        raise ReaderError(path, f"{FORMAT}: results[{name!r}] params is not a list of value lists")
    records, stated = [], []
    for index, combo in enumerate(itertools.product(*params)):
        found, said = _combination_rows(path, name, entry, index, combo, names or [])
        records += found
        stated += said
    return records, stated


def _split(stated: list[dict]) -> tuple[list[dict], list[dict]]:
    """Stated summaries apart from the combinations asv did not measure (null = failed, NaN = skipped)."""
    missing = [s for s in stated if "not_measured" in s]
    return [s for s in stated if "not_measured" not in s], missing


def _environment(path: Path, data: dict) -> dict:
    machine_file = path.parent / "machine.json"
    machine = {}
    if machine_file.is_file():
        machine = mapping(machine_file, FORMAT, "machine.json", inputs.read_json(machine_file, "asv machine.json",
                                                                                 AuditInputError))
    facts = {**scalars(mapping(path, FORMAT, "params", data.get("params"), required=False)), **scalars(machine)}
    facts.pop("version", None)
    facts.update({k: data[k] for k in ("env_name", "python") if isinstance(data.get(k), str)})
    return facts


def read(path: Path) -> list:
    """Samples (or asv's medians) per benchmark and parameter combination; machine.json as the environment."""
    data = inputs.read_json_object(path, f"{FORMAT} file", AuditInputError)
    columns = data.get("result_columns")
    if not isinstance(columns, list) or "result" not in columns:
        raise ReaderError(path, f"{FORMAT}: result_columns does not name a 'result' column")
    names, records, stated = _param_names(path), [], []
    for name, values in mapping(path, FORMAT, "results", data.get("results")).items():
        found, said = _benchmark(path, text(path, FORMAT, "a results key", name), values, columns, names.get(name))
        records += found
        stated += said
    stated, missing = _split(stated)
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    derived = sorted({r["metric"] for r in records if r["metric"].endswith("_median")})
    attrs = {"summaries": stated, "factors": factors, "derived_metrics": derived, "not_measured": missing,
             "benchmarked_commit": str(data.get("commit_hash", "")), "run_date": str(data.get("date", "")),
             "levels": {"iteration": "sample number; asv ran the samples in several processes without saying which"},
             "metric_kinds": {"iterations": "count"}}
    return [build(path, FORMAT, FORMAT, records, environment=_environment(path, data),
                  config={"requirements": data.get("requirements") or {}, "env_vars": data.get("env_vars") or {}},
                  attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict):
        return CERTAIN if isinstance(value.get("results"), dict) and "result_columns" in value else 0
    return LIKELY if value is None and head.json_keys("result_columns", "results") else 0


READER = Format(name=FORMAT, title="asv results JSON", reads="asv results API version 2 (results/<machine>/*.json)",
                recognize=_recognize, read=read)
