"""The training study: plan, launch, score, and write ``results/train.nc``.

:func:`execute` is three steps.  :func:`.planning.plan` says which configurations run (the study
table is there).  :func:`launch` runs them and returns one :class:`RunRecord` per run, in run
order: the learning-rate trials first (the final runs depend on their outcome), then every other
single-process run in an order shuffled with the seed, then the MPI launches (one per rank count,
runs shuffled inside).  :func:`score` turns the records into result rows, MLPerf scores and the
compliance summary; nothing is summarized while runs are still running.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

from ..errors import KernelError, one_line_errors
from ..families.train import FAMILY
from ..measure import seeded_order
from . import data as data_mod
from . import models
from .planning import Plan, RunConfig, plan, run_seeds
from .records import (DEFINITIONS, count_ops, make_spec, op_rows, per_sample_flops, run_rows,
                      tuning_cost_row)
from .score import olympic_mean
from .settings import TrainConfig, load_config


class PlannedRun(NamedTuple):
    """One seeded run of a planned configuration; ``keep_as`` names the checkpoints saved from it."""

    config: RunConfig
    seed: int
    studies: frozenset[str]
    keep_as: tuple[str, ...] = ()


class RunRecord(NamedTuple):
    """A finished run: what was planned, the spec it ran with, its result (model dropped), checkpoints saved."""

    run: PlannedRun
    spec: dict
    result: dict
    saved: tuple[tuple[str, dict], ...] = ()


class MpiLaunch(NamedTuple):
    """One ``mpiexec`` of :mod:`.dist`: the communicator it got and the runs it made."""

    ranks: int
    comm_size: int
    mpi_library: str
    warmup_s: float
    records: tuple[RunRecord, ...]


class Launched(NamedTuple):
    """Everything :func:`launch` ran."""

    plan: Plan  # with the final configuration the learning-rate search chose
    records: tuple[RunRecord, ...]  # in run order
    lr_search: dict
    warmup_s: dict
    mpi: dict


class Scored(NamedTuple):
    """What :func:`score` derives from the records: rows, scores, the lr search, compliance."""

    rows: list[dict]
    scores: dict
    lr_search: dict
    compliance: dict


class Outcome(NamedTuple):
    """The per-run numbers the score and the learning-rate choice read."""

    run_id: str
    time_to_train: float
    converged: bool
    run_wall_time: float

    @classmethod
    def of(cls, record: RunRecord) -> Outcome:
        values = record.result["values"]
        return cls(record.spec["run_id"], values["time_to_train"], bool(values["converged"]), values["run_wall_time"])


@dataclass(frozen=True)
class Study:
    """What every run reads: the settings, the data manifest, and where logs and checkpoints go."""

    settings: TrainConfig
    manifest: dict
    log_dir: Path
    model_dir: Path

    def spec(self, config: RunConfig, seed: int) -> dict:
        return make_spec(config, seed, self.settings, self.manifest, self.log_dir)


def open_study(settings: TrainConfig, log_dir: Path, model_dir: Path) -> Study:
    """Check every data set against its hash and clear the log folder before any run."""
    manifest = data_mod.read_manifest(settings.data_dir)
    for name in settings.datasets_to_prepare():
        data_mod.dataset_entry(settings.data_dir, name, verify=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    for stale in log_dir.glob("*.log"):  # logs of an earlier study would be mistaken for this one's
        stale.unlink()
    return Study(settings, manifest, log_dir, model_dir)


# --------------------------------------------------------------------------- launching

def launch(study: Study, planned: Plan) -> Launched:
    """Run every planned run in seeded order (module docstring); the records come back in run order."""
    from .loop import warm_up

    settings = study.settings
    warmup_s = {"process": warm_up(_combos(study, planned))}
    import mlperf_logging.compliance_checker.mlp_compliance  # noqa: F401  (import cost outside every run)
    total = (len(planned.trials) * settings.lr_search.seeds
             + (len(planned.finals) + len(planned.parallel)) * settings.seeds)
    with _Bar(total) as bar:
        trials = _run_local(study, seeded_order(_trial_runs(planned, settings), settings.seed), bar)
        lr_search, searched = _lr_search(planned, trials)
        bar.extend((len(searched.finals) - len(planned.finals)) * settings.seeds)
        finals = _run_local(study, seeded_order(_final_runs(searched, settings), settings.seed + 1), bar)
        launches = _mpi_launches(study, searched, bar)
    warmup_s.update({f"mpi_{launch.ranks}_ranks": launch.warmup_s for launch in launches})
    mpi = {str(launch.ranks): {"comm_size": launch.comm_size, "mpi_library": launch.mpi_library}
           for launch in launches}
    records = (*trials, *finals, *(record for launch in launches for record in launch.records))
    return Launched(searched, records, lr_search, warmup_s, mpi)


def _combos(study: Study, planned: Plan) -> list[tuple]:
    """(model, input shape, classes, precision) of every single-process configuration, for the warm-up."""
    combos = set()
    for cfg in [*planned.finals, *planned.trials]:
        entry = study.manifest["datasets"][cfg.data_name]
        combos.add((cfg.model, tuple(entry["input_shape"]), entry["n_classes"], cfg.precision))
    return sorted(combos)


def _trial_runs(planned: Plan, settings: TrainConfig) -> list[PlannedRun]:
    seeds = run_seeds(settings.seed, settings.lr_search.seeds, tuning=True)
    return [PlannedRun(cfg, s, frozenset({"lr_search"})) for cfg in planned.trials for s in seeds]


def _final_runs(planned: Plan, settings: TrainConfig) -> list[PlannedRun]:
    seeds = run_seeds(settings.seed, settings.seeds)
    return [PlannedRun(cfg, s, studies, _checkpoint_names(planned, cfg, studies) if s == seeds[0] else ())
            for cfg, studies in planned.finals.items() for s in seeds]


def _checkpoint_names(planned: Plan, cfg: RunConfig, studies: frozenset[str]) -> tuple[str, ...]:
    """The reference model, and each family's model on the reference data at 8x8 (the inference variants)."""
    ref = planned.reference
    names = ("reference",) if cfg == ref else ()
    if "families" in studies and cfg.dataset == ref.dataset and cfg.input_size == 8:
        names += (cfg.model,)
    return names


