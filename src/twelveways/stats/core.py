"""Core of :mod:`twelveways.stats`: input checks, exact order-statistic CIs, normality, the t CI.

Import from :mod:`twelveways.stats`, not from here; this split only keeps each file short.
scipy and statsmodels do the arithmetic; this module chooses the procedure for the kind of data
(R3, R4, R5, R6) and refuses data that cannot support a statistic, instead of returning a number.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from functools import lru_cache

import numpy as np

from ..jsonvalue import plain
from scipy import stats as sps

from ..errors import StatisticsError

KINDS = ("cost", "rate", "ratio")
#: statistics allowed per kind; the first is the default (R3: arithmetic mean for costs, harmonic for rates)
STATISTICS = {"cost": ("mean", "median"), "rate": ("hmean", "median")}
SHAPIRO_MAX_N = 5000
NORMALITY_TEST = "Shapiro-Wilk (scipy.stats.shapiro)"
RATIO_REFUSAL = ("ratios are never averaged (R4): summarize the numerator and the denominator separately "
                 "and call ratio_of_summaries(numerator_values, denominator_values, kind)")


class Record:
    """Mixin: ``to_dict()`` gives plain JSON-ready values, so results can go straight into evidence."""

    def to_dict(self) -> dict:
        return plain(dataclasses.asdict(self))  # type: ignore[call-overload]


def harmonic_mean(values) -> float:
    """The harmonic mean (the mean of rates over equal work; scipy)."""
    return float(sps.hmean(np.asarray(values, dtype=float)))


def geometric_mean(values) -> float:
    """The geometric mean (of ratios; scipy)."""
    return float(sps.gmean(np.asarray(values, dtype=float)))


def skewness(values) -> float:
    """Sample skewness (scipy, biased estimator): the shape beside a normality test."""
    return float(sps.skew(np.asarray(values, dtype=float)))


def relative_half_width(value, low, high):
    """The farthest CI bound's distance from ``value``, relative to it: the x of "within ±x" (measure's
    CI target, R5's widths, the restated-number tolerance).  Arrays give arrays; a zero value gives inf."""
    value, low, high = (np.asarray(v, dtype=float) for v in (value, low, high))
    with np.errstate(divide="ignore", invalid="ignore"):
        width = np.maximum(value - low, high - value) / np.abs(value)
    return float(width) if width.ndim == 0 else width


# ---------------------------------------------------------------------------------------------
# input checks


def as_values(values, name: str = "values", min_n: int = 1) -> np.ndarray:
    """A 1-D float array of finite values.

    NaN/inf are refused rather than dropped: a silently shortened sample is how invalid runs end
    up summarized.  Filter invalid rows explicitly (``results.summarizable``) before calling.
    """
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise StatisticsError(f"{name} must be numbers", cause=exc) from exc
    if arr.ndim != 1:
        raise StatisticsError(f"{name} must be a one-dimensional sequence of samples, got shape {arr.shape}")
    bad = int(np.count_nonzero(~np.isfinite(arr)))
    if bad:
        raise StatisticsError(f"{name} has {bad} non-finite value(s) (NaN/inf); drop invalid samples "
                              "explicitly before computing statistics")
    if arr.size < min_n:
        raise StatisticsError(f"{name}: {arr.size} sample(s) are too few; this statistic needs at least {min_n}")
    return arr


def check_confidence(confidence: float) -> float:
    """A confidence level the caller gives: statistics never look a setting up (the caller resolves it with
    :mod:`twelveways.evidence.settings`, which knows the sources and the schema's default)."""
    if confidence is None:  # a caller's bug, not a problem of the data: no StatisticsError a caller would catch
        raise TypeError("no confidence level given: resolve one (twelveways.evidence.settings) and pass it")
    return check_fraction(confidence, "confidence")


def check_fraction(value: float, name: str) -> float:
    """Confidence levels and significance levels are fractions; 95 instead of 0.95 is a common slip worth a
    clear error."""
    try:
        c = float(value)
    except (TypeError, ValueError) as exc:
        raise StatisticsError(f"{name} must be a number in (0, 1)", cause=exc) from exc
    if not 0.0 < c < 1.0:
        raise StatisticsError(f"{name} must lie in (0, 1) (e.g. 0.95), got {value}")
    return c


