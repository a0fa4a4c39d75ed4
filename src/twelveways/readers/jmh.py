"""JMH JSON (``-rf json``): a list of benchmark runs, one per benchmark method, mode and parameter set.

JMH forks a fresh JVM per fork; inside a fork it runs warm-up iterations (not in the file) and then
``measurementIterations`` measured iterations.  ``primaryMetric.rawData`` holds one list per fork:
each value is one iteration.  Iterations of one fork share that JVM's JIT decisions, heap layout
and code cache, so the fork is the replicate level: ``invocation`` = fork number, ``iteration`` =
1..N inside it, attr ``ci_level`` ``invocation`` (n = forks, never forks × iterations).  JMH's own
``score`` (the mean of every iteration of every fork) and ``scoreError`` / ``scoreConfidence`` (a
Student-t interval at 99.9% over those pooled iterations) are stated numbers (attr ``summaries``).
``forks: 0`` means the benchmark ran inside JMH's own JVM (one invocation, no fork).  Sample mode
without ``rawData``: each iteration's ``rawDataHistogram`` ([value, count] pairs) becomes its mean.
The unit is kept as JMH states it (``ops/ms``, ``ns/op`` → ``ns``); the metric is the mode.
"""

from __future__ import annotations

from pathlib import Path

from .. import inputs
from ..errors import AuditInputError
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .sw_fields import common_items, mapping, number, numbers, scalars, summary, text

FORMAT = "jmh"
MODES = {"thrpt": "rate", "avgt": "cost", "sample": "cost", "ss": "cost"}
ENVIRONMENT = ("jmhVersion", "jvm", "jdkVersion", "vmName", "vmVersion")
SETTINGS = ("warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations", "measurementTime",
            "measurementBatchSize", "forks", "threads", "mode")


def _unit(unit: str) -> str:
    """``ns/op`` -> ``ns`` (a time per operation: a cost); rates keep JMH's spelling (``ops/ms``)."""
    return unit[:-3] if unit.endswith("/op") else unit


def _histogram_means(path: Path, where: str, histogram) -> list:
    """Sample mode's ``rawDataHistogram`` (per fork, per iteration: [value, count] pairs) as one mean per iteration."""
    if not isinstance(histogram, list):
        return []
    out = []
    for f, fork in enumerate(histogram):
        iterations = []
        for i, pairs in enumerate(fork if isinstance(fork, list) else []):
            counts = [numbers(path, FORMAT, f"{where}.rawDataHistogram[{f}][{i}][{k}]", p)
                      for k, p in enumerate(pairs if isinstance(pairs, list) else [])]
            total = sum(c[1] for c in counts if len(c) == 2)
            if not total:
                raise ReaderError(path, f"{FORMAT}: {where}.rawDataHistogram[{f}][{i}] holds no [value, count] pairs")
            iterations.append(sum(v * c for v, c in counts) / total)
        out.append(iterations)
    return out


def _forks(metric: dict, entry: dict, path: Path, where: str) -> list[list[float]]:
    raw = metric.get("rawData") or _histogram_means(path, where, metric.get("rawDataHistogram"))
    if not isinstance(raw, list) or not raw:
        raise ReaderError(path, f"{FORMAT}: {where}.primaryMetric has no rawData list (one list per fork)")
    forks = int(number(path, FORMAT, f"{where}.forks", entry.get("forks", len(raw))))
    if forks and len(raw) != forks:
        raise ReaderError(path, f"{FORMAT}: {where} says forks = {forks} but rawData holds {len(raw)} fork(s)")
    return [numbers(path, FORMAT, f"{where}.primaryMetric.rawData[{f}]", values) for f, values in enumerate(raw)]


