"""Read LoadGen's logs back: the summary a human reads, the detail log, the trace and the accuracy log.

* ``mlperf_log_summary.txt``: the verdict ("Result is : VALID"), one line per criterion
  ("Min duration satisfied : Yes" ...), the headline number, early-stopping estimates and the
  latency percentiles.  These values are carried into the results unchanged.
* ``mlperf_log_detail.txt``: the same facts as ``:::MLLOG`` JSON lines, plus errors and warnings;
  used to cross-check the summary.
* ``mlperf_log_trace.json``: one ``Sample`` event per sample with ``complete_ns``, the latency
  LoadGen itself records (completion minus *scheduled* issue time).  It is the only source of
  true per-query latencies; :func:`per_query_latencies` recomputes LoadGen's percentiles from it
  (sorted[floor(n * p)], as in LoadGen's results.cc) and insists they equal the summary's.
* ``mlperf_log_accuracy.json``: every response's bytes (our int32 class ids) in accuracy mode.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import numpy as np

from ..errors import MeasurementError

SUMMARY = "mlperf_log_summary.txt"
DETAIL = "mlperf_log_detail.txt"
ACCURACY = "mlperf_log_accuracy.json"
TRACE = "mlperf_log_trace.json"

#: LoadGen's summary percentiles (fractions) and the metric names they get in the results.
PERCENTILES = {0.5: "latency_p50", 0.9: "latency_p90", 0.95: "latency_p95", 0.97: "latency_p97",
               0.99: "latency_p99", 0.999: "latency_p99.9"}

#: Summary criterion lines -> criterion names in the results.
CRITERIA = {
    "Performance constraints satisfied": "latency_bound_satisfied",
    "Min duration satisfied": "min_duration_satisfied",
    "Min queries satisfied": "min_queries_satisfied",
    "Early stopping satisfied": "early_stopping_satisfied",
}

_PCT = re.compile(r"^(\d+(?:\.\d+)?) percentile latency \(ns\)$")
_ES = re.compile(r"Early stopping (\d+(?:\.\d+)?)th percentile estimate: (\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)")
_SAMPLE = re.compile(rb'"name":"Sample","cat":"default","ph":"b",[^\n]*?"args":\{"sample_seq":(\d+),"query_seq":(\d+),'
                     rb'"sample_idx":(\d+),"issue_start_ns":(-?\d+),"complete_ns":(-?\d+)\}')


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MeasurementError(f"cannot read LoadGen log {path}", cause=exc) from exc
    except UnicodeDecodeError as exc:
        raise MeasurementError(f"{path}: not UTF-8 text (byte {exc.start} cannot be decoded)") from exc


def _nanoseconds(text: str, path: Path, what: str) -> int:
    """A latency LoadGen wrote (``5400000`` or ``5.4e6``: both are numbers) as whole nanoseconds."""
    value = _number(text)
    if isinstance(value, str) or not math.isfinite(value) or value < 0:
        raise MeasurementError(f"{path}: {what} is {text[:40]!r}, not a non-negative number of nanoseconds")
    return int(round(value))


def _number(text: str):
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def summary(run_dir: str | Path) -> dict:
    """Parse ``mlperf_log_summary.txt`` into verdict, criteria, headline, percentiles and parameters."""
    path = Path(run_dir) / SUMMARY
    text = _read_text(path)
    out: dict = {"criteria": {}, "percentiles": {}, "early_stopping": {}, "values": {}, "text": text}
    section = "head"
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == "Additional Stats":
            section = "stats"
        elif stripped == "Test Parameters Used":
            section = "params"
        for match in _ES.finditer(line):
            out["early_stopping"][float(match.group(1)) / 100] = _nanoseconds(match.group(2), path, "an early-stopping estimate")
        if stripped.startswith("*") or not stripped or set(stripped) <= set("="):
            continue
        if "satisfied" in stripped and ":" in stripped:
            name, _, flag = stripped.partition(":")
            name = name.strip()
            if name in CRITERIA:
                out["criteria"][CRITERIA[name]] = flag.strip().lower() == "yes"
            continue
        key, colon, value = stripped.partition(":")  # str.partition: a long line of spaces cannot backtrack
        key, value = key.strip(), value.strip()
        if not colon or not key or key[0] in "*=":
            continue
        pct = _PCT.match(key)
        if pct and section == "stats":
            out["percentiles"][round(float(pct.group(1)) / 100, 6)] = _nanoseconds(value, path, key)
            continue
        if key == "Result is":
            out["result"] = value
        elif key == "Scenario":
            out["scenario"] = value
        elif key == "Mode":
            out["mode"] = value
        else:
            out["values"][key if section != "params" else f"param:{key}"] = _number(value)
    if "result" not in out and "Starting accuracy mode" not in text:
        # accuracy-mode summaries carry no verdict; performance ones always do
        if out.get("mode", "") == "PerformanceOnly":
            raise MeasurementError(f"{path}: no 'Result is' line (damaged summary?)")
    return out


def detail(run_dir: str | Path) -> dict:
    """``:::MLLOG`` key -> value (last one wins), plus lists of errors and warnings."""
    path = Path(run_dir) / DETAIL
    values: dict = {}
    errors, warnings = [], []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.startswith(":::MLLOG "):
            continue
        try:
            entry = json.loads(line[len(":::MLLOG "):])
        except (ValueError, RecursionError):  # not JSON, or nested beyond what json can parse
            continue
        meta = entry.get("metadata") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or not isinstance(meta or {}, dict):
            raise MeasurementError(f"{path}: line {number} is not an MLLOG object with a 'key' and an object 'metadata'")
        key, value, meta = entry["key"], entry.get("value"), meta or {}
        if meta.get("is_error"):
            errors.append(f"{key}: {value}")
        elif meta.get("is_warning"):
            warnings.append(f"{key}: {value}")
        values[key] = value
    return {"values": values, "errors": errors, "warnings": warnings}


def _trace_chunks(run_dir: Path, block: int = 1 << 26):
    """The trace (plain or gzipped) in blocks that end at a newline, so memory stays bounded."""
    path = run_dir / TRACE
    gz = path.with_name(TRACE + ".gz")
    if path.is_file():
        handle = path.open("rb")
    elif gz.is_file():
        handle = gzip.open(gz, "rb")
    else:
        raise MeasurementError(f"{run_dir}: no LoadGen trace (run with the trace enabled)")
    with handle:
        rest = b""
        while True:
            data = handle.read(block)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            yield data[:cut]
        if rest:
            yield rest


def trace_samples(run_dir: str | Path) -> dict[str, np.ndarray]:
    """Every ``Sample`` event of the trace as arrays (sample_seq, query_seq, sample_idx, issue_start_ns, complete_ns)."""
    names = ("sample_seq", "query_seq", "sample_idx", "issue_start_ns", "complete_ns")
    parts = [np.array(rows, dtype=np.int64) for chunk in _trace_chunks(Path(run_dir))
             if (rows := _SAMPLE.findall(chunk))]
    if not parts:
        return {name: np.zeros(0, dtype=np.int64) for name in names}
    table = np.concatenate(parts)
    order = np.argsort(table[:, 0], kind="stable")
    return {name: table[order, i] for i, name in enumerate(names)}


def loadgen_percentile(sorted_values: np.ndarray, fraction: float) -> int:
    """LoadGen's percentile: ``sorted[floor(n * p)]`` (results.cc), not an interpolated one."""
    n = sorted_values.shape[0]
    return int(sorted_values[min(n - 1, int(n * fraction))])


