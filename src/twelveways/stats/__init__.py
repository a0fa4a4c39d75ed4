"""Statistics that know the kind of data they summarize (DESIGN.md "Statistics").

Everything here delegates the arithmetic to scipy / statsmodels; this package only chooses the
right procedure (costs vs rates vs ratios, parametric only when normality holds) and refuses
data that cannot support a statistic by raising :class:`~twelveways.errors.StatisticsError`.

The code lives in ``stats.core`` (input checks, exact-rank CIs, normality, t CI), ``stats.summary``
(kind-aware summaries, ratios, the self-choosing ``ci``, sample sizes), ``stats.compare``
(Mann–Whitney, Kruskal–Wallis, effect sizes, pooling ranks), ``stats.tail`` (percentiles,
quantile regression), ``stats.scaling`` (speedup, Amdahl) and ``stats.changepoint``
(warm-up and mid-run shifts of a run's per-iteration series) and ``stats.replicates`` (the
two-level model: invocations, then iterations); import it from here.  Accuracies are binomial
counts: ``stats.proportion`` (one test set's exact CI, two test sets compared as independent) and
``stats.paired_proportion`` (two variants scored on the same items: McNemar, Tang/Tango score
tests and intervals) are imported by module.

Conventions: confidences, alphas and quantiles are fractions (0.95, 0.05, 0.99); a ``confidence`` is always
the caller's: statistics never look a setting up (:mod:`twelveways.evidence.settings` resolves it); results are
small frozen dataclasses with ``to_dict()`` (JSON-ready, for checklist evidence) or plain dicts.
"""

from __future__ import annotations

from .changepoint import Stability, min_series_length, stability
from .compare import (Comparison, Kruskal, a12_magnitude, compare, detectable_ratio, effect_size, fdr_adjust,
                      holm_adjust, kruskal, mann_whitney, ranks_poolable, signed_rank)
from .core import (KINDS, STATISTICS, Normality, as_values, check_confidence, geometric_mean, harmonic_mean, mean_ci, median_ci,
                   median_ci_ranks, min_samples_for_ci, normality, percentile_ci, percentile_ci_ranks,
                   relative_half_width, skewness)
from .replicates import (METHOD as REPLICATE_METHOD, Components, ReplicateRatio, components,
                         detectable_log_effect, invocations_needed, log_ratio_interval, ratio_ci)
from .scaling import (BASE_CASES, AmdahlFit, ScalingPoint, Speedup, amdahl_fit, amdahl_speedup,
                            ideal_scaling, speedup)
from .summary import (Ratio, SampleSize, Summary, ci, geometric_mean_fallback, ratio_of_summaries,
                            samples_needed, summarize)
from .tail import QuantileFit, percentiles, quantile_regression

__all__ = [
    # kinds and summaries (R3, R4)
    "KINDS", "STATISTICS", "Summary", "Ratio", "summarize", "ratio_of_summaries", "geometric_mean_fallback",
    # normality and CIs (R5, R6)
    "Normality", "normality", "mean_ci", "ci", "median_ci", "median_ci_ranks", "percentile_ci",
    "percentile_ci_ranks", "min_samples_for_ci", "SampleSize", "samples_needed", "as_values", "relative_half_width",
    "check_confidence",
    # comparisons (R7)
    "Comparison", "compare", "a12_magnitude", "Kruskal", "kruskal", "ranks_poolable", "fdr_adjust", "detectable_ratio",
    "mann_whitney", "signed_rank", "effect_size", "holm_adjust", "harmonic_mean", "geometric_mean", "skewness",
    # replicate level: invocations, then iterations (R5, R7)
    "REPLICATE_METHOD", "Components", "ReplicateRatio", "components", "detectable_log_effect", "invocations_needed",
    "log_ratio_interval", "ratio_ci",
    # tails (R8, R12)
    "percentiles", "QuantileFit", "quantile_regression",
    # scaling (R1, R11)
    "BASE_CASES", "ScalingPoint", "Speedup", "speedup", "AmdahlFit", "amdahl_fit", "amdahl_speedup",
    "ideal_scaling",
    # warm-up and stability of a run's iterations (R5)
    "Stability", "stability", "min_series_length",
]
