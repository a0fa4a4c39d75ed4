"""Configurations a side holds only as its publisher's stated summary, compared from what was stated.

Why: asv without ``--record-samples``, LoadGen, pytest-benchmark without ``--benchmark-save-data``,
Google Benchmark aggregates and hyperfine exports without times state one number per benchmark,
not samples.  Dropping them made two real runs of one machine "no shared configuration".  Here
every configuration both sides state is listed: judged from the stated numbers where they can
decide, otherwise inconclusive with the fact that is missing.

A stated configuration is a location statistic its publisher stated (asv's median, LoadGen's
percentiles and QPS, a mean, JMH's score, criterion's estimates), named ``<metric>_<statistic>``
as the readers name the rows of a file without samples (``time_median``, ``latency_p90``).
Spreads (stddev, IQR, quartiles: kind ``dispersion``) are no configuration of their own.  Only
imported files (attr ``source_format``) count: the workflow's own files hold every sample, and
their derived rows (per-run costs, numbers copied from another family) are compared through those
samples.  Where both sides hold a configuration's samples, the samples are compared
(:mod:`verdicts`) and the stated summaries are not used; a side's summary of its samples is used
where the other side states only a summary.

Two stated intervals (:data:`METHOD`): each publisher states an interval at level c (asv: 99 %
CI of the median; JMH: 99.9 % score error; criterion: bootstrap CI).  The two runs are
independent, so both intervals hold at once with probability at least c_base * c_new, the
argument of the claims' independent design (``twelveways.claims._independent`` asks sqrt(c) of
each side); whenever both hold, the true ratio lies between the corners lo_new / hi_base and
hi_new / lo_base.  That interval therefore covers the ratio with at least c_base * c_new whatever
the shape of either interval: conservative (wider than a joint interval), never optimistic.  A
verdict needs c_base * c_new >= the confidence asked and the whole interval beyond the margin
(faster / slower) or within it (same).  The levels are the publisher's, so no multiplicity
adjustment is possible: each configuration's verdict is wrong with at most 1 - c_base * c_new
(over m configurations at most m times that are expected).  What stays missing for a full
verdict: the intervals describe the values of one run each, so the variance between runs is not
in them.

Several stated values per side (several runs, e.g. LoadGen runs) are the runs' replicates: each
run's stated value is one invocation of :func:`verdicts.compare_tables`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import resultset, results, stats
from ..evidence.summary import StatedSummary
from . import table as table_mod
from . import verdicts

METHOD = ("a configuration only stated (no samples on a side) is judged from the stated numbers: two stated "
          "intervals give the ratio interval [low new / high base, high new / low base], which covers the ratio "
          "with at least the product of the two stated levels (independent runs), so a verdict needs that product "
          "at least the confidence asked and the whole interval beyond the margin (or within it for 'same'); the "
          "stated intervals describe one run each, so the variance between runs is not in them; a stated value "
          "without an interval decides nothing; several runs per side are compared as replicates")
#: What would decide a configuration a format states without an interval.
WOULD_DECIDE = {
    "asv": "the raw samples (asv run --record-samples) of several runs",
    "pytest-benchmark": "the raw samples (pytest-benchmark --benchmark-save-data) of several runs",
    "mlperf-loadgen": "several LoadGen runs per side (its logs state one run's statistics, no per-query latencies)",
    "gbench": "the repetitions (--benchmark_repetitions without --benchmark_report_aggregates_only)",
    "hyperfine": "the run times (a hyperfine export with 'times') of several runs",
    "jmh": "JMH's per-iteration data (rawData) of several forks",
    "criterion": "criterion's sample.json of several runs",
}
NAMES = {"mlperf-loadgen": "LoadGen"}
#: Metric endings that name a spread, not a location (rows of files without samples).
SPREAD_ENDINGS = re.compile(r"_(?:std|stddev|std_dev|iqr|mad|median_abs_dev|cv|variance|q1|q3)$")
FULL_VERDICT = "the variance between runs (each interval is of one run; several runs per side would add it)"


@dataclass(frozen=True)
class Stated:
    """One number a publisher stated for a configuration of one run."""

    key: tuple
    kind: str
    value: float
    fmt: str
    statistic: str
    ci: tuple[float, float] | None = None
    confidence: float | None = None
    n: int | None = None  # values of the run behind the number (samples, rounds, iterations)
    raw_key: tuple | None = None  # the configuration whose samples the side also holds
    spreads: tuple[str, ...] = ()  # spreads stated for the configuration without an interval (stddev, iqr)

    @property
    def name(self) -> str:
        return NAMES.get(self.fmt, self.fmt)


def statistic_name(statistic) -> str:
    """A statistic as the readers name rows of files without samples: ``arithmetic_mean`` is ``mean``."""
    name = resultset.normalize_statistic(statistic)
    return "mean" if name == "arithmetic_mean" else name


def _base(key: tuple) -> tuple:
    """A configuration without its metric and unit: what a row of another metric of the same run shares."""
    return tuple(pair for pair in key if pair[0] not in ("metric", "unit"))


def _keyed(rows: pd.DataFrame, family: str, columns: list[str], metric: str, unit: str) -> tuple:
    first = rows.iloc[0]
    named = {c: table_mod.plain(first[c]) for c in columns}
    named.update(metric=metric, unit=unit)
    return (("family", family), *((c, named[c]) for c in columns))


def _interval(summary: StatedSummary) -> tuple[tuple[float, float] | None, float | None]:
    """The stated interval and its level, when both are stated (the model checked them finite, ordered, a level)."""
    if summary.ci is None or summary.confidence is None:
        return None, None
    return (float(summary.ci_low), float(summary.ci_high)), float(summary.confidence)


def _summary_rows(usable: pd.DataFrame, summary: StatedSummary, columns: list[str]) -> pd.DataFrame | None:
    """The rows of the file a summary states (its samples, or its row of a file without samples), when they
    are one configuration."""
    filters = {k: v for k, v in summary.filters.items() if k != "metric"}
    rows = resultset.select(usable, [summary.metric, _row_name(summary)], filters, summarizable=False)
    bases = [c for c in columns if c not in ("metric", "unit")]
    return rows if len(rows) and len(rows[bases].astype(str).drop_duplicates()) == 1 else None


def _row_name(summary: StatedSummary) -> str:
    return f"{summary.metric}_{statistic_name(summary.statistic)}"


def _from_summary(source, usable: pd.DataFrame, summary: StatedSummary, family: str, columns: list[str],
                  sampled: set):
    """(Stated, positions of the file's rows it states) for one location summary, or None when its rows
    are not one configuration of this file (or restate a run whose samples of another metric are compared)."""
    kind, value = source.summary_kind(summary), None if summary.value is None else float(summary.value)
    rows = _summary_rows(usable, summary, columns) if kind in table_mod.COMPARED_KINDS and value is not None else None
    if rows is None:
        return None
    metric, name = summary.metric, _row_name(summary)
    samples = rows.iloc[0:0] if source.is_derived(metric) else rows[rows["metric"].astype(str) == metric]
    raw_key = _keyed(samples, family, columns, metric, str(samples["unit"].iloc[0])) if len(samples) else None
    key = _keyed(rows, family, columns, name, str(summary.unit or rows["unit"].iloc[0]))
    if raw_key is None and _base(key) in sampled:
        return None
    ci, level = _interval(summary)
    return (Stated(key, kind, value, _format(source, family), statistic_name(summary.statistic), ci, level,
                   summary.n, raw_key),
            set(rows.index[rows["metric"].astype(str) == name]))


def _spreads(source, usable: pd.DataFrame, family: str, columns: list[str]) -> dict[tuple, list[str]]:
    """{configuration without its metric: the spreads (stddev, IQR, ...) the file states for it}."""
    found: dict[tuple, list[str]] = {}
    for summary in source.summaries():
        if summary.kind == "dispersion":
            rows = _summary_rows(usable, summary, columns)
            if rows is not None:
                base = _base(_keyed(rows, family, columns, "", ""))
                found.setdefault(base, []).append(statistic_name(summary.statistic))
    return found


def _format(source, family: str) -> str:
    return str(source.attributes.source_format or family)


def _derived_rows(source, usable: pd.DataFrame, covered: set, family: str, columns: list[str],
                  sampled: set) -> list[Stated]:
    """The file's rows of stated numbers no summary describes (LoadGen's QPS, early-stopping estimates)."""
    derived = {m for m in usable["metric"].unique() if source.is_derived(str(m))}
    rows = usable[usable["metric"].isin(derived) & ~usable.index.isin(list(covered))
                  & usable["_kind"].isin(table_mod.COMPARED_KINDS)
                  & ~usable["metric"].astype(str).str.contains(SPREAD_ENDINGS)]
    out = []
    for position in range(len(rows)):
        row = rows.iloc[[position]]
        key = _keyed(row, family, columns, str(row["metric"].iloc[0]), str(row["unit"].iloc[0]))
        if _base(key) not in sampled:  # the side's samples of this run are compared instead
            out.append(Stated(key, str(row["_kind"].iloc[0]), float(row["value"].iloc[0]), _format(source, family),
                              str(row["metric"].iloc[0])))
    return out


def table(data: resultset.ResultSet, columns: dict[str, list[str]], raw: Mapping[tuple, table_mod.Samples]
          ) -> dict[tuple, list[Stated]]:
    """{configuration key: the numbers its publishers stated, one per run} of one side; ``raw``: the side's
    samples (:func:`table.samples`), whose configurations' other rows are not stated numbers of their own."""
    sampled = {_base(key) for key in raw}
    found: dict[tuple, list[Stated]] = {}
    for source in data.raw_sources:
        if not source.attributes.source_format:  # the workflow's own file: its derived rows summarize its samples
            continue
        family = table_mod.source_family(source)
        frame = source.frame.assign(_kind=source.kinds)
        usable = frame[results.summarizable_mask(frame) & np.isfinite(pd.to_numeric(frame["value"], errors="coerce"))]
        covered: set = set()
        stated = []
        for summary in source.summaries():
            made = _from_summary(source, usable, summary, family, columns[family], sampled)
            if made:
                stated.append(made[0])
                covered |= made[1]
        stated += _derived_rows(source, usable, covered, family, columns[family], sampled)
        spreads = _spreads(source, usable, family, columns[family])
        for item in stated:
            item = dataclasses.replace(item, spreads=tuple(sorted(set(spreads.get(_base(item.key), [])))))
            found.setdefault(item.key, []).append(item)
    return found


