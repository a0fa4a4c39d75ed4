"""criterion.rs output folders (``target/criterion/<group>/<bench>/new/``), criterion 0.3 to 0.5: one benchmark per folder.

``sample.json`` holds ``iters`` and ``times``: sample *i* ran ``iters[i]`` iterations in ``times[i]``
nanoseconds; each sample becomes a row ``time`` = ``times[i] / iters[i]`` ns with column
``iterations``.  Every sample ran in one process (``invocation`` 0): they describe that process.
criterion 0.3 (and 0.4/0.5 with the ``csv_output`` feature) also writes ``raw.csv`` (group,
function, value, throughput_num, throughput_type, sample_measured_value, unit, iteration_count):
the same samples, so beside ``sample.json`` it is not read again; alone, its rows are read the same
way.  ``estimates.json`` holds criterion's bootstrap estimates; mean and median (with their
bootstrap CIs) are stated summaries the checklist recomputes, ``std_dev`` and ``median_abs_dev``
are stated spreads, ``slope`` (a regression of time on iterations) is kept in attr
``criterion_slope``.  ``benchmark.json`` names the benchmark (group, function, value) and its
throughput, which adds rows ``throughput`` (B/s or elements/s) per sample.  ``base/`` is criterion's
copy of the saved baseline: beside a ``new/`` it is not read again.  ``change/estimates.json`` (a
comparison of ``new`` against ``base``) and ``tukey.json`` are no results and are not taken.
"""

from __future__ import annotations

import csv
from pathlib import Path

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row, text_lines
from .decode import Count, Finite, Name, NonNegative
from .head import Head
from .registry import CERTAIN, Format, Group
from .sw_fields import summary

FORMAT = "criterion"
SAMPLE, ESTIMATES, BENCHMARK, RAW = "sample.json", "estimates.json", "benchmark.json", "raw.csv"
THROUGHPUT_UNITS = {"Bytes": "B/s", "BytesDecimal": "B/s", "Elements": "elements/s"}
RAW_COLUMNS = ("group", "function", "value", "throughput_num", "throughput_type", "sample_measured_value", "unit",
               "iteration_count")


class Sample(decode.Model):
    sampling_mode: str = ""
    iters: list[Count]
    times: list[NonNegative]


class Interval(decode.Model):
    confidence_level: Finite
    lower_bound: Finite
    upper_bound: Finite


class Estimate(decode.Model):
    point_estimate: Finite
    confidence_interval: Interval


class Estimates(decode.Model):
    mean: Estimate | None = None
    median: Estimate | None = None
    std_dev: Estimate | None = None
    median_abs_dev: Estimate | None = None
    slope: Estimate | None = None


class Benchmark(decode.Model):
    group_id: Name
    function_id: str | None = None
    value_str: str | None = None
    throughput: dict[str, Count] | None = None


def _kind(value) -> str | None:
    """Which of criterion's JSON files a parsed value is, by the keys criterion writes in each."""
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


def _raw_header(line: str) -> bool:
    """criterion's raw.csv header (0.3's, and 0.2's with sample_time_nanos)."""
    columns = [c.strip() for c in line.lstrip("\ufeff").split(",")]
    return {"group", "function", "value", "iteration_count"} <= set(columns) and (
        "sample_measured_value" in columns or "sample_time_nanos" in columns)


def _files(folder: Path, files: list[Path]) -> dict:
    """The folder's criterion files by kind: JSON parsed once, raw.csv by path (a second file of one kind is an error)."""
    found: dict = {}
    for file in files:
        if file.suffix.lower() == ".csv":
            kind, data = RAW, None
        else:
            data = decode.load_json(file, FORMAT)
            kind = _kind(data)
        if kind is None:
            continue
        if kind in found:
            raise ReaderError(file, f"{FORMAT}: a second {kind} file in {folder}")
        found[kind] = {"path": file, "data": data}
    if SAMPLE not in found and RAW not in found:
        raise ReaderError(sorted(files)[0], f"{FORMAT}: no sample.json (iters, times) nor raw.csv beside it in "
                                            f"{folder}")
    return found


