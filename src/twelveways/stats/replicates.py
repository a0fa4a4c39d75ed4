"""Replicate-level statistics: a two-level random-effects model (invocations, then iterations).

Why: the iterations of one invocation (a process, a LoadGen run, a training seed) share its
frequency, memory placement and neighbours, so they are not independent; the variance between
invocations is the noise a comparison has to beat (Kalibera & Jones, *Rigorous benchmarking in
reasonable time*, ISMM 2013).  Replicates are counted at the outermost random level: iterations
describe one replicate and never multiply n.

Method — a random-effects estimate, not a bootstrap: each invocation is summarized by the R3
statistic of its iterations (arithmetic mean for costs and qualities, harmonic mean for rates)
on a log scale; the log ratio of two configurations is the difference of the mean log invocation
summaries, and its CI is Welch's t interval on those replicates (Satterthwaite degrees of
freedom).  The variance of one invocation summary is the between-invocation variance plus the
within-invocation variance over the iterations (the variance components, method of moments).
A between-run variance measured by an A/A run (one more random level: two sweeps of identical
code) is added to the standard error with its own degrees of freedom.  A bootstrap of three
invocations cannot produce an interval that covers at 95 %; this t interval can (tests simulate
it with known variance components).  scipy supplies the t distribution and checks the interval
against ``scipy.stats.ttest_ind(equal_var=False)``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as sps

from ..errors import StatisticsError
from .core import Record, check_confidence, check_fraction

METHOD = ("random-effects estimate over invocations (each invocation summarized by the mean of its iterations, "
          "harmonic mean for rates; log ratio of the means of the invocation summaries; Welch t interval with "
          "Satterthwaite df, iterations never counted as replicates)")
#: The most invocations per side a plan or an inconclusive verdict asks for before saying "more than".
MAX_INVOCATIONS = 1000


@dataclasses.dataclass(frozen=True)
class Components(Record):
    """Variance components of one configuration on a log scale (a variance of 0.01 is a 10 % sd)."""

    invocations: int
    iterations: float  # mean iterations per invocation
    between: float | None  # between-invocation variance (None with one invocation)
    within: float | None  # within-invocation variance of the iterations (None with one value each)
    summary_variance: float | None  # variance of one invocation summary: what a CI of the ratio uses

    @property
    def invocation_sd(self) -> float | None:
        """Relative sd of one invocation's summary (log scale ~ a fraction)."""
        return None if self.summary_variance is None else math.sqrt(self.summary_variance)


def _invocation_summary(values: np.ndarray, kind: str) -> float:
    return float(sps.hmean(values)) if kind == "rate" else float(np.mean(values))


def log_summaries(groups: Sequence, kind: str = "cost") -> np.ndarray:
    """Log of each invocation's summary (refused when a summary is not positive)."""
    arrays = [np.asarray(g, dtype=float) for g in groups]
    arrays = [a[np.isfinite(a)] for a in arrays]
    arrays = [a for a in arrays if a.size]
    if not arrays:
        raise StatisticsError("no invocation has a finite value")
    if kind == "rate" and any(np.any(a <= 0) for a in arrays):
        raise StatisticsError("rates must be positive for the harmonic mean of an invocation")
    summaries = np.array([_invocation_summary(a, kind) for a in arrays])
    if np.any(summaries <= 0):
        raise StatisticsError("an invocation's summary is not positive: no ratio on a log scale")
    return np.log(summaries)


def components(groups: Sequence, kind: str = "cost") -> Components:
    """Between- and within-invocation variance (log scale, method of moments) of one configuration."""
    logs = log_summaries(groups, kind)
    within, iterations = _within(groups)
    summary = float(np.var(logs, ddof=1)) if logs.size >= 2 else None
    between = None
    if summary is not None:
        between = max(0.0, summary - (within or 0.0) / iterations)
    return Components(int(logs.size), iterations, between, within, summary)


def _within(groups: Sequence) -> tuple[float | None, float]:
    """(pooled within-invocation variance of the log values or None without a degree of freedom, mean
    values per invocation)."""
    arrays = [np.asarray(g, dtype=float) for g in groups]
    arrays = [np.log(a[a > 0]) for a in arrays]
    arrays = [a for a in arrays if a.size]
    sizes = [a.size for a in arrays]
    within_df = sum(sizes) - len(sizes)
    within = float(sum(float(((a - a.mean()) ** 2).sum()) for a in arrays) / within_df) if within_df else None
    return within, float(np.mean(sizes))


