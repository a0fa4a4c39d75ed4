"""Per configuration: ratio NEW/BASE with a CI, Mann–Whitney, effect size, FDR control, a verdict.

Why these procedures (DESIGN.md "Statistics"): timings are skewed and heavy-tailed, so the
summary is the median and the ratio's CI is distribution-free — the exact order-statistic CIs
of both medians at level √confidence, bounds divided (``stats.ratio_of_summaries``; conservative
for independent samples).  The test is Mann–Whitney U (``stats.compare``) with Vargha–Delaney
A12; every configuration is one test of a family, so p-values are Benjamini–Hochberg adjusted
(``stats.fdr_adjust``).  A significant test is not enough: two invocations of identical code
differ by more than their samples' spread (pyperf's experience), so a difference is called only
beyond the noise floor measured by an A/A run (:mod:`twelveways.compare.noise`) — unless every
sample is its own run (training seeds), whose spread already holds the run-to-run variation.

Verdicts: ``faster`` / ``slower`` (costs and rates) or ``higher`` / ``lower`` (qualities) —
adjusted p below alpha and the whole CI beyond the noise floor (a CI that reaches into the floor
could be a run-to-run difference, and with a floor of zero this is "the CI excludes 1"); ``same``
— the whole CI lies within the floor (when the test is significant, a real but negligible
difference); otherwise ``inconclusive``, with what would decide it.  Both calls ask the whole CI to
be on one side of the floor: a CI that straddles it has not decided which side the difference is on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from .. import stats
from ..jsonvalue import plain
from ..errors import StatisticsError
from . import table as table_mod

VERDICTS = ("faster", "slower", "higher", "lower", "same", "inconclusive")


@dataclass(frozen=True)
class Floor:
    """The relative difference below which two runs of identical code may differ (A/A)."""

    relative: float
    measured: bool
    text: str
    false_positive_rate: float | None = None
    widened: bool = False  # to the spread between one configuration's own runs (floor_for)

    def band(self) -> str:
        """The floor as a verdict's reason names it."""
        own = " (this configuration's own run-to-run spread)" if self.widened else ""
        return f"±{self.relative:.1%}{own}"


@dataclass(frozen=True)
class Row:
    """One configuration compared."""

    configuration: str
    key: dict
    kind: str
    n_base: int
    n_new: int
    median_base: float | None
    median_new: float | None
    ratio: float | None
    ci: tuple[float, float] | None
    ci_method: str
    p_value: float | None
    p_adjusted: float | None
    a12: float | None
    magnitude: str
    detectable_ratio: float | None
    verdict: str
    reason: str

    def to_dict(self) -> dict:
        return plain(asdict(self))

    @property
    def differs(self) -> bool:
        return self.verdict not in ("same", "inconclusive")


@dataclass(frozen=True)
class _Test:
    ratio: stats.Ratio
    comparison: stats.Comparison | None
    detectable: float | None


def _test(base: table_mod.Samples, new: table_mod.Samples, confidence: float) -> _Test:
    kind = "rate" if base.kind == "quality" else base.kind  # both higher-is-better; the statistics are the same
    ratio = stats.ratio_of_summaries(new.values, base.values, kind, statistic="median", confidence=confidence)
    comparison = None
    if base.values.size >= 2 and new.values.size >= 2:
        try:
            comparison = stats.compare(new.values, base.values, confidence, kind=kind)
        except StatisticsError:
            comparison = None
    return _Test(ratio, comparison, stats.detectable_ratio(base.values, new.values, alpha=round(1 - confidence, 12)))


def direction(kind: str, ratio: float) -> str:
    """Word for a NEW/BASE ratio: costs are faster below 1, rates above 1; qualities higher/lower."""
    if kind == "quality":
        return "higher" if ratio > 1 else "lower"
    if kind == "rate":
        return "faster" if ratio > 1 else "slower"
    return "faster" if ratio < 1 else "slower"


