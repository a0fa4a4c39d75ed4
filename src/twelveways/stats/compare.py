"""Comparisons (R7): CI overlap, Mann–Whitney U, Kruskal–Wallis, effect sizes, pooling across ranks.

Import from :mod:`twelveways.stats`.  scipy computes the tests; effect sizes are simple functions
of the U and H statistics scipy returns (Cliff's delta = rank-biserial r = 2·A12 − 1, A12 = U/(n_a·n_b),
epsilon² = H/(n − 1)).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats as sps

from ..errors import StatisticsError
from .core import Record, as_values, check_confidence, check_fraction
from .heap import collect_new_objects_only
from .summary import Summary, summarize

# Vargha & Delaney (2000): |A12 - 0.5| at least 0.06 small, 0.14 medium, 0.21 large
A12_THRESHOLDS = ((0.21, "large"), (0.14, "medium"), (0.06, "small"))


def a12_magnitude(a12: float) -> str:
    """Vargha–Delaney label of an A12 effect size: negligible, small, medium or large."""
    distance = abs(a12 - 0.5)
    for limit, label in A12_THRESHOLDS:
        if distance >= limit:
            return label
    return "negligible"


@dataclasses.dataclass(frozen=True)
class Comparison(Record):
    """Two samples compared three ways (CI overlap, Mann–Whitney, effect size) with a verdict."""

    n_a: int
    n_b: int
    a: Summary
    b: Summary
    ci_overlap: bool | None
    test: str
    u: float
    p: float
    alpha: float
    min_possible_p: float
    cliffs_delta: float
    a12: float
    magnitude: str
    direction: str
    verdict: str

    @property
    def significant(self) -> bool:
        return self.p < self.alpha


def compare(a, b, confidence: float, *, alpha: float | None = None, kind: str = "cost",
            unit: str | None = None) -> Comparison:
    """Is a different from b?  Median CIs (overlap?), Mann–Whitney U (two-sided), Cliff's delta and A12.

    Positive delta / A12 > 0.5 means a tends to be larger than b (for costs: a is slower).
    ``alpha`` defaults to 1 − confidence.  The verdict says "inconclusive" when the samples are
    too small for the test ever to reach alpha, rather than "no difference".
    """
    confidence = check_confidence(confidence)
    alpha = check_fraction(round(1.0 - confidence, 12) if alpha is None else alpha, "alpha")
    xa, xb = as_values(a, "a", min_n=2), as_values(b, "b", min_n=2)
    sa = summarize(xa, kind, statistic="median", confidence=confidence, unit=unit)
    sb = summarize(xb, kind, statistic="median", confidence=confidence, unit=unit)
    overlap = None
    if sa.ci is not None and sb.ci is not None:
        overlap = bool(sa.ci[0] <= sb.ci[1] and sb.ci[0] <= sa.ci[1])
    res = sps.mannwhitneyu(xa, xb, alternative="two-sided", method="auto")
    u, p = float(res.statistic), float(res.pvalue)
    a12 = u / (xa.size * xb.size)
    delta = 2.0 * a12 - 1.0
    magnitude = a12_magnitude(a12)
    direction = "a > b" if a12 > 0.5 else "a < b" if a12 < 0.5 else "a = b"
    # 2 / C(n_a + n_b, n_a) in logs: the binomial overflows a float beyond about 1,000 samples
    log_comb = math.lgamma(xa.size + xb.size + 1) - math.lgamma(xa.size + 1) - math.lgamma(xb.size + 1)
    min_p = min(1.0, 2.0 * math.exp(-log_comb))
    effect = f"{magnitude} effect, A12={a12:.2f}, Cliff's delta={delta:+.2f}"
    if p < alpha and overlap is False:
        verdict = f"different: {direction} (Mann-Whitney p={p:.2g}, CIs do not overlap, {effect})"
    elif p < alpha:
        why = "the CIs overlap" if overlap else "no median CIs (n too small)"
        verdict = f"different by Mann-Whitney ({direction}, p={p:.2g}) but {why}; {effect}"
    elif min_p >= alpha:
        verdict = (f"inconclusive: with n={xa.size} and {xb.size} the smallest possible p is {min_p:.2g} "
                   f">= {alpha}; collect more samples")
    elif overlap is False:
        verdict = f"unclear: the CIs do not overlap but Mann-Whitney p={p:.2g} >= {alpha} ({effect})"
    else:
        verdict = f"no significant difference (Mann-Whitney p={p:.2g} >= {alpha}; {effect})"
    return Comparison(xa.size, xb.size, sa, sb, overlap, "Mann-Whitney U (scipy.stats.mannwhitneyu, two-sided)",
                      u, p, alpha, min_p, delta, a12, magnitude, direction, verdict)


@dataclasses.dataclass(frozen=True)
class Kruskal(Record):
    """Kruskal–Wallis H test across k groups with epsilon² (share of rank variance between groups)."""

    test: str
    groups: list
    sizes: list
    n: int
    k: int
    H: float
    df: int
    p: float
    epsilon_squared: float
    alpha: float
    rejected: bool
    note: str = ""


def _groups(groups) -> tuple[list, list[np.ndarray]]:
    if isinstance(groups, Mapping):
        names, data = list(groups.keys()), list(groups.values())
    elif isinstance(groups, Sequence) and not isinstance(groups, (str, bytes)):
        names, data = list(range(len(groups))), list(groups)
    else:
        raise StatisticsError("groups must be a mapping name -> samples or a sequence of samples")
    if len(data) < 2:
        raise StatisticsError(f"Kruskal-Wallis needs at least 2 groups, got {len(data)}")
    return names, [as_values(d, f"group {name!r}") for name, d in zip(names, data)]


def kruskal(groups, *, alpha: float = 0.05) -> Kruskal:
    """Kruskal–Wallis test (scipy.stats.kruskal) of whether k groups share one distribution, plus epsilon².

    ``groups``: mapping name -> samples, or a sequence of samples.  Refuses data with no spread at
    all (H is undefined).  Epsilon² = H/(n − 1) (Tomczak & Tomczak 2014) says how large a
    significant difference is.
    """
    alpha = check_fraction(alpha, "alpha")
    names, data = _groups(groups)
    pooled = np.concatenate(data)
    if np.ptp(pooled) == 0:
        raise StatisticsError("all values in all groups are identical: Kruskal-Wallis is undefined (no spread)")
    res = sps.kruskal(*data)
    n, k = int(pooled.size), len(data)
    small = [str(name) for name, d in zip(names, data) if d.size < 5]
    note = (f"groups {', '.join(small)} have fewer than 5 samples: the chi-square p-value is approximate"
            if small else "")
    return Kruskal("Kruskal-Wallis H (scipy.stats.kruskal)", names, [int(d.size) for d in data], n, k,
                   float(res.statistic), k - 1, float(res.pvalue), float(res.statistic) / (n - 1), alpha,
                   bool(res.pvalue < alpha), note)


def ranks_poolable(samples_by_rank, *, alpha: float = 0.05) -> dict:
    """May per-rank samples be pooled into one sample?  Kruskal–Wallis across ranks first (R10).

    Pooling ranks that differ (a slow node, imbalance) hides the effect in a wider spread.
    Poolable when the test does not reject at ``alpha``; the result keeps the test for evidence.
    """
    if not isinstance(samples_by_rank, Mapping):
        raise StatisticsError("samples_by_rank must be a mapping rank -> samples")
    if len(samples_by_rank) < 2:
        return {"poolable": True, "reason": "only one rank: nothing to pool", "kruskal": None}
    data = {rank: as_values(v, f"rank {rank}") for rank, v in samples_by_rank.items()}
    if np.ptp(np.concatenate(list(data.values()))) == 0:
        return {"poolable": True, "reason": "all ranks report identical values", "kruskal": None}
    test = kruskal(data, alpha=alpha)
    if test.rejected:
        reason = (f"ranks differ (Kruskal-Wallis H={test.H:.3g}, p={test.p:.2g} < {alpha}, "
                  f"epsilon²={test.epsilon_squared:.3f}): summarize per rank or use the per-iteration maximum")
    else:
        reason = f"no evidence that ranks differ (Kruskal-Wallis p={test.p:.2g} >= {alpha})"
    return {"poolable": not test.rejected, "reason": reason, "kruskal": test.to_dict()}


#: Resamples of the permutation distribution used for tied small samples (mann_whitney).
MW_PERMUTATIONS = 9999


def mann_whitney(x, y, alternative: str = "two-sided") -> tuple[float, float]:
    """Mann–Whitney U of x against y and its p-value.

    Why not scipy's default alone: with ties in small samples its asymptotic p is far too small
    (3 equal vs 3 equal gives 0.023, exactly 1/20 by permutation), so there the permutation
    distribution is used (every arrangement when there are at most MW_PERMUTATIONS of them).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    tied = np.unique(np.concatenate([x, y])).size < x.size + y.size
    small = math.comb(x.size + y.size, x.size) <= MW_PERMUTATIONS
    method = sps.PermutationMethod(n_resamples=MW_PERMUTATIONS) if tied and small else "auto"
    result = sps.mannwhitneyu(x, y, alternative=alternative, method=method)
    return float(result.statistic), float(result.pvalue)


