"""Warm-up and stability of an iterative run: change points in a series of per-iteration times.

Import from :mod:`twelveways.stats`.  A run's summary is only meaningful when its iterations come
from one steady state: a warm-up that lasts past iteration 0, or a shift half-way through (another
process started on the same core), mixes two states into one median.

The test is distribution-free, because timing noise is heavy-tailed: the series is replaced by its
ranks, every split point k gives the standardized Mann–Whitney statistic of "before k" against
"from k on", and the largest |z| over split points is calibrated against the same maximum over
seeded random reorderings of the series (``scipy.stats.permutation_test``, ``pairings``), so the
false-positive rate is alpha whatever the noise.  A significant split is kept and both sides are
tested again (binary segmentation).  One spike moves one rank, which cannot make a split
significant; only a run of changed iterations (at least ``min_segment``) can.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats as sps

from ..errors import StatisticsError
from .core import Record, as_values

STATES = ("steady", "warmup", "shift", "unsteady", "inconclusive")
#: Random reorderings per test, and the cap on permutations x values held in memory at once.
PERMUTATIONS = 999
#: Change points in this first fraction of a run are a warm-up; later ones are shifts.
MAX_WARMUP = 0.25
_BATCH_VALUES = 2_000_000


@dataclasses.dataclass(frozen=True)
class Stability(Record):
    """Where a series changes level, and whether it ever settles (``state`` is one of :data:`STATES`).

    ``change_points`` are 0-based indices where a new segment starts.  ``warmup_end`` is the last
    change point inside the warm-up window (the first ``max_warmup`` of the run), 0 without one;
    ``steady`` is true when nothing changes after it ("steady", "warmup"); a change after the
    window is a mid-run ``shift`` (one) or an ``unsteady`` run (several).  ``shift`` is the relative
    change of the median across the change point where it changes most (``shift_at``); ``p_value``
    is the whole series' permutation p.  Too few values to decide give ``inconclusive``, never steady.
    """

    n: int
    state: str
    steady: bool
    method: str
    alpha: float
    change_points: tuple[int, ...]
    warmup_end: int
    shift: float | None
    shift_at: int | None
    p_value: float | None
    segment_medians: tuple[float, ...]
    min_segment: int
    min_shift: float
    permutations: int
    reason: str = ""

    @property
    def inconclusive(self) -> bool:
        return self.state == "inconclusive"

    def describe(self, unit: str = "", positions=None, what: str = "iteration") -> str:
        """One line with the numbers; ``positions`` names each index (e.g. iteration numbers)."""
        if self.inconclusive:
            return f"inconclusive: {self.reason}"
        u = f" {unit}" if unit else ""
        test = f"p={self.p_value:.3g}, alpha={self.alpha:g}"
        if self.shift_at is None:
            size = f" of at least {self.min_shift:.0%}" if self.min_shift and self.p_value < self.alpha else ""
            return f"steady: no change point{size} in {self.n} {what}s ({test})"
        k = self.change_points.index(self.shift_at)
        before, after = self.segment_medians[k], self.segment_medians[k + 1]
        where = list(range(self.n)) if positions is None else list(positions)
        jump = f"median {before:.4g}{u} -> {after:.4g}{u} ({self.shift:+.1%}) at {what} {where[self.shift_at]}"
        points = ", ".join(str(where[c]) for c in self.change_points)
        lead = {"warmup": f"warm-up, steady from {what} {where[self.warmup_end]} on",
                "shift": "mid-run shift", "unsteady": "never steady"}[self.state]
        return f"{lead}: {jump}; change points at {what}s {points} of {self.n} ({test})"


def stability(values, *, alpha: float = 0.01, min_segment: int = 3, max_warmup: float = MAX_WARMUP,
              min_shift: float = 0.0, permutations: int = PERMUTATIONS, seed: int = 0) -> Stability:
    """Change points, warm-up and steady state of one run's per-iteration values, in run order.

    ``min_segment``: fewest iterations a level must last to count (shorter bursts are noise);
    ``min_shift``: change points whose neighbouring medians differ by less (relative) are merged
    away, so a long run's statistically clear but negligible drift is not called a shift.
    """
    x = as_values(values, "series", min_n=0)
    _check_options(alpha, min_segment, max_warmup, min_shift, permutations)
    method = (f"binary segmentation on ranks: max standardized Mann-Whitney statistic over split points, "
              f"calibrated by {permutations} seeded random reorderings (scipy.stats.permutation_test), "
              f"alpha {alpha:g}, segments of at least {min_segment}")
    common = dict(n=int(x.size), method=method, alpha=float(alpha), min_segment=int(min_segment),
                  min_shift=float(min_shift), permutations=int(permutations))
    reason = _undecidable(x.size, alpha, min_segment)
    if reason:
        return Stability(state="inconclusive", steady=False, change_points=(), warmup_end=0, shift=None,
                         shift_at=None, p_value=None, segment_medians=(), reason=reason, **common)
    rng = np.random.default_rng(seed)
    points, p_value = _segment(x, alpha, min_segment, permutations, rng)
    points = _merge_small_shifts(x, points, min_shift)
    medians = _segment_medians(x, points)
    early = [c for c in points if c <= math.floor(max_warmup * x.size)]
    late = len(points) - len(early)
    state = "steady" if not points else "warmup" if not late else "shift" if late == 1 else "unsteady"
    shift, shift_at = _largest_shift(points, medians)
    return Stability(state=state, steady=state in ("steady", "warmup"), change_points=tuple(points),
                     warmup_end=max(early, default=0), shift=shift, shift_at=shift_at, p_value=p_value,
                     segment_medians=tuple(medians), **common)


def min_series_length(alpha: float = 0.01, min_segment: int = 3, permutations: int = PERMUTATIONS) -> int:
    """The fewest values :func:`stability` can judge at these options (fewer are inconclusive)."""
    _check_options(alpha, min_segment, 0.0, 0.0, permutations)
    n = 2 * min_segment
    while _undecidable(n, alpha, min_segment):
        n += 1
    return n


def _check_options(alpha, min_segment, max_warmup, min_shift, permutations) -> None:
    if not 0 < alpha < 1:
        raise StatisticsError(f"alpha must be a fraction between 0 and 1, got {alpha!r}")
    if int(min_segment) != min_segment or min_segment < 2:
        raise StatisticsError(f"min_segment must be a whole number >= 2, got {min_segment!r}")
    if not 0 <= max_warmup < 1:
        raise StatisticsError(f"max_warmup must be a fraction of the run in [0, 1), got {max_warmup!r}")
    if not min_shift >= 0:
        raise StatisticsError(f"min_shift must be a relative change >= 0, got {min_shift!r}")
    if int(permutations) != permutations or permutations < 1:
        raise StatisticsError(f"permutations must be a whole number >= 1, got {permutations!r}")
    if 1 / (permutations + 1) >= alpha:
        raise StatisticsError(f"{permutations} permutations cannot give p below alpha={alpha:g}: use at least "
                              f"{math.ceil(1 / alpha)}")


def _undecidable(n: int, alpha: float, min_segment: int) -> str:
    """Why no series of n values could reach p < alpha ("" when one could).

    The largest statistic is reached only by a series split perfectly at its middle, which a random
    reordering reproduces with probability 2 / C(n, n//2): no p-value can be smaller.
    """
    if n < 2 * min_segment:
        return f"n={n} values, fewer than two segments of {min_segment}"
    floor = 2 / math.comb(n, n // 2)
    if floor >= alpha:
        return f"n={n} values: even a perfectly split series has p >= {floor:.3g}, not below alpha={alpha:g}"
    return ""


def _split_z(ranks: np.ndarray, min_segment: int) -> np.ndarray:
    """Standardized Mann–Whitney z of every admissible split (last axis), for ranks 1..m."""
    m = ranks.shape[-1]
    k = np.arange(min_segment, m - min_segment + 1)
    rank_sums = np.cumsum(ranks, axis=-1)[..., k - 1]
    return (rank_sums - k * (m + 1) / 2) / np.sqrt(k * (m - k) * (m + 1) / 12)


def _test_segment(segment: np.ndarray, min_segment: int, permutations: int, rng) -> tuple[int, float]:
    """(best split index within the segment, permutation p-value of its max |z|)."""
    ranks = sps.rankdata(segment)

    def max_abs_z(r, axis=-1):
        return np.max(np.abs(_split_z(np.moveaxis(r, axis, -1), min_segment)), axis=-1)

    result = sps.permutation_test((ranks,), max_abs_z, permutation_type="pairings", vectorized=True,
                                  n_resamples=permutations, alternative="greater", axis=-1, rng=rng,
                                  batch=max(1, _BATCH_VALUES // segment.size))
    split = min_segment + int(np.argmax(np.abs(_split_z(ranks, min_segment))))
    return split, float(result.pvalue)


def _segment(x: np.ndarray, alpha: float, min_segment: int, permutations: int, rng) -> tuple[list[int], float]:
    """Binary segmentation: split where significant, test both sides again; (change points, whole-series p)."""
    points, whole_p, pending = [], None, [(0, x.size)]
    while pending:
        start, stop = pending.pop()
        if _undecidable(stop - start, alpha, min_segment):
            continue
        split, p = _test_segment(x[start:stop], min_segment, permutations, rng)
        whole_p = p if whole_p is None else whole_p
        if p < alpha:
            points.append(start + split)
            pending += [(start, start + split), (start + split, stop)]
    return sorted(points), float(whole_p)


def _segment_medians(x: np.ndarray, points: list[int]) -> list[float]:
    edges = [0, *points, x.size]
    return [float(np.median(x[a:b])) for a, b in zip(edges, edges[1:])]


def _relative(before: float, after: float) -> float:
    return (after - before) / abs(before) if before else (math.inf if after != before else 0.0)


def _merge_small_shifts(x: np.ndarray, points: list[int], min_shift: float) -> list[int]:
    """Drop the change point with the smallest median change while it is below ``min_shift``."""
    points = list(points)
    while points and min_shift > 0:
        medians = _segment_medians(x, points)
        changes = [abs(_relative(a, b)) for a, b in zip(medians, medians[1:])]
        smallest = int(np.argmin(changes))
        if changes[smallest] >= min_shift:
            break
        del points[smallest]
    return points


def _largest_shift(points: list[int], medians: list[float]) -> tuple[float | None, int | None]:
    if not points:
        return None, None
    changes = [_relative(a, b) for a, b in zip(medians, medians[1:])]
    k = int(np.argmax(np.abs(changes)))
    return float(changes[k]), int(points[k])
