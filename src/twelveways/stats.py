"""Statistics that know the kind of data they summarize (DESIGN.md "Statistics").

Everything here delegates the arithmetic to scipy / statsmodels; this module only chooses the
right procedure (costs vs rates vs ratios, parametric only when normality holds) and refuses
data that cannot support a statistic.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from .errors import StatisticsError


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int, float] | None:
    """1-based order-statistic ranks (j, k) of the distribution-free CI of the median.

    Exact binomial: the number of samples below the median is Binomial(n, 1/2); the widest
    symmetric pair whose coverage P(j <= X < k) reaches ``confidence`` is chosen.  Returns
    ``None`` when n is too small for any pair to reach the confidence (n < 6 at 95%).
    """
    if not 0 < confidence < 1:
        raise StatisticsError(f"confidence must lie in (0, 1), got {confidence}")
    if n < 1:
        return None
    alpha = 1.0 - confidence
    # largest j with P(X <= j-1) <= alpha/2  ->  j - 1 = ppf-based search on the exact cdf
    j = int(sps.binom.ppf(alpha / 2, n, 0.5))
    while j >= 1 and sps.binom.cdf(j - 1, n, 0.5) > alpha / 2:
        j -= 1
    while sps.binom.cdf(j, n, 0.5) <= alpha / 2:
        j += 1
    if j < 1:
        return None
    k = n - j + 1
    coverage = 1.0 - 2.0 * sps.binom.cdf(j - 1, n, 0.5)
    return j, k, float(coverage)


def median_ci(samples, confidence: float = 0.95) -> tuple[float, float]:
    """Nonparametric CI of the median from exact binomial order-statistic ranks."""
    values = np.sort(np.asarray(samples, dtype=float))
    values = values[np.isfinite(values)]
    ranks = median_ci_ranks(values.size, confidence)
    if ranks is None:
        raise StatisticsError(f"{values.size} samples are too few for a {confidence:.0%} CI of the median")
    j, k, _ = ranks
    return float(values[j - 1]), float(values[k - 1])