def check_quantile(q: float) -> float:
    """Quantiles are fractions: 0.99 is the 99th percentile."""
    try:
        qf = float(q)
    except (TypeError, ValueError) as exc:
        raise StatisticsError("quantile q must be a number in (0, 1)", cause=exc) from exc
    if not 0.0 < qf < 1.0:
        raise StatisticsError(f"quantile q must lie in (0, 1) (0.99 for the 99th percentile), got {q}")
    return qf


def check_kind(kind: str) -> str:
    """Cost or rate; ratios are refused with the way to do it right (R4)."""
    if kind == "ratio":
        raise StatisticsError(RATIO_REFUSAL)
    if kind not in STATISTICS:
        raise StatisticsError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind


def check_sign(x: np.ndarray, kind: str, statistic: str) -> None:
    if kind == "rate" or statistic == "hmean":
        if np.any(x <= 0):
            raise StatisticsError(f"{kind} values must be positive for the {statistic}; got minimum {x.min():g}")
    elif np.any(x < 0):
        raise StatisticsError(f"costs cannot be negative; got minimum {x.min():g}")


# ---------------------------------------------------------------------------------------------
# exact order-statistic CIs (median and any quantile)


@lru_cache(maxsize=4096)
def percentile_ci_ranks(n: int, q: float, confidence: float) -> tuple[int, int, float] | None:
    """1-based order-statistic ranks (j, k) and exact coverage of the CI of the q-quantile.

    The count of samples below the true q-quantile is Binomial(n, q), whatever the distribution
    (continuous), so [x_(j), x_(k)] covers it with probability P(j <= B < k).  The equal-tailed
    rule is scipy.stats.quantile_test's (j = ppf(α/2), k = isf(α/2) + 1); the tests check that the
    two agree.  Returns None when n is too small for both tails (see :func:`min_samples_for_ci`).
    """
    q, confidence = check_quantile(q), check_confidence(confidence)
    n = int(n)
    if n < 1:
        return None
    tail = (1.0 - confidence) / 2.0
    j = int(sps.binom.ppf(tail, n, q))
    k = int(sps.binom.isf(tail, n, q)) + 1
    if j < 1 or k > n:
        return None
    coverage = float(sps.binom.cdf(k - 1, n, q) - sps.binom.cdf(j - 1, n, q))
    return j, k, coverage


def median_ci_ranks(n: int, confidence: float) -> tuple[int, int, float] | None:
    """Ranks (j, k) and coverage of the distribution-free CI of the median (n=20, 95%: 6, 15, 0.9586).

    None when n is too small for the confidence (n < 6 at 95%).
    """
    return percentile_ci_ranks(n, 0.5, confidence)


def min_samples_for_ci(q: float, confidence: float) -> int:
    """Smallest n for which an exact two-sided CI of the q-quantile exists (6 for the median at 95%).

    Why: tail percentiles need many samples (p99 at 95% needs 368); say so before measuring.
    """
    q, confidence = check_quantile(q), check_confidence(confidence)
    tail = (1.0 - confidence) / 2.0
    # both tails must be reachable: (1-q)^n < tail (a lower rank >= 1) and q^n <= tail (upper rank <= n)
    n = max(1, math.ceil(math.log(tail) / math.log(q)), math.ceil(math.log(tail) / math.log(1.0 - q)))
    n = max(1, n - 2)
    while percentile_ci_ranks(n, q, confidence) is None:
        n += 1
    return n


def _quantile_name(q: float) -> str:
    return "median" if q == 0.5 else f"{q * 100:g}th percentile"


def _order_statistic_ci(samples, q: float, confidence: float, axis):
    q, confidence = check_quantile(q), check_confidence(confidence)
    if axis is None:
        x = as_values(samples, "samples")
        n = x.size
    else:
        x = np.moveaxis(np.asarray(samples, dtype=float), axis, -1)
        if not np.all(np.isfinite(x)):
            raise StatisticsError("samples have non-finite values (NaN/inf); drop invalid samples explicitly")
        n = x.shape[-1]
    ranks = percentile_ci_ranks(n, q, confidence)
    if ranks is None:
        raise StatisticsError(f"{n} samples are too few for a {confidence:.0%} CI of the {_quantile_name(q)}: "
                              f"need at least {min_samples_for_ci(q, confidence)}")
    j, k, _ = ranks  # scipy.stats.quantile_test's ranks (tests check they agree), cached per n: no
    part = np.partition(x, (j - 1, k - 1), axis=-1)  # frozen distribution built per call, O(n) selection
    if axis is None:
        return float(part[j - 1]), float(part[k - 1])
    return part[..., j - 1], part[..., k - 1]


