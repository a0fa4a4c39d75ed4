"""criterion.rs output folders (``target/criterion/<group>/<bench>/new/``): one benchmark per folder.

``sample.json`` holds ``iters`` and ``times``: sample *i* ran ``iters[i]`` iterations in ``times[i]``
nanoseconds; each sample becomes a row ``time`` = ``times[i] / iters[i]`` ns with column
``iterations``.  Every sample ran in one process (``invocation`` 0): they describe that process.
``estimates.json`` holds criterion's bootstrap estimates; mean and median (with their bootstrap
CIs) are stated summaries the checklist recomputes, ``std_dev`` and ``median_abs_dev`` are stated
spreads, ``slope`` (a regression of time on iterations) is kept in attr ``criterion_slope``.
``benchmark.json`` names the benchmark (group, function, value) and its throughput, which adds
rows ``throughput`` (B/s or elements/s) per sample.
"""

from __future__ import annotations

from pathlib import Path

from .. import inputs
from ..errors import AuditInputError
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .sw_fields import mapping, number, numbers, summary
from .head import Head
from .registry import CERTAIN, Format, Group

FORMAT = "criterion"
SAMPLE, ESTIMATES, BENCHMARK = "sample.json", "estimates.json", "benchmark.json"
THROUGHPUT_UNITS = {"Bytes": "B/s", "BytesDecimal": "B/s", "Elements": "elements/s"}


def _kind(value) -> str | None:
    """Which of criterion's files a parsed JSON value is, by the keys criterion writes in each."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("iters"), list) and isinstance(value.get("times"), list):
        return SAMPLE
    mean = value.get("mean")
    if isinstance(mean, dict) and "point_estimate" in mean and ("std_dev" in value or "median_abs_dev" in value):
        return ESTIMATES
    if "group_id" in value and ("full_id" in value or "directory_name" in value):
        return BENCHMARK
    return None


def _files(folder: Path, files: list[Path]) -> dict[str, dict]:
    """The folder's criterion files by kind, each parsed once (a second file of one kind is an error)."""
    found: dict[str, dict] = {}
    for file in files:
        data = inputs.read_json_object(file, f"{FORMAT} file", AuditInputError)
        kind = _kind(data)
        if kind in found:
            raise ReaderError(file, f"{FORMAT}: a second {kind} file in {folder}")
        found[kind] = {"path": file, "data": data}
    if SAMPLE not in found:
        first = sorted(files)[0]
        raise ReaderError(first, f"{FORMAT}: no sample.json (iters, times) beside it in {folder}")
    return found


def _identity(found: dict, folder: Path) -> dict:
    bench = found.get(BENCHMARK, {}).get("data", {})
    group = str(bench.get("group_id") or folder.parent.parent.name)
    value = (bench.get("value_str") or "") if bench else folder.parent.name
    return {"workload": group, "implementation": str(bench.get("function_id") or ""), "param_value": str(value)}


def _rows(found: dict, identity: dict) -> list[dict]:
    path, data = found[SAMPLE]["path"], found[SAMPLE]["data"]
    iters, times = numbers(path, FORMAT, "iters", data["iters"]), numbers(path, FORMAT, "times", data["times"])
    if len(iters) != len(times) or any(i <= 0 for i in iters):
        raise ReaderError(path, f"{FORMAT}: {len(iters)} iteration counts for {len(times)} times (each count > 0)")
    common = dict(benchmark=FORMAT, **identity, run_id=f"{identity['workload']}/{identity['param_value']}#0",
                  invocation=0, sampling_mode=str(data.get("sampling_mode", "")))
    out = [row(**common, metric="time", value=t / i, unit="ns", iteration=k, iterations=int(i))
           for k, (i, t) in enumerate(zip(iters, times), start=1)]
    bench = found.get(BENCHMARK, {}).get("data", {})
    for name, amount in (bench.get("throughput") or {}).items():
        unit = THROUGHPUT_UNITS.get(name)
        if unit:
            out += [row(**common, metric="throughput", value=float(amount) * i / (t * 1e-9), unit=unit, iteration=k,
                        iterations=int(i)) for k, (i, t) in enumerate(zip(iters, times), start=1)]
    return out


def _estimates(found: dict, identity: dict, n: int) -> tuple[list[dict], dict]:
    if ESTIMATES not in found:
        return [], {}
    path, data = found[ESTIMATES]["path"], found[ESTIMATES]["data"]
    filters = {"workload": identity["workload"], "implementation": identity["implementation"],
               "param_value": identity["param_value"], "metric": "time"}
    stated = []
    for key, statistic in (("mean", "arithmetic_mean"), ("median", "median"), ("std_dev", "stddev"),
                           ("median_abs_dev", "mad")):
        if data.get(key) is None:
            continue
        estimate = mapping(path, FORMAT, key, data[key])
        value = number(path, FORMAT, f"{key}.point_estimate", estimate.get("point_estimate"))
        interval = mapping(path, FORMAT, f"{key}.confidence_interval", estimate.get("confidence_interval"))
        bounds = [number(path, FORMAT, f"{key}.confidence_interval.{b}", interval.get(b))
                  for b in ("lower_bound", "upper_bound")]
        level = number(path, FORMAT, f"{key}.confidence_interval.confidence_level", interval.get("confidence_level"))
        if statistic in ("arithmetic_mean", "median"):
            stated.append(summary("time", statistic, value, "ns", filters, n, f"criterion's {key} estimate "
                                  f"(bootstrap CI at {level:.0%}) over {n} samples of one process",
                                  ci=bounds, confidence=level, ci_method="bootstrap"))
        else:
            stated.append(summary("time", statistic, value, "ns", filters, n, f"criterion's {key} estimate, "
                                  f"bootstrap CI [{bounds[0]:.6g}, {bounds[1]:.6g}] ns", kind="dispersion"))
    slope = data.get("slope")
    return stated, ({"point_estimate": slope.get("point_estimate"), **filters} if isinstance(slope, dict) else {})


def read(folder: Path, files: list[Path]) -> list:
    """One Dataset for the benchmark of ``folder`` (its sample, estimates and benchmark files)."""
    found = _files(folder, files)
    identity = _identity(found, folder)
    records = _rows(found, identity)
    stated, slope = _estimates(found, identity, sum(r["metric"] == "time" for r in records))
    attrs = {"summaries": stated, "factors": ["param_value"], "criterion_slope": slope,
             "levels": {"invocation": INVOCATION_LEVEL + " (criterion: every sample in one process)",
                        "iteration": "sample number; each value is the mean of 'iterations' iterations"},
             "metric_kinds": {"iterations": "count"}}
    source = found[SAMPLE]["path"]
    return [build(source, FORMAT, FORMAT, records, environment=None,
                  config={"sampling_mode": records[0]["sampling_mode"]}, attrs=attrs)]


def _recognize(head: Head) -> int:
    if head.document is not None:
        return CERTAIN if _kind(head.document) else 0
    return CERTAIN if head.json_keys("iters", "times") and head.json_keys("sampling_mode") else 0


def _read_folders(files: dict[str, list[Path]]) -> list:
    found = files[FORMAT]
    return read(found[0].parent, found)


READER = Format(name=FORMAT, title="criterion.rs folders", reads="new/sample.json, estimates.json, benchmark.json",
                recognize=_recognize, group=Group(FORMAT, _read_folders))