def _both_sampled(base: Sequence[Stated], new: Sequence[Stated], raw_base: Mapping, raw_new: Mapping) -> bool:
    """Every stated number restates samples both sides hold: the samples are compared instead."""
    keys = {s.raw_key for s in (*base, *new)}
    return None not in keys and all(k in raw_base and k in raw_new for k in keys)


def _level(level: float) -> str:
    return f"{level * 100:.3g}%"


def _stated_intervals(base: Stated, new: Stated) -> str:
    """'asv's 99% intervals of the median (base [a, b] of 10 values, new [c, d] of 10 values)'."""
    def one(side, item):
        values = f" of {item.n} values" if item.n else ""
        return f"{side} {_level(item.confidence)} [{item.ci[0]:.4g}, {item.ci[1]:.4g}]{values}"

    names = base.name if base.name == new.name else f"{base.name} and {new.name}"
    return f"{names}'s stated intervals of the {base.statistic} ({one('base', base)}, {one('new', new)})"


def _interval_verdict(kind: str, ratio: float, ci: tuple[float, float], margin: float) -> tuple[str, str]:
    band = 1.0 + margin
    low, high = ci
    text = f"ratio {ratio:.4g} [{low:.4g}, {high:.4g}]"
    if low > band or high < 1.0 / band:
        return verdicts.direction(kind, ratio), f"{text} lies beyond the ±{margin:.1%} margin"
    if low >= 1.0 / band and high <= band:
        return "same", f"{text} lies within the ±{margin:.1%} margin"
    return "inconclusive", f"{text} reaches across the ±{margin:.1%} margin"


