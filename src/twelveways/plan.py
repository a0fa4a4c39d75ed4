"""``twelveways plan``: how many invocations a comparison needs, how long each profile will take, and how many
rounds ``ab`` needs.

The whole profile, stage by stage, is :mod:`twelveways.plan_stages` (rule costs from Snakemake's benchmark
files, scaled by the profile's counts); ``--ab-effect`` is :mod:`twelveways.plan_rounds` (``ab``'s own two-stage
plan fed a recorded spread).  This module keeps the PRK part, which both build on.

Why (Kalibera & Jones 2013): the number of repetitions at each level should come from the
variance components and the cost of one repetition, not from habit.  From a finished run's PRK
results this module computes, per configuration,

* the variance of one invocation's summary (``stats.components``; the A/A between-run variance
  from ``noise_floor.json`` where measured) and the invocations per side a comparison needs to
  detect a chosen effect (default 5 %) at 80 % power (``stats.invocations_needed``);
* the cost of one invocation: its measured wall time (attr ``prk_run_seconds``; start-up
  included), or for older files the timed iterations plus an equal share of the sweep's
  remaining time (said so);

and predicts the PRK stage's runtime under each profile (quick: ``config/config.yaml``, full:
``config/full.yaml``): for each of the profile's configurations, the invocations its stop rule
asks for at least (``prk.min_invocations``, ``measurement.min_samples``; this run's own count
where the profile and the configuration are the run's), times the cost of one, scaled from the
run's configuration of the same kernel, implementation and resources by the iterations and the
kernel's work (nstream ~ n, transpose and stencil ~ n², p2p ~ m·n, dgemm ~ n³, sparse ~ 4^lsize).
The uncertainty is a 95 % range from the spread of the invocation costs and ±1 invocation per
adaptively stopped configuration; the work model's own error is not in it (stated).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from . import config as config_module
from . import plan_stages, results, stats
from .cliargs import refuse_output_over_input
from .errors import AuditInputError, StatisticsError, TwelveWaysError
from .evidence.settings import resolve_confidence
from .inputs import brief
from .plan_stages import duration
from .stats.core import check_fraction

ROOT = Path(__file__).resolve().parents[2]
PROFILES = {"quick": ROOT / "config" / "config.yaml", "full": ROOT / "config" / "full.yaml"}
#: How the work of one iteration grows with the size column (PRK's definitions; sparse: 2^lsize per side).
WORK_EXPONENT = {"nstream": 1, "transpose": 2, "stencil": 2, "p2p": 2, "dgemm": 3}
MATCH = ("workload", "implementation", "ranks", "threads", "scaling")
#: The columns a PRK configuration is planned from (a results file of another family lacks some).
NEEDED_COLUMNS = (*MATCH, "size", "run_id", "iteration", "metric", "value", "valid")


def log_work(kernel: str, size: float) -> float | None:
    """Log of one iteration's work relative to size 1 (only differences are used, so 4^lsize never overflows);
    None for a size with no work to scale by (0 or negative, outside sparse)."""
    size = float(size)
    if kernel == "sparse":
        return size * math.log(4.0)
    return WORK_EXPONENT.get(kernel, 1) * math.log(size) if size > 0 else None


def _seconds(value, name: str, source) -> float:
    """A recorded wall time: a finite, non-negative number, or one line naming the attribute and the value."""
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise AuditInputError(f"{source}: attr {name}: {brief(value)} is not a finite, non-negative number of seconds")
    return seconds


def _run_costs(ds, frame, source) -> tuple[dict[str, float], str]:
    """{run_id: seconds} of every program run and how they were obtained: measured where recorded, else the
    timed iterations plus an equal share of the sweep's other time."""
    timed = frame[frame["metric"] == "time"].groupby(["run_id", "iteration"])["value"].max().groupby("run_id").sum()
    total = _seconds(ds.attrs.get("prk_sweep_seconds", timed.sum()), "prk_sweep_seconds", source)
    startup = max(0.0, (total - float(timed.sum())) / max(1, len(timed)))
    estimated = {str(k): float(v) + startup for k, v in timed.items()}
    recorded = results.attr_json(ds, "prk_run_seconds", None)
    if not (isinstance(recorded, dict) and recorded):
        return estimated, ("timed iterations plus an equal share of the sweep's other time (this run did not "
                           "record each run's wall time)")
    measured = {str(k): _seconds(v, f"prk_run_seconds[{str(k)[:40]!r}]", source) for k, v in recorded.items()}
    unrecorded = len(set(estimated) - set(measured))
    return {**estimated, **measured}, "measured per program run" + (
        f" ({unrecorded} run(s) without a recorded time estimated from their timed iterations)" if unrecorded else "")


