"""The statistics of ``twelveways ab``: two sides paired within rounds, a planned number of rounds, a verdict.

Model.  In round r each side runs one invocation of a configuration, in a seeded random order; an
invocation is summarized by the arithmetic mean of its timed iterations (a cost, R3; per-iteration
maxima over ranks, warm-up left out), and the round by d_r = log(NEW / BASE).  Whatever the two
invocations of a round share (drift of the machine, a neighbour that stays for the round, the
frequency of the hour) cancels in d_r; what remains is each invocation's own noise.  The rounds are
the replicates.  The ratio is exp of the 20 %-trimmed mean of d and its CI the Tukey-McLaughlin t
interval of that trimmed mean (standard error from the winsorized variance, h - 1 df where h rounds
remain after trimming; statsmodels ``TrimmedMean``); the p-value of "ratio 1" is that trimmed t
test's, Benjamini-Hochberg adjusted over the configurations as ``compare`` does, and the verdict
uses ``compare``'s words against its practical-equivalence margin (default +/-2 %): faster / slower
when the whole CI lies beyond the margin and the adjusted p is below alpha, same when the whole CI
lies within it, else inconclusive with the rounds that would decide.

Why trimmed: single invocations of a few tenths of a second have heavy tails here (an invocation
that met a page-placement mode, a hypervisor pause or a daemon), and one such round moves a mean
and its sd far more than the effect looked for (``make bench``'s ab_effect prints, per configuration,
the sd of d beside the trimmed spread); the trimmed mean keeps about 95 % of the mean's efficiency
when d is normal.  Both sides' noise drawn alike makes d symmetric about the true log ratio (exactly
so in an A/A run, whose sides are exchangeable), so the trimmed mean estimates the same ratio the
mean does.  R6: the interval does not assume normal d (it is built for heavy-tailed data, Wilcox
2012, ch. 4), which is why no normality pre-test chooses between methods here (a pre-test would
itself bend the coverage); the coverage is simulated instead (below).

Stopping rule (stated in every output): two stages with one look at the end of the pilot, alpha split
between the two looks (Bonferroni), after Stein (1945).  A pilot of ``pilot`` rounds is judged at
level alpha1 = alpha / 5: where its trimmed interval at 1 - alpha1 already lies beyond the margin or
within it, the configuration stops there ("decided at the pilot").  Otherwise the pilot's spread s0
(the trimmed mean's standard error times sqrt(pilot)) fixes the rounds in all,
n = max(pilot, ceil(((t[1-alpha2/2] + t[power]) * s0 / (log(1 + effect) - log(1 + margin)))^2)),
alpha2 = alpha - alpha1, t quantiles with the pilot's trimmed df, never revised by what later rounds
show; the final CI over all n rounds uses the larger of s0 and all rounds' spread (an outlier of the
second stage cannot narrow it).  Coverage is not exact for a data-dependent n; it is checked by
simulation: ``tests/test_ab.py`` on drifting rounds with normal and with heavy-tailed noise, and
``make bench`` (ab_effect) by running the whole procedure on its own recorded rounds, resampled and
symmetrized about a known ratio.
The p-value is scaled alike for the look it stopped at (p * alpha / alpha1 or p * alpha / alpha2)
before Benjamini-Hochberg.  No other CI is looked at between rounds.  A time budget that ends the
rounds early does not look at d: before the pilot's end no look was taken and the plain trimmed
interval at 1 - alpha applies; after it, the final look's interval over the rounds run.
``--rounds N`` fixes n without a pilot: the plain trimmed interval at 1 - alpha.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats as sps
from statsmodels.stats.robust_compare import TrimmedMean

from .. import contention, stats
from ..stats.replicates import t_quantile
from . import verdicts
from .ab_options import MAX_ROUNDS, PILOT_ROUNDS  # stated with the options that set them

#: Share of the rounds trimmed from each end before the mean (the module docstring says why).
TRIM = 0.2
#: Power the plan and "the rounds that would decide" aim at: a planned effect is found in 9 of 10 configurations.
PLAN_POWER = 0.9
#: Stop reasons of one configuration.
STOP_PLANNED = "planned rounds reached"
STOP_FIXED = "fixed rounds reached"
STOP_TIME = "time budget ended"
STOP_INVALID = "invalid"
MODEL = ("paired rounds: each round runs one invocation of each side in a seeded random order; each invocation is "
         "summarized by the arithmetic mean of its timed iterations (maximum over ranks, warm-up left out); the "
         "round's log ratio log(NEW/BASE) cancels what both invocations of a round share (drift, a neighbour that "
         "stays); rounds are the replicates: ratio exp(20%-trimmed mean log ratio), Tukey-McLaughlin t interval of "
         "the trimmed mean (winsorized variance; statsmodels), robust to single disturbed invocations; "
         "Benjamini-Hochberg over the configurations")
STOP_PILOT = "decided at the pilot"
#: Share of alpha spent on the look at the end of the pilot (the rest on the final look).
PILOT_ALPHA_SHARE = 0.2
STEIN = ("two stages with a look at the end of the pilot (after Stein): a pilot of {pilot} rounds stops a "
         "configuration whose trimmed interval at {pilot_confidence:.1%} already lies beyond or within the {margin} "
         "margin; otherwise its spread fixes the rounds in all ({power:.0%} power for a {effect:.0%} effect beyond "
         "the margin, t quantiles with {df} df, at most {most}), never revised; the final CI at "
         "{final_confidence:.1%} uses the larger of the pilot's spread and all rounds'; alpha split between the two "
         "looks (Bonferroni), the p-values scaled alike; no other CI is looked at; coverage {confidence:.0%} "
         "checked by simulation, not exact")
FIXED = ("a fixed number of rounds ({rounds}, --rounds), decided before any was run; the plain trimmed interval "
         "over them")
#: How a configuration's rounds ended, which decides the level of its interval: no look was taken (fixed rounds,
#: or the time ran out before the pilot's end), the look at the pilot's end, the final look of the plan.
NO_LOOK, PILOT_LOOK, FINAL_LOOK = "no interim look", "pilot look", "final look"


@dataclass(frozen=True)
class Plan:
    """How many rounds each configuration runs: the two-stage plan for ``effect``, or ``rounds`` fixed."""

    confidence: float
    margin: float = verdicts.DEFAULT_MARGIN
    effect: float | None = 0.05
    rounds: int | None = None
    pilot: int = PILOT_ROUNDS
    power: float = PLAN_POWER
    most: int = MAX_ROUNDS

    @property
    def alpha(self) -> float:
        return round(1.0 - self.confidence, 12)

    def level(self, look: str) -> tuple[float, float]:
        """(confidence of the interval, factor on its p-value) at the look where a configuration stopped."""
        spent = self.alpha * PILOT_ALPHA_SHARE
        if look == PILOT_LOOK:
            return 1.0 - spent, self.alpha / spent
        if look == FINAL_LOOK:
            return 1.0 - (self.alpha - spent), self.alpha / (self.alpha - spent)
        return self.confidence, 1.0

    def text(self) -> str:
        """The stopping rule in words (every output states it)."""
        if self.rounds:
            return FIXED.format(rounds=self.rounds)
        return STEIN.format(pilot=self.pilot, power=self.power, effect=self.effect, margin=f"±{self.margin:.0%}",
                            df=self.pilot_df, most=self.most, confidence=self.confidence,
                            pilot_confidence=self.level(PILOT_LOOK)[0], final_confidence=self.level(FINAL_LOOK)[0])

    @property
    def pilot_df(self) -> int:
        """Degrees of freedom of the pilot's trimmed spread (rounds left after trimming, less one)."""
        return trimmed_df(self.pilot)

    def planned(self, pilot_log_ratios: Sequence[float]) -> int:
        """Rounds in all, fixed at the end of the pilot from its spread (the module docstring's n)."""
        if self.rounds:
            return self.rounds
        return self.rounds_for_sd(spread(pilot_log_ratios), trimmed_df(len(pilot_log_ratios)))

    def rounds_for_sd(self, s0: float, df: int) -> int:
        """Rounds in all that a pilot whose per-round log ratios have spread ``s0`` on ``df`` degrees of freedom
        fixes (what ``twelveways plan --ab-effect`` predicts from a recorded spread)."""
        quantiles = t_quantile((1 + self.level(FINAL_LOOK)[0]) / 2, df) + t_quantile(self.power, df)
        distance = math.log1p(self.effect) - math.log1p(self.margin)
        n = math.ceil((quantiles * s0 / distance) ** 2) if s0 > 0 else self.pilot
        return min(self.most, max(self.pilot, n))


