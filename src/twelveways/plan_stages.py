"""The whole profile's predicted runtime, stage by stage, from the costs a finished run recorded.

Why (issue 41): a committee needs the whole profile's runtime, not the PRK sweep's alone.  What a
finished run recorded, and where:

* Snakemake's ``benchmark:`` file of every rule (``logs/bench/<rule>.tsv``, column ``s``): the
  seconds of each rule as it ran (the mean where the file holds repeats);
* ``prk.nc``: each PRK program run's wall time (``twelveways.plan.predict`` scales them);
* ``train.nc``: each training run's wall time (metric ``run_wall_time``) and whether it converged;
* ``inference.nc``: each LoadGen run's wall time and query count, and each model variant's stage
  seconds (attr ``stage_seconds``: accuracy pass, calibration and model preparation included).

Model.  A stage's cost that grows with the profile's counts is the recorded cost per unit times the
profile's units: PRK invocations (``plan.predict``: configurations, invocations, work per
iteration), the A/A sweep's configurations, training runs (configurations x seeds, lr trials x
their seeds; a run that stopped at ``max_epochs`` without converging scales with ``max_epochs``,
a configuration this run did not train takes the cost of its nearest one), LoadGen runs (per
variant and scenario, each lasting the longer of ``min_duration_s`` and its minimum query count at
the recorded query rate), model variants (their preparation and accuracy pass) and bounds repeats.
Everything else (each rule's start-up and imports, environment capture, the build, data
reformatting, notebooks, checklist, report, appendix) is a fixed cost carried over.

Range: every part carries the stated allowance :data:`ALLOWANCE` (one recorded run cannot show
how load, caches and the file system vary from run to run; it is an assumption, not a
measurement), plus, for scaled parts, 1.96 x the spread of the recorded per-unit costs
(sqrt(sum of n_i sd_i^2)), and for a rule whose benchmark file holds repeats, 1.96 x their sd.
Half-widths add, within a stage and across stages (a slower machine slows every stage alike: the
errors are not assumed to cancel).  The work model's own error beyond that is not in the range.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import results
from .compare.record import Number, Record
from .errors import AuditInputError, ConfigError

#: Stated allowance on every predicted cost (module docstring: what one recorded run cannot show).
ALLOWANCE = 0.20
Z95 = 1.96
#: How every range is made, in a sentence (the plan's text and the appendix state it).
RANGE_TEXT = (f"each predicted cost carries a stated allowance of ±{ALLOWANCE:.0%} (one recorded run cannot show how "
              "load, caches and the file system vary between runs), plus 1.96 times the spread of the recorded "
              "per-unit costs it was scaled from (PRK invocations, training runs, LoadGen runs; the PRK sweep's "
              "range from twelveways plan's invocation model); the half-widths add over stages (a slower machine "
              "slows them all); the work model's own error is not in it")
#: The stages in workflow order: key -> (title, its rules).  A ``notebook_*`` rule is a notebook; a rule
#: named nowhere here (added to the workflow later) is carried over under "other".
STAGES = {
    "environment": ("environment capture", ("config_dump", "environment", "environment_end")),
    "build": ("build (PRK kernels)", ("prk_build",)),
    "prk": ("PRK sweep and bounds", ("prk_bounds", "prk_run")),
    "placebo": ("placebo (A/A) sweep", ("prk_placebo", "noise_floor")),
    "train": ("training", ("train_data", "train_sweeps")),
    "infer": ("inference (LoadGen)", ("infer",)),
    "notebooks": ("analysis notebooks", ()),
    "checklist": ("checklist", ("checklist",)),
    "report": ("report and appendix", ("report", "appendix", "reproduction")),
    "other": ("other rules", ()),
}


@dataclass(frozen=True)
class Estimate:
    """A predicted cost: seconds, the 95 % half-width of its range, and how it was obtained."""

    seconds: float
    half: float
    how: str

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.seconds + other.seconds, self.half + other.half, "; ".join(filter(None, (self.how,
                                                                                                     other.how))))


NOTHING = Estimate(0.0, 0.0, "")


class StagePrediction(Record):
    """One stage of a profile predicted: seconds with a 95 % range, this run's recorded seconds, and how."""

    stage: str
    title: str
    seconds: Number
    range: tuple[Number, Number]
    recorded_s: Number
    how: str


