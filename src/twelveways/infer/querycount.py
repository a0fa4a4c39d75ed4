"""How many queries a tail-latency percentile needs (MLPerf Inference's statistical minimum).

MLPerf sizes every latency run so that the measured percentile is, with the stated confidence,
within a margin of the true one: Margin = (1 - p) / 20 and N = z^2 * p * (1 - p) / Margin^2
(the normal approximation of a binomial proportion), rounded up to a multiple of 2^13 so that
counts are comparable across submissions.  With 99% confidence this gives 24,576 queries at
p90, 57,344 at p95, 90,112 at p97 and 270,336 at p99.  Runs with fewer queries still get a
verdict from LoadGen, but we label them :data:`BELOW_MINIMUM_LABEL`.
"""

from __future__ import annotations

import math

from ..errors import ConfigError
from ..evidence.settings import default_query_confidence

#: Counts are rounded up to a multiple of this (2^13), as MLPerf does.
ROUNDING = 2 ** 13
#: The words the report uses for runs shorter than the statistical minimum.
BELOW_MINIMUM_LABEL = "below the MLPerf statistical minimum"
#: MLPerf's minimum run duration for a result that counts (seconds); the full profile uses it.
MIN_DURATION_S = 60.0


def min_query_count(percentile: float, confidence: float | None = None) -> int:
    """Fewest queries for a ``percentile`` latency estimate at ``confidence`` (two-sided z).

    ``percentile`` is a fraction in (0, 1): 0.90 for SingleStream's p90, 0.99 for Server; ``confidence``
    None is the schema's ``infer.confidence`` (MLPerf's 0.99).
    """
    confidence = default_query_confidence() if confidence is None else confidence
    if not 0 < percentile < 1:
        raise ConfigError(f"percentile must lie in (0, 1), got {percentile!r}")
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence must lie in (0, 1), got {confidence!r}")
    from scipy.special import ndtri  # the normal quantile (norm.ppf's own); scipy.stats takes a second to import

    z = ndtri(1 - (1 - confidence) / 2)
    margin = (1 - percentile) / 20
    n = z * z * percentile * (1 - percentile) / (margin * margin)
    return int(math.ceil(n / ROUNDING) * ROUNDING)


def below_statistical_minimum(queries: int, percentile: float, duration_s: float,
                              confidence: float | None = None) -> bool:
    """Whether a run of ``queries`` lasting ``duration_s`` falls short of MLPerf's minimums."""
    return queries < min_query_count(percentile, confidence) or duration_s < MIN_DURATION_S