def configurations(path: str | Path, noise: Mapping | None = None) -> tuple[list[dict], str]:
    """Per PRK configuration of a finished run: variance, invocations, cost per invocation."""
    ds = results.open(path)
    frame = results.to_frame(ds)
    missing = [column for column in NEEDED_COLUMNS if column not in frame.columns]
    if missing:
        raise AuditInputError(f"{path}: no PRK configuration to plan from (family {ds.attrs.get('family', '?')!s}: "
                              f"no column {', '.join(missing)}; twelveways plan reads a PRK sweep's prk.nc)")
    frame = frame[frame["valid"].astype(bool)]
    costs, how = _run_costs(ds, frame, path)
    times = frame[(frame["metric"] == "time") & (frame["iteration"] > 0)]
    per_iteration = times.groupby(["run_id", "iteration"])["value"].max().reset_index()
    keys = times.groupby("run_id")[[*MATCH, "size"]].first()
    found = []
    for config, runs in keys.groupby(list(MATCH) + ["size"], sort=True):
        groups = [per_iteration.loc[per_iteration["run_id"] == r, "value"].to_numpy() for r in runs.index]
        try:
            parts = stats.components(groups)
        except StatisticsError:
            continue
        cost = np.array([costs.get(str(r), math.nan) for r in runs.index], dtype=float)
        found.append({**dict(zip([*MATCH, "size"], config)), "invocations": parts.invocations,
                      "iteration_s": float(np.mean(np.concatenate(groups))),
                      "iterations": parts.iterations, "variance": parts.summary_variance,
                      "cost_s": float(np.nanmean(cost)), "cost_sd_s": float(np.nanstd(cost, ddof=1)) if cost.size > 1
                      else 0.0, "stop_reason": str(times.loc[times["run_id"] == runs.index[0], "stop_reason"].iloc[0])
                      if "stop_reason" in times.columns else ""})
    return found, how


def needed(rows: list[dict], effect: float, power: float, alpha: float, run_variance: float = 0.0) -> None:
    """Add the invocations per side each configuration needs to detect ``effect`` with ``power``."""
    for row in rows:
        row["needed"] = (stats.invocations_needed(row["variance"], math.log1p(effect), alpha=alpha, power=power,
                                                  run_variance=run_variance) if row["variance"] is not None else None)


def _source(rows_by_match: dict, point) -> dict | None:
    """The run's configuration of the same kernel, implementation and resources nearest in work."""
    found = rows_by_match.get((point.kernel, point.implementation, point.ranks, point.threads, point.scaling), [])
    usable = [r for r in found if log_work(point.kernel, r["size"]) is not None]
    target = log_work(point.kernel, point.primary(point.size))
    if not usable or target is None:
        return None
    return min(usable, key=lambda r: abs(log_work(point.kernel, r["size"]) - target))


def _invocation_cost(row: dict, point, iterations: int) -> float:
    """One invocation of ``point``: the source's start-up plus its iterations scaled by work (inf when the
    scale is beyond a float: not predicted)."""
    timed = (row["iterations"] + 1) * row["iteration_s"]
    startup = max(0.0, row["cost_s"] - timed)
    log_scale = log_work(point.kernel, point.primary(point.size)) - log_work(point.kernel, row["size"])
    scale = math.exp(log_scale) if log_scale < 700 else math.inf
    return startup + (iterations + 1) * row["iteration_s"] * scale