def _side_terms(logs: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    n = logs.shape[-1]
    mean = logs.mean(axis=-1)
    var = logs.var(axis=-1, ddof=1) if n >= 2 else np.full(mean.shape, np.nan)
    return mean, var, n


def _moderated(var: np.ndarray, df: int, prior: tuple[float, float] | None) -> tuple[np.ndarray, float]:
    """A side's variance moderated towards its family's (Smyth 2004, limma's fixed-prior form):
    (d0·s0² + d·s²)/(d0 + d) on d0 + d degrees of freedom; a side with one invocation takes the prior."""
    if prior is None or not prior[1]:
        return var, float(df)
    s0, d0 = prior
    if not df:
        return np.full(var.shape, float(s0)), float(d0)
    return (d0 * s0 + df * var) / (d0 + df), float(df + d0)


def log_ratio_interval(log_numerator, log_denominator, confidence: float, *, run_variance: float = 0.0,
                       run_df: float = math.inf, prior: tuple[float, float] | None = None):
    """(estimate, low, high, p, df) of the log ratio from invocation log summaries on the last axis.

    Vectorised over leading axes (simulations).  ``prior`` (variance, df) of the configuration's
    family moderates each side's variance (:func:`_moderated`: few invocations borrow strength from
    the family's other configurations).  Without a prior a side with one invocation borrows the
    other side's variance (equal variances assumed); both with one: NaN bounds.  ``run_variance``
    (between-run variance from an A/A run, log scale) is added once per side.
    """
    confidence = check_confidence(confidence)
    mean_n, var_n, n_n = _side_terms(np.asarray(log_numerator, dtype=float))
    mean_d, var_d, n_d = _side_terms(np.asarray(log_denominator, dtype=float))
    var_n, df_n = _moderated(var_n, n_n - 1, prior)
    var_d, df_d = _moderated(var_d, n_d - 1, prior)
    var_n, df_n = (var_d, df_d) if not df_n else (var_n, df_n)
    var_d, df_d = (var_n, df_n) if not df_d else (var_d, df_d)
    u_n, u_d, u_r = var_n / n_n, var_d / n_d, 2.0 * run_variance
    se2 = u_n + u_d + u_r
    with np.errstate(divide="ignore", invalid="ignore"):
        df = se2 ** 2 / (u_n ** 2 / df_n + u_d ** 2 / df_d + (u_r ** 2 / run_df if run_df else 0.0))
        df = np.where(se2 > 0, df, np.inf)
        estimate = mean_n - mean_d
        half = sps.t.ppf(0.5 + confidence / 2.0, df) * np.sqrt(se2)
        t = np.where(se2 > 0, np.abs(estimate) / np.sqrt(se2), np.where(estimate == 0, 0.0, np.inf))
        p = 2.0 * sps.t.sf(t, df)
    return estimate, estimate - half, estimate + half, p, df


@dataclasses.dataclass(frozen=True)
class ReplicateRatio(Record):
    """numerator/denominator of two configurations with its replicate-level CI."""

    value: float
    ci: tuple[float, float] | None
    confidence: float
    p: float | None
    df: float | None
    numerator: Components
    denominator: Components
    run_variance: float
    numerator_log_mean: float  # mean log invocation summary: exp() is each side's summary
    denominator_log_mean: float
    method: str = METHOD

    @property
    def invocations(self) -> tuple[int, int]:
        return self.denominator.invocations, self.numerator.invocations


def ratio_ci(numerator_groups: Sequence, denominator_groups: Sequence, kind: str = "cost", *,
             confidence: float, run_variance: float = 0.0, run_df: float = math.inf,
             prior: tuple[float, float] | None = None) -> ReplicateRatio:
    """Ratio of two configurations' summaries with the CI of the two-level model (module docstring).

    ``*_groups``: one sequence of iteration values per invocation.  No CI when neither side has two
    invocations (one replicate each cannot show how much a second one would differ)."""
    kind, confidence = "cost" if kind == "quality" else kind, check_confidence(confidence)
    log_n, log_d = log_summaries(numerator_groups, kind), log_summaries(denominator_groups, kind)
    est, low, high, p, df = (float(v) for v in log_ratio_interval(log_n, log_d, confidence, run_variance=run_variance,
                                                                   run_df=run_df, prior=prior))
    one_each = log_n.size < 2 and log_d.size < 2  # one replicate per side: no CI, whatever the family shows
    ci = (math.exp(low), math.exp(high)) if math.isfinite(low) and math.isfinite(high) and not one_each else None
    return ReplicateRatio(math.exp(est), ci, confidence, p if ci else None, df if ci and math.isfinite(df) else None,
                          components(numerator_groups, kind), components(denominator_groups, kind), run_variance,
                          float(log_n.mean()), float(log_d.mean()))


def invocations_needed(invocation_variance: float, log_effect: float, *, alpha: float = 0.05, power: float = 0.8,
                       run_variance: float = 0.0, most: int = MAX_INVOCATIONS) -> int | None:
    """Invocations per side for which Welch's test at ``alpha`` finds a log difference ``log_effect``
    with ``power`` (t quantiles from scipy, df = 2n - 2); None when even ``most`` are not enough
    (the difference is too small for this noise, or the between-run variance alone hides it)."""
    alpha = check_fraction(alpha, "alpha")
    effect = abs(float(log_effect))
    if not effect:
        return None
    n = np.arange(2, most + 1, dtype=float)
    se = np.sqrt(2.0 * invocation_variance / n + 2.0 * run_variance)
    reach = (sps.t.ppf(1.0 - alpha / 2.0, 2 * n - 2) + sps.t.ppf(power, 2 * n - 2)) * se
    enough = np.nonzero(reach <= effect)[0]
    return int(n[enough[0]]) if enough.size else None


def detectable_log_effect(invocation_variance: float, invocations: int, *, alpha: float = 0.05, power: float = 0.8,
                          run_variance: float = 0.0) -> float:
    """Smallest log difference Welch's test with ``invocations`` per side finds with ``power``."""
    n = max(2, int(invocations))
    se = math.sqrt(2.0 * invocation_variance / n + 2.0 * run_variance)
    return float((sps.t.ppf(1.0 - alpha / 2.0, 2 * n - 2) + sps.t.ppf(power, 2 * n - 2)) * se)


#: The level of an interval asked for only its estimate, p value or standard error, none of which depends on it
#: (the standard error is backed out of the interval at the same level): not a confidence anyone states.
SE_LEVEL = 0.95


def run_variance_terms(log_first, log_second) -> float:
    """One A/A pair's contribution to the between-run variance (method of moments): half of the
    squared log difference minus what the invocations alone explain; may be negative, pool before
    clipping at zero.  Sides with one invocation borrow the other side's variance; NaN when neither
    has two."""
    est, low, high, _, df = log_ratio_interval(np.asarray(log_first, dtype=float), np.asarray(log_second, dtype=float),
                                               SE_LEVEL)
    if not np.isfinite(high - low):
        return math.nan
    se = float(high - low) / (2.0 * float(sps.t.ppf(0.5 + SE_LEVEL / 2.0, df))) if float(high - low) > 0 else 0.0
    return (float(est) ** 2 - se ** 2) / 2.0


#: Most degrees of freedom a family prior lends one configuration: enough to steady a 3-invocation
#: variance, few enough that a configuration noisier than its family still shows its own spread.
PRIOR_DF_CAP = 4


def family_prior(variances: Sequence[tuple[float, int]], cap: int = PRIOR_DF_CAP) -> tuple[float, float] | None:
    """(pooled variance, df) of a family's other configurations, given (variance, df) of each side of
    each; None when they hold no degree of freedom."""
    usable = [(v, d) for v, d in variances if d > 0 and math.isfinite(v)]
    total = sum(d for _, d in usable)
    if not total:
        return None
    return sum(v * d for v, d in usable) / total, float(min(total, cap))


def ratio_test(numerator_groups: Sequence, denominator_groups: Sequence, kind: str, threshold: float,
               alternative: str) -> float:
    """One-sided p of "ratio > threshold" (``greater``) or "< threshold" (``less``): Welch's t on the log
    invocation summaries, the threshold moved onto the denominator; 1.0 when there is no interval."""
    kind = "cost" if kind == "quality" else kind
    log_n = log_summaries(numerator_groups, kind)
    log_d = log_summaries(denominator_groups, kind) + math.log(threshold)
    if log_n.size < 2 and log_d.size < 2:
        return 1.0
    est, _, _, p, _ = (float(v) for v in log_ratio_interval(log_n, log_d, SE_LEVEL))
    if not math.isfinite(p):
        return 1.0
    toward = est > 0 if alternative == "greater" else est < 0
    return p / 2.0 if toward else 1.0 - p / 2.0


@functools.lru_cache(maxsize=4096)
def t_quantile(q: float, df: float) -> float:
    """Student's t quantile, remembered: an audit asks for the same few (confidence, df) pairs thousands of
    times, and each scipy call costs about 0.1 ms."""
    return float(sps.t.ppf(q, df))


def summary_interval(groups: Sequence, kind: str, confidence: float) -> tuple[float, float, float] | None:
    """(summary, low, high) of one configuration from its invocations: the geometric mean of the invocation
    summaries with a t interval of their logs; the variance of one summary is never taken below what its
    iterations alone give (within-invocation variance / iterations: the between-invocation part clipped at
    zero, as the method of moments does), so two equal invocation means do not make a zero-width CI.
    None with one invocation."""
    kind = "cost" if kind == "quality" else kind
    logs = log_summaries(groups, kind)
    if logs.size < 2:
        return None
    within, iterations = _within(groups)
    variance = max(float(np.var(logs, ddof=1)), (within or 0.0) / iterations)
    centre = float(np.exp(logs.mean()))
    half = t_quantile(0.5 + check_confidence(confidence) / 2.0, logs.size - 1) * math.sqrt(variance / logs.size)
    return centre, centre * math.exp(-half), centre * math.exp(half)


def summary_intervals(values, configuration, invocation, rate, confidence: float) -> np.ndarray:
    """:func:`summary_interval` of many configurations at once: rows of (summary, low, high), one per
    configuration code 0..C-1, NaN where this pass leaves the configuration to :func:`summary_interval`.

    Why: a round of thousands of files has hundreds of thousands of configurations, and one call per
    configuration spends its time on small-array overhead.  ``configuration`` and ``invocation`` are
    codes per value (invocation -1: none, left out, as :func:`summary_interval` is never given it);
    ``rate`` says per configuration whether its invocations are summarized by the harmonic mean.
    Configurations with fewer than two invocations, or a value that is not finite and positive, are
    left (NaN): their errors and special cases are :func:`summary_interval`'s to state.  The sums over
    an invocation's iterations run in row order (numpy sums 8 or more values pairwise), so a bound
    may differ from :func:`summary_interval`'s in the last digit (tests: within 1e-12 relative).
    """
    values, configuration = np.asarray(values, dtype=float), np.asarray(configuration, dtype=np.int64)
    invocation, rate = np.asarray(invocation, dtype=np.int64), np.asarray(rate, dtype=bool)
    out = np.full((rate.size, 3), np.nan)
    kept = invocation >= 0
    if not kept.any():
        return out
    width = int(invocation.max()) + 1
    pairs, pair_of = np.unique(configuration[kept] * width + invocation[kept], return_inverse=True)
    owner, x = pairs // width, values[kept]
    size = np.bincount(pair_of, minlength=pairs.size).astype(float)
    clean = np.isfinite(x) & (x > 0)
    x = np.where(clean, x, 1.0)
    summaries = np.where(rate[owner], 1.0 / (np.bincount(pair_of, weights=1.0 / x) / size),
                         np.bincount(pair_of, weights=x) / size)
    logs, log_x = np.log(summaries), np.log(x)
    squares = np.bincount(pair_of, weights=(log_x - np.bincount(pair_of, weights=log_x)[pair_of] / size[pair_of]) ** 2)
    runs = np.bincount(owner, minlength=rate.size)
    usable = (runs >= 2) & (np.bincount(owner, weights=np.bincount(pair_of, weights=~clean) > 0,
                                        minlength=rate.size) == 0)
    starts = np.searchsorted(owner, np.arange(rate.size + 1))  # pairs are sorted by configuration
    for c in np.flatnonzero(usable):
        part = slice(starts[c], starts[c + 1])
        out[c] = _interval_of(logs[part], squares[part], size[part], confidence)
    return out


def _interval_of(logs: np.ndarray, squares: np.ndarray, sizes: np.ndarray, confidence) -> tuple[float, float, float]:
    """One configuration's interval from its invocations' log summaries, within sums of squares and sizes."""
    within_df = float(sizes.sum()) - sizes.size
    within = float(sum(float(s) for s in squares) / within_df) if within_df else 0.0
    variance = max(float(np.var(logs, ddof=1)), within / float(np.mean(sizes)))
    centre = float(np.exp(logs.mean()))
    half = t_quantile(0.5 + check_confidence(confidence) / 2.0, logs.size - 1) * math.sqrt(variance / logs.size)
    return centre, centre * math.exp(-half), centre * math.exp(half)