def _lr_search(planned: Plan, trial_records: Sequence[RunRecord]) -> tuple[dict, Plan]:
    """The learning-rate choice and the plan with its final configuration (F4); unchanged without trials."""
    if not planned.trials:
        return {}, planned
    search = choose_lr(planned.trials, by_config(trial_records))
    if search["chosen_lr"] is None:
        return search, planned
    final = replace(planned.trials[0], lr=search["chosen_lr"], role="final")
    return {**search, "final_config_id": final.config_id}, planned.with_final(final, "lr_search")


def _run_local(study: Study, runs: Iterable[PlannedRun], bar: _Bar) -> list[RunRecord]:
    """Run each in this process, in the order given; save the checkpoints a run is kept as."""
    from .loop import train_run

    records = []
    for run in runs:
        spec = study.spec(run.config, run.seed)
        bar.describe(spec["run_id"])
        result = train_run(spec, keep_model=bool(run.keep_as))
        model = result.pop("model")
        saved = tuple((name, _save_checkpoint(study, run.config, spec, result, model, name)) for name in run.keep_as)
        records.append(RunRecord(run, spec, result, saved))
        bar.advance()
    return records


def _save_checkpoint(study: Study, cfg: RunConfig, spec: dict, result: dict, model, name: str) -> dict:
    """Save the run's model for the inference benchmark, with the JSON that says how to use it."""
    values = result["values"]
    data_file = Path(study.settings.data_dir) / Path(spec["data_path"]).name
    info = {
        "name": name, "model": cfg.model, "dataset": cfg.dataset, "input_size": cfg.input_size,
        "input_shape": spec["input_shape"], "n_classes": spec["n_classes"], "quality_target": spec["target"],
        "architecture": models.architecture(cfg.model, spec["input_shape"], spec["n_classes"]),
        "data": {"test": str(data_file), "format": "npz", "x_key": "x_test", "y_key": "y_test",
                 "sha256": spec["data_sha256"], "input_dtype": "float32",
                 "preprocessing": "none at inference: the file holds model-ready inputs (pixels / 16, in [0, 1])"},
        "quality": {"metric": "accuracy", "target": spec["target"],
                    "target_definition": "validation-split accuracy (fraction) at which training stopped",
                    "test_accuracy": values["test_accuracy"], "val_accuracy": values["val_accuracy"],
                    "train_accuracy": values["train_accuracy"]},
        "training": {"time_to_quality_s": values["time_to_train"], "total_time_s": values["run_wall_time"],
                     "init_time_s": values["init_time"], "epochs": int(values["epochs_to_target"]),
                     "converged": bool(values["converged"]), "config_id": cfg.config_id, "run_id": spec["run_id"],
                     "seed": spec["seed"], "batch_size": cfg.batch_size, "lr": cfg.lr, "precision": cfg.precision,
                     "results": "results/train.nc (scores: attribute 'scores')"},
    }
    return models.save_checkpoint(model, study.model_dir / f"{name}.pt", info)