def predict(rows: list[dict], profile: Mapping, *, same_as_run: bool) -> dict:
    """Predicted PRK sweep seconds of ``profile`` with a 95 % range (module docstring)."""
    from .prk import sweep
    from .families.prk_config import PrkConfig

    prk = PrkConfig.from_config(profile)
    points, _ = sweep.expand(prk)
    by_match: dict[tuple, list[dict]] = {}
    for row in rows:
        by_match.setdefault(tuple(row[c] for c in MATCH), []).append(row)
    total, variance, missing = 0.0, 0.0, []
    for point in points:
        row = _source(by_match, point)
        if row is None:
            missing.append(point.key())
            continue
        iterations = prk.iterations[point.kernel]
        own = same_as_run and row["size"] == point.primary(point.size) and row["iterations"] == iterations
        least = max(prk.stop_rule["min_invocations"], math.ceil(prk.stop_rule["min_samples"] / iterations))
        n = max(row["invocations"], least) if own else least
        cost = row["cost_s"] if own else _invocation_cost(row, point, iterations)
        if not math.isfinite(n * cost):
            missing.append(point.key())
            continue
        total += n * cost
        variance += n * (row["cost_sd_s"] * cost / row["cost_s"]) ** 2 if row["cost_s"] else 0.0
        variance += cost ** 2 if n > least or not own else 0.0  # an adaptive stop: about one invocation either way
    half = 1.96 * math.sqrt(variance)
    return {"seconds": total, "range": [max(0.0, total - half), total + half], "configurations": len(points),
            "not_predicted": missing}


def prk_file(results: str | Path) -> Path:
    """The PRK results a plan reads: ``results`` itself when it is a file, else ``prk.nc`` in that folder or in
    its ``results/`` (a stored set such as data/reference)."""
    given = Path(results)
    candidates = (given,) if given.is_file() else (given / "prk.nc", given / "results" / "prk.nc")
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise AuditInputError(f"{given}: no prk.nc (a finished run's results folder is needed)")
    return path


def plan(results_dir: str | Path, *, effect: float = 0.05, power: float = 0.8, confidence: float | None = None,
         profiles: Mapping[str, str | Path] | None = None) -> dict:
    """The whole plan of a finished run (module docstring); ``confidence`` None: the schema's."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    effect, power = check_fraction(effect, "effect"), check_fraction(power, "power")
    path = prk_file(results_dir)
    rows, how = configurations(path)
    if not rows:
        raise AuditInputError(f"{path}: no valid PRK time samples to plan from")
    needed(rows, effect, power, round(1 - confidence, 12))
    run_profile = str(results.open(path).attrs.get("profile", ""))
    run_config = results.attr_json(results.open(path), "prk_config", {}) or {}
    predicted = {}
    for name, config_path in (PROFILES if profiles is None else profiles).items():
        profile = config_module.load(config_path)
        same = dict(profile["prk"]).get("iterations") == run_config.get("iterations") or name == run_profile
        predicted[name] = predict(rows, profile, same_as_run=same)
    return {"format": "twelveways-plan/1", "results": str(path), "effect": effect, "power": power,
            "confidence": confidence, "cost_source": how, "method": stats.REPLICATE_METHOD,
            "configurations": rows, "profiles": predicted}


def text(record: dict) -> str:
    """The plan in words: invocations needed, then each profile's predicted PRK sweep time."""
    rows = record["configurations"]
    decided = [r["needed"] for r in rows if r["needed"]]
    lines = [f"Invocations per side to detect a {record['effect'] * 100:.3g}% difference at {record['power'] * 100:.3g}% power "
             f"({len(rows)} PRK time configurations): median {int(np.median(decided)) if decided else '—'}, "
             f"largest {max(decided) if decided else '—'}; "
             f"{sum(r['needed'] is None for r in rows)} configuration(s) would need more than "
             f"{stats.replicates.MAX_INVOCATIONS} or have one invocation only."]
    for r in sorted(rows, key=lambda r: -(r["needed"] or 10 ** 6))[:10]:
        need = r["needed"] or f"more than {stats.replicates.MAX_INVOCATIONS}"
        sd = f"±{math.sqrt(r['variance']):.1%}" if r["variance"] is not None else "unknown (one invocation)"
        lines.append(f"  {r['workload']} {r['implementation']} {r['ranks']}x{r['threads']} size {r['size']} "
                     f"{r['scaling']}: {need} (invocation sd {sd}, {r['cost_s']:.3g} s each)")
    for name, p in record["profiles"].items():
        lines.append(profile_sentence(name, p))
    lines.append(f"Costs: {record['cost_source']}; the work model's own error is not in the ranges.")
    return "\n".join(lines) + "\n"


