"""Per configuration: ratio NEW/BASE with a replicate-level CI, FDR control, a verdict.

Why these procedures (DESIGN.md "Statistics"): replicates are counted at the outermost random
level (Kalibera & Jones): invocations (processes, LoadGen runs, training seeds); iterations,
queries and a process's inner values describe one replicate and never multiply n.  The ratio and
its CI come from the two-level random-effects model of :mod:`twelveways.stats.replicates` (each
invocation summarized, Welch t over the invocation summaries), so each configuration's verdict
uses its own between-invocation variance; the between-run variance an A/A run measured
(:mod:`twelveways.compare.noise`, per configuration family) is added where it applies.  Every
configuration is one test of a family, so the p-values (ratio 1) are Benjamini–Hochberg
adjusted (``stats.fdr_adjust``).

Verdicts against a stated practical-equivalence margin (default ±2 %): ``faster`` / ``slower``
(costs and rates) or ``higher`` / ``lower`` (qualities) — adjusted p below alpha and the whole
CI beyond the margin; ``same`` — the whole CI lies within the margin; otherwise ``inconclusive``,
with the invocations per side that would decide (power from the variance components).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from .. import stats
from ..errors import StatisticsError
from ..evidence.settings import resolve_confidence
from ..jsonvalue import plain
from . import table as table_mod
from .margin import DEFAULT_MARGIN

VERDICTS = ("faster", "slower", "higher", "lower", "same", "inconclusive")
POWER = 0.8


@dataclass(frozen=True)
class RunLevel:
    """Between-run variance (log scale) an A/A run measured for a group of configurations."""

    variance: float
    df: float
    source: str


@dataclass(frozen=True)
class Noise:
    """What a comparison knows beyond each configuration's own invocations: the margin and the run level."""

    margin: float = DEFAULT_MARGIN
    margin_text: str = f"±{DEFAULT_MARGIN:.0%} practical-equivalence margin (default)"
    run_levels: Mapping[tuple, RunLevel] = field(default_factory=dict)  # (family[, workload[, implementation]])
    text: str = "no A/A run: the between-run level is not measured, only each configuration's own invocations"
    measured: bool = False
    false_positive_rate: float | None = None

    def run_level(self, key: Mapping) -> RunLevel | None:
        """The most specific measured run level for a configuration: its family and implementation, its
        kernel, else its benchmark family as a whole (the last resort, named so in its source)."""
        family, workload, implementation = (str(key.get(c, "")) for c in ("family", "workload", "implementation"))
        for group in ((family, workload, implementation), (family, workload), (family,)):
            if group in self.run_levels:
                return self.run_levels[group]
        return None

    def band(self) -> str:
        return f"±{self.margin:.1%}"


@dataclass(frozen=True)
class Row:
    """One configuration compared."""

    configuration: str
    key: dict
    kind: str
    n_base: int  # invocations (the replicates), never iterations
    n_new: int
    iterations_base: float | None  # values per invocation (describe one replicate)
    iterations_new: float | None
    summary_base: float | None
    summary_new: float | None
    ratio: float | None
    ci: tuple[float, float] | None
    ci_method: str
    p_value: float | None
    p_adjusted: float | None
    detectable_ratio: float | None
    invocations_to_decide: int | None
    run_level: str
    verdict: str
    reason: str

    def to_dict(self) -> dict:
        return plain(asdict(self))

    @property
    def differs(self) -> bool:
        return self.verdict not in ("same", "inconclusive")


def direction(kind: str, ratio: float) -> str:
    """Word for a NEW/BASE ratio: costs are faster below 1, rates above 1; qualities higher/lower."""
    if kind == "quality":
        return "higher" if ratio > 1 else "lower"
    if kind == "rate":
        return "faster" if ratio > 1 else "slower"
    return "faster" if ratio < 1 else "slower"


def _kind(kind: str) -> str:
    return "rate" if kind == "rate" else "cost"  # qualities: higher is better, summarized by their mean


