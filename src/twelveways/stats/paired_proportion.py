"""Two accuracies scored on the SAME test items: a paired comparison on the discordant items.

When two variants of a model (int8 and fp32) classify the same N items, their correct/incorrect
outcomes are pairs, and the pairs fall in a 2×2 table: both right, only a right, only b right,
neither.  Only the discordant items (only a, only b) carry information about the difference; items
both variants get right or wrong are shared.  A test for two independent binomials
(``test_proportions_2indep``) ignores that sharing: it charges the claim for the variance of two
separate test sets, so with variants that err on the same items it is conservative and loses power.

The procedures, each named in the claim's evidence:

* no-difference threshold (``relative``/``relative_to_errors`` at 1, ``absolute_points`` at 0):
  **McNemar's exact test**, the exact binomial test of "only a right" among the discordant items
  with p = 1/2 (scipy ``binomtest``; statsmodels ``mcnemar(exact=True)`` is its two-sided form,
  reported beside every paired claim);
* a margin (e.g. acc_a/acc_b ≥ 0.95): McNemar's test cannot test it (conditional on the discordant
  count the null still depends on the shared items), so the claim uses the **asymptotic score
  test** whose null is the margin itself, with the nuisance cell at its restricted maximum-likelihood
  value: for the ratio of paired proportions **Tang's score test** (Tang, Tang & Chan 2003,
  Biometrical Journal 45:
  the statistic of Nam & Blackwelder 2002), for the difference **Tango's score test** (Tango 1998,
  Statistics in Medicine 17: the statistic of Nam 1997).  Both reduce to McNemar's z at no difference;
* the interval: the same score statistic inverted (the set of margins the two-sided test at 1 − c
  does not reject): **Tang's asymptotic score interval** for a ratio and **Tango's asymptotic score
  interval** for a difference, the intervals Fagerland, Lydersen & Laake (2014, Statistics in
  Medicine 33) recommend for paired binomial data.

statsmodels and scipy have no public paired-margin test or interval (statsmodels' Nam interval for
the paired ratio is private and marked as testing), so the two closed-form score statistics are
written here; the normal tail, the root finding and McNemar's exact test are scipy's and
statsmodels'.  Published values (Fagerland, Lydersen & Laake 2017, ch. 8) and simulated coverage
and size check them (tests/test_paired_accuracy.py).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import StatisticsError
from .core import check_confidence

#: The interval and test of each estimand (``proportion.ESTIMANDS``), as the evidence names them.
INTERVAL_NAMES = {"a/b": "Tang's asymptotic score interval for the ratio of paired proportions",
                  "errors": "Tang's asymptotic score interval for the ratio of paired error proportions",
                  "points": "Tango's asymptotic score interval for the difference of paired proportions"}
TEST_NAMES = {"a/b": "Tang's score test for the ratio of paired proportions",
              "errors": "Tang's score test for the ratio of paired error proportions",
              "points": "Tango's score test for the difference of paired proportions"}
MCNEMAR_NAME = "McNemar's exact test (exact binomial on the discordant items)"
#: Bracket of a ratio's limits (a limit past it is reported as the bracket's end).
RATIO_BRACKET = (0.0, 1e12)
#: The root finder sees the statistic clipped to ±this (it is ±inf where the null leaves no variance).
CLIP = 1e6


@dataclass(frozen=True)
class PairedItems:
    """The 2×2 table of two variants scored on the same items: counts of both right, only a right
    (McNemar's b), only b right (McNemar's c), neither."""

    both: int
    only_a: int
    only_b: int
    neither: int

    @classmethod
    def from_outcomes(cls, a, b) -> "PairedItems":
        """The table from per-item outcomes (true: correct) of a and b, item i of a paired with item i of b."""
        a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
        if a.shape != b.shape or a.ndim != 1 or not a.size:
            raise StatisticsError(f"paired outcomes need two equally long, non-empty series, got {a.shape} and {b.shape}")
        return cls(int(np.sum(a & b)), int(np.sum(a & ~b)), int(np.sum(~a & b)), int(np.sum(~a & ~b)))

    def __post_init__(self):
        if min(self.both, self.only_a, self.only_b, self.neither) < 0 or self.items == 0:
            raise StatisticsError(f"a paired table needs counts >= 0 and at least one item, got {self}")

    @property
    def items(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def correct(self) -> tuple[int, int]:
        """(correct of a, correct of b)."""
        return self.both + self.only_a, self.both + self.only_b

    def to_dict(self) -> dict:
        return {**asdict(self), "items": self.items, "discordant": self.only_a + self.only_b}


def _table(estimand: str, items: PairedItems) -> tuple[int, int, int, int]:
    """(x11, x10, x01, x00) of the numerator variable U against the denominator V (difference: U − V).

    ``a/b`` and ``points``: U = a correct, V = b correct.  ``errors`` (1 − acc_b)/(1 − acc_a):
    U = b wrong, V = a wrong, so both-wrong items are x11 and the discordant cells keep their order.
    """
    if estimand in ("a/b", "points"):
        return items.both, items.only_a, items.only_b, items.neither
    if estimand == "errors":
        return items.neither, items.only_a, items.only_b, items.both
    raise StatisticsError(f"unknown relative-accuracy estimand {estimand!r}")


def _ratio_score(phi: float, x11: int, x10: int, x01: int, n: int) -> float:
    """Tang's score statistic of H0: P(U)/P(V) = phi (Tang, Tang & Chan 2003, eq. for the restricted MLE
    of the cell 'V only'); decreasing in phi, McNemar's z at phi = 1."""
    numerator = (x11 + x10) - phi * (x11 + x01)
    if numerator == 0:
        return 0.0
    a = n * (1 + phi)
    b = (x11 + x01) * phi ** 2 - (x11 + x10 + 2 * x01)
    c = x01 * (1 - phi) * (x11 + x10 + x01) / n
    p01 = (-b + math.sqrt(max(0.0, b * b - 4 * a * c))) / (2 * a)
    variance = n * (1 + phi) * p01 + (x11 + x10 + x01) * (phi - 1)
    return numerator / math.sqrt(variance) if variance > 0 else math.copysign(math.inf, numerator)