def decided(found: Interval | None, margin: float) -> bool:
    """The whole interval lies beyond the margin or within it (what the look at the pilot's end asks)."""
    band = math.log1p(margin)
    return found is not None and (found.low > band or found.high < -band or (-band <= found.low and found.high <= band))


@dataclass
class Progress:
    """One configuration's rounds so far, the look it stopped at, and the plan fixed at the end of its pilot."""

    log_ratios: list[float] = field(default_factory=list)
    planned: int | None = None
    pilot_sd: float | None = None
    look: str = NO_LOOK

    def stop(self, plan: Plan, out_of_time: bool) -> str:
        """Why this configuration stops after its latest round ("" to go on)."""
        if plan.rounds:
            self.planned = plan.rounds
        elif self.planned is None and len(self.log_ratios) >= plan.pilot:
            pilot = self.log_ratios[:plan.pilot]
            self.pilot_sd = spread(pilot)
            if decided(interval(pilot, plan.level(PILOT_LOOK)[0]), plan.margin):
                self.look, self.planned = PILOT_LOOK, len(pilot)
                return STOP_PILOT
            self.look, self.planned = FINAL_LOOK, plan.planned(pilot)
        if self.planned is not None and len(self.log_ratios) >= self.planned:
            return STOP_FIXED if plan.rounds else STOP_PLANNED
        return STOP_TIME if out_of_time else ""