def _raw_rows(path: Path) -> dict[tuple, list[tuple[float, int, str, dict | None]]]:
    """raw.csv's samples by benchmark (group, function, value): (measured, iterations, unit, throughput)."""
    lines = (text for _, text in text_lines(path, FORMAT))
    reader = csv.reader(lines)
    header = [c.strip().lstrip("\ufeff") for c in next(reader, [])]
    if not header or not _raw_header(",".join(header)):
        raise ReaderError(path, f"{FORMAT}: raw.csv does not begin with criterion's header ({','.join(RAW_COLUMNS)})")
    measured = "sample_measured_value" if "sample_measured_value" in header else "sample_time_nanos"
    out: dict[tuple, list] = {}
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ReaderError(path, f"{FORMAT}: raw.csv line {number} has {len(cells)} fields, the header {len(header)}")
        rec = dict(zip(header, cells))
        where = f"raw.csv line {number}"
        value = decode.number_field(path, FORMAT, f"{where} {measured}", rec[measured])
        count = decode.number_field(path, FORMAT, f"{where} iteration_count", rec["iteration_count"], low=1,
                                    integer=True)
        out.setdefault((rec["group"], rec["function"], rec["value"]), []).append(
            (value, count, rec.get("unit") or "ns", _raw_throughput(path, where, rec)))
    if not out:
        raise ReaderError(path, f"{FORMAT}: raw.csv holds a header and no samples")
    return out


def _raw_throughput(path: Path, where: str, rec: dict) -> dict | None:
    amount, kind = (rec.get("throughput_num") or "").strip(), (rec.get("throughput_type") or "").strip()
    if not amount:
        return None
    value = decode.number_field(path, FORMAT, f"{where} throughput_num", amount, integer=True)
    return {kind.capitalize() if kind.lower() in ("bytes", "elements") else kind: value}


def _identity(found: dict, folder: Path, raw_key: tuple | None) -> dict:
    bench = found[BENCHMARK]["model"] if BENCHMARK in found else None
    if bench is not None:
        return {"workload": bench.group_id, "implementation": bench.function_id or "",
                "param_value": bench.value_str or ""}
    if raw_key is not None:
        return {"workload": raw_key[0], "implementation": raw_key[1], "param_value": raw_key[2]}
    return {"workload": folder.parent.parent.name, "implementation": "", "param_value": folder.parent.name}


def _rows(path: Path, samples: list[tuple[float, int, str]], identity: dict, mode: str,
          throughput: dict | None) -> list[dict]:
    """Rows per sample (time per iteration) and, with a throughput, per-sample rates."""
    common = dict(benchmark=FORMAT, **identity, run_id=f"{identity['workload']}/{identity['implementation']}/"
                  f"{identity['param_value']}#0", invocation=0, sampling_mode=mode)
    out = [row(**common, metric="time", value=t / i, unit=unit, iteration=k, iterations=i)
           for k, (t, i, unit) in enumerate(samples, start=1)]
    for name, amount in (throughput or {}).items():
        unit = THROUGHPUT_UNITS.get(name)
        if unit is None or samples[0][2] != "ns":  # a rate per second needs times in ns (not a custom measurement)
            continue
        zero = next((k for k, (t, _, _) in enumerate(samples) if t == 0), None)
        if zero is not None:
            raise ReaderError(path, f"{FORMAT}: sample {zero + 1} took 0 {samples[zero][2]}: no {name} throughput "
                                    "can be computed from a zero-duration sample (damaged file?)")
        out += [row(**common, metric="throughput", value=amount * i / (t * 1e-9), unit=unit, iteration=k,
                    iterations=i) for k, (t, i, _) in enumerate(samples, start=1)]
    return out


def _estimates(found: dict, identity: dict, n: int) -> tuple[list[dict], dict]:
    if ESTIMATES not in found:
        return [], {}
    path = found[ESTIMATES]["path"]
    data = decode.validate(path, FORMAT, Estimates, found[ESTIMATES]["data"])
    filters = {**identity, "metric": "time"}
    stated = []
    for key, statistic in (("mean", "arithmetic_mean"), ("median", "median"), ("std_dev", "stddev"),
                           ("median_abs_dev", "mad")):
        estimate = getattr(data, key)
        if estimate is None:
            continue
        ci = estimate.confidence_interval
        bounds, level = [ci.lower_bound, ci.upper_bound], ci.confidence_level
        if statistic in ("arithmetic_mean", "median"):
            stated.append(summary("time", statistic, estimate.point_estimate, "ns", filters, n,
                                  f"criterion's {key} estimate (bootstrap CI at {level:.0%}) over {n} samples of one "
                                  "process", ci=bounds, confidence=level, ci_method="bootstrap"))
        else:
            stated.append(summary("time", statistic, estimate.point_estimate, "ns", filters, n,
                                  f"criterion's {key} estimate, bootstrap CI [{bounds[0]:.6g}, {bounds[1]:.6g}] ns",
                                  kind="dispersion"))
    slope = {"point_estimate": data.slope.point_estimate, **filters} if data.slope is not None else {}
    return stated, slope