def profile_sentence(name: str, predicted: Mapping) -> str:
    """'The full profile's PRK sweep is predicted to take 410 s (95 % range 350–470 s)...'"""
    low, high = predicted["range"]
    missing = predicted["not_predicted"]
    left = f"; {len(missing)} configuration(s) not predicted (no run of their kernel and resources)" if missing else ""
    return (f"The {name} profile's PRK sweep is predicted to take {predicted['seconds']:.0f} s "
            f"(95% range {low:.0f}-{high:.0f} s, {predicted['configurations']} configurations){left}.")


def recorded_run(path: Path, rows: list[dict], bench: str | Path | None = None) -> plan_stages.Recorded:
    """What the run whose ``prk.nc`` is ``path`` left: rule costs (``bench``, else ``logs/bench`` beside its results
    folder), its validated config (``config.json`` in or beside that folder) and its sweep's seconds."""
    folder = path.parent
    bench_dir = Path(bench) if bench else next((d for d in (folder / "logs" / "bench", folder.parent / "logs" / "bench")
                                                if d.is_dir()), folder.parent / "logs" / "bench")
    costs = plan_stages.rule_costs(bench_dir)
    plan_stages.require(costs, "the whole profile", bench_dir)
    config_path = next((p for p in (folder / "config.json", folder.parent / "config.json") if p.is_file()), None)
    if config_path is None:
        raise AuditInputError(f"{folder}: no config.json beside the results (the run's validated configuration, which "
                              "the workflow writes to results/config.json); its counts are what the costs scale from")
    ds = results.open(path)
    sweep = float(ds.attrs["prk_sweep_seconds"]) if "prk_sweep_seconds" in ds.attrs else None
    return plan_stages.Recorded(folder, costs, config_module.load(config_path),
                                (sweep, len(rows)) if sweep is not None else None)


def whole(record: dict, bench: str | Path | None = None,
          profiles: Mapping[str, str | Path] | None = None) -> dict[str, plan_stages.Prediction]:
    """Every profile's stages predicted from the run ``record`` planned (its PRK sweeps included)."""
    run = recorded_run(Path(record["results"]), record["configurations"], bench)
    found = {}
    for name, config_path in (PROFILES if profiles is None else profiles).items():
        found[name] = plan_stages.predict_profile(run, config_module.load(config_path), record["profiles"].get(name))
    return found


def whole_text(name: str, predicted: plan_stages.Prediction) -> str:
    """'The quick profile is predicted to take 5 min 10 s in all (95% range ...)', then one line per stage."""
    low, high = predicted.range
    lines = [f"The {name} profile is predicted to take {duration(predicted.seconds)} in all (95% range "
             f"{duration(low)} to {duration(high)}; the sum over its rules, jobs in parallel can shorten the wall "
             "time), by stage:"]
    for row in predicted.stages:
        lines.append(f"  {row.title}: {duration(row.seconds)} ({duration(row.range[0])} to "
                     f"{duration(row.range[1])}; this run {duration(row.recorded_s)}): {row.how}")
    return "\n".join(lines)