@dataclass(frozen=True)
class Interval:
    """The trimmed mean log ratio over rounds with its CI and p-value (log scale); ``sd`` is its spread (standard
    error times sqrt(rounds)), what the plan and "the rounds that would decide" scale by."""

    estimate: float
    low: float
    high: float
    p: float
    df: int
    sd: float
    rounds: int
    method: str


def trimmed_df(rounds: int) -> int:
    """Degrees of freedom of the trimmed t interval over ``rounds`` (statsmodels trims int(TRIM * n) per end)."""
    return max(1, rounds - 2 * int(TRIM * rounds) - 1)


def spread(log_ratios: Sequence[float]) -> float:
    """The trimmed mean's standard error times sqrt(n): the sd a plain mean would need for the same interval."""
    d = np.asarray(log_ratios, dtype=float)
    return float(TrimmedMean(d, TRIM).std_mean_trimmed * math.sqrt(d.size)) if d.size > 1 else 0.0


def interval(log_ratios: Sequence[float], confidence: float, pilot: tuple[int, float] | None = None) -> Interval | None:
    """The trimmed interval of the log ratio (module docstring): with ``pilot`` = (rounds, spread) and at least that
    many rounds, the final look's, whose spread is the larger of the pilot's and all rounds'; None with fewer than
    two rounds."""
    d = np.asarray(log_ratios, dtype=float)
    n = d.size
    if n < 2:
        return None
    trimmed = TrimmedMean(d, TRIM)
    estimate, s, df = float(trimmed.mean_trimmed), spread(d), len(trimmed.data_trimmed) - 1
    what = f"{TRIM:.0%}-trimmed mean, Tukey-McLaughlin t at {confidence:.1%} over {n} rounds, {df} df"
    if pilot is not None and n >= pilot[0]:
        s = max(pilot[1], s)
        what += f", spread {s:.3g} (the larger of the pilot's and all rounds')"
    if s == 0 or df < 1:
        return Interval(estimate, estimate, estimate, 0.0 if estimate else 1.0, max(df, 1), 0.0, n, what)
    se = s / math.sqrt(n)
    half = t_quantile(1 - (1 - confidence) / 2, df) * se
    p = float(2 * sps.t.sf(abs(estimate) / se, df))
    return Interval(estimate, estimate - half, estimate + half, p, df, s, n, what)


def trimmed_check(log_ratios: Sequence[float], confidence: float) -> tuple[float, float, float]:
    """statsmodels' own trimmed t test (``TrimmedMean.ttest_mean``) and its interval: what :func:`interval` without a
    pilot must equal."""
    trimmed = TrimmedMean(np.asarray(log_ratios, dtype=float), TRIM)
    _, p, df = trimmed.ttest_mean(0.0)
    half = sps.t.ppf(1 - (1 - confidence) / 2, df) * trimmed.std_mean_trimmed
    return float(trimmed.mean_trimmed - half), float(trimmed.mean_trimmed + half), float(p)


