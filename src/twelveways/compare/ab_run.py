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

Iterations per invocation (:func:`calibrate`): the quick profile's few timed iterations last tens of
milliseconds, so one scheduler tick or a moment of the hypervisor's is a large part of an invocation.
In quiet A/A trials here, eight times the iterations halved the per-round sd of six C configurations
(e.g. transpose 1024 serial 22.6 % -> 10.5 %) for 2.1 times the time: a quarter of the rounds for the
same CI.  So before its first round each configuration runs one uncounted invocation of BASE, and
both sides then run enough iterations for about ``invocation_seconds`` of timed work (never fewer
than the config states, at most :data:`MOST_ITERATIONS`), the same count on both sides; where the
two configs state different iterations for the kernel, each side keeps its own and that is said.
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
from .ab_options import BIND_CORES, DEFAULT_INVOCATION_SECONDS, MOST_ITERATIONS, SELECTABLE, parse_only  # noqa: F401
from ..families.prk_config import PrkConfig
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
    #: iterations both sides run (set by :func:`calibrate`); None: each side's config's own count
    iterations: int | None = None
    #: how the iteration count was chosen, in words (the report's method)
    iterations_text: str = ""

    def prk_of(self, side: Side) -> PrkConfig:
        """The side's PRK settings with this configuration's calibrated iterations."""
        prk = side.prk
        if self.iterations is None:
            return prk
        return dataclasses.replace(prk, iterations={**prk.iterations, self.point.kernel: self.iterations})


@dataclass
class Outcome:
    """What the rounds produced: the pairs, how many rounds, how long, the machine's load, the seed."""

    pairs: list[Pair]
    rounds: int
    seconds: float
    program_runs: int
    load: dict
    seed: int
    invocation_seconds: float = 0.0


def _launch(pair: Pair, state: sweep.Repeating, side: Side, run_counter: list[int], overhead_ns: float) -> None:
    """One program run of ``side`` for ``pair``'s configuration, placed on its CPUs, added to ``state``."""
    placed = pair.placement
    launcher = [*(side.launcher or run.default_launcher()), *placed.launcher_args] if placed.launcher_args \
        else side.launcher
    with ab_placement.started_on(placed.cpus):
        sweep.invoke(state, pair.prk_of(side), kernels_dir=side.kernels_dir, run_counter=run_counter,
                     timer_overhead_ns=overhead_ns, launcher=launcher, python_dir=side.python_dir,
                     extra_env=dict(placed.env) or None)


def _invoke(pair: Pair, label: str, side: Side, position: int, run_counter: list[int], overhead_ns: float) -> float:
    """One invocation of one side: its per-iteration maxima kept on the side's state; returns their mean."""
    state = pair.base if label == "base" else pair.new
    before = len(state.rep.samples)
    start = contention.snapshot()
    _launch(pair, state, side, run_counter, overhead_ns)
    end = contention.snapshot()
    share, ticks = contention.shares(start, end), contention.window_ticks(start, end)
    mean = float(np.mean(state.rep.samples[before:]))
    found = Invocation(round=len(pair.progress.log_ratios) + 1, side=label, position=position + 1, mean_s=mean,
                       **share, cpu_seconds=round(ticks / CLOCK_TICKS, 3))
    measured = ticks >= MIN_WINDOW_S * CLOCK_TICKS and found.others_share is not None
    pair.invocations.append(found.model_copy(update={"busy": contention.is_busy(share) if measured else None}))
    return mean


def calibrated_iterations(per_iteration_s: float, stated: int, seconds: float) -> int:
    """Iterations for about ``seconds`` of timed work: never fewer than ``stated``, at most MOST_ITERATIONS."""
    if seconds <= 0 or not per_iteration_s > 0:
        return stated
    return max(stated, min(MOST_ITERATIONS, math.ceil(seconds / per_iteration_s)))


def calibrate(pair: Pair, sides: dict[str, Side], seconds: float, overhead_ns: float) -> None:
    """Fix ``pair``'s iterations from one uncounted invocation of BASE (module docstring); its words on the pair."""
    kernel = pair.point.kernel
    stated = {label: sides[label].prk.iterations[kernel] for label in ("base", "new")}
    if stated["base"] != stated["new"]:
        pair.iterations_text = (f"as each config states ({stated['base']} BASE, {stated['new']} NEW): the configs "
                                "differ, so no calibration")
        return
    if seconds <= 0:
        pair.iterations_text = f"{stated['base']} as the config states (--invocation-seconds 0)"
        return
    probe = sweep.Repeating(pair.point)
    _launch(pair, probe, sides["base"], [0], overhead_ns)
    if probe.reason or not probe.rep.samples:
        pair.iterations_text = f"{stated['base']} as the config states (the calibration run failed its validation)"
        return
    per_iteration = float(np.mean(probe.rep.samples))
    pair.iterations = calibrated_iterations(per_iteration, stated["base"], seconds)
    pair.iterations_text = (f"{pair.iterations} on both sides (config {stated['base']}; one calibration run of BASE "
                            f"measured {per_iteration * 1e3:.3g} ms per iteration)")


def iterations_rule(seconds: float) -> str:
    """The iteration rule in words (every output states it)."""
    if seconds <= 0:
        return "each side runs the iterations its config states (--invocation-seconds 0)"
    return (f"one uncounted calibration run of BASE per configuration fixes the iterations of both sides for about "
            f"{seconds:g} s of timed work per invocation (never fewer than the config states, at most "
            f"{MOST_ITERATIONS}); configs that state different iterations keep their own")


def run_rounds(pairs: Sequence[tuple], sides: dict[str, Side], plan: ab_analysis.Plan, *, seed: int,
               max_seconds: float, bind: str = BIND_CORES, invocation_seconds: float = DEFAULT_INVOCATION_SECONDS,
               say: Callable[[str], None] = lambda text: print(text, file=sys.stderr)) -> Outcome:
    """Every pair of configurations to its stop (module docstring); ``bind``: :mod:`.ab_placement`'s rule."""
    usable = ab_placement.usable_cpus()
    launchers = (sides["base"].launcher, sides["new"].launcher)
    states = {b.key(): Pair(b, base=sweep.Repeating(b), new=sweep.Repeating(n), placement=ab_placement.placement(
        b.implementation, b.ranks, b.threads, bind=bind, usable=usable, launchers=launchers)) for b, n in pairs}
    order_rng, counter = random.Random(seed), [0]
    overhead = measure.timer_properties()["overhead_ns"]
    for pair in states.values():
        calibrate(pair, sides, invocation_seconds, overhead)
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
    return Outcome(list(done), rounds, round(time.perf_counter() - started, 3), counter[0], sampler.summary, seed,
                   invocation_seconds)


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
            float(pair.prk_of(sides["base"]).iterations[pair.point.kernel]),
            float(pair.prk_of(sides["new"]).iterations[pair.point.kernel]),
            pair.progress.pilot_sd, _busy_text(pair.invocations, run_busy), pair.progress.look))
    return found