def judge_one(kind: str, base: Stated, new: Stated, margin: float, confidence: float) -> dict:
    """Ratio, interval and verdict of one configuration stated once per side (see the module docstring)."""
    ratio = new.value / base.value if base.value > 0 and new.value >= 0 else None
    out = {"ratio": ratio, "ci": None, "ci_method": "none: stated values only", "verdict": "inconclusive"}
    if ratio is None:
        return {**out, "reason": f"no ratio: the stated base value is {base.value:.4g}"}
    missing = [s for s in (base, new) if s.ci is None]
    if missing:
        hint = WOULD_DECIDE.get(missing[0].fmt, "the raw samples of several runs per side")
        side = "both sides" if len(missing) == 2 else "base" if missing[0] is base else "new"
        spread = f"only a spread of one run ({', '.join(missing[0].spreads)}), no interval," if missing[0].spreads \
            else "no spread"
        return {**out, "reason": f"{missing[0].name} states {spread} for this benchmark ({side}; ratio of the "
                                 f"stated values {ratio:.4g}); {hint} would decide it"}
    joint = base.confidence * new.confidence
    if base.ci[0] <= 0:
        return {**out, "reason": f"no bound on the ratio: {_stated_intervals(base, new)}: the base interval reaches 0"}
    ci = (new.ci[0] / base.ci[1], new.ci[1] / base.ci[0])
    method = f"stated intervals combined: coverage at least {_level(base.confidence)} x {_level(new.confidence)} = " \
             f"{_level(joint)}"
    if joint < confidence - 1e-12:
        return {**out, "ci": ci, "ci_method": method,
                "reason": f"{_stated_intervals(base, new)} together cover the ratio with at least {_level(joint)}, "
                          f"less than the {_level(confidence)} asked; {WOULD_DECIDE.get(base.fmt, 'the raw samples')} "
                          "would decide it"}
    verdict, text = _interval_verdict(kind, ratio, ci, margin)
    return {**out, "ci": ci, "ci_method": method, "verdict": verdict,
            "reason": f"{text}, from {_stated_intervals(base, new)}; missing for a full verdict: {FULL_VERDICT}"}


