"""Per-run stability of a result set: does each run's per-iteration series settle, or shift mid-run?

A CI of the median says how precisely a run's iterations locate one value; it does not say the
iterations came from one steady state.  Each run (configuration and ``run_id``) whose rows hold
iterations 1..N is tested in iteration order with :func:`twelveways.stats.stability` (ranks,
permutation-calibrated, so a spike is not a change).  The runs of a file are a family: their
whole-series p-values are Holm-adjusted (statsmodels ``multipletests``), after re-testing the
candidates' whole series with enough permutations for an adjusted p to fall below alpha.  Changes smaller than
the CI target are ignored.  A warm-up past iteration 0 or a mid-run shift is a finding naming
the run, the iteration and the size: the summaries drop iteration 0 only, so both are summarized.

The findings are plain (:class:`Finding`: words and numbers): the checklist's R5 warns on them and
shows them as its evidence; ``twelveways compare`` shows them per side (:func:`lines`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from . import stats
from .resultset import ResultSet, describe, group_codes, group_positions

ALPHA = 0.01
#: Cap on permutations x values of one re-test (a family of many long runs cannot ask for more).
MAX_WORK = 50_000_000
SHOWN = 5
#: What every finding reads.
FIELDS = ("column iteration", "column run_id", "column value")
#: The finding that states the method (compare's per-side lines leave it out).
METHOD = "how stability is judged"


@dataclasses.dataclass(frozen=True)
class Label:
    """A run's name, written only when a finding shows it (a round of files has thousands of runs)."""

    keys: tuple
    values: tuple
    varying: frozenset
    run: object

    def __str__(self) -> str:
        return f"{describe(dict(zip(self.keys, self.values)), set(self.varying))} run {self.run}".strip()


@dataclasses.dataclass(frozen=True)
class Series:
    label: Label
    unit: str
    iterations: list
    result: stats.Stability
    significant: bool = False


@dataclasses.dataclass(frozen=True)
class Finding:
    """One finding in words (``what``) with its numbers (``value``), read from :data:`FIELDS` of one file."""

    what: str
    value: object


def findings(src, rows, target: float, reduce=None) -> tuple[bool, list[Finding]]:
    """(whether a run warms up past iteration 0 or shifts, the findings); a short "stable: N of M" when none does.

    ``reduce(src, rows, keys)`` turns per-rank rows into the per-iteration values judged (their
    maximum over ranks, :func:`max_over_ranks`), so a run's series is the one its summary is made of.
    """
    long_runs, short_runs = _series(src, rows, reduce)
    found = _family(long_runs, target)
    if not found and not short_runs:
        return False, []
    judged = [s for s in found if not s.result.inconclusive]
    flagged = [s for s in judged if s.significant and not s.result.steady]
    warmups = [s for s in judged if s.significant and s.result.steady and s.result.warmup_end > 0]
    counts = {"runs": len(found) + short_runs, "judged": len(judged), "stable": len(judged) - len(flagged) - len(warmups),
              "warm-up past iteration 0": len(warmups),
              "mid-run shift": sum(s.result.state == "shift" for s in flagged),
              "never steady": sum(s.result.state == "unsteady" for s in flagged),
              "too short to judge": len(found) - len(judged) + short_runs}
    out = [Finding(f"stable: {counts['stable']} of {len(judged)} per-iteration series", counts),
           Finding(METHOD, _reading(target, len(judged)))]
    for s in sorted(flagged, key=lambda s: -abs(s.result.shift or 0))[:SHOWN]:
        out.append(Finding(f"{s.label}: {s.result.describe(s.unit, s.iterations)}", _numbers(s)))
    for s in sorted(warmups, key=lambda s: -s.result.warmup_end)[:SHOWN]:
        out.append(Finding(f"{s.label}: {s.result.describe(s.unit, s.iterations)} (iterations "
                           f"{s.iterations[0]}..{s.iterations[s.result.warmup_end - 1]} are summarized)", _numbers(s)))
    return bool(flagged or warmups), out


def measured_rows(src) -> tuple[pd.DataFrame, int]:
    """Summarizable, finite cost/rate rows that are measurements (not derived, not tuning); and the non-finite count."""
    frame = src.frame  # one mask, one copy of the rows (a round of files would copy every row four times)
    keep = (src.kinds.isin(["cost", "rate"]).to_numpy() & frame["valid"].to_numpy(dtype=bool)
            & (frame["iteration"] != 0).to_numpy())
    finite_mask = np.isfinite(frame["value"].to_numpy(dtype=float))
    not_finite = int((keep & ~finite_mask).sum())
    keep &= finite_mask
    derived = {m for m in set(frame["metric"].to_numpy()[keep]) if src.is_derived(m)}
    if derived:
        keep &= ~frame["metric"].isin(derived).to_numpy()
    if "role" in frame:
        keep &= (frame["role"] != "tuning").to_numpy()
    return frame[keep], not_finite


def max_over_ranks(src, rows, keys):
    """Per-rank rows of a file whose stated rank summary is the max over ranks become that max.

    The adaptive repetition targets the CI of the per-iteration maximum over ranks (R10): a
    single rank's CI is not what was summarized, so the maximum is what is judged.
    """
    summary = str(src.attributes.rank_summary or "").lower()
    if "max" not in summary or "rank" not in rows or "run_id" not in rows or not (rows["rank"] >= 0).any():
        return rows
    per_rank, whole = rows[rows["rank"] >= 0], rows[rows["rank"] < 0]
    by = [k for k in keys if k != "rank"] + [c for c in ("run_id", "iteration") if c not in keys]
    codes = group_codes(per_rank, by)
    order = np.lexsort((-per_rank["value"].to_numpy(dtype=float), codes))  # stable: the first of equal maxima
    reduced = per_rank.iloc[order[np.r_[True, np.diff(codes[order]) != 0]]]  # a new frame: set in place
    reduced["rank"] = -1
    return pd.concat([reduced, whole]) if len(whole) else reduced


