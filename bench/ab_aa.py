"""``twelveways ab`` of the working tree against itself (A/A) on the quick PRK selection.

Why (issue 41): an A/B procedure is worth its false calls.  Both sides are this checkout, each
built into its own folder, run interleaved in randomized rounds with the default plan (the two-stage
plan sized for +5 % beyond the ±2 % margin).  Figures: the share of configurations
called different (faster or slower; target at most 5 %), the verdict counts, the rounds, the time
it took, the busy rounds and the machine's load (run on a quiet machine: the load is recorded);
beside them, the sd of the rounds' log ratios against ab's trimmed spread, and the coverage of ab's
whole procedure rerun on the record's own rounds, resampled (:func:`resampled_coverage`).

Smaller trials: ``TWELVEWAYS_BENCH_AB_ONLY="workload=nstream,stencil;implementation=c-serial"``
(``--only`` items separated by ``;``) and ``TWELVEWAYS_BENCH_AB_SECONDS`` (time budget of each ab
run, default 3600).  ``TWELVEWAYS_BENCH_KEEP=DIR`` keeps the reports in DIR.  ``bench/ab_effect.py``
uses the helpers here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUICK_CONFIG = ROOT / "config" / "config.yaml"
DEFAULT_SECONDS = 3600.0


def selection() -> dict[str, set[str]]:
    from twelveways.compare import ab_run

    items = [item for item in os.environ.get("TWELVEWAYS_BENCH_AB_ONLY", "").split(";") if item.strip()]
    return ab_run.parse_only(items)


def run_ab(new_root: Path, new_label: str | None, work: Path, name: str, base: tuple[Path, str] | None = None) -> dict:
    """One ab run: the working tree (or ``base``: (root holding kernels/, label)) against ``new_root`` (its
    kernels/), both with the quick config."""
    from twelveways.compare import ab, ab_analysis
    from twelveways.results import git_state

    commit, dirty = git_state(ROOT)
    commit += "+dirty" if dirty else ""
    roots = {"base": (base[0], commit, base[1]) if base else (ROOT, commit, None), "new": (new_root, commit, new_label)}
    plan = ab_analysis.Plan(confidence=0.95)
    seconds = float(os.environ.get("TWELVEWAYS_BENCH_AB_SECONDS", DEFAULT_SECONDS))
    (work / name).mkdir(parents=True, exist_ok=True)
    return ab.measure(roots, {"base": QUICK_CONFIG, "new": QUICK_CONFIG}, plan, selection(), work=work / name,
                      output=str(work / name / "ab"), max_seconds=seconds)


def figures(record, true_ratio: float | None) -> dict:
    """The Done-when figures of one ab record (:class:`twelveways.compare.record.AbRecord`; true_ratio None: an
    A/A run)."""
    from twelveways.compare.ab import placement_summary

    rows = [r for r in record.rows if r.ratio is not None]
    n = len(rows)

    def share(count: int) -> float | None:
        return round(count / n, 3) if n else None

    ab = record.ab
    planned = sorted(v for v in ab.planned_rounds.values() if v)
    found = {"configurations": n, "verdicts": dict(record.counts),
             "called_different": sum(r.verdict in ("faster", "slower") for r in rows),
             "not_decidable_load": sum(r.reason.startswith("not decidable") for r in rows),
             "rounds": ab.rounds, "planned_rounds_median": planned[len(planned) // 2] if planned else None,
             "planned_rounds_range": [planned[0], planned[-1]] if planned else None,
             "seconds": ab.seconds, "program_runs": ab.program_runs, "stop": ab.stop,
             "busy_rounds": f"{ab.busy_rounds} of {ab.paired_rounds}",
             "placement": placement_summary(ab.placement),
             "machine_load": {side: list(lines) for side, lines in record.machine_load.items()}}
    found["called_share"] = share(found["called_different"])
    found["spread_of_rounds"] = spreads(record)
    found["resampled"] = resampled_coverage(record, true_ratio or 1.0)
    if true_ratio is not None:
        covered = [r for r in rows if r.ci and r.ci[0] <= true_ratio <= r.ci[1]]
        found |= {"true_ratio": true_ratio,
                  "found_slower_share": share(sum(r.verdict == "slower" for r in rows)),
                  "called_faster": sum(r.verdict == "faster" for r in rows),
                  "ci_covers_true_share": share(len(covered))}
    return found


def round_log_ratios(record) -> dict[str, np.ndarray]:
    """Each configuration's recorded per-round log ratios log(NEW/BASE) (``plan --ab-record`` reads them alike)."""
    from twelveways import plan_rounds

    return {configuration: plan_rounds.round_log_ratios(invocations)
            for configuration, invocations in record.ab.invocations.items()}


