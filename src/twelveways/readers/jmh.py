"""JMH JSON (``-rf json``): a list of benchmark runs, one per benchmark method, mode and parameter set.

JMH forks a fresh JVM per fork; inside a fork it runs warm-up iterations (not in the file) and then
``measurementIterations`` measured iterations.  ``primaryMetric.rawData`` holds one list per fork:
each value is one iteration (in single-shot mode ``ss``, one shot).  Iterations of one fork share
that JVM's JIT decisions, heap layout and code cache, so the fork is the replicate level:
``invocation`` = fork number, ``iteration`` = 1..N inside it, attr ``ci_level`` ``invocation``
(n = forks, never forks × iterations).  JMH's own ``score`` (the mean of every iteration of every
fork) and ``scoreError`` / ``scoreConfidence`` (a Student-t interval at 99.9% over those pooled
iterations) are stated numbers (attr ``summaries``).  With one iteration JMH writes ``"NaN"`` for
the error and the interval: the score is kept, stated without a CI.  ``forks: 0`` means the
benchmark ran inside JMH's own JVM (one invocation, no fork).  Sample mode without ``rawData``:
each iteration's ``rawDataHistogram`` ([value, count] pairs) becomes its mean (JMH's score pools
every sample, so it is not recomputed from those means).  ``secondaryMetrics`` (profilers such as
``-prof gc``'s ``·gc.alloc.rate``, sample mode's percentiles, ``@Group`` members) become rows of
their own metric; one whose values JMH wrote as NaN is listed in attr ``not_measured``.  The unit
is kept as JMH states it (``ops/ms``, ``ns/op`` → ``ns``); the metric is the mode.
"""

from __future__ import annotations

from pathlib import Path

from . import decode
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .decode import Count, MaybeNumber, Name, NonNegative
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .sw_fields import common_items, scalars, summary

FORMAT = "jmh"
MODES = {"thrpt": "rate", "avgt": "cost", "sample": "cost", "ss": "cost"}
ENVIRONMENT = ("jmhVersion", "jvm", "jdkVersion", "vmName", "vmVersion")
SETTINGS = ("warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations", "measurementTime",
            "measurementBatchSize", "forks", "threads", "mode")
Scalar = str | int | float | bool | None


class Primary(decode.Model):
    """``primaryMetric``: JMH's score, its error (NaN with one iteration) and the per-fork values."""

    score: MaybeNumber
    scoreError: MaybeNumber = None
    scoreConfidence: list[MaybeNumber] | None = None
    scoreUnit: Name
    rawData: list[list[NonNegative]] | None = None
    rawDataHistogram: list[list[list[tuple[NonNegative, Count]]]] | None = None


class Secondary(decode.Model):
    """One ``secondaryMetrics`` entry: a profiler's or a group member's numbers (NaN where JMH had none)."""

    score: MaybeNumber = None
    scoreUnit: str = ""
    rawData: list[list[MaybeNumber]] | None = None


class Entry(decode.Model):
    """One benchmark run of the list (one method, mode and parameter set)."""

    benchmark: Name
    mode: Name
    threads: Count = 1
    forks: Count | None = None
    params: dict[str, Scalar] | None = None
    jvmArgs: list[Scalar] | None = None
    primaryMetric: Primary
    secondaryMetrics: dict[str, Secondary] | None = None


def _unit(unit: str) -> str:
    """``ns/op`` -> ``ns`` (a time per operation: a cost); rates keep JMH's spelling (``ops/ms``)."""
    return unit[:-3] if unit.endswith("/op") else unit


def _histogram_means(path: Path, where: str, histogram) -> list[list[float]]:
    """Sample mode's ``rawDataHistogram`` (per fork, per iteration: [value, count] pairs) as one mean per iteration."""
    out = []
    for f, fork in enumerate(histogram):
        iterations = []
        for i, pairs in enumerate(fork):
            total = sum(count for _, count in pairs)
            if not total:
                raise ReaderError(path, f"{FORMAT}: {where}.primaryMetric.rawDataHistogram[{f}][{i}] holds no samples "
                                        "(no [value, count] pair with a count above 0)")
            iterations.append(sum(value * count for value, count in pairs) / total)
        out.append(iterations)
    return out


def _forks(entry: Entry, path: Path, where: str) -> list[list[float]]:
    """The measured values, one list per fork (rawData, else the histogram's iteration means)."""
    metric = entry.primaryMetric
    raw = metric.rawData or (_histogram_means(path, where, metric.rawDataHistogram)
                             if metric.rawDataHistogram else None)
    if not raw or not all(raw):
        raise ReaderError(path, f"{FORMAT}: {where}.primaryMetric has no rawData (one non-empty list per fork)")
    if entry.forks and len(raw) != entry.forks:
        raise ReaderError(path, f"{FORMAT}: {where} says forks = {entry.forks} but rawData holds {len(raw)} fork(s)")
    return raw


def _config(entry: Entry) -> tuple[dict, dict]:
    """Row columns shared by an entry's rows, and the filters that select them."""
    params = {f"param_{k}": str(v) for k, v in (entry.params or {}).items()}
    config = dict(benchmark=FORMAT, workload=entry.benchmark, threads=entry.threads, **params)
    return config, {"workload": entry.benchmark, "threads": entry.threads, **params}


def _rows(config: dict, metric: str, unit: str, forks: list[list[float]], run: str) -> list[dict]:
    return [row(**config, metric=metric, unit=unit, value=value, run_id=f"{run}#fork{fork}", invocation=fork,
                iteration=i) for fork, values in enumerate(forks) for i, value in enumerate(values, start=1)]


