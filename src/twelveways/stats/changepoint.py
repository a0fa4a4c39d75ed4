"""Warm-up and stability of an iterative run: change points in a series of per-iteration times.

Import from :mod:`twelveways.stats`.  A run's summary is only meaningful when its iterations come
from one steady state: a warm-up that lasts past iteration 0, or a shift half-way through (another
process started on the same core), mixes two states into one median.

The test is distribution-free, because timing noise is heavy-tailed: the series is replaced by its
ranks, every split point k gives the standardized Mann–Whitney statistic of "before k" against
"from k on" (a rank CUSUM), and the largest |z| over split points is calibrated against the same
maximum over seeded random reorderings (``scipy.stats.permutation_test``, ``pairings``), so the
false-positive rate is alpha whatever the noise.  A significant split is kept and both sides are
tested again (binary segmentation).  One spike moves one rank, which cannot make a split
significant; only a run of changed iterations (at least ``min_segment``) can.

Cost, O(n log n) time and O(n) memory: the reorderings' distribution depends only on the multiset
of ranks (1..n without ties), so it is computed once per (ranks, options, seed) and reused by every
series and segment that shares it; a series is then ranked and scanned once.  A series longer than
:data:`MAX_POINTS` is tested on the medians of consecutive equal blocks of iterations (i.i.d.
iterations give i.i.d. block medians, so the test keeps its level; the few iterations past the last
whole block join the last segment untested), and each change point found is placed on the iteration
where the full-resolution rank statistic peaks within a block of it.  The block size is recorded.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
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
#: Longest series tested iteration by iteration; longer ones are tested on block medians.
MAX_POINTS = 2000
_BATCH_VALUES = 2_000_000
_CACHED_NULLS = 64
_nulls: collections.OrderedDict = collections.OrderedDict()
#: scipy.stats.permutation_test's relative tolerance for a null value equal to the observed one
_TIE_TOLERANCE = np.finfo(float).eps * 100


@dataclasses.dataclass(frozen=True)
class Stability(Record):
    """Where a series changes level, and whether it ever settles (``state`` is one of :data:`STATES`).

    ``change_points`` are 0-based indices where a new segment starts.  ``warmup_end`` is the last
    change point inside the warm-up window (the first ``max_warmup`` of the run), 0 without one;
    ``steady`` is true when nothing changes after it ("steady", "warmup"); a change after the
    window is a mid-run ``shift`` (one) or an ``unsteady`` run (several).  ``shift`` is the relative
    change of the median across the change point where it changes most (``shift_at``); ``p_value``
    is the whole series' permutation p.  Too few values to decide give ``inconclusive``, never steady.
    ``block`` is how many consecutive iterations each tested point is the median of (1: every
    iteration tested; more for series longer than :data:`MAX_POINTS`).  ``p_value`` is calibrated by
    ``whole_permutations`` reorderings, each segment's test by ``permutations``.
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
    block: int = 1
    whole_permutations: int = PERMUTATIONS

    @property
    def inconclusive(self) -> bool:
        return self.state == "inconclusive"

    def describe(self, unit: str = "", positions=None, what: str = "iteration") -> str:
        """One line with the numbers; ``positions`` names each index (e.g. iteration numbers)."""
        if self.inconclusive:
            return f"inconclusive: {self.reason}"
        u = f" {unit}" if unit else ""
        test = f"p={self.p_value:.3g}, alpha={self.alpha:g}"
        if self.block > 1:
            test += f", tested on medians of {self.n // self.block} blocks of {self.block} {what}s"
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
              min_shift: float = 0.0, permutations: int = PERMUTATIONS, seed: int = 0,
              whole_permutations: int | None = None) -> Stability:
    """Change points, warm-up and steady state of one run's per-iteration values, in run order.

    ``min_segment``: fewest iterations (blocks, for a series longer than :data:`MAX_POINTS`) a level
    must last to count (shorter bursts are noise); ``min_shift``: change points whose neighbouring
    medians differ by less (relative) are merged away, so a long run's statistically clear but
    negligible drift is not called a shift.  ``whole_permutations``: more reorderings for the
    whole-series test alone, whose p-value a family adjustment (Holm) needs finer than alpha.
    """
    x = as_values(values, "series", min_n=0)
    whole = int(permutations if whole_permutations is None else whole_permutations)
    _check_options(alpha, min_segment, max_warmup, min_shift, min(permutations, whole))
    tested, block = _blocks(x)
    common = dict(n=int(x.size), method=_method(alpha, min_segment, (permutations, whole), block),
                  alpha=float(alpha), min_segment=int(min_segment), min_shift=float(min_shift),
                  permutations=int(permutations), block=block, whole_permutations=whole)
    reason = _undecidable(x.size, alpha, min_segment)
    if reason:
        return Stability(state="inconclusive", steady=False, change_points=(), warmup_end=0, shift=None,
                         shift_at=None, p_value=None, segment_medians=(), reason=reason, **common)
    points, p_value = _segment(tested, alpha, min_segment, (permutations, whole), seed)
    points = _refine(x, points, block)
    points = _merge_small_shifts(x, points, min_shift)
    medians = _segment_medians(x, points)
    early = [c for c in points if c <= math.floor(max_warmup * x.size)]
    late = len(points) - len(early)
    state = "steady" if not points else "warmup" if not late else "shift" if late == 1 else "unsteady"
    shift, shift_at = _largest_shift(points, medians)
    return Stability(state=state, steady=state in ("steady", "warmup"), change_points=tuple(points),
                     warmup_end=max(early, default=0), shift=shift, shift_at=shift_at, p_value=p_value,
                     segment_medians=tuple(medians), **common)