def lines(data: ResultSet) -> list[str]:
    """The findings in words, per raw file, without the method (``twelveways compare`` shows them per side)."""
    out = []
    for src in data.raw_sources:
        rows, _ = measured_rows(src)
        if not len(rows):
            continue
        _, found = findings(src, rows, data.measurement(src, "ci_target"), reduce=max_over_ranks)
        out += [f"{src.path}: {item.what}" for item in found if item.what != METHOD]
    return out


def _series(src, rows, reduce=None) -> tuple[list[tuple[Label, str, list, np.ndarray]], int]:
    """(label, unit, iteration numbers, values in iteration order) of every run with enough iterations to
    judge, and how many runs have an order but too few iterations (:func:`stats.min_series_length`).

    Why count the short ones without building them: every run of a quick profile is too short to
    judge, and a round of thousands of files has hundreds of thousands of runs; only their number is
    reported.
    """
    rows = rows[rows["iteration"] >= 1] if len(rows) else rows
    if not len(rows) or "run_id" not in rows:
        return [], 0
    keys = [c for c in src.factor_columns if c in rows.columns]
    rows = reduce(src, rows, keys) if reduce else rows
    iterations, values = rows["iteration"].to_numpy(), rows["value"].to_numpy(dtype=float)
    codes = group_codes(rows, keys + ["run_id"])
    sizes = np.bincount(codes)
    first_of_pair = np.unique(codes * (int(iterations.max()) + 1) + iterations, return_index=True)[1]
    ordered = (sizes >= 2) & (np.bincount(codes[first_of_pair], minlength=sizes.size) == sizes)  # no repeats
    long_enough = ordered & (sizes >= stats.min_series_length(ALPHA))
    if not long_enough.any():
        return [], int(ordered.sum())
    varying = {c for c in keys if rows[c].nunique(dropna=False) > 1} | {"metric", "workload"}
    units, found = rows["unit"].to_numpy(), []
    kept = np.flatnonzero(long_enough[codes])
    for key, where in group_positions(rows.iloc[kept], keys + ["run_id"]):  # in order of first appearance
        where = kept[where]
        where = where[np.argsort(iterations[where], kind="stable")]
        label = Label(tuple(keys), tuple(key[:-1]), frozenset(varying), key[-1])
        found.append((label, str(units[where[0]]), [int(i) for i in iterations[where]], values[where]))
    return found, int((ordered & ~long_enough).sum())


def _family(found: list, target: float) -> list[Series]:
    """Each run's stability; candidates re-tested with enough permutations; Holm over the judged runs."""
    results = [stats.stability(values, alpha=ALPHA, min_shift=target) for *_, values in found]
    judged = [i for i, r in enumerate(results) if not r.inconclusive]
    for i in judged:
        count = _permutations(len(judged), found[i][3].size)
        # a re-test whose smallest p (1 / (count + 1)) is above Holm's strictest threshold could change nothing
        if len(judged) > 1 and results[i].p_value < ALPHA and 1 / (count + 1) <= ALPHA / len(judged):
            results[i] = stats.stability(found[i][3], alpha=ALPHA, min_shift=target, whole_permutations=count)
    reject = stats.holm_adjust([results[i].p_value for i in judged], alpha=ALPHA)[0]
    significant = dict(zip(judged, reject))
    return [Series(label, unit, iterations, results[i], bool(significant.get(i, False)))
            for i, (label, unit, iterations, _) in enumerate(found)]


def _permutations(family: int, n: int) -> int:
    """Enough reorderings that the smallest p (1 / (B + 1)) is a tenth of Holm's strictest threshold."""
    wanted = math.ceil(10 * family / ALPHA) - 1
    tested = min(n, stats.changepoint.MAX_POINTS)  # longer series are tested on block medians
    return int(max(stats.changepoint.PERMUTATIONS, min(wanted, MAX_WORK // max(tested, 1))))


def _numbers(s: Series) -> dict:
    r = s.result
    k = r.change_points.index(r.shift_at) if r.shift_at is not None else None
    return {"change_points_at_iteration": [s.iterations[c] for c in r.change_points],
            "warmup_until_iteration": s.iterations[r.warmup_end] if r.warmup_end else None,
            "largest_shift": r.shift, "largest_shift_at_iteration": s.iterations[r.shift_at] if k is not None else None,
            "median_before": r.segment_medians[k] if k is not None else None,
            "median_after": r.segment_medians[k + 1] if k is not None else None,
            "unit": s.unit, "n": r.n, "p_value": r.p_value, "state": r.state,
            "iterations_per_tested_point": r.block}


def _reading(target: float, judged: int) -> str:
    """The method as one sentence a reader can check."""
    shortest = stats.min_series_length(ALPHA)
    return (f"each run's iterations 1..N in order: ranks, max standardized Mann-Whitney statistic over split "
            f"points, permutation p (seeded), binary segmentation (runs longer than {stats.changepoint.MAX_POINTS} "
            f"iterations: on medians of equal consecutive blocks); Holm over the {judged} judged runs at alpha "
            f"{ALPHA:g}; changes below the CI target ±{target:.1%} ignored; a change in the first "
            f"{stats.changepoint.MAX_WARMUP:.0%} of a run is a warm-up; runs with fewer than {shortest} iterations "
            "are too short to judge")