def _secondary(entry: Entry, config: dict, run: str) -> tuple[list[dict], list[dict]]:
    """Rows of each secondary metric; one with a NaN value (JMH had none) is listed as not measured instead."""
    records, missing = [], []
    for name, metric in (entry.secondaryMetrics or {}).items():
        label = name.split("·")[-1] or name
        raw = metric.rawData or []
        if not raw or any(v is None for fork in raw for v in fork):
            missing.append({"workload": entry.benchmark, "metric": label, **{k: v for k, v in config.items()
                                                                            if k.startswith("param_")},
                            "not_measured": "JMH wrote NaN (or no values) for this secondary metric"})
            continue
        records += _rows(config, label, _unit(metric.scoreUnit), raw, run)
    return records, missing


def _entry(raw, path: Path, index: int) -> tuple[list[dict], list[dict], list[dict]]:
    where = f"[{index}]"
    entry = decode.validate(path, FORMAT, Entry, raw, where)
    if entry.mode not in MODES:
        raise ReaderError(path, f"{FORMAT}: {where}.mode is {decode.shown(entry.mode)}, not a JMH mode "
                                f"({', '.join(MODES)})")
    unit = _unit(entry.primaryMetric.scoreUnit)
    config, filters = _config(entry)
    run = f"{entry.benchmark}{sorted((k, v) for k, v in config.items() if k.startswith('param_'))}"
    forks = _forks(entry, path, where)
    records = _rows(config, entry.mode, unit, forks, run)
    extra, missing = _secondary(entry, config, run)
    return records + extra, _stated(entry, unit, {**filters, "metric": entry.mode}, forks), missing


def _stated(entry: Entry, unit: str, filters: dict, forks: list[list[float]]) -> list[dict]:
    """JMH's score as a stated summary; its 99.9% interval only where JMH could compute one (not NaN)."""
    metric = entry.primaryMetric
    if metric.score is None:
        return []
    n = sum(len(f) for f in forks)
    bounds = metric.scoreConfidence or []
    ci = bounds if len(bounds) == 2 and None not in bounds else None
    stated = summary(entry.mode, "arithmetic_mean", metric.score, unit, filters, n, "", ci=ci)
    stated.update(_score_statement(entry.mode, n, len(forks), ci is not None))
    if metric.rawData is None:  # the score pools every sample of the histograms; the rows are iteration means
        stated["recomputable"] = 0
    return [stated]


def _score_statement(mode: str, n: int, forks: int, has_ci: bool) -> dict:
    """What JMH's score is: the arithmetic mean of all iterations pooled over forks, its error a t-interval."""
    error = (f"its error is a Student-t interval at 99.9% over those {n} iterations, as if they were independent"
             if has_ci else "JMH stated no error (NaN: too few iterations for an interval)")
    note = f"JMH score: mean of all {n} iterations pooled over {forks} fork(s); {error} (the forks are the " \
           f"replicates: n = {forks})"
    stated = {"statistic": "arithmetic_mean", "note": note, "normality_checked": False,
              "kind": MODES.get(mode, "other")}
    if has_ci:
        stated.update(ci_method="student_t", confidence=0.999)
    if mode == "thrpt":  # every iteration lasts measurementTime: the mean rate is total operations / total time
        stated["rate_intervals"] = "equal_time"
    return stated


def read(path: Path) -> list:
    """Rows per fork and iteration; JMH's score and error as stated summaries; the JVM as the environment."""
    data = decode.load_json(path, FORMAT)
    if not isinstance(data, list) or not data:
        raise ReaderError(path, f"{FORMAT}: not a non-empty list of benchmark results")
    records, stated, missing = [], [], []
    for index, entry in enumerate(data):
        found, said, lost = _entry(entry, path, index)
        records += found
        stated += said
        missing += lost
    environment = common_items([scalars({k: e.get(k) for k in ENVIRONMENT if k in e}) for e in data])
    args = common_items([{"jvmArgs": " ".join(map(str, e.get("jvmArgs") or []))} for e in data])
    settings = common_items([scalars({k: e.get(k) for k in SETTINGS if k in e}) for e in data])
    factors = sorted({k for r in records for k in r if k.startswith("param_")})
    attrs = {"summaries": stated, "factors": factors, "ci_level": "invocation", "nesting": ["invocation", "iteration"],
             "levels": {"invocation": INVOCATION_LEVEL + " (JMH: one forked JVM per fork; forks 0 = JMH's own JVM)",
                        "iteration": "measurement iteration inside its fork (warm-up iterations are not in the file)"},
             "metric_kinds": dict(MODES)}
    if missing:
        attrs["not_measured"] = missing
    return [build(path, FORMAT, FORMAT, records, environment={**environment, **args}, config=settings, attrs=attrs)]


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, list) and value and all(isinstance(e, dict) and "benchmark" in e and "primaryMetric" in e
                                                 for e in value):
        return CERTAIN
    if value is None and head.json_text.lstrip().startswith("[") and head.json_keys("benchmark") and (
            head.json_keys("primaryMetric") or head.json_keys("jmhVersion")):
        return LIKELY
    return 0


READER = Format(name=FORMAT, title="JMH JSON (-rf json)",
                reads="JMH 1.x: modes thrpt, avgt, sample (rawData or rawDataHistogram), ss; forks 0 and more; one "
                      "iteration (NaN error); secondary metrics (profilers, percentiles, groups)",
                recognize=_recognize, read=read, publishers=("tkrs/json-bench", "gpanther/benchmark-arraycopy",
                                                             "Netflix/hollow", "develar/jvm-collection-lib-benchmarks",
                                                             "benchmark-action/github-action-benchmark"))