def full_profile_prediction(results_dir: str | Path, bench: str | Path | None = None
                            ) -> plan_stages.Prediction | None:
    """The full profile's predicted stages from the run in ``results_dir``, or None where it cannot be made (the
    appendix and the report then say nothing of it)."""
    return _predicted("full", results_dir, bench)


def _predicted(name: str, results_dir: str | Path | None, bench: str | Path | None = None
               ) -> plan_stages.Prediction | None:
    if results_dir is None:
        return None
    try:
        record = plan(results_dir, profiles={name: PROFILES[name]})
        return whole(record, bench, {name: PROFILES[name]})[name]
    except (AuditInputError, StatisticsError, OSError, TwelveWaysError):
        return None


def profile_runtime_sentence(name: str, results_dir: str | Path | None) -> str:
    """What a profile is predicted to take in all, from this run's recorded costs (``twelveways plan``); without
    them, that it cannot be predicted here."""
    predicted = _predicted(name, results_dir)
    if predicted is None:
        return "not predicted (this result set has no recorded costs to scale: twelveways plan needs a finished run)."
    low, high = predicted.range
    return (f"{duration(predicted.seconds)} in all (95% range {duration(low)} to {duration(high)}, every stage "
            "scaled from this run's recorded costs by twelveways plan).")


def _write(path: str | None, record: dict) -> None:
    if path:
        from . import atomic
        from .compare import sides

        atomic.write_text(path, sides.dumps(record), "plan", make_parents=True)


def _ab_main(args: argparse.Namespace) -> None:
    """``--ab-effect``: the rounds ab needs per configuration, from an ab record's rounds or this run's spread."""
    from . import plan_rounds
    from .compare import ab_run

    only = ab_run.parse_only(args.only)
    plan_rounds.check_effects(args.ab_effect, args.ab_margin)
    if args.ab_record:
        record = {"format": "twelveways-plan/1", "ab_record": args.ab_record}
        spreads = plan_rounds.spreads_from_ab(_json(args.ab_record), only, args.ab_record)
        build = None
    else:
        record = plan(args.results, effect=args.effect, power=args.power, confidence=args.confidence)
        spreads = plan_rounds.spreads_from_run(record["configurations"], only)
        folder = Path(record["results"]).parent
        costs = plan_stages.rule_costs(args.bench or next((d for d in (folder / "logs" / "bench",
                                                                       folder.parent / "logs" / "bench") if d.is_dir()),
                                                          None))
        build = float(costs["prk_build"].mean()) if "prk_build" in costs else None
    record["ab_rounds"] = plan_rounds.rounds(spreads, args.ab_effect, confidence=args.confidence,
                                             margin=args.ab_margin, pilot=args.ab_pilot, build_s=build)
    _write(args.output, record)
    sys.stdout.write(plan_rounds.text(record["ab_rounds"], duration))


def _json(path: str) -> dict:
    import json

    try:
        return json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise AuditInputError(f"{path}: not a readable JSON ab record ({brief(str(exc))})") from exc


def plan_main(args: argparse.Namespace) -> None:
    if args.output:  # checked before the minutes of reading: the plan must not replace what it reads
        inputs = [args.ab_record] if args.ab_record else [args.results, prk_file(args.results)]
        refuse_output_over_input([args.output], [*inputs, *PROFILES.values()], AuditInputError, "twelveways plan")
    if args.ab_effect:
        return _ab_main(args)
    if args.only or args.ab_record:
        raise AuditInputError("twelveways plan: --only and --ab-record choose what ab's rounds are planned for: "
                              "give --ab-effect with them")
    record = plan(args.results, effect=args.effect, power=args.power, confidence=args.confidence)
    predicted = whole(record, args.bench)
    record["whole"] = {name: p.to_dict() for name, p in predicted.items()}
    _write(args.output, record)
    sys.stdout.write(text(record) + "\n".join(whole_text(name, p) for name, p in predicted.items())
                     + f"\nRanges: {plan_stages.RANGE_TEXT}.\n")
