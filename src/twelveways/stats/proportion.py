"""Accuracy as a binomial proportion: its CI from the test-set size, and two accuracies compared.

An accuracy scored on N test items is x correct out of N.  Evaluating the same model on the same
items again gives the same x (a deterministic evaluation has no run-to-run spread), so repeating
it cannot narrow anything; what is uncertain is how the accuracy on *these* N items stands for the
accuracy on the population they were drawn from, and that is the binomial CI from N.  The
arithmetic is statsmodels' (``proportion_confint``, ``confint_proportions_2indep``,
``test_proportions_2indep``); this module only chooses the procedure for each way of stating
relative accuracy (F12).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import StatisticsError
from .core import check_confidence

#: How each relative-accuracy estimand is compared: (statsmodels ``compare``, whose counts are numerator).
#: ``a/b`` acc_a/acc_b; ``points`` 100·(acc_a − acc_b); ``errors`` (1 − acc_b)/(1 − acc_a), a ratio of error counts.
ESTIMANDS = ("a/b", "points", "errors")
METHOD = "Clopper–Pearson (exact binomial)"


@dataclass(frozen=True)
class Accuracy:
    """x correct of n test items, the accuracy x/n and its exact binomial CI at ``confidence``."""

    correct: int
    items: int
    accuracy: float
    ci: tuple[float, float]
    confidence: float
    method: str = METHOD

    def to_dict(self) -> dict:
        return {**asdict(self), "ci": list(self.ci)}


def _counts(correct, items) -> tuple[int, int]:
    correct, items = int(correct), int(items)
    if items <= 0 or not 0 <= correct <= items:
        raise StatisticsError(f"an accuracy needs 0 <= correct <= items and items > 0, got {correct} of {items}")
    return correct, items


def accuracy_ci(correct, items, confidence: float) -> Accuracy:
    """The accuracy ``correct/items`` with its two-sided exact binomial (Clopper–Pearson) CI."""
    from statsmodels.stats.proportion import proportion_confint

    correct, items = _counts(correct, items)
    confidence = check_confidence(confidence)
    low, high = proportion_confint(correct, items, alpha=1 - confidence, method="beta")
    return Accuracy(correct, items, correct / items, (float(low), float(high)), float(confidence))


def _arguments(estimand: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[tuple, str, float]:
    """(count1, nobs1, count2, nobs2), statsmodels' ``compare``, and the scale of the estimate."""
    (xa, na), (xb, nb) = _counts(*a), _counts(*b)
    if estimand == "a/b":
        return (xa, na, xb, nb), "ratio", 1.0
    if estimand == "points":
        return (xa, na, xb, nb), "diff", 100.0
    if estimand == "errors":
        return (nb - xb, nb, na - xa, na), "ratio", 1.0
    raise StatisticsError(f"unknown relative-accuracy estimand {estimand!r} (one of {', '.join(ESTIMANDS)})")


def relative_interval(estimand: str, a: tuple[int, int], b: tuple[int, int],
                      confidence: float) -> tuple[float, tuple[float, float]]:
    """(estimate, two-sided CI) of how accuracy ``a`` (correct, items) stands to ``b``, from both test sets.

    statsmodels' score interval for two independent binomials (``confint_proportions_2indep``;
    items scored by both models are treated as independent, which widens the interval when the
    two models err on the same items).  ``errors`` with no error on side a is unbounded above.
    """
    from statsmodels.stats.proportion import confint_proportions_2indep

    (c1, n1, c2, n2), compare, scale = _arguments(estimand, a, b)
    if compare == "ratio" and c2 == 0:
        raise StatisticsError("the base of the ratio has no counts (a perfect accuracy has no errors to compare)")
    estimate = (c1 / n1) / (c2 / n2) if compare == "ratio" else c1 / n1 - c2 / n2
    low, high = confint_proportions_2indep(c1, n1, c2, n2, compare=compare, alpha=1 - check_confidence(confidence))
    return scale * float(estimate), (scale * float(low), scale * float(high))


def relative_test(estimand: str, a: tuple[int, int], b: tuple[int, int], threshold: float,
                  alternative: str) -> tuple[float, float]:
    """(statistic, one-sided p) of "the estimate is above (``larger``) or below (``smaller``) ``threshold``"."""
    from statsmodels.stats.proportion import test_proportions_2indep

    (c1, n1, c2, n2), compare, scale = _arguments(estimand, a, b)
    result = test_proportions_2indep(c1, n1, c2, n2, value=threshold / scale, compare=compare,
                                     alternative=alternative)
    return float(result.statistic), float(result.pvalue)