def _ratio(base: table_mod.Samples, new: table_mod.Samples, confidence: float, level: RunLevel | None, prior):
    return stats.ratio_ci(new.replicates(), base.replicates(), _kind(base.kind), confidence=confidence,
                          run_variance=level.variance if level else 0.0, run_df=level.df if level else math.inf,
                          prior=prior)


#: A configuration's variance family: the same kernel, implementation, resources and metric (sizes and
#: scaling studies differ within it); its other configurations moderate a variance of few invocations.
VARIANCE_FAMILY = ("family", "benchmark", "workload", "implementation", "ranks", "threads", "metric", "scenario")


def _spread(samples: table_mod.Samples) -> tuple[float, int]:
    """(variance of the log invocation summaries, its df) of one side; (nan, 0) with one invocation."""
    try:
        logs = stats.replicates.log_summaries(samples.replicates(), _kind(samples.kind))
    except StatisticsError:
        return math.nan, 0
    return (float(logs.var(ddof=1)), logs.size - 1) if logs.size >= 2 else (math.nan, 0)


def family_priors(base: Mapping[tuple, table_mod.Samples], new: Mapping[tuple, table_mod.Samples],
                  shared: list[tuple]) -> dict[tuple, tuple[tuple[float, float] | None, int]]:
    """{configuration: (its family's prior (variance, df) from the family's other configurations, how many)}."""
    def family(key: tuple) -> tuple:
        named = dict(key)
        return tuple(named.get(c) for c in VARIANCE_FAMILY)

    groups: dict[tuple, list[tuple]] = {}
    for key in shared:
        groups.setdefault(family(key), []).append(key)
    spreads = {key: (_spread(base[key]), _spread(new[key])) for key in shared}
    priors = {}
    for key in shared:
        others = [other for other in groups[family(key)] if other != key]
        priors[key] = (stats.replicates.family_prior([s for other in others for s in spreads[other]]), len(others))
    return priors


def _variance_source(prior: tuple[tuple[float, float] | None, int]) -> str:
    if prior[0] is None:
        return "its own invocations"
    return (f"its own invocations, moderated by {prior[1]} configuration(s) of the same kernel, implementation and "
            f"resources (prior df {prior[0][1]:g})")


def detectable(ratio: stats.ReplicateRatio, alpha: float) -> float | None:
    """Smallest ratio (> 1) these invocations find with 80 % power."""
    variance = _invocation_variance(ratio)
    if variance is None:
        return None
    effect = stats.detectable_log_effect(variance, min(ratio.invocations), alpha=alpha, power=POWER,
                                         run_variance=ratio.run_variance)
    return math.exp(effect)


def _invocation_variance(ratio: stats.ReplicateRatio) -> float | None:
    known = [c.summary_variance for c in (ratio.numerator, ratio.denominator) if c.summary_variance is not None]
    return sum(known) / len(known) if known else None


def to_decide(ratio: stats.ReplicateRatio, margin: float, alpha: float) -> int | None:
    """Invocations per side for which the CI would lie wholly on one side of the margin (80 % power)."""
    variance = _invocation_variance(ratio)
    distance = abs(abs(math.log(ratio.value)) - math.log1p(margin))
    if variance is None or not distance:
        return None
    return stats.invocations_needed(variance, distance, alpha=alpha, power=POWER, run_variance=ratio.run_variance)


def _counted(ratio: stats.ReplicateRatio) -> str:
    base, new = ratio.invocations
    return f"{base} / {new} invocations"


def _ci_text(ratio: stats.ReplicateRatio) -> str:
    return f"ratio {ratio.value:.3g} [{ratio.ci[0]:.3g}, {ratio.ci[1]:.3g}] from {_counted(ratio)}"


def _decide_text(needed: int | None) -> str:
    if needed is None:
        return (f"more than {stats.replicates.MAX_INVOCATIONS} invocations per side would be needed: the difference "
                "lies at the margin, or the between-run noise hides it (rerun on an idle machine)")
    return f"about {needed} invocations per side would decide ({POWER:.0%} power)"