def _mpi_launches(study: Study, planned: Plan, bar: _Bar) -> list[MpiLaunch]:
    """One launch per rank count, rank counts and the runs inside each in seeded order."""
    settings = study.settings
    by_ranks: dict[int, list[PlannedRun]] = {}
    for cfg, studies in planned.parallel:
        for s in run_seeds(settings.seed, settings.seeds):
            by_ranks.setdefault(cfg.ranks, []).append(PlannedRun(cfg, s, studies))
    launches = []
    with tempfile.TemporaryDirectory(prefix="tw-train-") as tmp:
        for ranks in seeded_order(sorted(by_ranks), settings.seed + 2):
            runs = seeded_order(by_ranks[ranks], settings.seed + 3 + ranks)
            launches.append(_mpi_launch(study, ranks, runs, Path(tmp), bar))
    return launches


def _mpi_launch(study: Study, ranks: int, runs: list[PlannedRun], workdir: Path, bar: _Bar) -> MpiLaunch:
    specs = [study.spec(run.config, run.seed) for run in runs]
    bar.describe(f"MPI launch, {ranks} rank(s), {len(specs)} runs")
    payload = run_mpi(specs, ranks, study.settings, workdir)
    records = tuple(RunRecord(run, spec, out["result"]) for run, spec, out in zip(runs, specs, payload["runs"]))
    bar.advance(len(records))
    return MpiLaunch(ranks, payload["comm_size"], payload["mpi_library"], payload["warmup_s"], records)


class _Bar:
    """The progress bar on stderr: runs done of runs planned, and the current run."""

    def __init__(self, total: int):
        self.total = total
        self.progress = _progress()
        self.task = None

    def __enter__(self) -> _Bar:
        self.progress.__enter__()
        self.task = self.progress.add_task("", total=self.total)
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def describe(self, text: str) -> None:
        self.progress.update(self.task, description=text)

    def advance(self, n: int = 1) -> None:
        self.progress.advance(self.task, n)

    def extend(self, n: int) -> None:
        self.total += n
        self.progress.update(self.task, total=self.total)


def _progress():
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("train"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.description}"), console=Console(stderr=True), transient=False)


def _launcher(command: str) -> list[str]:
    parts = shlex.split(command)
    if parts and parts[0] == "mpiexec":
        beside = Path(sys.executable).parent / "mpiexec"
        parts[0] = str(beside) if beside.exists() else (shutil.which("mpiexec") or "mpiexec")
    return parts