def median_ci(samples, confidence: float, *, axis: int | None = None):
    """Nonparametric CI of the median from exact binomial order-statistic ranks -> (low, high).

    No distributional assumption (R6).  One sample by default (the order statistics at
    scipy.stats.quantile_test's ranks, from scipy's binomial); with ``axis`` given, many samples at
    once (returns two arrays), e.g. for simulations.
    Raises StatisticsError when n is too small (n < 6 at 95%).
    """
    return _order_statistic_ci(samples, 0.5, confidence, axis)


def percentile_ci(samples, q: float, confidence: float, *, axis: int | None = None):
    """CI of the q-quantile (q a fraction, 0.99 = p99) from exact binomial ranks (Binomial(n, q)).

    Tail latency is judged by percentiles (R8), and a percentile without a CI hides how few tail
    samples support it.  Raises StatisticsError when n cannot support the CI.
    """
    return _order_statistic_ci(samples, q, confidence, axis)


# ---------------------------------------------------------------------------------------------
# normality


@dataclasses.dataclass(frozen=True)
class Normality(Record):
    """Shapiro–Wilk verdict plus Q–Q data (``qq``: theoretical, ordered, slope, intercept, r) for a plot."""

    test: str
    n: int
    n_used: int
    subsampled: bool
    W: float
    p: float
    alpha: float
    rejected: bool
    constant: bool
    qq: dict
    note: str = ""

    def brief(self) -> dict:
        """The verdict without the Q–Q arrays (for summaries and evidence)."""
        return {"test": self.test, "n_used": self.n_used, "W": self.W, "p": self.p,
                "alpha": self.alpha, "rejected": self.rejected}


def normality(values, alpha: float = 0.05, *, max_n: int = SHAPIRO_MAX_N, seed: int = 0) -> Normality:
    """Shapiro–Wilk test of normality with Q–Q plot data; checked before any parametric CI (R6).

    Above ``max_n`` points (5,000: where scipy's p-value stops being accurate) the test runs on a
    seeded random subsample; the Q–Q data always use every point, so the plot shows all data.
    Little power below ~20 samples: "not rejected" is then weak evidence, and the note says so.
    """
    x = as_values(values, min_n=3)
    alpha = check_fraction(alpha, "alpha")
    n = x.size
    used = x
    if n > max_n:
        used = np.random.default_rng(seed).choice(x, size=max_n, replace=False)
    constant = bool(np.ptp(x) == 0)
    notes = []
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")
        (osm, osr), (slope, intercept, r) = sps.probplot(x, dist="norm")
        if constant:
            W, p = float("nan"), float("nan")
        else:
            W, p = (float(v) for v in sps.shapiro(used))
    if constant:
        notes.append("all values are equal (deterministic): no spread to test")
    if n > max_n:
        notes.append(f"tested a seeded random subsample of {max_n} of {n} points (seed {seed})")
    if n < 20:
        notes.append(f"n={n}: Shapiro-Wilk has little power, so 'not rejected' is weak evidence")
    rejected = bool(not constant and p < alpha)
    qq = {"theoretical": osm, "ordered": osr, "slope": float(slope), "intercept": float(intercept), "r": float(r)}
    return Normality(NORMALITY_TEST, n, int(used.size), n > max_n, W, p, alpha, rejected, constant, qq,
                     "; ".join(notes))


def mean_ci(values, confidence: float, *, alpha: float = 0.05, assume_normal: bool = False) -> tuple[float, float]:
    """t-based CI of the arithmetic mean, refused when Shapiro–Wilk rejects normality (R6).

    ``assume_normal=True`` skips the check; it is explicit so a reviewer can find it.  For a CI
    that picks the right procedure by itself, use :func:`ci`.
    """
    confidence = check_confidence(confidence)
    x = as_values(values, min_n=2 if assume_normal else 3)
    if not assume_normal:
        check = normality(x, alpha)
        if check.rejected:
            raise StatisticsError(f"normality rejected (Shapiro-Wilk W={check.W:.3f}, p={check.p:.2g} < {alpha}): "
                                  "no t-based CI; use ci(values, kind=...) or median_ci(values)")
    return t_interval(x, confidence)


def t_interval(x: np.ndarray, confidence: float) -> tuple[float, float]:
    """t CI of the mean (scipy.stats.ttest_1samp); deterministic data give the value itself."""
    if np.ptp(x) == 0:
        return float(x[0]), float(x[0])
    res = sps.ttest_1samp(x, 0.0).confidence_interval(confidence)
    return float(res.low), float(res.high)