def judge(kind: str, ratio: stats.ReplicateRatio, p_adjusted: float | None, alpha: float, noise: Noise) -> tuple[str, str]:
    """(verdict, reason) for one configuration (see the module docstring)."""
    if ratio.ci is None:
        return "inconclusive", (f"one invocation per side ({_counted(ratio)}): its iterations describe one replicate "
                                "and cannot show how much another invocation differs; at least 3 invocations per "
                                "side would decide")
    band = 1.0 + noise.margin
    low, high = ratio.ci
    needed = to_decide(ratio, noise.margin, alpha)
    if (low > band or high < 1.0 / band) and p_adjusted is not None and p_adjusted < alpha:
        return direction(kind, ratio.value), (f"{_ci_text(ratio)} lies beyond the {noise.band()} margin "
                                              f"(adjusted p = {p_adjusted:.2g})")
    if low >= 1.0 / band and high <= band:
        return "same", f"{_ci_text(ratio)} lies within the {noise.band()} margin"
    if low > band or high < 1.0 / band:
        return "inconclusive", (f"{_ci_text(ratio)} lies beyond the {noise.band()} margin but the adjusted p = "
                                f"{p_adjusted:.2g} >= {alpha:g} over all configurations; {_decide_text(needed)}")
    return "inconclusive", f"{_ci_text(ratio)} reaches across the {noise.band()} margin; {_decide_text(needed)}"


def compare_tables(base: Mapping[tuple, table_mod.Samples], new: Mapping[tuple, table_mod.Samples],
                   noise: Noise | None = None, *, confidence: float | None = None) -> list[Row]:
    """Every configuration on both sides, compared and judged as one family of tests (``confidence`` None: the
    schema's)."""
    noise, confidence = noise or Noise(), stats.check_confidence(resolve_confidence(confidence))
    alpha = round(1.0 - confidence, 12)
    shared = sorted(set(base) & set(new), key=str)
    ratios, untestable = {}, {}
    priors = family_priors(base, new, shared)
    for key in shared:
        try:
            ratios[key] = _ratio(base[key], new[key], confidence, noise.run_level(dict(key)), priors[key][0])
        except StatisticsError as exc:
            untestable[key] = str(exc)
    tested = [key for key in ratios if ratios[key].p is not None]
    _, adjusted = stats.fdr_adjust([ratios[k].p for k in tested], alpha)
    p_adj = dict(zip(tested, adjusted))
    shown = table_mod.varying([*base, *new])
    rows = [_untestable(key, base[key], new[key], why, shown) for key, why in untestable.items()]
    for key, ratio in ratios.items():
        verdict, reason = judge(base[key].kind, ratio, p_adj.get(key), alpha, noise)
        level = noise.run_level(dict(key))
        rows.append(Row(table_mod.label(key, shown), dict(key), base[key].kind, *ratio.invocations,
                        ratio.denominator.iterations, ratio.numerator.iterations,
                        math.exp(ratio.denominator_log_mean), math.exp(ratio.numerator_log_mean),
                        ratio.value, ratio.ci, f"variance from {_variance_source(priors[key])}" if ratio.ci
                        else "none: one invocation per side",
                        ratio.p, p_adj.get(key), detectable(ratio, alpha),
                        to_decide(ratio, noise.margin, alpha) if verdict == "inconclusive" else None,
                        level.source if level else "not measured", verdict, reason))
    return rows


def _untestable(key: tuple, base: table_mod.Samples, new: table_mod.Samples, why: str, shown) -> Row:
    """A configuration on both sides whose ratio is undefined (e.g. zero values)."""
    return Row(table_mod.label(key, shown), dict(key), base.kind, len(base.replicates()), len(new.replicates()),
               None, None, None, None, None, None, "none", None, None, None, None, "", "inconclusive",
               f"no ratio: {why}")


def counts(rows: list[Row]) -> dict[str, int]:
    """How many configurations got each verdict (verdicts with none left out)."""
    found = {v: sum(r.verdict == v for r in rows) for v in VERDICTS}
    return {v: n for v, n in found.items() if n}