def run_mpi(specs: list[dict], ranks: int, settings: TrainConfig, workdir: Path) -> dict:
    """One launch of :mod:`.dist` with ``ranks`` ranks for all ``specs`` (already in run order)."""
    spec_path = workdir / f"dist-r{ranks}.json"
    out_path = workdir / f"dist-r{ranks}.out.json"
    spec_path.write_text(json.dumps({"threads": settings.threads, "runs": specs}))
    command = [*_launcher(settings.parallel.launcher), "-n", str(ranks), sys.executable, "-m",
               "twelveways.train.dist", str(spec_path), str(out_path)]
    env = dict(os.environ, OMP_NUM_THREADS=str(settings.threads))
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=settings.parallel.timeout_s)
    except FileNotFoundError as exc:
        raise KernelError(f"MPI launcher not found: {command[0]}", cause=exc) from exc
    except subprocess.TimeoutExpired as exc:
        raise KernelError(f"MPI training launch with {ranks} ranks ran past {settings.parallel.timeout_s:g} s") from exc
    if proc.returncode != 0 or not out_path.is_file():
        lines = [line for line in (proc.stderr or "").splitlines() if line.startswith("error:")]
        detail = lines[0][len("error:"):].strip() if lines else (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise KernelError(f"MPI training launch with {ranks} ranks failed (exit {proc.returncode}): {detail}")
    return json.loads(out_path.read_text())


# --------------------------------------------------------------------------- scoring

def score(study: Study, launched: Launched) -> Scored:
    """Rows, MLPerf scores, the lr search's final score and cost, and the compliance of every log."""
    from . import mllog_io

    checks = [mllog_io.check(record.spec["log_path"]) for record in launched.records]
    rows = study_rows(study, launched.records, [ok for ok, _ in checks])
    scores = config_scores(launched.records)
    lr_search = dict(launched.lr_search)
    if lr_search:
        lr_search["final_score_s"] = scores.get(lr_search.get("final_config_id", ""), {}).get("score_s")
        rows.append(tuning_cost_row(launched.plan.trials[0], study.settings, study.manifest, study.log_dir,
                                    lr_search["total_cost_s"]))
    return Scored(rows, scores, lr_search, compliance_summary(launched.records, checks))


def study_rows(study: Study, records: Sequence[RunRecord], compliant: Sequence[bool]) -> list[dict]:
    """Each run's rows in run order, a configuration's op counts (F5) before its first run's rows."""
    settings = study.settings
    rows, flops = [], {}
    for record, ok in zip(records, compliant):
        cfg, studies = record.run.config, record.run.studies
        if cfg not in flops:
            ops = count_ops(cfg, study.manifest, settings.momentum)
            rows.extend(op_rows(cfg, record.spec, studies, settings.threads, ops))
            flops[cfg] = per_sample_flops(ops)
        rows.extend(run_rows(cfg, record.spec, record.result, studies, settings.threads, flops[cfg], ok))
    return rows


def by_config(records: Iterable[RunRecord]) -> dict[str, list[RunRecord]]:
    """Records grouped by configuration, in order of each configuration's first run."""
    grouped: dict[str, list[RunRecord]] = {}
    for record in records:
        grouped.setdefault(record.run.config.config_id, []).append(record)
    return grouped


def config_scores(records: Iterable[RunRecord]) -> dict:
    """The MLPerf olympic mean of every final configuration with at least three runs."""
    scores = {}
    for config_id, group in by_config(records).items():
        first = group[0].run
        if first.config.role != "final" or len(group) < 3:
            continue
        outcomes = [Outcome.of(record) for record in group]
        score_ = olympic_mean([o.time_to_train for o in outcomes], [o.converged for o in outcomes],
                              [o.run_id for o in outcomes])
        scores[config_id] = {**score_.as_dict(), "study": sorted(first.studies), **asdict(first.config)}
    return scores


def choose_lr(trials: Sequence[RunConfig], runs_by_config: dict[str, list[RunRecord]]) -> dict:
    """The trial lr with the lowest mean time to train among trials whose every seed converged."""
    summary = []
    for cfg in trials:
        runs = [Outcome.of(record) for record in runs_by_config.get(cfg.config_id, [])]
        converged = all(r.converged for r in runs) and runs
        mean_ttt = sum(r.time_to_train for r in runs) / len(runs) if runs else float("nan")
        summary.append({"config_id": cfg.config_id, "lr": cfg.lr, "run_ids": [r.run_id for r in runs],
                        "time_to_train_s": [r.time_to_train for r in runs], "converged": [r.converged for r in runs],
                        "cost_s": sum(r.run_wall_time for r in runs),
                        "mean_time_to_train_s": mean_ttt if converged else None})
    candidates = [t for t in summary if t["mean_time_to_train_s"] is not None]
    chosen = min(candidates, key=lambda t: (t["mean_time_to_train_s"], t["lr"])) if candidates else None
    return {"trials": summary, "total_cost_s": sum(t["cost_s"] for t in summary),
            "chosen_lr": chosen["lr"] if chosen else None,
            "criterion": "lowest mean time_to_train among trials whose every seed converged",
            "n_trials": sum(len(t["run_ids"]) for t in summary)}


def compliance_summary(records: Sequence[RunRecord], checks: Sequence[tuple[bool, list[str]]]) -> dict:
    """How many logs passed MLPerf's compliance checker, and the first messages of each failure."""
    failures = [{"run_id": record.spec["run_id"], "messages": messages[:3]}
                for record, (ok, messages) in zip(records, checks) if not ok]
    return {"checked": len(checks), "passed": sum(int(ok) for ok, _ in checks), "failures": failures}


# --------------------------------------------------------------------------- the results file

def execute(config: dict, output: Path, environment: str | None, log_dir: Path, model_dir: Path) -> Path:
    """Run the whole study and write the results file; returns its path (``config``: validated)."""
    import torch

    from .. import results

    settings = TrainConfig.from_config(config)
    torch.set_num_threads(settings.threads)
    started = time.perf_counter()
    study = open_study(settings, log_dir, model_dir)
    launched = launch(study, plan(settings, study.manifest))
    scored = score(study, launched)
    attrs = study_attrs(config, environment, study, launched, scored, time.perf_counter() - started)
    return results.write(results.from_records(scored.rows, family="train", attrs=attrs), output)


def study_attrs(config: dict, environment, study: Study, launched: Launched, scored: Scored,
                stage_time: float) -> dict:
    """The results file's attributes: provenance, scores, lr search, data, compliance, timing rules."""
    from .. import results
    from . import mllog_io

    attrs = results.provenance(environment, config)
    attrs.update({
        "scores": scored.scores,
        "reference_config": launched.plan.reference.config_id,
        "lr_search": scored.lr_search,
        "quality_targets": dict(study.settings.targets),
        "datasets": {name: {k: entry[k] for k in ("file", "sha256", "n_train", "n_val", "n_test", "input_shape",
                                                   "n_classes", "source")}
                     for name, entry in study.manifest["datasets"].items()},
        "compliance": {**scored.compliance, "ruleset": "src/twelveways/train/mlperf_compliance.yaml",
                       "ruleset_sha256": hashlib.sha256(mllog_io.RULESET.read_bytes()).hexdigest(),
                       "checker": "mlperf_logging.compliance_checker (in process; same classes as its CLI)",
                       "log_dir": str(study.log_dir)},
        "timing_rules": "MLPerf: timed region from run_start (first touch of the data on disk for variant io) to "
                        "run_stop at the first validation eval reaching the target; model init excluded but recorded "
                        "(init_time); variant preloaded reads the data before run_start",
        "definitions": DEFINITIONS,
        "mpi": launched.mpi,
        "models_saved": {name: info["checkpoint"] for record in launched.records for name, info in record.saved},
        "stage_wall_time_s": stage_time,
        "warmup_s": launched.warmup_s,
        "run_order": "seeded (measure.seeded_order): lr trials, then single-process runs, then MPI launches",
        **checklist_attrs(scored.scores, scored.rows),
        **levels_attrs(config),
    })
    return attrs


#: The levels this benchmark can run, as its family declares them (R2: a level left out needs a reason).
LEVELS_AVAILABLE = {factor: list(levels) for factor, levels in FAMILY.levels.items()}


def levels_attrs(config: dict) -> dict:
    """``levels_available`` and the config's reasons for any subset (SC15 R2)."""
    keys = ("models", "datasets", "precisions", "input_sizes", "resources")
    reasons = {k: str(v) for k, v in config["subset_reasons"].items() if k in keys and str(v or "").strip()}
    return {"levels_available": LEVELS_AVAILABLE, "subset_reasons": reasons}


def checklist_attrs(scores: dict, rows: list[dict]) -> dict:
    """What the checklist reads (docs/checklist-evidence.md), stated by the benchmark that knows it."""
    dtype_mix = {}
    for row in rows:
        if row["metric"] == "ops_per_step" and row["precision"] != "fp32":
            dtype_mix.setdefault(row["config_id"], {})[f"{row['op_kind']}:{row['op_dtype']}"] = row["value"]
    return {
        "summaries": [{"metric": "time_to_train", "statistic": "olympic_mean", "kind": "cost",
                       "filters": {"config_id": cid}, "value": s["score_s"], "n": s["n_runs"],
                       "note": "MLPerf Training score: fixed number of seeded runs, fastest and slowest dropped; "
                               + s["reason"]} for cid, s in scores.items() if s["valid"]],
        "ci_notes": {m: "MLPerf Training: a fixed number of seeded runs per configuration (quick 5, full 10), "
                        "summarized by the olympic mean; not repeated until a CI target"
                     for m in ("time_to_train", "epochs_to_target", "init_time", "data_load_time", "run_wall_time",
                               "time_per_step", "comm_time_per_step", "throughput", "flop_rate", "tuning_cost")},
        "op_count": "executed",
        "dtype_mix": dtype_mix,
        "derived_metrics": ["throughput", "time_per_step", "comm_time_per_step", "flop_rate", "train_flops",
                            "samples_seen", "steps", "run_wall_time"],
        "metric_kinds": {"converged": "other", "compliant": "other", "epochs_to_target": "count",
                         "n_parameters": "count", "steps": "count", "ops_per_step": "count", "train_flops": "count",
                         "comm_bytes_per_step": "other", "samples_seen": "curve"},
        "timer": "time.perf_counter_ns (wall clock); mllog time_ms = wall clock at log creation + perf_counter offsets",
        "time_summary": "rank 0's clock: every step ends in a blocking Allreduce/Allgather, so rank 0's step and "
                        "run times include the slowest rank; one row per run (rank -1)",
        "synchronization": "MPI Barrier before run_start; the gradient Allreduce (or Allgather) synchronizes every step; "
                           "the stop decision uses validation counts summed over ranks with Allreduce",
    }


# --------------------------------------------------------------------------- CLI

def main(argv=None) -> int:
    """``python -m twelveways.train.sweeps``: the Snakemake rule's entry; errors as one line, exit 1."""
    parser = argparse.ArgumentParser(prog="python -m twelveways.train.sweeps",
                                     description="Run the training benchmark and write results/train.nc.")
    parser.add_argument("--config", required=True, help="validated config JSON (results/config.json)")
    parser.add_argument("--output", required=True, help="results file to write (results/train.nc)")
    parser.add_argument("--environment", default=None,
                        help="environment capture (default: environment.json beside the output, if present)")
    parser.add_argument("--logs", default=None, help="folder for the mllog logs (default: <output dir>/train/mllog)")
    parser.add_argument("--models", default=None, help="folder for the saved models (default: <output dir>/models)")
    parser.add_argument("--mpi-launcher", default="",
                        help="MPI launcher overriding train.parallel.launcher (a scheduler profile's 'srun --mpi=pmi2')")
    args = parser.parse_args(argv)
    output = Path(args.output)
    environment = args.environment
    if environment is None and (output.parent / "environment.json").is_file():
        environment = str(output.parent / "environment.json")

    def run() -> None:
        config = load_config(args.config)
        if args.mpi_launcher.strip():  # into the config itself, so its hash records the launcher used
            config["train"]["parallel"]["launcher"] = args.mpi_launcher.strip()
        path = execute(config, output, environment,
                       Path(args.logs) if args.logs else output.parent / "train" / "mllog",
                       Path(args.models) if args.models else output.parent / "models")
        print(f"wrote {path}", file=sys.stderr)

    return one_line_errors(run)


if __name__ == "__main__":
    sys.exit(main())
