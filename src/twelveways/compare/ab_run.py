"""Run two sides' configurations alternately in randomized rounds (RMIT): the measuring half of ``twelveways ab``.

The sweep's machinery runs it (:func:`twelveways.prk.sweep.repeat_all`, interleaved): round 1 runs
every chosen configuration in a seeded order, each later round the configurations still short of
their planned rounds in a seeded order of its own; a configuration's turn runs one invocation of
each side (:func:`twelveways.prk.sweep.invoke`, the sweep's own program run), the two in an order
drawn from the same seed and recorded.  Each invocation records the share of CPU time other
processes and the hypervisor took during it (:func:`twelveways.contention.shares`), and a
:class:`~twelveways.contention.Sampler` records the machine's load over the whole run.  A
configuration stops when its plan says so (:class:`~twelveways.compare.ab_analysis.Progress`), when
a side fails its validation, or, once the time budget has ended, after the round in progress.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import contention, measure
from ..prk import run, sweep
from . import ab_analysis, ab_placement, table
from .ab_options import BIND_CORES, SELECTABLE, parse_only  # noqa: F401  (ab_run.parse_only, as before)
from .ab_sides import Side
from .record import Invocation

#: What ``--only KEY=VALUE[,VALUE]`` selects on, and how a configuration states it.
def select(points: Sequence[sweep.Point], only: dict[str, set[str]]) -> list[sweep.Point]:
    return [p for p in points if all(SELECTABLE[key](p) in values for key, values in only.items())]


def pair_points(base: Sequence[sweep.Point], new: Sequence[sweep.Point]) -> tuple[list[tuple], list[str], list[str]]:
    """([(base point, new point)] of the configurations both sides have, keys only on base, keys only on new)."""
    new_by_key = {p.key(): p for p in new}
    base_keys = {p.key() for p in base}
    pairs = [(p, new_by_key[p.key()]) for p in base if p.key() in new_by_key]
    return pairs, sorted(base_keys - set(new_by_key)), sorted(set(new_by_key) - base_keys)


#: An invocation whose window holds less CPU time (summed over the CPUs) has no measured load: /proc/stat counts in
#: clock ticks (10 ms), so a window of a few ticks reads 0 % or 100 %.
MIN_WINDOW_S = 0.25
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Pair(sweep.Repeating):
    """A configuration's two sides, run together each round; ``progress`` holds its per-round log ratios."""

    base: sweep.Repeating | None = None
    new: sweep.Repeating | None = None
    progress: ab_analysis.Progress = field(default_factory=ab_analysis.Progress)
    invocations: list[Invocation] = field(default_factory=list)  # in the order they ran
    placement: ab_placement.Placement = field(default_factory=ab_placement.Placement)


@dataclass
class Outcome:
    """What the rounds produced: the pairs, how many rounds, how long, the machine's load, the seed."""

    pairs: list[Pair]
    rounds: int
    seconds: float
    program_runs: int
    load: dict
    seed: int


def _invoke(pair: Pair, label: str, side: Side, position: int, run_counter: list[int], overhead_ns: float) -> float:
    """One invocation of one side: its per-iteration maxima kept on the side's state; returns their mean."""
    state = pair.base if label == "base" else pair.new
    before = len(state.rep.samples)
    placed = pair.placement
    launcher = [*(side.launcher or run.default_launcher()), *placed.launcher_args] if placed.launcher_args \
        else side.launcher
    start = contention.snapshot()
    with ab_placement.started_on(placed.cpus):
        sweep.invoke(state, side.prk, kernels_dir=side.kernels_dir, run_counter=run_counter,
                     timer_overhead_ns=overhead_ns, launcher=launcher, python_dir=side.python_dir,
                     extra_env=dict(placed.env) or None)
    end = contention.snapshot()
    share, ticks = contention.shares(start, end), contention.window_ticks(start, end)
    mean = float(np.mean(state.rep.samples[before:]))
    found = Invocation(round=len(pair.progress.log_ratios) + 1, side=label, position=position + 1, mean_s=mean,
                       **share, cpu_seconds=round(ticks / CLOCK_TICKS, 3))
    measured = ticks >= MIN_WINDOW_S * CLOCK_TICKS and found.others_share is not None
    pair.invocations.append(found.model_copy(update={"busy": contention.is_busy(share) if measured else None}))
    return mean