def _run_summary(values: Sequence[float], kind: str) -> float:
    """A side's runs in one number: arithmetic mean of costs, harmonic mean of rates (DESIGN, R3)."""
    return stats.harmonic_mean(values) if kind == "rate" and min(values) > 0 else float(np.mean(values))


def _uneven(kind: str, base: Sequence[Stated], new: Sequence[Stated]) -> dict:
    """One side states one run, the other several: the single run's spread is unknown."""
    b, n = _run_summary([s.value for s in base], kind), _run_summary([s.value for s in new], kind)
    ratio = n / b if b > 0 else None
    one = "base" if len(base) == 1 else "new"
    return {"ratio": ratio, "ci": None, "ci_method": "none: one stated run on a side", "verdict": "inconclusive",
            "reason": f"stated values of {len(base)} / {len(new)} runs: the {one} side's one run shows no spread "
                      f"between runs; at least 2 runs per side would decide it"}


def _row(label: str, key: tuple, kind: str, base: Sequence[Stated], new: Sequence[Stated], judged: dict) -> verdicts.Row:
    def summary(items):
        return items[0].value if len(items) == 1 else _run_summary([s.value for s in items], kind)

    def each(items):
        return items[0].n if len(items) == 1 else None

    return verdicts.Row(configuration=label, key=dict(key), kind=kind, n_base=len(base), n_new=len(new),
                        iterations_base=each(base), iterations_new=each(new), summary_base=summary(base),
                        summary_new=summary(new), p_value=None, p_adjusted=None, detectable_ratio=None,
                        invocations_to_decide=None, run_level="not measured", **judged)


def _replicated(shared: dict, labels: dict, noise: verdicts.Noise, confidence: float) -> list[verdicts.Row]:
    """Configurations stated by several runs on both sides: each run's value one replicate."""
    def samples(key, items):
        values = np.array([s.value for s in items], dtype=float)
        return table_mod.Samples(key, items[0].kind, values, len(items), tuple(values[:, None]))

    base = {key: samples(key, b) for key, (b, _) in shared.items()}
    new = {key: samples(key, n) for key, (_, n) in shared.items()}
    rows = verdicts.compare_tables(base, new, noise, confidence=confidence)
    return [dataclasses.replace(row, configuration=labels[_key(row)], reason=f"{row.reason} (each run's stated "
                                f"{shared[_key(row)][0][0].statistic} one replicate)") for row in rows]


def _key(row: verdicts.Row) -> tuple:
    return tuple(row.key.items())


def compare(raw_base: Mapping, raw_new: Mapping, base: Mapping[tuple, list[Stated]],
            new: Mapping[tuple, list[Stated]], noise: verdicts.Noise, labels: Mapping[tuple, str], *,
            confidence: float) -> tuple[list[verdicts.Row], set]:
    """(a row for every configuration both sides state that the samples do not compare, the raw configurations
    those rows stand for: not 'only on one side')."""
    rows, replicated, covered = [], {}, set()
    for key in sorted(set(base) & set(new), key=str):
        b, n = base[key], new[key]
        if _both_sampled(b, n, raw_base, raw_new):
            continue
        covered |= {s.raw_key for s in (*b, *n) if s.raw_key is not None}
        kind = b[0].kind
        if len(b) > 1 and len(n) > 1:
            replicated[key] = (b, n)
            continue
        judged = judge_one(kind, b[0], n[0], noise.margin, confidence) if len(b) == len(n) == 1 \
            else _uneven(kind, b, n)
        rows.append(_row(labels[key], key, kind, b, n, judged))
    if replicated:
        rows += _replicated(replicated, labels, noise, confidence)
    return rows, covered


def only(raw_one: Mapping, raw_other: Mapping, stated_one: Mapping[tuple, list[Stated]],
         stated_other: Mapping, covered: set) -> list[tuple]:
    """Configurations only this side holds: samples not compared, stated numbers not restating samples."""
    found = [key for key in raw_one if key not in raw_other and key not in covered]
    found += [key for key, items in stated_one.items()
              if key not in stated_other and all(s.raw_key is None for s in items)]
    return found