class Prediction(Record):
    """A whole profile predicted (``twelveways plan``; the appendix's runtime): the sum over its stages."""

    seconds: Number
    range: tuple[Number, Number]
    stages: tuple[StagePrediction, ...]


def duration(seconds: float | None) -> str:
    """'7 min 31 s' / '42.0 s' / '3 h 36 min'; 'not measured' without a number."""
    if seconds is None or not math.isfinite(seconds):
        return "not measured"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min {rest} s"


def stage_of(rule: str) -> str:
    """The stage a rule's benchmark file belongs to."""
    if rule.startswith("notebook_"):
        return "notebooks"
    return next((stage for stage, (_, rules) in STAGES.items() if rule in rules), "other")


def rule_costs(bench_dir: str | Path | None) -> dict[str, np.ndarray]:
    """{rule: seconds of each repeat} from Snakemake's ``benchmark:`` files (column ``s``); unreadable files and
    files without a number are left out (the appendix lists what it found)."""
    found = {}
    folder = Path(bench_dir) if bench_dir else None
    for path in sorted(folder.glob("*.tsv")) if folder and folder.is_dir() else []:
        try:
            seconds = pd.to_numeric(pd.read_csv(path, sep="\t")["s"], errors="coerce").dropna().to_numpy(float)
        except (OSError, ValueError, KeyError, pd.errors.EmptyDataError):
            continue
        seconds = seconds[np.isfinite(seconds) & (seconds >= 0)]
        if seconds.size:
            found[path.stem] = seconds
    return found


def fixed(seconds: Iterable[float], what: str) -> Estimate:
    """A carried-over cost: the mean of its repeats, ± the allowance (or 1.96 sd of the repeats, if larger)."""
    values = np.asarray(list(seconds), dtype=float)
    mean = float(values.mean()) if values.size else 0.0
    spread = Z95 * float(values.std(ddof=1)) if values.size > 1 else 0.0
    return Estimate(mean, max(ALLOWANCE * mean, spread), what)


def scaled(units: Iterable[tuple[float, float, float]], what: str) -> Estimate:
    """Sum of n_i units costing mean_i (sd sd_i) each: the allowance plus 1.96 sqrt(sum n_i sd_i^2)."""
    parts = [(float(n), float(mean), float(sd)) for n, mean, sd in units]
    total = sum(n * mean for n, mean, _ in parts)
    spread = Z95 * math.sqrt(sum(n * sd * sd for n, _, sd in parts))
    return Estimate(total, ALLOWANCE * total + spread, what)


def overhead(rule_seconds: np.ndarray | None, measured_inside: float, what: str) -> Estimate:
    """The part of a rule's time outside what its results measured (start-up, imports, writing): carried over."""
    if rule_seconds is None:
        return NOTHING
    return fixed([max(0.0, float(np.mean(rule_seconds)) - measured_inside)], what)


