"""Stated versus recomputed: every number a results file states is recomputed from its rows.

A summary (attr ``summaries``) states a statistic of some rows: its ``value`` and, for a CI,
its bounds.  The checklist does not take the statement on trust (R3, R8): it selects the rows
the summary names and recomputes the statistic.  Rows come from the summary's own file, or,
for a summary in a derived file (written by the analysis stage), from the raw rows of every
audited file.  A summary whose ``rank_reduction`` says "max over ranks" is recomputed on the
per-iteration maximum over ranks, as it was computed.  A summary that names its replicate level
(``ci_level``, e.g. ``run_id``: a time over invocations) is recomputed over each replicate's mean
(harmonic for a rate), and its t interval over replicates from the rows grouped so.

Tolerances: a statistic that is a deterministic function of the rows (the means, median,
olympic mean, percentiles, min, max, an exact order-statistic CI and a t interval over
replicates) must agree to a relative
:data:`EXACT_RTOL`, or within the summary's ``resolution`` (one unit in the last digit a tool
printed the number and its rows with, e.g. IOR's 0.0001); a CI made by another method
(bootstrap, ...) is not recomputed, and its value is allowed to differ by the CI's half-width.
A percentile agrees when one of the usual definitions (numpy's linear, nearest, lower, higher,
inverted-CDF methods) gives the stated value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import stats
from ..errors import SettingError, StatisticsError
from ..evidence import settings
from ..evidence.summary import StatedSummary
from ..resultset import ResultSet, ResultSource, finite, is_percentile, normalize_statistic, select
from .model import AuditRun

EXACT_RTOL = 1e-6
#: A t interval over replicates (``derived.REPLICATE_CI_METHOD``): recomputed from the rows per replicate.
REPLICATE_CI_METHODS = {"t_log_invocations"}
EXACT_CI_METHODS = {"median_binomial", "order_statistics", "order_statistic", "exact_binomial", "binomial"}
PERCENTILE_METHODS = ("linear", "nearest", "lower", "higher", "inverted_cdf", "midpoint")


@dataclass(frozen=True)
class Recomputed:
    """The outcome for one stated summary: agree, disagree, or could not recompute (and why).  Internal to the
    checklist (it becomes R3's evidence lines), so a frozen dataclass rather than a validated record."""

    outcome: str  # "agrees" | "contradicts" | "not_recomputed" | "includes_invalid"
    stated: float | None
    recomputed: float | None
    n: int
    why: str = ""


def summary_rows(audit: AuditRun, src: ResultSource, summary: StatedSummary) -> pd.DataFrame:
    """The rows a summary covers (see the module docstring), selected once per audit."""
    metric, filters = summary.metric, dict(summary.filters)
    reduce_ranks = "max over ranks" in (summary.rank_reduction or "").lower()
    key = (src.path, src.derived, metric, repr(sorted(filters.items(), key=str)), reduce_ranks)
    if key not in audit.summary_rows:
        frame = audit.results.frame if src.derived else src.frame
        audit.summary_rows[key] = _summary_rows(frame, metric, filters, reduce_ranks)
    return audit.summary_rows[key]


def _summary_rows(frame: pd.DataFrame, metric: str, filters: dict, reduce_ranks: bool) -> pd.DataFrame:
    rows = select(frame, metric, filters, collapse_ranks=not reduce_ranks)
    if reduce_ranks and len(rows):
        keys = [c for c in ("source_file", "run_id", "iteration") if c in rows.columns]
        per_rank = rows[rows["rank"] >= 0]
        whole = rows[rows["rank"] < 0]
        if len(per_rank):
            rows = per_rank.groupby(keys, sort=False)["value"].max().reset_index()
        else:
            rows = whole
    return rows


def replicate_groups(rows: pd.DataFrame, summary: StatedSummary) -> list[np.ndarray] | None:
    """The rows' values per replicate when the summary names its replicate level (``ci_level``, e.g. run_id:
    a summary over invocations), else None (the rows themselves are the replicates)."""
    level = summary.ci_level or ""
    if not level or level not in rows.columns or not len(rows):
        return None
    return [finite(part["value"]) for _, part in rows.groupby(level, sort=True)]


def replicate_values(rows: pd.DataFrame, summary: StatedSummary) -> np.ndarray:
    """What a summary's statistic is taken over: each replicate's mean (harmonic for a rate) when it names a
    replicate level, else every row's value."""
    groups = replicate_groups(rows, summary)
    if groups is None:
        return finite(rows["value"])
    rate = summary.kind == "rate"
    means = [stats.harmonic_mean(g) if rate and np.all(g > 0) else float(np.mean(g)) for g in groups if g.size]
    return np.asarray(means, dtype=float)


def statistic_of(values: np.ndarray, statistic: str) -> list[float]:
    """Candidate values of ``statistic`` on ``values`` (several for a percentile's definitions)."""
    if statistic == "arithmetic_mean":
        return [float(np.mean(values))]
    if statistic == "median":
        return [float(np.median(values))]
    if statistic in ("min", "max"):
        return [float(np.min(values) if statistic == "min" else np.max(values))]
    if statistic == "harmonic_mean" and np.all(values > 0):
        return [stats.harmonic_mean(values)]
    if statistic == "geometric_mean" and np.all(values > 0):
        return [stats.geometric_mean(values)]
    if is_percentile(statistic):
        q = _percentile_q(statistic)
        if q is not None:
            return [float(np.percentile(values, q, method=m)) for m in PERCENTILE_METHODS]
    return []


def olympic_mean(valid: np.ndarray, n_invalid: int, trim: int = 1) -> float | None:
    """MLPerf Training's score: drop the ``trim`` fastest and ``trim`` slowest runs, mean of the rest.

    A run that did not reach the target counts as one dropped from the slow end; more such runs
    than ``trim`` (or too few runs left) leave no score.
    """
    slow = trim - n_invalid
    if slow < 0 or valid.size - trim - slow < 1:
        return None
    ordered = np.sort(valid)
    return float(np.mean(ordered[trim:ordered.size - slow]))


def _check_olympic(data: ResultSet, src: ResultSource, summary: StatedSummary, stated: float) -> Recomputed:
    """The olympic mean recomputed from every run the summary selects, unconverged runs included."""
    rows = select(data.frame if src.derived else src.frame, summary.metric, dict(summary.filters), summarizable=False)
    rows = rows[rows["iteration"] != 0]
    valid = finite(rows.loc[rows["valid"].astype(bool), "value"])
    n_invalid = int((~rows["valid"].astype(bool)).sum())
    trim = summary.trim_each_side or 1
    again = olympic_mean(valid, n_invalid, trim)
    n = int(valid.size + n_invalid)
    if again is None:
        return Recomputed("not_recomputed", stated, None, n, f"{valid.size} converged and {n_invalid} unconverged runs "
                                                            f"leave no olympic mean with {trim} dropped at each end")
    if math.isclose(stated, again, rel_tol=EXACT_RTOL):
        return Recomputed("agrees", stated, again, n)
    return Recomputed("contradicts", stated, again, n, f"stated {stated:.6g} but the runs give {again:.6g} "
                                                      f"({trim} dropped at each end, {n_invalid} unconverged)")


def _percentile_q(statistic: str) -> float | None:
    digits = "".join(ch for ch in statistic if ch.isdigit() or ch == ".").strip(".")
    try:
        q = float(digits)
    except ValueError:
        return None
    return q if 0 <= q <= 100 else None


def _close(stated: float, candidates: list[float], rtol: float, atol: float = 0.0) -> float | None:
    """The candidate the stated value equals within ``rtol`` (or ``atol``; None when none does)."""
    for value in candidates:
        if math.isclose(stated, value, rel_tol=rtol, abs_tol=atol):
            return value
    return None


def check_value(audit: AuditRun, src: ResultSource, summary: StatedSummary) -> Recomputed:
    """Recompute a summary's stated value from its rows."""
    statistic = normalize_statistic(summary.statistic)
    if summary.value is None:
        return Recomputed("not_recomputed", None, None, 0, "no stated value")
    stated = float(summary.value)
    if not summary.restatable:
        return Recomputed("not_recomputed", stated, None, 0, "stated by its source from samples the file does not hold")
    if statistic == "olympic_mean":
        return _check_olympic(audit.results, src, summary, stated)
    rows = summary_rows(audit, src, summary)
    values = replicate_values(rows, summary)
    if values.size == 0:
        return Recomputed("not_recomputed", stated, None, 0, "no valid rows match the summary's metric and filters")
    if summary.includes_invalid:
        return _check_with_invalid(audit.results, src, summary, stated, statistic, values)
    candidates = statistic_of(values, statistic)
    if not candidates:
        why = f"statistic {statistic or 'not stated'!s} cannot be recomputed from {values.size} row(s)"
        return Recomputed("not_recomputed", stated, None, int(values.size), why)
    rtol = EXACT_RTOL
    if summary.ci is not None and _token(summary.ci_method) not in EXACT_CI_METHODS | REPLICATE_CI_METHODS and stated:
        rtol = max(EXACT_RTOL, stats.relative_half_width(stated, summary.ci_low, summary.ci_high))
    atol = float(summary.resolution or 0.0)  # a number printed to a last digit, from rows printed so too
    match = _close(stated, candidates, rtol, atol)
    if match is not None:
        return Recomputed("agrees", stated, match, int(values.size))
    printed = f", printed resolution {atol:g}" if atol else ""
    return Recomputed("contradicts", stated, candidates[0], int(values.size),
                      f"stated {stated:.6g} but the rows give {candidates[0]:.6g} (relative tolerance {rtol:.1g}{printed})")


def _check_with_invalid(data: ResultSet, src, summary: StatedSummary, stated: float, statistic: str, valid: np.ndarray
                        ) -> Recomputed:
    """A summary its source computed over every run, failed ones included (e.g. hyperfine)."""
    rows = select(data.frame if src.derived else src.frame, summary.metric, dict(summary.filters), summarizable=False)
    every = finite(rows.loc[rows["iteration"] != 0, "value"])
    n_invalid = int(every.size - valid.size)
    candidates = statistic_of(every, statistic)
    match = _close(stated, candidates, EXACT_RTOL) if candidates else None
    if match is None:
        shown = f"{candidates[0]:.6g}" if candidates else "nothing"
        return Recomputed("contradicts", stated, candidates[0] if candidates else None, int(every.size),
                          f"stated {stated:.6g} but all {every.size} runs give {shown}")
    if n_invalid:
        again = statistic_of(valid, statistic)
        return Recomputed("includes_invalid", stated, match, int(every.size),
                          f"stated {stated:.6g} includes {n_invalid} failed run(s); the valid runs give "
                          f"{again[0]:.6g}" if again else f"stated {stated:.6g} includes {n_invalid} failed run(s)")
    return Recomputed("agrees", stated, match, int(every.size))


def stated_confidence(data: ResultSet, src: ResultSource, summary: StatedSummary) -> settings.Setting:
    """The level a stated CI was computed at: the summary's own ``confidence``, else the file's and the run's
    (``ResultSet.measurement_setting``).  A stated level that is no usable number is a SettingError naming the file
    and the summary: that CI is then not recomputed, and says why, instead of being judged at another level."""
    stated = summary.confidence
    if not settings.is_set(stated):
        return data.measurement_setting(src, "confidence")
    where = f"{src.path} stated {summary.statistic or 'summary'} of {summary.metric}, confidence"
    return settings.resolve("confidence", {settings.RESULTS_FILE: stated}, {settings.RESULTS_FILE: where})


def check_ci(audit: AuditRun, src: ResultSource, summary: StatedSummary) -> Recomputed | None:
    """Recompute an exact order-statistic CI of the median or a CI over replicates; None when there is no such CI."""
    ci = summary.ci
    if ci is not None and _token(summary.ci_method) in REPLICATE_CI_METHODS:
        return _check_replicate_ci(audit, src, summary)
    if ci is None or _token(summary.ci_method) not in EXACT_CI_METHODS:
        return None
    statistic = normalize_statistic(summary.statistic)
    q = 50.0 if statistic == "median" else _percentile_q(statistic) if is_percentile(statistic) else None
    values = replicate_values(summary_rows(audit, src, summary), summary)
    if q is None or values.size == 0:
        return Recomputed("not_recomputed", None, None, int(values.size), "CI of a statistic other than a percentile")
    try:
        low, high = stats.percentile_ci(values, q / 100.0, stated_confidence(audit.results, src, summary).value)
    except (StatisticsError, SettingError) as exc:
        return Recomputed("not_recomputed", None, None, int(values.size), exc.one_line())
    ok = all(math.isclose(float(a), float(b), rel_tol=EXACT_RTOL) for a, b in zip(ci, (low, high)))
    text = f"stated [{float(ci[0]):.6g}, {float(ci[1]):.6g}], rows give [{low:.6g}, {high:.6g}]"
    return Recomputed("agrees" if ok else "contradicts", None, None, int(values.size), text)


def _check_replicate_ci(audit: AuditRun, src: ResultSource, summary: StatedSummary) -> Recomputed:
    """The t interval over replicates (``stats.replicates.summary_interval``) recomputed from the rows."""
    ci = summary.ci
    groups = replicate_groups(summary_rows(audit, src, summary), summary) or []
    kind = "rate" if summary.kind == "rate" else "cost"
    try:
        confidence = stated_confidence(audit.results, src, summary).value
        found = stats.replicates.summary_interval(groups, kind, confidence) if len(groups) >= 2 else None
    except (StatisticsError, SettingError) as exc:
        return Recomputed("not_recomputed", None, None, len(groups), exc.one_line())
    if found is None:
        return Recomputed("not_recomputed", None, None, len(groups), f"{len(groups)} replicate(s): no interval")
    ok = all(math.isclose(float(a), float(b), rel_tol=EXACT_RTOL) for a, b in zip(ci, found[1:]))
    text = f"stated [{float(ci[0]):.6g}, {float(ci[1]):.6g}], {len(groups)} replicates give [{found[1]:.6g}, {found[2]:.6g}]"
    return Recomputed("agrees" if ok else "contradicts", None, None, len(groups), text)


def _token(text) -> str:
    return str(text or "").strip().lower().replace("-", "_").replace(" ", "_")