def _difference_score(delta: float, x10: int, x01: int, n: int) -> float:
    """Tango's score statistic of H0: P(U) − P(V) = delta (Tango 1998, restricted MLE of the cell 'V only');
    decreasing in delta, McNemar's z at delta = 0."""
    numerator = x10 - x01 - n * delta
    if numerator == 0:
        return 0.0
    b = -x10 - x01 + (2 * n - x10 + x01) * delta
    c = -x01 * delta * (1 - delta)
    p01 = (math.sqrt(max(0.0, b * b - 8 * n * c)) - b) / (4 * n)
    variance = n * (2 * p01 + delta * (1 - delta))
    return numerator / math.sqrt(variance) if variance > 0 else math.copysign(math.inf, numerator)


def _score(estimand: str, items: PairedItems):
    """(statistic as a function of the null value, estimate, bracket of the null values) on the natural scale."""
    x11, x10, x01, x00 = _table(estimand, items)
    n = items.items
    if estimand == "points":
        return (lambda delta: _difference_score(delta, x10, x01, n)), (x10 - x01) / n, (-1.0, 1.0)
    if x11 + x01 == 0:
        raise StatisticsError("the base of the ratio has no counts (a perfect accuracy has no errors to compare)")
    return (lambda phi: _ratio_score(phi, x11, x10, x01, n)), (x11 + x10) / (x11 + x01), RATIO_BRACKET


def _limit(statistic, target: float, inner: float, outer: float) -> float:
    """The null value between ``inner`` (statistic on the near side of ``target``) and ``outer`` where the
    statistic equals ``target`` (scipy ``brentq``); ``outer`` when the statistic never gets there."""
    from scipy.optimize import brentq

    def gap(value: float) -> float:
        return min(CLIP, max(-CLIP, statistic(value) - target))

    if gap(outer) * gap(inner) > 0:
        return outer
    return float(brentq(gap, min(inner, outer), max(inner, outer), xtol=1e-12, rtol=1e-12))


def paired_interval(estimand: str, items: PairedItems,
                    confidence: float) -> tuple[float, tuple[float, float]]:
    """(estimate, two-sided score interval at ``confidence``) of how accuracy a stands to b on the same items.

    The interval is every null value the two-sided score test at 1 − confidence does not reject
    (:data:`INTERVAL_NAMES`); ``points`` are percentage points (×100), like ``proportion``'s.
    """
    from scipy.stats import norm

    statistic, estimate, (low_end, high_end) = _score(estimand, items)
    z = float(norm.isf((1 - check_confidence(confidence)) / 2))
    low = _limit(statistic, z, estimate, low_end) if estimate > low_end else low_end
    high = _limit(statistic, -z, estimate, high_end) if estimate < high_end else high_end
    scale = 100.0 if estimand == "points" else 1.0
    return scale * estimate, (scale * low, scale * high)


def no_difference(estimand: str, threshold: float) -> bool:
    """The threshold says "no difference" (ratio 1, zero points): McNemar's exact test states it."""
    return threshold == (0.0 if estimand == "points" else 1.0)


def paired_test(estimand: str, items: PairedItems, threshold: float, alternative: str) -> tuple[float | None, float, str]:
    """(statistic, one-sided p, test name) of "the estimate is above (``larger``) or below (``smaller``)
    ``threshold``" on paired items: McNemar's exact test at no difference, else the score test."""
    from scipy.stats import binomtest, norm

    if alternative not in ("larger", "smaller"):
        raise StatisticsError(f"alternative must be 'larger' or 'smaller', got {alternative!r}")
    _, x10, x01, _ = _table(estimand, items)
    if no_difference(estimand, threshold):
        if x10 + x01 == 0:  # every item concordant: nothing tells the variants apart
            return None, 1.0, MCNEMAR_NAME
        found = binomtest(x10, x10 + x01, 0.5, alternative="greater" if alternative == "larger" else "less")
        return float(x10), float(found.pvalue), MCNEMAR_NAME
    statistic = _score(estimand, items)[0](threshold / 100.0 if estimand == "points" else threshold)
    p = norm.sf(statistic) if alternative == "larger" else norm.cdf(statistic)
    return float(statistic), float(p), TEST_NAMES[estimand]


def mcnemar_exact(items: PairedItems) -> float:
    """Two-sided p of McNemar's exact test of equal accuracy (statsmodels ``mcnemar(exact=True)``)."""
    from statsmodels.stats.contingency_tables import mcnemar

    if items.only_a + items.only_b == 0:
        return 1.0
    table = [[items.both, items.only_a], [items.only_b, items.neither]]
    return float(mcnemar(table, exact=True).pvalue)