def per_query_latencies(run_dir: str | Path, scenario: str, parsed_summary: dict) -> dict:
    """Per-query latencies (ns) from the trace, checked against LoadGen's own summary.

    SingleStream and Server queries hold one sample each; a MultiStream query's latency is
    that of its last sample.  The percentiles recomputed from these values must equal the
    summary's, otherwise the per-query data is not what LoadGen measured and we stop.
    """
    samples = trace_samples(run_dir)
    if scenario == "MultiStream":
        queries, first, inverse = np.unique(samples["query_seq"], return_index=True, return_inverse=True)
        latency = np.zeros(queries.shape[0], dtype=np.int64)
        np.maximum.at(latency, inverse, samples["complete_ns"])
        sample_index = samples["sample_idx"][first]
    else:
        queries, latency, sample_index = samples["query_seq"], samples["complete_ns"], samples["sample_idx"]
    ordered = np.sort(latency)
    if ordered.size == 0:
        raise MeasurementError(f"{run_dir}: the trace holds no sample events")
    mismatches = []
    for fraction, expected in parsed_summary["percentiles"].items():
        got = loadgen_percentile(ordered, fraction)
        if got != expected:
            mismatches.append(f"p{fraction * 100:g}: trace {got} ns vs summary {expected} ns")
    if mismatches:
        raise MeasurementError(f"{run_dir}: per-query latencies from the trace disagree with "
                               f"{SUMMARY} ({'; '.join(mismatches)})")
    return {"query_seq": queries, "latency_ns": latency, "sample_index": sample_index}


def accuracy_log(location: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(qsl_idx, predicted class id) for every logged response (int32 payloads, little-endian).

    ``location`` is a run directory or the accuracy log file itself.
    """
    path = Path(location)
    if path.is_dir():
        path = path / ACCURACY
    try:
        entries = json.loads(_read_text(path))
    except ValueError as exc:
        raise MeasurementError(f"{path}: not valid JSON", cause=exc) from exc
    index = np.fromiter((int(e["qsl_idx"]) for e in entries), dtype=np.int64, count=len(entries))
    payload = b"".join(bytes.fromhex(e["data"]) for e in entries)
    predicted = np.frombuffer(payload, dtype="<i4").astype(np.int64)
    if predicted.shape[0] != index.shape[0]:
        raise MeasurementError(f"{path}: {index.shape[0]} responses but {predicted.shape[0]} 4-byte predictions")
    return index, predicted
