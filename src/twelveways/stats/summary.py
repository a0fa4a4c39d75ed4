"""Kind-aware summaries (R3, R4, R5), the CI that picks its procedure, and sample-size planning.

Import from :mod:`twelveways.stats`.  Costs are summarized by arithmetic mean or median, rates by
harmonic mean or median, ratios only as ratios of summaries; a parametric CI only when Shapiro–Wilk
does not reject normality, otherwise the median's exact binomial CI.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats as sps

from ..errors import StatisticsError
from .core import (STATISTICS, Record, relative_half_width, as_values, check_confidence, check_kind, check_sign, median_ci,
                         median_ci_ranks, min_samples_for_ci, normality, t_interval)

# ---------------------------------------------------------------------------------------------
# summaries that know the kind of data


@dataclasses.dataclass(frozen=True)
class Summary(Record):
    """One statistic of one sample: what it is, its value, n, and its CI (or why there is none)."""

    kind: str
    statistic: str
    value: float
    n: int
    ci: tuple[float, float] | None
    confidence: float
    ci_method: str
    unit: str | None = None
    normality: dict | None = None

    @property
    def relative_half_width(self) -> float | None:
        """max distance from value to a CI bound, relative to the value (the ±target of measure)."""
        if self.ci is None or self.value == 0:
            return None
        return relative_half_width(self.value, *self.ci)


def _median_summary(x, kind, confidence, unit, prefix=""):
    value = float(np.median(x))
    ranks = median_ci_ranks(x.size, confidence)
    if ranks is None:
        return Summary(kind, "median", value, x.size, None, confidence,
                       f"{prefix}none: n={x.size} is too few for a {confidence:.0%} CI of the median "
                       f"(need {min_samples_for_ci(0.5, confidence)})", unit)
    j, k, cov = ranks
    return Summary(kind, "median", value, x.size, median_ci(x, confidence), confidence,
                   f"{prefix}exact binomial order statistics (ranks {j} and {k} of {x.size}, coverage {cov:.4f})", unit)


def _parametric_summary(x, kind, statistic, confidence, unit, alpha, check=None):
    """Mean with a t CI, or harmonic mean with the t CI of mean(1/x) inverted; only if normal."""
    transformed = 1.0 / x if statistic == "hmean" else x
    value = float(sps.hmean(x)) if statistic == "hmean" else float(np.mean(x))
    space = "of 1/x " if statistic == "hmean" else ""
    if x.size < 3:
        return Summary(kind, statistic, value, x.size, None, confidence,
                       f"none: n={x.size} < 3, normality {space}cannot be checked", unit)
    check = check or normality(transformed, alpha)
    brief = check.brief()
    if check.rejected:
        return Summary(kind, statistic, value, x.size, None, confidence,
                       f"none: normality {space}rejected (Shapiro-Wilk p={check.p:.2g} < {alpha}); "
                       "report the median and its CI instead", unit, brief)
    low, high = t_interval(transformed, confidence)
    method = "t interval (normality not rejected)"
    if statistic == "hmean":
        if low <= 0:
            return Summary(kind, statistic, value, x.size, None, confidence,
                           "none: the t interval of mean(1/x) reaches zero, so it cannot be inverted", unit, brief)
        low, high = 1.0 / high, 1.0 / low
        method = "t interval of mean(1/x), inverted (normality of 1/x not rejected)"
    return Summary(kind, statistic, value, x.size, (low, high), confidence, method, unit, brief)


def summarize(values, kind: str, *, statistic: str | None = None, confidence: float,
              unit: str | None = None, alpha: float = 0.05) -> Summary:
    """Summary fit for the kind of data (R3): costs by mean (default) or median, rates by harmonic mean or median.

    kind="ratio" is refused (R4): use :func:`ratio_of_summaries`.  The CI is parametric only when
    normality is not rejected; otherwise ``ci`` is None and ``ci_method`` says why (call :func:`ci`
    to fall back to the median automatically).  Medians get exact binomial CIs.
    """
    kind = check_kind(kind)
    confidence = check_confidence(confidence)
    statistic = statistic or STATISTICS[kind][0]
    if statistic not in STATISTICS[kind]:
        raise StatisticsError(f"a {kind} is summarized by {' or '.join(STATISTICS[kind])}, not {statistic!r}"
                              + (" (geometric mean only via geometric_mean_fallback)" if "geo" in statistic else ""))
    x = as_values(values)
    check_sign(x, kind, statistic)
    if statistic == "median":
        return _median_summary(x, kind, confidence, unit)
    return _parametric_summary(x, kind, statistic, confidence, unit, alpha)


def ci(values, confidence: float, kind: str = "cost", *, alpha: float = 0.05, unit: str | None = None) -> Summary:
    """A CI that picks its procedure (R5, R6) and says which in ``statistic`` and ``ci_method``.

    Costs: mean with a t CI if Shapiro–Wilk does not reject normality, else the median with its
    exact binomial CI.  Rates: harmonic mean (t CI of 1/x, inverted) if 1/x looks normal, else the
    median (which for rates is the reciprocal of the median time, so it stays consistent).
    Raises StatisticsError when n is too small for either (n < 3, or the median CI's minimum).
    """
    kind = check_kind(kind)
    confidence = check_confidence(confidence)
    statistic = STATISTICS[kind][0]
    x = as_values(values, min_n=3)
    check_sign(x, kind, statistic)
    check = normality(1.0 / x if statistic == "hmean" else x, alpha)
    if not check.rejected:
        summary = _parametric_summary(x, kind, statistic, confidence, unit, alpha, check)
        if summary.ci is not None:
            return dataclasses.replace(summary, ci_method="parametric: " + summary.ci_method)
    if median_ci_ranks(x.size, confidence) is None:
        raise StatisticsError(f"normality rejected and {x.size} samples are too few for a {confidence:.0%} "
                              f"CI of the median (need {min_samples_for_ci(0.5, confidence)})")
    reason = (f"nonparametric: normality rejected (Shapiro-Wilk p={check.p:.2g} < {alpha}), so the median; "
              if check.rejected else "nonparametric: ")
    return dataclasses.replace(_median_summary(x, kind, confidence, unit, reason), normality=check.brief())


@dataclasses.dataclass(frozen=True)
class Ratio(Record):
    """A ratio of two summaries (R4), with both summaries kept for the reader."""

    kind: str
    statistic: str
    value: float
    numerator: Summary
    denominator: Summary
    ci: tuple[float, float] | None
    confidence: float
    ci_method: str


def ratio_of_summaries(numerator_values, denominator_values, kind: str, *, statistic: str | None = None,
                       confidence: float, unit: str | None = None) -> Ratio:
    """summary(numerator) / summary(denominator) — the only way a ratio is formed here (R4).

    The CI divides the bounds of each sample's CI at level √confidence; for independent samples
    both cover with probability ≥ confidence, so the interval is conservative.  None when either
    CI is unavailable (``ci_method`` says why).
    """
    kind = check_kind(kind)
    confidence = check_confidence(confidence)
    each = math.sqrt(confidence)
    num = summarize(numerator_values, kind, statistic=statistic, confidence=each, unit=unit)
    den = summarize(denominator_values, kind, statistic=statistic, confidence=each, unit=unit)
    if den.value == 0:
        raise StatisticsError(f"the denominator's {den.statistic} is zero: the ratio is undefined")
    value = num.value / den.value
    if num.ci is None or den.ci is None:
        missing = num if num.ci is None else den
        return Ratio(kind, num.statistic, value, num, den, None, confidence,
                     f"none: {'numerator' if missing is num else 'denominator'} has no CI ({missing.ci_method})")
    if den.ci[0] <= 0:
        return Ratio(kind, num.statistic, value, num, den, None, confidence,
                     "none: the denominator's CI reaches zero")
    low, high = num.ci[0] / den.ci[1], num.ci[1] / den.ci[0]
    return Ratio(kind, num.statistic, value, num, den, (low, high), confidence,
                 f"conservative: bounds of the two {each:.4f}-level CIs divided (independent samples)")


def geometric_mean_fallback(values, reason: str) -> dict:
    """Geometric mean, labelled as a fallback (not an R3 cost/rate summary) with the caller's reason.

    Only for values with no cost/rate meaning (e.g. normalized scores across unrelated benchmarks);
    the label travels with the number so it cannot pass for a proper summary.
    """
    if not str(reason).strip():
        raise StatisticsError("geometric_mean_fallback needs a reason: say why no cost/rate summary applies")
    x = as_values(values)
    if np.any(x <= 0):
        raise StatisticsError(f"the geometric mean needs positive values; got minimum {x.min():g}")
    return {"statistic": "geometric mean", "fallback": True, "value": float(sps.gmean(x)), "n": int(x.size),
            "label": f"geometric mean (fallback, not an R3 summary): {reason}", "reason": str(reason)}


# ---------------------------------------------------------------------------------------------
# planning: how many samples for a CI target


@dataclasses.dataclass(frozen=True)
class SampleSize(Record):
    """Samples needed so the CI half-width is within ±target of the statistic (from a pilot)."""

    statistic: str
    n: int
    target: float
    confidence: float
    pilot_n: int
    expected_relative_half_width: float
    method: str

    @property
    def enough(self) -> bool:
        """Whether the pilot already has that many."""
        return self.pilot_n >= self.n


def samples_needed(pilot, target: float, confidence: float, statistic: str = "median", *,
                   max_n: int = 100_000) -> SampleSize:
    """Number of samples needed for the CI to reach ±target (relative), estimated from a pilot sample.

    ``target`` and ``confidence`` are the caller's (resolved with :mod:`twelveways.evidence.settings`).

    median: the smallest n whose exact-rank CI, placed at the pilot's quantiles j/(n+1) and
    k/(n+1) (the expected positions of those order statistics), lies within ±target of the pilot
    median — the same criterion that ``measure.repeat_until_stable`` stops on.
    mean: n = (t_{n-1}·s / (target·mean))², iterated from the normal quantile until it settles
    (valid only if the data are normal).  "Expected" means typical: about half the runs of that
    size meet the target, so plan some margin.  Raises StatisticsError if max_n does not suffice.
    """
    confidence = check_confidence(confidence)
    if not 0 < target < 1:
        raise StatisticsError(f"target is a relative half-width in (0, 1) (0.05 = ±5%), got {target}")
    tail = (1.0 - confidence) / 2.0
    if statistic == "median":
        x = as_values(pilot, "pilot", min_n=5)
        med = float(np.median(x))
        if med == 0:
            raise StatisticsError("the pilot median is zero: a relative target is undefined")
        start = min_samples_for_ci(0.5, confidence)
        while start <= max_n:  # scan n in growing blocks: most targets are met early
            ns = np.arange(start, min(int(max_n), 8 * start) + 1)
            j = sps.binom.ppf(tail, ns, 0.5)
            k = sps.binom.isf(tail, ns, 0.5) + 1
            low, high = np.quantile(x, j / (ns + 1)), np.quantile(x, k / (ns + 1))
            half = relative_half_width(med, low, high)
            ok = np.nonzero(half <= target)[0]
            if ok.size:
                i = int(ok[0])
                return SampleSize("median", int(ns[i]), target, confidence, x.size, float(half[i]),
                                  "exact binomial ranks at the pilot's quantiles j/(n+1), k/(n+1)")
            start = int(ns[-1]) + 1
        raise StatisticsError(f"more than max_n={max_n} samples would be needed for ±{target:.1%} "
                              f"(pilot spread too large); lower the target or raise max_n")
    if statistic == "mean":
        x = as_values(pilot, "pilot", min_n=3)
        mean, s = float(np.mean(x)), float(np.std(x, ddof=1))
        if mean == 0:
            raise StatisticsError("the pilot mean is zero: a relative target is undefined")
        rel = s / (target * abs(mean))
        n = max(2, math.ceil((sps.norm.isf(tail) * rel) ** 2))
        seen: list[int] = []
        while n not in seen and n <= max_n:
            seen.append(n)
            n = max(2, math.ceil((sps.t.isf(tail, n - 1) * rel) ** 2))
        if n > max_n:
            raise StatisticsError(f"more than max_n={max_n} samples would be needed for ±{target:.1%}")
        n = max(seen[seen.index(n):])  # a fixed point, or the largest value of a cycle
        half = float(sps.t.isf(tail, n - 1) * s / math.sqrt(n) / abs(mean))
        return SampleSize("mean", n, target, confidence, x.size, half,
                          "n = (t·s/(target·mean))² iterated (assumes normality)")
    raise StatisticsError(f"statistic must be 'median' or 'mean', got {statistic!r}")