def rounds_to_decide(found: Interval, margin: float, alpha: float, power: float = PLAN_POWER,
                     most: int = MAX_ROUNDS) -> int | None:
    """Rounds in all (plain trimmed t, the observed spread) whose CI would lie wholly on one side of the margin with
    ``power``, were the true log ratio the one estimated; None when even ``most`` are not enough."""
    distance = abs(math.log1p(margin) - abs(found.estimate))
    if not distance or not found.sd:
        return None
    n = np.arange(2, most + 1, dtype=float)
    df = np.array([trimmed_df(int(k)) for k in n], dtype=float)
    reach = (sps.t.ppf(1 - alpha / 2, df) + sps.t.ppf(power, df)) * found.sd / np.sqrt(n)
    enough = np.nonzero(reach <= distance)[0]
    return int(n[enough[0]]) if enough.size else None


def detectable(found: Interval, margin: float, alpha: float, power: float = PLAN_POWER) -> float:
    """Smallest slowdown (ratio > 1) these rounds call slower with ``power``: beyond the margin by the quantiles."""
    df = max(found.df, 1)
    reach = (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * found.sd / math.sqrt(found.rounds)
    return math.exp(math.log1p(margin) + reach)


@dataclass(frozen=True)
class PairedRounds:
    """One configuration's rounds: each side's invocation summary (mean seconds per iteration) per round, and
    whether either invocation of the round ran while the machine was busy, and whether the two saw unequal load."""

    configuration: str
    key: dict
    base: np.ndarray
    new: np.ndarray
    busy: np.ndarray
    uneven: np.ndarray | None = None  # the two invocations of the round saw unequal load (None: none did)
    iterations_base: float | None = None
    iterations_new: float | None = None
    pilot_sd: float | None = None  # the pilot's trimmed spread, when the pilot was completed
    busy_text: str = ""  # the load of the busy rounds in words
    look: str = NO_LOOK  # where the rounds stopped: the level of the interval

    @property
    def log_ratios(self) -> np.ndarray:
        return np.log(self.new) - np.log(self.base)

    def subset(self, keep: np.ndarray) -> PairedRounds:
        return PairedRounds(self.configuration, self.key, self.base[keep], self.new[keep], self.busy[keep],
                            None if self.uneven is None else self.uneven[keep], self.iterations_base,
                            self.iterations_new, self.pilot_sd, self.busy_text, self.look)


def found_interval(rounds: PairedRounds, plan: Plan) -> Interval | None:
    """The interval at the level of the look where the rounds stopped: the final look's after the plan's end, the
    plain trimmed interval otherwise."""
    confidence, _ = plan.level(rounds.look)
    stein = rounds.look == FINAL_LOOK and rounds.pilot_sd is not None and rounds.base.size >= plan.pilot
    return interval(rounds.log_ratios, confidence, (plan.pilot, rounds.pilot_sd) if stein else None)


def _ci_text(found: Interval) -> str:
    low, high = math.exp(found.low), math.exp(found.high)
    return f"ratio {math.exp(found.estimate):.3g} [{low:.3g}, {high:.3g}] from {found.rounds} paired rounds"


def _decide_text(needed: int | None, found: Interval) -> str:
    sd = f"trimmed spread of the per-round log ratio {found.sd:.2%}"
    if needed is None:
        return (f"more than {MAX_ROUNDS} rounds would be needed ({sd}): the ratio lies at the margin, or the noise "
                "of single invocations hides it (rerun on an idle machine)")
    return f"about {needed} rounds in all would decide ({PLAN_POWER:.0%} power, {sd})"


def judge(found: Interval | None, p_adjusted: float | None, plan: Plan) -> tuple[str, str]:
    """(verdict, reason) in ``compare``'s words (module docstring)."""
    if found is None:
        return "inconclusive", (f"fewer than two rounds: no spread to judge the ratio by; at least {plan.pilot} rounds "
                                "would let the plan decide")
    band = math.log1p(plan.margin)
    beyond = found.low > band or found.high < -band
    margin = f"±{plan.margin:.1%}"
    if beyond and p_adjusted is not None and p_adjusted < plan.alpha:
        return verdicts.direction("cost", math.exp(found.estimate)), (
            f"{_ci_text(found)} lies beyond the {margin} margin (adjusted p = {p_adjusted:.2g})")
    if found.low >= -band and found.high <= band:
        return "same", f"{_ci_text(found)} lies within the {margin} margin"
    needed = _decide_text(rounds_to_decide(found, plan.margin, plan.alpha), found)
    if beyond:
        return "inconclusive", (f"{_ci_text(found)} lies beyond the {margin} margin but the adjusted p = "
                                f"{p_adjusted:.2g} >= {plan.alpha:g} over all configurations; {needed}")
    return "inconclusive", f"{_ci_text(found)} reaches across the {margin} margin; {needed}"


def _geometric(values: np.ndarray) -> float | None:
    return float(np.exp(np.mean(np.log(values)))) if values.size else None


def _row(rounds: PairedRounds, found: Interval | None, p: float | None, p_adjusted: float | None,
         plan: Plan) -> verdicts.Row:
    verdict, reason = judge(found, p_adjusted, plan)
    n = int(rounds.base.size)
    return verdicts.Row(
        rounds.configuration, dict(rounds.key), "cost", n, n, rounds.iterations_base, rounds.iterations_new,
        _geometric(rounds.base), _geometric(rounds.new), math.exp(found.estimate) if found else None,
        (math.exp(found.low), math.exp(found.high)) if found else None, found.method if found else "none: one round",
        p, p_adjusted, detectable(found, plan.margin, plan.alpha) if found and found.sd else None,
        rounds_to_decide(found, plan.margin, plan.alpha) if found and verdict == "inconclusive" else None,
        "paired within rounds: the two sides share each round's machine, no between-run level", verdict, reason)


def analyse(configurations: Sequence[PairedRounds], plan: Plan) -> list[verdicts.Row]:
    """Every configuration judged as one family of tests (BH over their p-values, each scaled for the look it
    stopped at), then checked against the load of its busy rounds (:func:`load_checked`)."""
    found = [found_interval(c, plan) for c in configurations]
    scaled = {i: min(1.0, f.p * plan.level(c.look)[1]) for i, (c, f) in enumerate(zip(configurations, found)) if f}
    _, adjusted = stats.fdr_adjust(list(scaled.values()), plan.alpha)
    p_adj = dict(zip(scaled, adjusted))
    rows = []
    for i, rounds in enumerate(configurations):
        row = _row(rounds, found[i], scaled.get(i), p_adj.get(i), plan)
        factor = p_adj[i] / scaled[i] if i in p_adj and scaled[i] > 0 else 1.0
        rows.append(load_checked(row, rounds, plan, factor))
    return rows


LOAD_RULE = ("both sides share the machine within a round, in a random order, so load that lasts a round cancels "
             "in the paired ratio; what it cannot cancel is load that falls on one side's invocation of a round, and "
             "contention that shrinks a difference toward 1.  Each invocation records the share of CPU time other "
             "processes and the hypervisor took during it (/proc/stat; an invocation shorter than a quarter second of "
             "CPU time is too short to measure, and counts as busy when the run as a whole was).  A faster or slower "
             "verdict stands only when the rounds whose two invocations saw even load (the shares others took differ "
             f"by less than {contention.BUSY_OTHERS_SHARE:.0%} of the CPU, steal by less than "
             f"{contention.BUSY_STEAL_SHARE:.0%}) alone give it; 'same' stands only when the quiet rounds (neither "
             f"invocation saw others take {contention.BUSY_OTHERS_SHARE:.0%} or more, or steal "
             f"{contention.BUSY_STEAL_SHARE:.0%} or more) alone give it; otherwise 'not decidable', naming the load. "
             "The check re-judges a subset of the rounds: it can withdraw a verdict, never make one")


def load_checked(row: verdicts.Row, rounds: PairedRounds, plan: Plan, bh_factor: float = 1.0) -> verdicts.Row:
    """``row`` as :data:`LOAD_RULE` leaves it: unchanged when no round's load could explain it or when the rounds the
    load cannot explain give the same verdict alone, else inconclusive with the load named."""
    if row.verdict in ("faster", "slower"):
        doubtful = rounds.uneven if rounds.uneven is not None else np.zeros(rounds.base.size, dtype=bool)
        what, kept = "had unequal load on their two invocations", "round(s) of even load"
    elif row.verdict == "same":
        doubtful, what, kept = rounds.busy, "ran on a busy machine", "quiet round(s)"
    else:
        return row
    if not doubtful.any():
        return row
    rest = rounds.subset(~doubtful)
    again = found_interval(rest, plan)
    verdict, _ = judge(again, min(1.0, again.p * plan.level(rest.look)[1] * bh_factor) if again else None, plan)
    load = f"{int(doubtful.sum())} of {rounds.base.size} rounds {what} ({rounds.busy_text or 'load recorded'})"
    if verdict == row.verdict:
        return replace(row, reason=f"{row.reason}; {load}, and its {rest.base.size} {kept} alone agree")
    return replace(row, verdict="inconclusive", reason=f"not decidable: {load}; its {rest.base.size} {kept} alone give "
                                                      f"{verdict} (measured {row.verdict}: {row.reason})")