def sd_or_zero(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


def open_results(folder: Path, name: str) -> pd.DataFrame | None:
    """A results file's rows, None when the run did not write it (that stage then has only its rules' costs)."""
    path = folder / name
    return results.to_frame(results.open(path)) if path.is_file() else None


def require(found: Mapping, what: str, where: Path) -> None:
    """The one line a run without benchmark files gets."""
    if not found:
        raise AuditInputError(f"{where}: no Snakemake benchmark files (logs/bench/*.tsv) to plan {what} from; a "
                              "finished workflow run writes them (snapshot keeps them in a reference set), or name "
                              "the folder with --bench")


# ------------------------------------------------------------------------------------------------ training

#: RunConfig fields a nearest recorded configuration should share (each one that differs weighs more than any
#: difference of batch size or learning rate).
TRAIN_FACTORS = ("model", "dataset", "input_size", "precision", "variant", "ranks", "scaling", "sparsification", "role")


def _train_distance(a, b) -> float:
    mismatches = sum(getattr(a, f) != getattr(b, f) for f in TRAIN_FACTORS)
    return 100.0 * mismatches + abs(math.log(a.batch_size / b.batch_size)) + abs(math.log(a.lr / b.lr))


def train_runs(profile: Mapping, datasets: Mapping) -> list[tuple[object, int]]:
    """[(configuration, runs)] the profile's training stage makes: final and MPI configurations x seeds, lr
    trials x their seeds, and the final runs at the chosen lr (taken as the reference configuration's)."""
    from .train import planning
    from .train.settings import TrainConfig

    settings = TrainConfig.from_config(profile)
    planned = planning.plan(settings, {"datasets": dict(datasets)})
    runs = [(cfg, settings.seeds) for cfg in planned.finals] + [(p.config, settings.seeds) for p in planned.parallel]
    runs += [(cfg, settings.lr_search.seeds) for cfg in planned.trials]
    if planned.trials:
        runs.append((planned.reference, settings.seeds))
    return runs


def _recorded_train_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Per recorded configuration: mean and sd of a run's wall time, runs, share that converged (no row where
    the file records no run's wall time or names no configuration)."""
    if not {"metric", "value", "run_id", "config_id"} <= set(frame.columns):
        frame = pd.DataFrame(columns=["metric", "value", "run_id", "config_id"])
    walls = frame[frame["metric"] == "run_wall_time"]
    converged = frame[frame["metric"] == "converged"].groupby("run_id")["value"].max()
    walls = walls.assign(converged=walls["run_id"].map(converged).fillna(1.0))
    return walls.groupby("config_id").agg(mean=("value", "mean"), sd=("value", lambda v: sd_or_zero(v.to_numpy())),
                                          runs=("value", "size"), converged=("converged", "mean"))


def train_estimate(folder: Path, costs: Mapping, recorded: Mapping, profile: Mapping) -> Estimate:
    """The training stage: data reformatting carried over, each planned run at its nearest recorded cost."""
    from .train.planning import RunConfig

    data = fixed(costs["train_data"], "data reformatting carried over") if "train_data" in costs else NOTHING
    frame = open_results(folder, "train.nc")
    sweeps = costs.get("train_sweeps")
    if frame is None:
        return data + (fixed(sweeps, "training runs carried over (no train.nc)") if sweeps is not None else NOTHING)
    table = _recorded_train_runs(frame)
    known = {}
    for config_id, row in table.iterrows():
        try:
            known[RunConfig.from_id(str(config_id))] = row
        except ConfigError:  # a configuration named otherwise (another producer's file): not a unit to scale
            continue
    epochs = int(profile["train"]["max_epochs"]) / int(recorded["train"]["max_epochs"])
    datasets = results.attr_json(results.open(folder / "train.nc"), "datasets", {}) or {}
    try:
        planned = train_runs(profile, datasets) if known else None
    except KeyError as exc:  # a data set the run did not prepare: its input shape is unknown
        planned, missing = None, f"no input shape recorded for data set {exc}"
    else:
        missing = "no training run with a recorded wall time"
    if planned is None:
        return data + (fixed(sweeps, f"training runs carried over ({missing})") if sweeps is not None else NOTHING)
    units = []
    for cfg, n in planned:
        row = known[min(known, key=lambda k: _train_distance(cfg, k))]
        factor = row["converged"] + (1.0 - row["converged"]) * epochs  # unconverged runs run to max_epochs
        units.append((n, row["mean"] * factor, row["sd"] * factor))
    runs = scaled(units, f"{sum(u[0] for u in units):.0f} training runs at their nearest "
                         "recorded configuration's wall time")
    return data + runs + overhead(sweeps, float(table["mean"].mul(table["runs"]).sum()),
                                  "training process start-up, warm-up and compliance check carried over")


# ------------------------------------------------------------------------------------------------ inference


def loadgen_runs_per_variant(settings, scenario: str, role: str) -> int | None:
    """Runs of one model variant in ``scenario`` with ``role`` the profile asks for: performance runs
    (``performance_runs``), the Server search's runs at most and its load sweep; None for a role no count sets
    (a calibration pilot: as many as recorded, at their recorded length)."""
    counts = {"performance": settings.runs_per_variant(scenario), "search": settings.server_search.max_runs,
              "load_sweep": len(settings.server_load_fractions)}
    return counts.get(role)


def _loadgen_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per performance run: scenario, role, variant, wall seconds and units (queries; Offline: samples); no row
    where the file records no run's wall time."""
    empty = pd.DataFrame(columns=["run_id", "scenario", "role", "variant", "run_wall_time", "units"])
    if not {"metric", "value", "run_id", "scenario", "variant"} <= set(frame.columns) or \
            not (frame["metric"] == "run_wall_time").any():
        return empty
    perf = frame[frame["mode"] == "PerformanceOnly"] if "mode" in frame.columns else frame
    perf = perf.assign(role=perf["role"].fillna("performance") if "role" in perf.columns else "performance")
    wide = perf[perf["metric"].isin(["run_wall_time", "query_count", "samples_per_query"])].pivot_table(
        index=["run_id", "scenario", "role", "variant"], columns="metric", values="value",
        aggfunc="first").reset_index()
    if "run_wall_time" not in wide.columns:
        return empty
    wide = wide.dropna(subset=["run_wall_time"])
    queries = wide.get("query_count", pd.Series(np.nan, index=wide.index)).fillna(0.0)
    samples = wide.get("samples_per_query", pd.Series(1.0, index=wide.index)).fillna(1.0)
    units = np.where(wide["scenario"] == "Offline", queries * samples, queries)
    return wide.assign(units=units)


def _run_seconds(runs: pd.DataFrame, scenario: str, recorded, target) -> tuple[float, float]:
    """(mean, sd) seconds of one target run of ``scenario``: the recorded runs' mean, scaled by how much longer
    LoadGen plans the target's run (minimum duration, or minimum count at the recorded rate)."""
    mean, sd = float(runs["run_wall_time"].mean()), sd_or_zero(runs["run_wall_time"].to_numpy())
    rate = float(runs["units"].sum() / runs["run_wall_time"].sum()) if runs["units"].sum() > 0 else math.inf

    def planned(settings) -> float:
        from .infer import scenarios

        count = float(scenarios.min_queries(scenarios.get(scenario), settings))
        return max(settings.min_duration_s, count / rate)

    factor = planned(target) / planned(recorded) if planned(recorded) > 0 else 1.0
    return mean * factor, sd * factor


def infer_estimate(folder: Path, costs: Mapping, recorded: Mapping, profile: Mapping) -> Estimate:
    """The inference stage: LoadGen runs per variant and scenario, each variant's preparation and accuracy pass,
    and the rule's own start-up (carried over)."""
    from .infer.settings import InferConfig

    rule = costs.get("infer")
    frame = open_results(folder, "inference.nc")
    if frame is None:
        return fixed(rule, "inference carried over (no inference.nc)") if rule is not None else NOTHING
    rec, tgt = InferConfig.from_config(recorded), InferConfig.from_config(profile)
    table = _loadgen_table(frame)
    variants_rec, variants_tgt = table["variant"].nunique(), len(tgt.models) * len(tgt.variants)
    if not variants_rec:
        return fixed(rule, "inference carried over (no LoadGen run with a recorded wall time)") if rule is not None \
            else NOTHING
    units = []
    for (scenario, role), runs in table.groupby(["scenario", "role"]):
        if scenario not in tgt.scenarios:
            continue
        now, then = loadgen_runs_per_variant(tgt, scenario, role), loadgen_runs_per_variant(rec, scenario, role)
        per_variant = len(runs) / variants_rec * (now / max(1, then) if now is not None else 1.0)
        mean, sd = _run_seconds(runs, scenario, rec, tgt) if now is not None else (
            float(runs["run_wall_time"].mean()), sd_or_zero(runs["run_wall_time"].to_numpy()))
        units.append((per_variant * variants_tgt, mean, sd))
    loadgen = scaled(units, f"LoadGen runs of {variants_tgt} model variants, each the longer of the minimum duration "
                            "and the minimum query count at the recorded rate (calibration pilots as recorded)")
    stage = results.attr_json(results.open(folder / "inference.nc"), "stage_seconds", {}) or {}
    per_variant = [float(s) for model in stage.values() if isinstance(model, Mapping)
                   for key, s in model.items() if key != "total"]
    prepared = sum(per_variant) - float(table["run_wall_time"].sum())
    variant_cost = max(0.0, prepared / max(1, len(per_variant)))
    preparation = scaled([(variants_tgt, variant_cost, 0.0)], "each variant's preparation and accuracy pass")
    return loadgen + preparation + overhead(rule, sum(per_variant) or float(table["run_wall_time"].sum()),
                                            "the inference process's start-up carried over")


# ------------------------------------------------------------------------------------------------ PRK


def prk_estimate(costs: Mapping, recorded: Mapping, profile: Mapping, sweep: Mapping | None,
                 sweep_seconds: float | None) -> Estimate:
    """The PRK stage: the sweep as ``plan.predict`` scales it (its own 95 % range plus the allowance), the
    rule's start-up carried over, the bounds scaled by their repeats."""
    run = costs.get("prk_run")
    if sweep is None or sweep_seconds is None:
        found = fixed(run, "PRK sweep carried over (no prk.nc to scale)") if run is not None else NOTHING
    else:
        low, high = sweep["range"]
        found = Estimate(sweep["seconds"], (high - low) / 2 + ALLOWANCE * sweep["seconds"],
                         f"{sweep['configurations']} PRK configurations' invocations scaled by work")
        found = found + overhead(run, sweep_seconds, "the sweep process's start-up carried over")
    bounds = costs.get("prk_bounds")
    if bounds is not None and profile["prk"]["bounds"]["enabled"]:
        repeats = profile["prk"]["bounds"]["repeats"] / max(1, recorded["prk"]["bounds"]["repeats"])
        found = found + scaled([(repeats, float(np.mean(bounds)), sd_or_zero(bounds))],
                               "bounds scaled by their repeats (larger arrays of a profile not in it)")
    return found


def _placebo_configurations(config: Mapping, configurations: int) -> int:
    """Configurations the A/A run repeats (0: all); none when the profile runs no A/A."""
    measurement = config["measurement"]
    if not measurement.get("placebo", True):
        return 0
    chosen = int(measurement.get("placebo_configurations", 0))
    return min(chosen, configurations) if chosen else configurations


def placebo_estimate(costs: Mapping, recorded: Mapping, profile: Mapping, sweep: Mapping | None,
                     recorded_sweep: tuple[float, int] | None) -> Estimate:
    """The A/A sweep: the recorded one per configuration it repeated, times the profile's configurations to
    repeat and the ratio of the two profiles' sweep cost per configuration; a sweep process's start-up (the PRK
    rule's time beyond its sweep) carried over."""
    rule, floor = costs.get("prk_placebo"), costs.get("noise_floor")
    found = fixed(floor, "noise-floor comparison carried over") if floor is not None else NOTHING
    if rule is None:
        return found
    if sweep is None or recorded_sweep is None:
        return found + fixed(rule, "A/A sweep carried over")
    seconds, configurations = recorded_sweep
    startup = min(float(np.mean(rule)), max(0.0, float(np.mean(costs["prk_run"])) - seconds)) \
        if "prk_run" in costs else 0.0
    repeated_then = _placebo_configurations(recorded, configurations)
    repeated_now = _placebo_configurations(profile, sweep["configurations"])
    per_configuration = (sweep["seconds"] / max(1, sweep["configurations"])) / (seconds / max(1, configurations))
    factor = repeated_now / max(1, repeated_then) * per_configuration
    return found + fixed([startup], "") + scaled(
        [(factor, float(np.mean(rule)) - startup, sd_or_zero(rule))],
        f"A/A sweep of {repeated_now} configurations at the profile's cost per configuration, its start-up carried "
        "over")


# ------------------------------------------------------------------------------------------------ the whole

#: Rules a model above predicts; every other benchmark file is carried over as it is.
MODELLED = {"prk_run", "prk_bounds", "prk_placebo", "noise_floor", "train_data", "train_sweeps", "infer"}


@dataclass(frozen=True)
class Recorded:
    """What a finished run left to predict from: its results folder, rule costs, validated config, and the
    PRK sweep's (seconds, configurations) when it ran one."""

    folder: Path
    costs: Mapping[str, np.ndarray]
    config: Mapping
    sweep: tuple[float, int] | None


def rules_off(profile: Mapping) -> set[str]:
    """Rules the profile does not run: those of a family its ``stages`` switch off (the A/A rules with the PRK
    stage, or with ``measurement.placebo`` false)."""
    from . import families

    stages = profile.get("stages") or {}
    off = {rule for family in families.staged() if not stages.get(family.stage, True) for rule in family.rules}
    if "prk_run" in off or not (profile.get("measurement") or {}).get("placebo", True):
        off |= {"prk_placebo", "noise_floor"}
    return off


def predict_profile(run: Recorded, profile: Mapping, sweep: Mapping | None) -> Prediction:
    """Every stage's predicted seconds with a 95 % range for ``profile`` (``sweep``: ``plan.predict``'s PRK sweep
    of this profile, None without a prk.nc); a rule the profile does not run takes nothing."""
    off = rules_off(profile)
    found = {stage: NOTHING for stage in STAGES}
    for rule, seconds in run.costs.items():
        if rule not in MODELLED and rule not in off:
            found[stage_of(rule)] += fixed(seconds, "")
    if "prk_run" not in off:
        found["prk"] = prk_estimate(run.costs, run.config, profile, sweep, run.sweep[0] if run.sweep else None)
    if "prk_placebo" not in off:
        found["placebo"] = placebo_estimate(run.costs, run.config, profile, sweep, run.sweep)
    if "train_sweeps" not in off:
        found["train"] = train_estimate(run.folder, run.costs, run.config, profile)
    if "infer" not in off:
        found["infer"] = infer_estimate(run.folder, run.costs, run.config, profile)
    rows = [_stage_row(stage, estimate, run.costs, off) for stage, estimate in found.items()
            if estimate.seconds > 0 or _recorded(stage, run.costs)]
    total = sum(r.seconds for r in rows)
    half = sum((r.range[1] - r.range[0]) / 2 for r in rows)
    return Prediction(seconds=total, range=(max(0.0, total - half), total + half), stages=tuple(rows))


def _recorded(stage: str, costs: Mapping) -> float:
    return sum(float(np.mean(v)) for rule, v in costs.items() if stage_of(rule) == stage)


def _stage_row(stage: str, estimate: Estimate, costs: Mapping, off: set[str]) -> StagePrediction:
    skipped = sorted(rule for rule in costs if rule in off and stage_of(rule) == stage)
    how = estimate.how or ("carried over from this run's rules" if estimate.seconds else "")
    if skipped:
        how = "; ".join(filter(None, (how, f"not run by this profile: {', '.join(skipped)}")))
    return StagePrediction(stage=stage, title=STAGES[stage][0], seconds=estimate.seconds,
                           range=(max(0.0, estimate.seconds - estimate.half), estimate.seconds + estimate.half),
                           recorded_s=_recorded(stage, costs), how=how)
