"""The measurement core: keep every sample, randomise run order, repeat until the CI is tight.

DESIGN.md "Measurement": every sample is kept; configurations run in a seeded random order;
adaptive repetition runs until the CI of the median is within ±target of the median, or a
sample or time budget ends, and the reason it stopped is recorded; timer resolution and
overhead are measured and short or overhead-dominated intervals are flagged.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import MeasurementError, StatisticsError
from .evidence.settings import resolve_ci_target, resolve_confidence

STOP_CI_MET = "ci_target_met"
STOP_MAX_SAMPLES = "max_samples"
STOP_MAX_SECONDS = "max_seconds"
STOP_REASONS = (STOP_CI_MET, STOP_MAX_SAMPLES, STOP_MAX_SECONDS)

#: An interval shorter than this many timer resolutions is flagged (DESIGN.md).
MIN_RESOLUTIONS = 10
#: An interval whose timer overhead exceeds this fraction is flagged.
MAX_OVERHEAD_FRACTION = 0.05


def timer_properties(trials: int = 20000) -> dict:
    """Measure ``time.perf_counter_ns``: the smallest positive step seen and the mean call cost."""
    clock = time.get_clock_info("perf_counter")
    steps = []
    previous = time.perf_counter_ns()
    for _ in range(trials):
        now = time.perf_counter_ns()
        if now != previous:
            steps.append(now - previous)
        previous = now
    start = time.perf_counter_ns()
    for _ in range(trials):
        time.perf_counter_ns()
    overhead_ns = (time.perf_counter_ns() - start) / trials
    observed = min(steps) if steps else None
    return {
        "timer": "time.perf_counter_ns",
        "implementation": clock.implementation,
        "monotonic": clock.monotonic,
        "declared_resolution_s": clock.resolution,
        "resolution_ns": float(observed if observed is not None else clock.resolution * 1e9),
        "overhead_ns": float(overhead_ns),
    }


def interval_flags(seconds: float, resolution_ns: float, overhead_ns: float) -> list[str]:
    """Reasons a measured interval is not trustworthy (empty when it is fine)."""
    flags = []
    ns = seconds * 1e9
    if ns < MIN_RESOLUTIONS * resolution_ns:
        flags.append(f"interval {ns:.0f} ns is shorter than {MIN_RESOLUTIONS}x the timer resolution ({resolution_ns:.0f} ns)")
    if ns > 0 and overhead_ns / ns > MAX_OVERHEAD_FRACTION:
        flags.append(f"timer overhead {overhead_ns:.0f} ns is {overhead_ns / ns:.1%} of the interval "
                     f"(> {MAX_OVERHEAD_FRACTION:.0%})")
    if ns <= 0:
        flags.append("interval is not positive")
    return flags


def seeded_order(items: Iterable, seed: int) -> list:
    """The items in a random order fixed by ``seed``, so drift cannot masquerade as an effect."""
    ordered = list(items)
    random.Random(seed).shuffle(ordered)
    return ordered


@dataclass
class Repetition:
    """Outcome of :func:`repeat_until_stable`: every sample kept, and why repetition stopped."""

    samples: list[float] = field(default_factory=list)
    invocations: int = 0
    invocation_sizes: list[int] = field(default_factory=list)  # samples of each invocation, in order
    stop_reason: str = ""
    ci: tuple[float, float] | None = None
    median: float | None = None
    elapsed_s: float = 0.0

    @property
    def relative_half_width(self) -> float | None:
        if self.ci is None or not self.median:
            return None
        from . import stats  # imported here: scipy costs seconds, and timer_properties() needs none of it

        return stats.relative_half_width(self.median, *self.ci)


def ci_within_target(samples: Sequence[float], target: float,
                     confidence: float) -> tuple[bool, tuple[float, float] | None, float | None]:
    """Whether the CI of the median lies within ±target·median (False while n is too small)."""
    values = np.asarray(samples, dtype=float)
    if values.size == 0:
        return False, None, None
    median = float(np.median(values))
    from . import stats  # imported here: scipy costs seconds, and timer_properties() needs none of it

    try:
        low, high = stats.median_ci(values, confidence)
    except StatisticsError:
        return False, None, median
    ok = median != 0 and low >= median * (1 - target) and high <= median * (1 + target)
    return ok, (low, high), median


def replicate_ci_within_target(rep: Repetition, target: float,
                               confidence: float) -> tuple[bool, tuple[float, float] | None, float | None]:
    """The CI the checklist's R5 judges: over the invocations (``stats.replicates``: iterations describe one
    invocation and never multiply n) once there are several invocations of several values each, else the
    exact CI of the median of the samples.  A stop rule judging the pooled iterations would call a target met
    that the invocations do not support."""
    sizes = rep.invocation_sizes
    if len(sizes) < 2 or len(rep.samples) <= len(sizes):
        return ci_within_target(rep.samples, target, confidence)
    from . import stats  # imported here: scipy costs seconds, and timer_properties() needs none of it

    bounds = np.cumsum(sizes)[:-1]
    interval = stats.replicates.summary_interval(np.split(np.asarray(rep.samples, dtype=float), bounds),
                                                 "cost", confidence)
    if interval is None:
        return False, None, None
    centre, low, high = interval
    ok = centre != 0 and low >= centre * (1 - target) and high <= centre * (1 + target)
    return ok, (low, high), centre


def add_invocation(rep: Repetition, result: float | Sequence[float], elapsed_s: float) -> None:
    """One more invocation's samples; ``elapsed_s`` is the repetition's time so far."""
    new = [float(result)] if np.isscalar(result) else [float(v) for v in result]
    rep.samples.extend(new)
    rep.invocation_sizes.append(len(new))
    rep.invocations += 1
    rep.elapsed_s = elapsed_s


def stop_reason(rep: Repetition, *, target: float, confidence: float, min_samples: int, max_samples: int,
                max_seconds: float, min_invocations: int, budgets_wait: bool = False) -> str:
    """Why the repetition stops now ("" to go on): the CI target met (with at least ``min_samples``
    samples and ``min_invocations`` invocations), else the sample or time budget used up.  With
    ``budgets_wait`` the budgets end it only after ``min_invocations`` (interleaved rounds, where a
    comparison needs that many replicates of every configuration)."""
    ok, rep.ci, rep.median = replicate_ci_within_target(rep, target, confidence)
    enough = rep.invocations >= min_invocations
    if ok and len(rep.samples) >= min_samples and enough:
        return STOP_CI_MET
    if budgets_wait and not enough:
        return ""
    if len(rep.samples) >= max_samples:
        return STOP_MAX_SAMPLES
    if rep.elapsed_s >= max_seconds:
        return STOP_MAX_SECONDS
    return ""


def repeat_until_stable(run_once: Callable[[], float | Sequence[float]], *, target: float | None = None,
                        confidence: float | None = None, min_samples: int = 5, max_samples: int = 100,
                        max_seconds: float = 60.0, min_invocations: int = 1,
                        on_progress: Callable[[Repetition], None] | None = None) -> Repetition:
    """Call ``run_once`` (which returns one sample or several) until the CI target is met.

    Stops when the ``confidence`` CI of the median lies within ±``target`` of the median (with at
    least ``min_samples`` samples and ``min_invocations`` calls), or when ``max_samples`` samples
    or ``max_seconds`` of wall time are used up.  Every sample is kept.  ``target`` and ``confidence``
    default (None) to the config schema's ``measurement.ci_target`` and ``measurement.confidence``.
    """
    target, confidence = resolve_ci_target(target), resolve_confidence(confidence)
    if target <= 0 or min_samples < 1 or max_samples < min_samples or max_seconds <= 0:
        raise MeasurementError(f"bad repetition settings: target={target}, min_samples={min_samples}, "
                               f"max_samples={max_samples}, max_seconds={max_seconds}")
    rep = Repetition()
    start = time.perf_counter()
    while True:
        add_invocation(rep, run_once(), time.perf_counter() - start)
        reason = stop_reason(rep, target=target, confidence=confidence, min_samples=min_samples,
                             max_samples=max_samples, max_seconds=max_seconds, min_invocations=min_invocations)
        if on_progress is not None:
            on_progress(rep)
        if reason:
            rep.stop_reason = reason
            break
    return rep