def signed_rank(differences, alternative: str = "two-sided") -> tuple[float, float]:
    """Wilcoxon signed-rank statistic and p-value of paired differences; all zero: (0, 1), nothing favoured."""
    d = np.asarray(differences, dtype=float)
    if not np.any(d != 0):
        return 0.0, 1.0
    result = sps.wilcoxon(d, alternative=alternative)
    return float(result.statistic), float(result.pvalue)


def effect_size(a, b) -> dict:
    """Vargha–Delaney A12 = P(a > b) + P(a = b)/2 and Cliff's delta = 2·A12 − 1, as :func:`compare` names them."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a12 = float(sps.mannwhitneyu(a, b).statistic) / (a.size * b.size)
    return {"a12": a12, "cliffs_delta": 2.0 * a12 - 1.0, "magnitude": a12_magnitude(a12)}


def holm_adjust(p_values: Sequence[float], alpha: float = 0.05) -> tuple[list[bool], list[float]]:
    """Holm's step-down adjustment (statsmodels ``multipletests``): family-wise error control for a
    handful of tests that must all hold (claims, a run's stability tests).  (rejected, adjusted)."""
    from statsmodels.stats.multitest import multipletests

    alpha = check_fraction(alpha, "alpha")
    if not len(p_values):
        return [], []
    with collect_new_objects_only():  # multipletests' gc.collect() would walk the whole heap each call
        rejected, adjusted, _, _ = multipletests(list(p_values), alpha=alpha, method="holm")
    return [bool(r) for r in rejected], [float(p) for p in adjusted]


def fdr_adjust(p_values: Sequence[float], alpha: float = 0.05) -> tuple[list[bool], list[float]]:
    """Benjamini–Hochberg over a family of tests (statsmodels ``multipletests``, ``fdr_bh``).

    Why: a comparison of two runs tests every configuration at once; without control, 5% of the
    identical configurations would be called different.  Returns (rejected, adjusted p-values).
    """
    from statsmodels.stats.multitest import multipletests

    alpha = check_fraction(alpha, "alpha")
    if not len(p_values):
        return [], []
    rejected, adjusted, _, _ = multipletests(list(p_values), alpha=alpha, method="fdr_bh")
    return [bool(r) for r in rejected], [float(p) for p in adjusted]


#: Asymptotic relative efficiency of Mann–Whitney against the t test for normal data (3/π).
MANN_WHITNEY_ARE = 3.0 / math.pi


def detectable_ratio(a, b, *, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest ratio of typical values (> 1) a two-sided Mann–Whitney test on samples the size of
    ``a`` and ``b`` detects with ``power``, given their spread on a log scale.

    Why: "no difference found" means little unless one says which difference could have been
    found.  statsmodels solves the t test's power for the standardized effect at the sample
    sizes scaled by Mann–Whitney's efficiency (3/π); the effect is put back on the ratio scale
    with the pooled robust spread (MAD) of the log values.  None when a sample has < 2 values,
    non-positive values, or no spread.
    """
    from statsmodels.stats.power import TTestIndPower

    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.size < 2 or xb.size < 2 or np.any(xa <= 0) or np.any(xb <= 0):
        return None
    spreads = [sps.median_abs_deviation(np.log(x), scale="normal") for x in (xa, xb)]
    spread = math.sqrt((spreads[0] ** 2 * (xa.size - 1) + spreads[1] ** 2 * (xb.size - 1)) / (xa.size + xb.size - 2))
    n_a = max(2.0, xa.size * MANN_WHITNEY_ARE)
    if spread == 0 or n_a * (xb.size / xa.size) < 2:
        return None
    try:
        effect = TTestIndPower().solve_power(effect_size=None, nobs1=n_a, alpha=alpha, power=power,
                                             ratio=xb.size / xa.size, alternative="two-sided")
    except (ValueError, RuntimeError):
        return None
    effect = float(np.ravel(effect)[0])
    return float(math.exp(effect * spread)) if math.isfinite(effect) else None