def _entry(entry, path: Path, index: int) -> tuple[list[dict], list[dict]]:
    where = f"[{index}]"
    entry = mapping(path, FORMAT, where, entry)
    name = text(path, FORMAT, f"{where}.benchmark", entry.get("benchmark"))
    mode = text(path, FORMAT, f"{where}.mode", entry.get("mode"))
    metric = mapping(path, FORMAT, f"{where}.primaryMetric", entry.get("primaryMetric"))
    unit = _unit(text(path, FORMAT, f"{where}.primaryMetric.scoreUnit", metric.get("scoreUnit")))
    params = {f"param_{k}": str(v) for k, v in mapping(path, FORMAT, f"{where}.params", entry.get("params"),
                                                      required=False).items()}
    threads = int(number(path, FORMAT, f"{where}.threads", entry.get("threads", 1)))
    config = dict(benchmark=FORMAT, workload=name, metric=mode, unit=unit, threads=threads, **params)
    records = [row(**config, value=value, run_id=f"{name}{sorted(params.items())}#fork{fork}", invocation=fork,
                   iteration=i) for fork, values in enumerate(_forks(metric, entry, path, where))
               for i, value in enumerate(values, start=1)]
    filters = {"workload": name, "metric": mode, "threads": threads, **params}
    n = len(records)
    score = number(path, FORMAT, f"{where}.primaryMetric.score", metric.get("score"))
    confidence = metric.get("scoreConfidence")
    ci = numbers(path, FORMAT, f"{where}.primaryMetric.scoreConfidence", confidence) if confidence else None
    stated = summary(mode, "arithmetic_mean", score, unit, filters, n, "", ci=ci)
    stated.update(_score_statement(mode, n, len({r["invocation"] for r in records})))
    return records, [stated]


def _score_statement(mode: str, n: int, forks: int) -> dict:
    """What JMH's score is: the arithmetic mean of all iterations pooled over forks, its error a t-interval."""
    note = (f"JMH score: mean of all {n} iterations pooled over {forks} fork(s); its error is a Student-t "
            f"interval at 99.9% over those {n} iterations, as if they were independent (the forks are the "
            f"replicates: n = {forks})")
    stated = {"statistic": "arithmetic_mean", "ci_method": "student_t", "confidence": 0.999, "note": note,
              "normality_checked": False, "kind": MODES.get(mode, "other")}
    if mode == "thrpt":  # every iteration lasts measurementTime: the mean rate is total operations / total time
        stated["rate_intervals"] = "equal_time"
    return stated


def read(path: Path) -> list:
    """Rows per fork and iteration; JMH's score and error as stated summaries; the JVM as the environment."""
    data = inputs.read_json(path, f"{FORMAT} file", AuditInputError)
    if not isinstance(data, list) or not data:
        raise ReaderError(path, f"{FORMAT}: not a non-empty list of benchmark results")
    records, stated = [], []
    for index, entry in enumerate(data):
        found, said = _entry(entry, path, index)
        records += found
        stated += said
    environment = common_items([scalars({k: e.get(k) for k in ENVIRONMENT if k in e}) for e in data])
    args = common_items([{"jvmArgs": " ".join(map(str, e.get("jvmArgs") or []))} for e in data])
    settings = common_items([scalars({k: e.get(k) for k in SETTINGS if k in e}) for e in data])
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    attrs = {"summaries": stated, "factors": factors, "ci_level": "invocation", "nesting": ["invocation", "iteration"],
             "levels": {"invocation": INVOCATION_LEVEL + " (JMH: one forked JVM per fork; forks 0 = JMH's own JVM)",
                        "iteration": "measurement iteration inside its fork (warm-up iterations are not in the file)"},
             "metric_kinds": {mode: kind for mode, kind in MODES.items()}}
    return [build(path, FORMAT, FORMAT, records, environment={**environment, **args}, config=settings, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, list) and value and all(isinstance(e, dict) and "benchmark" in e and "primaryMetric" in e
                                                 for e in value):
        return CERTAIN
    window = head.window
    if value is None and window.startswith("[") and head.json_keys("benchmark") and (
            head.json_keys("primaryMetric") or head.json_keys("jmhVersion")):
        return LIKELY
    return 0


READER = Format(name=FORMAT, title="JMH JSON (-rf json)", reads="JMH 1.x, every mode", recognize=_recognize, read=read)