def _method(alpha: float, min_segment: int, permutations: tuple[int, int], block: int) -> str:
    """The procedure as one sentence, with the block size when the series was reduced."""
    points = ("every iteration" if block == 1 else
              f"medians of consecutive blocks of {block} iterations (series longer than {MAX_POINTS})")
    each, whole = permutations
    count = str(each) if each == whole else f"{whole} (whole series) and {each} (each segment)"
    return (f"binary segmentation on ranks of {points}: max standardized Mann-Whitney statistic over split "
            f"points, calibrated by {count} seeded random reorderings (scipy.stats.permutation_test), "
            f"alpha {alpha:g}, segments of at least {min_segment}")


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


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n; with ties the midranks of scipy.stats.rankdata (whose per-call overhead a family of
    thousands of short runs would otherwise pay for every run)."""
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    if ordered.size > 1 and not np.all(ordered[1:] != ordered[:-1]):
        return sps.rankdata(x)
    ranks = np.empty(x.size)
    ranks[order] = np.arange(1, x.size + 1)
    return ranks


def _split_z(ranks: np.ndarray, min_segment: int) -> np.ndarray:
    """Standardized Mann–Whitney z of every admissible split (last axis), for ranks 1..m."""
    m = ranks.shape[-1]
    k = np.arange(min_segment, m - min_segment + 1)
    rank_sums = np.cumsum(ranks, axis=-1)[..., k - 1]
    return (rank_sums - k * (m + 1) / 2) / np.sqrt(k * (m - k) * (m + 1) / 12)


def _blocks(x: np.ndarray) -> tuple[np.ndarray, int]:
    """(points to test, iterations per point): the series itself, or medians of equal consecutive blocks."""
    block = max(1, math.ceil(x.size / MAX_POINTS))
    if block == 1:
        return x, 1
    whole = x.size // block
    return np.median(x[:whole * block].reshape(whole, block), axis=1), block


def _null(ranks: np.ndarray, min_segment: int, permutations: int, seed: int) -> tuple[np.ndarray, bool]:
    """Sorted max |z| over seeded reorderings of these ranks (scipy), and whether they are all of them.

    The distribution depends on the ranks' multiset only, so it is cached under its digest (just n
    without ties): a family of equally long runs pays for one permutation test, not one each.
    """
    reference = np.sort(ranks)
    untied = bool(np.array_equal(reference, np.arange(1, reference.size + 1)))
    digest = b"" if untied else hashlib.blake2b(reference.tobytes(), digest_size=16).digest()
    key = (reference.size, digest, min_segment, permutations, seed)
    if key not in _nulls:
        def max_abs_z(r, axis=-1):
            return np.max(np.abs(_split_z(np.moveaxis(r, axis, -1), min_segment)), axis=-1)

        result = sps.permutation_test((reference,), max_abs_z, permutation_type="pairings", vectorized=True,
                                      n_resamples=permutations, alternative="greater", axis=-1,
                                      rng=np.random.default_rng(seed),
                                      batch=max(1, _BATCH_VALUES // reference.size))
        exact = math.factorial(reference.size) <= permutations
        _nulls[key] = (np.sort(result.null_distribution), exact)
        while len(_nulls) > _CACHED_NULLS:
            _nulls.popitem(last=False)
    _nulls.move_to_end(key)
    return _nulls[key]


def _test_segment(segment: np.ndarray, min_segment: int, permutations: int, seed: int) -> tuple[int, float]:
    """(best split index within the segment, permutation p-value of its max |z|).

    The p-value counts reorderings at least as extreme as observed, as scipy.stats.permutation_test
    does (plus one for the observed order unless every reordering was enumerated).
    """
    ranks = _ranks(segment)
    z = np.abs(_split_z(ranks, min_segment))
    observed = float(np.max(z))
    null, exact = _null(ranks, min_segment, permutations, seed)
    extreme = null.size - int(np.searchsorted(null, observed - abs(observed) * _TIE_TOLERANCE, side="left"))
    adjustment = 0 if exact else 1
    return min_segment + int(np.argmax(z)), (extreme + adjustment) / (null.size + adjustment)


def _segment(x: np.ndarray, alpha: float, min_segment: int, permutations: tuple[int, int],
             seed: int) -> tuple[list[int], float]:
    """Binary segmentation: split where significant, test both sides again; (change points, whole-series p).

    ``permutations``: (for each segment, for the whole series).
    """
    points, whole_p, pending = [], None, [(0, x.size)]
    while pending:
        start, stop = pending.pop()
        if _undecidable(stop - start, alpha, min_segment):
            continue
        count = permutations[1] if whole_p is None else permutations[0]
        split, p = _test_segment(x[start:stop], min_segment, count, seed)
        whole_p = p if whole_p is None else whole_p
        if p < alpha:
            points.append(start + split)
            pending += [(start, start + split), (start + split, stop)]
    return sorted(points), float(whole_p)


def _refine(x: np.ndarray, points: list[int], block: int) -> list[int]:
    """Block change points as iterations: where the full-resolution rank statistic peaks within a block.

    Each point is looked for between its neighbours (in iterations), no further than one block from
    the block boundary found; with ``block`` 1 the points are already iterations.
    """
    if block == 1 or not points:
        return list(points)
    edges = [0, *(p * block for p in points), x.size]
    refined = []
    for before, at, after in zip(edges, edges[1:], edges[2:]):
        z = np.abs(_split_z(_ranks(x[before:after]), 1))  # z[k - 1]: split k iterations after `before`
        lo, hi = max(1, at - block - before), min(after - before - 1, at + block - before)
        refined.append(before + lo + int(np.argmax(z[lo - 1:hi])))
    return refined


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