def judge(kind: str, test: _Test, p_adjusted: float | None, alpha: float, floor: Floor) -> tuple[str, str]:
    """(verdict, reason) for one configuration (see the module docstring)."""
    r, ci, comparison = test.ratio.value, test.ratio.ci, test.comparison
    band = 1.0 + floor.relative
    beyond = r > band or r < 1.0 / band
    ci_text = f"CI [{ci[0]:.3g}, {ci[1]:.3g}]" if ci else "no CI (too few samples)"
    if comparison is None or comparison.min_possible_p >= alpha:
        n = (test.ratio.denominator.n, test.ratio.numerator.n)
        return "inconclusive", (f"n = {n[0]} and {n[1]} samples cannot reach p < {alpha:g}; "
                                "repeat each side at least 5 times")
    significant = p_adjusted is not None and p_adjusted < alpha
    excludes_one = ci is None or ci[0] > 1.0 or ci[1] < 1.0
    within_band = ci is not None and ci[0] >= 1.0 / band and ci[1] <= band
    ci_beyond = (ci[0] > band or ci[1] < 1.0 / band) if ci else not floor.relative
    if significant and beyond and ci_beyond:
        where = f"beyond the noise floor {floor.band()}" if floor.relative else f"noise floor {floor.text}"
        return direction(kind, r), f"ratio {r:.3g}, {ci_text}, adjusted p = {p_adjusted:.2g}, {where}"
    if significant and beyond and excludes_one:
        return "inconclusive", (f"ratio {r:.3g} is significant (adjusted p = {p_adjusted:.2g}) but the {ci_text} "
                                f"reaches into the noise floor {floor.band()}; more invocations per side "
                                "would decide")
    if not beyond and within_band:
        why = "a significant but smaller difference" if significant else "the whole CI lies within it"
        return "same", f"ratio {r:.3g} within the noise floor {floor.band()} ({why})"
    if beyond and not significant:
        return "inconclusive", (f"ratio {r:.3g} but adjusted p = {p_adjusted:.2g} >= {alpha:g}; "
                                "more samples per side would decide")
    if beyond:
        return "inconclusive", f"ratio {r:.3g} is significant but the {ci_text} includes 1"
    return "inconclusive", (f"ratio {r:.3g}, {ci_text} reaches beyond the noise floor {floor.band()}; "
                            "more samples per side would decide")


def compare_tables(base: Mapping[tuple, table_mod.Samples], new: Mapping[tuple, table_mod.Samples],
                   floor: Floor, *, confidence: float = 0.95) -> list[Row]:
    """Every configuration on both sides, compared and judged as one family of tests."""
    alpha = round(1.0 - confidence, 12)
    shared = sorted(set(base) & set(new), key=str)
    tests, untestable = {}, {}
    for key in shared:
        try:
            tests[key] = _test(base[key], new[key], confidence)
        except StatisticsError as exc:
            untestable[key] = str(exc)
    tested = [key for key in tests if tests[key].comparison is not None]
    _, adjusted = stats.fdr_adjust([tests[k].comparison.p for k in tested], alpha)
    p_adj = dict(zip(tested, adjusted))
    shown = table_mod.varying([*base, *new])
    rows = [_untestable(key, base[key], new[key], why, shown) for key, why in untestable.items()]
    for key in tests:
        test, comparison = tests[key], tests[key].comparison
        verdict, reason = judge(base[key].kind, test, p_adj.get(key), alpha, floor_for(base[key], new[key], floor))
        rows.append(Row(table_mod.label(key, shown), dict(key), base[key].kind,
                        int(base[key].values.size), int(new[key].values.size), test.ratio.denominator.value,
                        test.ratio.numerator.value, test.ratio.value, test.ratio.ci, test.ratio.ci_method,
                        comparison.p if comparison else None, p_adj.get(key), comparison.a12 if comparison else None,
                        comparison.magnitude if comparison else "", test.detectable, verdict, reason))
    return rows


def _untestable(key: tuple, base: table_mod.Samples, new: table_mod.Samples, why: str, shown) -> Row:
    """A configuration on both sides whose ratio is undefined (e.g. zero values)."""
    return Row(table_mod.label(key, shown), dict(key), base.kind, int(base.values.size), int(new.values.size),
               None, None, None, None, "none", None, None, None, "", None, "inconclusive", f"no ratio: {why}")


#: Used where every sample is its own program run: the run-to-run variation is in the samples.
REPLICATES_NEED_NO_FLOOR = Floor(0.0, True, "none needed: every sample is its own run")


def floor_for(base: table_mod.Samples, new: table_mod.Samples, floor: Floor) -> Floor:
    """The A/A floor guards samples taken within a run (iterations, queries), whose spread leaves out
    the run-to-run variation; samples that are each a separate run (seeds, invocations) carry it.

    A configuration whose own runs on one side already differ by more than the floor (e.g. a
    power-of-two transpose whose cache conflicts depend on where its pages land) is noisier from
    run to run than the A/A set showed: its floor is widened to that spread, each pair of its runs
    being an A/A observation of its own."""
    if base.runs >= base.values.size and new.runs >= new.values.size:
        return REPLICATES_NEED_NO_FLOOR
    spread = max(base.run_spread(), new.run_spread())
    if not floor.relative or spread <= floor.relative:
        return floor
    return Floor(spread, True, f"{floor.text}; widened to ±{spread:.1%}, the spread between this configuration's "
                 "own runs on one side", floor.false_positive_rate, widened=True)


def counts(rows: list[Row]) -> dict[str, int]:
    """How many configurations got each verdict (verdicts with none left out)."""
    found = {v: sum(r.verdict == v for r in rows) for v in VERDICTS}
    return {v: n for v, n in found.items() if n}


def assumed_floor(relative: float, why: str) -> Floor:
    """A floor stated by the user or a default, labelled as not measured."""
    if not math.isfinite(relative) or relative < 0:
        raise StatisticsError(f"noise floor must be a non-negative fraction, got {relative}")
    return Floor(relative, False, f"±{relative:.1%} assumed, not measured ({why})")
