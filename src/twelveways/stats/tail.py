"""Tails (R8, R12): percentiles with CIs and quantile regression.

Import from :mod:`twelveways.stats`.  statsmodels QuantReg fits the quantile lines; percentile CIs
come from exact binomial ranks.  Slow samples are the tail, shown and kept, never removed.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
from statsmodels.tools.sm_exceptions import IterationLimitWarning

from ..errors import StatisticsError
from .core import (Record, as_values, check_confidence, check_quantile, min_samples_for_ci,
                         percentile_ci, percentile_ci_ranks)


def percentiles(values, qs=(0.5, 0.9, 0.99), *, confidence: float) -> list[dict]:
    """Table of percentiles (q as fractions) with exact binomial CIs where n supports them.

    Rows whose CI n cannot support keep the estimate and say how many samples would be needed,
    so a p99 from 50 samples is visibly unsupported rather than silently reported.
    """
    x = as_values(values)
    confidence = check_confidence(confidence)
    rows = []
    for q in qs:
        q = check_quantile(q)
        value = float(np.quantile(x, q))
        ranks = percentile_ci_ranks(x.size, q, confidence)
        if ranks is None:
            rows.append({"q": q, "value": value, "n": int(x.size), "ci": None, "confidence": confidence,
                         "ranks": None, "coverage": None,
                         "note": f"n={x.size} too few for a {confidence:.0%} CI (need {min_samples_for_ci(q, confidence)})"})
            continue
        low, high = percentile_ci(x, q, confidence)
        rows.append({"q": q, "value": value, "n": int(x.size), "ci": (low, high), "confidence": confidence,
                     "ranks": ranks[:2], "coverage": ranks[2], "note": "exact binomial order statistics"})
    return rows


@dataclasses.dataclass(frozen=True)
class QuantileFit(Record):
    """One quantile's line y = intercept + slope·x with CIs (statsmodels QuantReg)."""

    q: float
    n: int
    intercept: float
    intercept_ci: tuple[float, float]
    slope: float
    slope_ci: tuple[float, float]
    slope_p: float
    confidence: float
    converged: bool
    method: str

    def predict(self, x) -> np.ndarray:
        """The fitted quantile line at x (for plots)."""
        return self.intercept + self.slope * np.asarray(x, dtype=float)


def quantile_regression(x, y, quantiles=(0.5, 0.9, 0.99), *, confidence: float,
                        min_tail: int = 5) -> dict[float, QuantileFit]:
    """Linear quantile regression of y on x for each quantile (statsmodels QuantReg), with CIs.

    Shows how the tail (p90, p99) moves with a factor (load, batch size, time) where a mean
    regression would only follow the centre (R8).  Refuses a quantile with fewer than ``min_tail``
    expected points beyond it (n·min(q, 1−q)), since its line would rest on a handful of samples.
    """
    # statsmodels' modules, not statsmodels.api (which loads all of statsmodels: ~0.4 s in every process that
    # imports twelveways.stats)
    from statsmodels.regression.quantile_regression import QuantReg
    from statsmodels.tools.tools import add_constant

    xs, ys = as_values(x, "x"), as_values(y, "y")
    confidence = check_confidence(confidence)
    if xs.size != ys.size:
        raise StatisticsError(f"x and y differ in length ({xs.size} vs {ys.size})")
    if np.unique(xs).size < 2:
        raise StatisticsError("x needs at least two distinct values to fit a slope")
    design = add_constant(xs, has_constant="add")
    fits = {}
    for q in quantiles:
        q = check_quantile(q)
        if xs.size * min(q, 1 - q) < min_tail:
            raise StatisticsError(f"{xs.size} points are too few for the {q:g} quantile: it needs "
                                  f"n·min(q, 1-q) >= {min_tail}, i.e. n >= {int(np.ceil(min_tail / min(q, 1 - q)))}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = QuantReg(ys, design).fit(q=q, max_iter=5000)
        converged = not any(issubclass(w.category, IterationLimitWarning) for w in caught)
        bounds = np.asarray(res.conf_int(alpha=1 - confidence))
        params, pvalues = np.asarray(res.params), np.asarray(res.pvalues)
        fits[q] = QuantileFit(q, int(xs.size), float(params[0]), (float(bounds[0, 0]), float(bounds[0, 1])),
                              float(params[1]), (float(bounds[1, 0]), float(bounds[1, 1])), float(pvalues[1]),
                              confidence, converged,
                              "statsmodels QuantReg (robust sandwich covariance, Hall-Sheather bandwidth)")
    return fits