def spreads(record) -> dict:
    """Median over configurations of the sd of the per-round log ratio and of ab's trimmed spread: how heavy the
    tails of single invocations were (ab_analysis's docstring says why it trims)."""
    from twelveways.compare import ab_analysis

    per = [(float(np.std(d, ddof=1)), ab_analysis.spread(d)) for d in round_log_ratios(record).values() if d.size > 2]
    return {"sd_median": round(float(np.median([a for a, _ in per])), 4) if per else None,
            "trimmed_spread_median": round(float(np.median([b for _, b in per])), 4) if per else None}


def resampled_coverage(record, true_ratio: float, reps: int = 40, seed: int = 0) -> dict:
    """ab's whole procedure (pilot look, plan, final look) rerun on this record's own rounds, resampled with random
    signs about log(true_ratio) after removing each configuration's trimmed mean: the share of intervals that miss
    the known ratio, and the share found beyond the margin (its power there).  Symmetrizing is what the paired design
    gives when both sides' noise is drawn alike."""
    from twelveways.compare import ab_analysis

    plan = ab_analysis.Plan(confidence=0.95)
    rng = np.random.default_rng(seed)
    missed = total = beyond = 0
    band = np.log1p(plan.margin)
    for d in round_log_ratios(record).values():
        if d.size < plan.pilot:
            continue
        centred = d - ab_analysis.interval(d, 0.5).estimate
        for _ in range(reps):
            progress = ab_analysis.Progress()
            while not progress.stop(plan, out_of_time=False):
                progress.log_ratios.append(np.log(true_ratio) + rng.choice(centred) * rng.choice((-1.0, 1.0)))
            n = len(progress.log_ratios)
            rounds = ab_analysis.PairedRounds("c", {}, np.ones(n), np.exp(progress.log_ratios), np.zeros(n, bool),
                                              pilot_sd=progress.pilot_sd, look=progress.look)
            found = ab_analysis.found_interval(rounds, plan)
            total += 1
            missed += not (found.low <= np.log(true_ratio) <= found.high)
            beyond += bool(found.low > band or found.high < -band)
    return {"procedures": total, "missed_share": round(missed / total, 4) if total else None,
            "beyond_margin_share": round(float(beyond) / total, 4) if total else None, "true_ratio": true_ratio,
            "stated_miss": round(1 - plan.confidence, 4)}


def workspace():
    """The folder the runs write to: TWELVEWAYS_BENCH_KEEP, else a temporary one."""
    keep = os.environ.get("TWELVEWAYS_BENCH_KEEP")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        return _Kept(Path(keep))
    return tempfile.TemporaryDirectory(prefix="bench-ab-")


class _Kept:
    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> str:
        return str(self.path)

    def __exit__(self, *exc) -> None:
        return None


def run(quick: bool = True) -> dict:
    with workspace() as tmp:
        record = run_ab(ROOT, None, Path(tmp), "aa")
    return {"aa": figures(record, None), "selection": os.environ.get("TWELVEWAYS_BENCH_AB_ONLY") or "quick profile, all",
            "targets": {"called_share": "<= 0.05"},
            "note": "ab of the working tree against itself on this machine; quote with the machine's load"}