def run_rounds(pairs: Sequence[tuple], sides: dict[str, Side], plan: ab_analysis.Plan, *, seed: int,
               max_seconds: float, bind: str = BIND_CORES,
               say: Callable[[str], None] = lambda text: print(text, file=sys.stderr)) -> Outcome:
    """Every pair of configurations to its stop (module docstring); ``bind``: :mod:`.ab_placement`'s rule."""
    usable = ab_placement.usable_cpus()
    launchers = (sides["base"].launcher, sides["new"].launcher)
    states = {b.key(): Pair(b, base=sweep.Repeating(b), new=sweep.Repeating(n), placement=ab_placement.placement(
        b.implementation, b.ranks, b.threads, bind=bind, usable=usable, launchers=launchers)) for b, n in pairs}
    order_rng, counter = random.Random(seed), [0]
    overhead = measure.timer_properties()["overhead_ns"]
    started = time.perf_counter()

    def run_one(pair: Pair) -> None:
        means = {label: _invoke(pair, label, sides[label], position, counter, overhead)
                 for position, label in enumerate(order_rng.sample(("base", "new"), 2))}
        if not (pair.base.reason or pair.new.reason):
            pair.progress.log_ratios.append(math.log(means["new"]) - math.log(means["base"]))

    def stop(pair: Pair) -> str:
        if pair.base.reason or pair.new.reason:
            return ab_analysis.STOP_INVALID
        return pair.progress.stop(plan, time.perf_counter() - started >= max_seconds)

    def on_stop(pair: Pair) -> None:
        say(f"ab: {pair.point.key()}: {len(pair.progress.log_ratios)} round(s), stop: {pair.reason}")

    prk = dataclasses.replace(sides["base"].prk, seed=seed, interleaved=True)
    with contention.Sampler("A/B rounds") as sampler:
        done, rounds = sweep.repeat_all([b for b, _ in pairs], prk, run_one, on_stop, stop=stop,
                                        state_of=lambda point: states[point.key()])
    for pair in done:
        for row in [*pair.base.rows, *pair.new.rows]:
            row["stop_reason"] = pair.reason
    return Outcome(list(done), rounds, round(time.perf_counter() - started, 3), counter[0], sampler.summary, seed)


def configuration_key(point: sweep.Point) -> tuple:
    """A configuration as ``compare`` keys it (family, naming columns, scaling), so its label and explanations apply."""
    return (("family", "prk"), ("benchmark", "prk"), ("workload", point.kernel),
            ("implementation", point.implementation), ("ranks", point.ranks), ("threads", point.threads),
            ("size", point.primary(point.size)), ("precision", "fp64"), ("metric", "time"), ("unit", "s"),
            ("scaling", point.scaling))


def _busy_text(invocations: list[Invocation], run_busy: bool) -> str:
    """The load of a configuration's busy invocations in words (counts per side, the largest shares)."""
    busy = [i for i in invocations if i.busy]
    unmeasured = sum(i.busy is None for i in invocations) if run_busy else 0
    parts = []
    if busy:
        per_side = ", ".join(f"{label.upper()} {sum(i.side == label for i in busy)}" for label in ("base", "new"))
        steal = max((i.steal_share or 0.0) for i in busy)
        parts.append(f"other processes took up to {max((i.others_share or 0.0) for i in busy):.0%} of the CPU "
                     + (f"and the hypervisor stole up to {steal:.0%} " if steal >= contention.BUSY_STEAL_SHARE else "")
                     + f"during busy invocations ({per_side})")
    if unmeasured:
        parts.append(f"{unmeasured} invocation(s) too short to measure their own load while the run as a whole was busy")
    return "; ".join(parts)


def _round_load(items: list[Invocation], run_busy: bool) -> tuple[bool, bool]:
    """(busy, uneven) of one round's two invocations (:data:`ab_analysis.LOAD_RULE`)."""
    busy = any(i.busy for i in items) or (run_busy and any(i.busy is None for i in items))
    measured = [i for i in items if i.busy is not None]
    if len(measured) < 2:
        return busy, False
    a, b = measured[:2]
    uneven = (abs(a.others_share - b.others_share) >= contention.BUSY_OTHERS_SHARE
              or abs((a.steal_share or 0.0) - (b.steal_share or 0.0)) >= contention.BUSY_STEAL_SHARE)
    return busy, uneven


def paired_rounds(outcome: Outcome, sides: dict[str, Side]) -> list[ab_analysis.PairedRounds]:
    """Each pair's completed rounds as the analysis reads them, labelled as ``compare`` labels configurations."""
    keys = [configuration_key(pair.point) for pair in outcome.pairs]
    shown = table.varying(keys)
    run_busy = contention.busy_reason(outcome.load) is not None
    found = []
    for pair, key in zip(outcome.pairs, keys):
        rounds = len(pair.progress.log_ratios)
        means = {label: np.array([i.mean_s for i in pair.invocations if i.side == label][:rounds])
                 for label in ("base", "new")}
        load = np.array([_round_load([i for i in pair.invocations if i.round == r], run_busy)
                         for r in range(1, rounds + 1)], dtype=bool).reshape(rounds, 2)
        found.append(ab_analysis.PairedRounds(
            table.label(key, shown), dict(key), means["base"], means["new"], load[:, 0], load[:, 1],
            float(sides["base"].prk.iterations[pair.point.kernel]), float(sides["new"].prk.iterations[pair.point.kernel]),
            pair.progress.pilot_sd, _busy_text(pair.invocations, run_busy), pair.progress.look))
    return found
