"""median_ci / percentile_ci take the order statistics at scipy.stats.quantile_test's ranks, ties included."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from twelveways import stats


@pytest.mark.parametrize("n", [6, 20, 97, 1000])
@pytest.mark.parametrize("q, confidence", [(0.5, 0.95), (0.9, 0.99), (0.99, 0.95)])
def test_one_sample_ci_is_scipys_quantile_test_ci(n, q, confidence):
    rng = np.random.default_rng(n)
    for x in (rng.lognormal(size=n), np.round(rng.lognormal(size=n), 1)):  # continuous and tied
        if stats.percentile_ci_ranks(n, q, confidence) is None:
            continue
        ref = sps.quantile_test(x, q=0, p=q).confidence_interval(confidence)
        got = stats.median_ci(x, confidence) if q == 0.5 else stats.percentile_ci(x, q, confidence)
        assert got == (ref.low, ref.high) and all(isinstance(v, float) for v in got)