def _dataset(source: Path, found: dict, identity: dict, records: list[dict]) -> object:
    stated, slope = _estimates(found, identity, sum(r["metric"] == "time" for r in records))
    attrs = {"summaries": stated, "factors": ["param_value"], "criterion_slope": slope,
             "levels": {"invocation": INVOCATION_LEVEL + " (criterion: every sample in one process)",
                        "iteration": "sample number; each value is the mean of 'iterations' iterations"},
             "metric_kinds": {"iterations": "count"}}
    return build(source, FORMAT, FORMAT, records, environment=None,
                 config={"sampling_mode": records[0]["sampling_mode"]}, attrs=attrs)


def read(folder: Path, files: list[Path]) -> list:
    """The benchmark of ``folder`` (sample.json, else raw.csv; estimates and benchmark beside them)."""
    found = _files(folder, files)
    if BENCHMARK in found:
        found[BENCHMARK]["model"] = decode.validate(found[BENCHMARK]["path"], FORMAT, Benchmark,
                                                    found[BENCHMARK]["data"])
    throughput = found[BENCHMARK]["model"].throughput if BENCHMARK in found else None
    if SAMPLE in found:
        path = found[SAMPLE]["path"]
        sample = decode.validate(path, FORMAT, Sample, found[SAMPLE]["data"])
        if len(sample.iters) != len(sample.times) or not sample.times or 0 in sample.iters:
            raise ReaderError(path, f"{FORMAT}: {len(sample.iters)} iteration counts for {len(sample.times)} times "
                                    "(each count > 0)")
        raw_key = _raw_key(found)
        identity = _identity(found, folder, raw_key)
        samples = [(t, i, "ns") for i, t in zip(sample.iters, sample.times)]
        return [_dataset(path, found, identity, _rows(path, samples, identity, sample.sampling_mode, throughput))]
    path = found[RAW]["path"]
    out = []
    for key, samples in _raw_rows(path).items():
        identity = _identity(found, folder, key)
        rate = throughput or next((s[3] for s in samples if s[3]), None)
        out.append(_dataset(path, found, identity, _rows(path, [s[:3] for s in samples], identity, "", rate)))
    return out


def _raw_key(found: dict) -> tuple | None:
    """raw.csv's (group, function, value) of its first sample, to name the benchmark when benchmark.json is absent."""
    if RAW not in found or BENCHMARK in found:
        return None
    return next(iter(_raw_rows(found[RAW]["path"])), None)


def _recognize(head: Head) -> int:
    if head.document is not None:
        return CERTAIN if _kind(head.document) else 0
    if not head.json_text:
        first = head.text.split("\n", 1)[0][:1000]
        return CERTAIN if _raw_header(first.rstrip("\r")) else 0
    opening = "".join(head.json_text[:200].split())  # sample.json opens with its keys, whatever follows
    return CERTAIN if opening.startswith('{"iters":[') or (
        opening.startswith('{"sampling_mode":') and '"iters":[' in opening) else 0


def _read_folders(files: dict[str, list[Path]]) -> list:
    found = files[FORMAT]
    folder = found[0].parent
    if folder.name == "base" and any((folder.parent / "new" / name).is_file() for name in (SAMPLE, RAW)):
        return []  # criterion's copy of the saved baseline: the same run as new/ (or an older one it compared to)
    return read(folder, found)


READER = Format(name=FORMAT, title="criterion.rs folders",
                reads="criterion 0.3 to 0.5: new/sample.json, estimates.json, benchmark.json, raw.csv (alone or "
                      "beside sample.json); base/ beside new/ and change/ are not results",
                recognize=_recognize, group=Group(FORMAT, _read_folders),
                publishers=("d702e20/CGAAL", "StoneDot/regtail", "Bajix/swap-queue-rs", "JeWaVe/hamming_rs"))
