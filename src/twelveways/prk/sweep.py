"""The PRK sweep: kernel x implementation x ranks/threads x size, run in a seeded order, repeated.

The config section ``prk`` (workflow/schemas/prk.schema.yaml) expands into configurations:

* resource levels per implementation: c-serial 1x1; c-openmp 1 rank x each of ``threads``;
  c-mpi and mpi4py each of ``ranks`` x 1 thread (nstream, transpose, stencil, p2p only); numpy
  1x1, except dgemm, whose BLAS runs at each of ``threads``;
* sizes: each base size of the kernel.  With P = ranks x threads processing elements, P = 1
  runs once, labelled ``single``; P > 1 runs as ``strong`` scaling (the base size) and/or
  ``weak`` scaling (the size grown so that the work per element stays constant, see
  :func:`weak_size`), per ``prk.scaling``.  Every row keeps ``base_size`` so a weak-scaling
  point can be matched with its single-element base.

Configurations run in ``measure.seeded_order(configs, config['seed'])`` so that drift cannot
masquerade as an effect, and (``prk.interleaved``, the default) in randomized interleaved rounds
(RMIT, :func:`repeat_all`): each round runs one more whole program run of every configuration
still repeating, in a seeded order of its own.  Each run contributes its N per-iteration times
(maximum over ranks) as samples; a configuration stops when the CI of the median meets
``measurement.ci_target`` after ``prk.min_invocations`` runs, or when its sample or time budget
ends (interleaved: only after ``prk.min_invocations`` runs, the replicates a comparison counts).
The stop reason is stored on every row (``stop_reason``; ``invalid`` when a run failed its
validation: its rows are kept, flagged invalid, and the configuration is not repeated).
``run_order`` numbers the program runs in the order they happened.

CLI: ``python -m twelveways.prk.sweep --config results/config.json --kernels-dir build/kernels
--output results/prk.nc``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import config as config_module
from .. import contention, measure, results
from ..families.prk import FAMILY
from ..cliargs import add_config, add_environment
from ..errors import TwelveWaysError
from ..families.prk_points import Point, expand
from ..families.prk_config import PrkConfig
from . import records, run

STOP_INVALID = "invalid"


def invocation(point: Point, prk: PrkConfig) -> run.Invocation:
    tile = prk.tiles["python" if point.implementation in run.PYTHON_IMPLEMENTATIONS else "c"]
    args = run.kernel_args(point.kernel, prk.iterations[point.kernel], point.size, radius=prk.radius, tile=tile)
    return run.Invocation(point.kernel, point.implementation, args, ranks=point.ranks, threads=point.threads)


@dataclass
class Repeating:
    """One configuration while the sweep repeats it: its rows, its samples and, once stopped, why."""

    point: Point
    rows: list[dict] = field(default_factory=list)
    rep: measure.Repetition = field(default_factory=measure.Repetition)
    reason: str = ""
    run_seconds: dict[str, float] = field(default_factory=dict)  # wall time of each program run, start-up included


def invoke(state: Repeating, prk: PrkConfig, *, kernels_dir, run_counter: list[int], timer_overhead_ns: float,
           launcher: Sequence[str] | None = None, python_dir=run.PYTHON_KERNELS_DIR,
           extra_env: Mapping[str, str] | None = None) -> None:
    """One program run of a configuration: its rows kept, its per-iteration maxima added to its samples;
    a failed validation stops the configuration (its rows kept, flagged invalid)."""
    started = time.perf_counter()
    doc = run.run(invocation(state.point, prk), kernels_dir, timeout=prk.timeout_s, python_dir=python_dir,
                  launcher=launcher, extra_env=extra_env)
    run_id = f"{state.point.key()}#{state.rep.invocations}"
    state.rows.extend(records.to_records(doc, run_id=run_id, seed=prk.seed, scaling=state.point.scaling,
                                         base_size=state.point.primary(state.point.base_size),
                                         timer_overhead_ns=timer_overhead_ns, extra={"run_order": run_counter[0]}))
    run_counter[0] += 1
    seconds = time.perf_counter() - started
    state.run_seconds[run_id] = round(seconds, 4)
    measure.add_invocation(state.rep, [float(t) for t in doc["iteration_max_times"]], state.rep.elapsed_s + seconds)
    if not doc["valid"]:
        state.reason = STOP_INVALID


def repeat_all(ordered: Sequence[Point], prk: PrkConfig, run_one: Callable[[Repeating], None],
               on_stop: Callable[[Repeating], None] = lambda state: None, *,
               stop: Callable[[Repeating], str] | None = None,
               state_of: Callable[[Point], Repeating] = Repeating) -> tuple[list[Repeating], int]:
    """Every configuration repeated to its stop; (states in ``ordered``'s order, rounds run).

    Interleaved (``prk.interleaved``, RMIT after Abedi & Brecht 2017): round 1 runs one invocation
    of each configuration in ``ordered``; each later round runs one more of every configuration
    still repeating, in a seeded order of its own (``seed + round``), so drift and a busy neighbour
    hit every configuration alike.  A configuration stops on the stop rule; its budgets end it only
    after ``prk.min_invocations``.  Not interleaved: each configuration runs to its stop in turn.
    ``stop`` replaces the stop rule and ``state_of`` makes each configuration's state (``twelveways ab``:
    a pair of sides run together each round, stopped by its planned rounds)."""
    states = [state_of(point) for point in ordered]
    rounds, active = 0, list(states)
    while active:
        order = active if not rounds else measure.seeded_order(active, prk.seed + rounds)
        for state in order:
            while True:
                run_one(state)
                state.reason = state.reason or (stop(state) if stop else measure.stop_reason(
                    state.rep, **prk.stop_rule, budgets_wait=prk.interleaved))
                if state.reason or prk.interleaved:
                    break
            if state.reason:
                on_stop(state)
        active = [state for state in active if not state.reason]
        rounds += 1
    for state in states:
        for row in state.rows:
            row["stop_reason"] = state.reason
    return states, rounds


def repetition_attrs(states: Sequence[Repeating], rounds: int, prk: PrkConfig) -> dict:
    """How the configurations were repeated: interleaved or not, rounds, each run's wall time, stop reasons."""
    stops = {state.point.key(): state.reason for state in states}
    return {"prk_interleaved": prk.interleaved, "prk_rounds": rounds,
            "prk_run_seconds": {run_id: s for state in states for run_id, s in state.run_seconds.items()},
            "prk_stop_reasons": stops,
            "prk_invalid_configurations": sorted(k for k, v in stops.items() if v == STOP_INVALID)}


def scheduler_attrs() -> dict:
    """Which batch system ran the sweep (SLURM: its job id), for provenance."""
    job = os.environ.get("SLURM_JOB_ID", "")
    return {"scheduler": "slurm" if job else "local", "scheduler_job_id": job}


#: How each implementation synchronizes before its per-iteration timer (read from the kernels, kernels/).
SYNCHRONIZATION = ("MPI (c-mpi, mpi4py): a barrier (MPI_Barrier / comm.Barrier) starts every iteration, then each "
                   "rank times the iteration with MPI_Wtime; OpenMP (c-openmp): the timed region ends after the "
                   "parallel loop's implicit barrier, so every thread has finished; serial and NumPy: one process, "
                   "nothing to synchronize")
RANK_SUMMARY = ("time rows: one per rank per iteration (iteration 0 = warm-up, never summarized); the time of an "
                "iteration is the maximum over ranks; rate row (iteration -1, rank -1): the kernel's own rate from "
                "the arithmetic mean of the per-iteration maxima of iterations 1..N (a per-run summary of the time rows)")


def checklist_attrs(prk: PrkConfig) -> dict:
    """What the checklist reads (docs/checklist-evidence.md), stated by the benchmark that knows it.

    The rate row is derived from the run's time rows (R5 judges the time rows); flops/bytes per
    iteration are counted as the kernels execute/move them (F5); ``levels_available`` lists every
    kernel and implementation this suite has, so R2 sees any left out, with the config's reasons.
    """
    reasons = dict(prk.subset_reasons)
    attrs = {
        "timer": "wall clock: clock_gettime(CLOCK_MONOTONIC) (C), time.perf_counter_ns (NumPy), MPI_Wtime (MPI); "
                 "resolution and overhead measured at start (prk_timer_resolution_ns, prk_timer_overhead_ns)",
        "synchronization": SYNCHRONIZATION,
        "rank_summary": RANK_SUMMARY,
        "op_count": "executed",
        "op_count_note": "flops_per_iteration / bytes_per_iteration as the kernel executes and moves them "
                         "(prk_work_per_iteration: PRK's own count, kept beside)",
        "derived_metrics": ["rate"],
        "metric_kinds": {"time": "cost", "rate": "rate"},
        "levels_available": {factor: list(levels) for factor, levels in FAMILY.levels.items()},
        "subset_reasons": reasons,
    }
    if reasons:
        attrs["subset_reason"] = "; ".join(f"{key}: {text}" for key, text in reasons.items())
    return attrs


def placebo_points(points: list[Point], count: int, seed: int) -> list[Point]:
    """The configurations an A/A (placebo) run repeats: a seeded choice of ``count`` (0: all), spread over kernels.

    Why: the noise floor must come from a second, independent invocation of identical code, and the
    A/A record pools the between-run level per kernel from two or more of its configurations
    (:func:`twelveways.compare.noise.pooled_levels`).  So the choice takes the kernels in turn, each
    kernel's next configuration in a seeded order: every kernel has its second configuration before
    any has a third, and ``count`` = 2 x kernels measures every kernel's run level with no
    configuration more than that needs (a plain seeded choice of a larger count could still leave a
    kernel with one).
    """
    shuffled = measure.seeded_order(points, seed + 1)
    turn: dict[str, int] = {}
    position = []
    for point in shuffled:
        position.append(turn.get(point.kernel, 0))
        turn[point.kernel] = position[-1] + 1
    chosen = [point for _, point in sorted(zip(position, shuffled), key=lambda pair: pair[0])]
    return chosen[:count] if count else chosen


def sweep(config: Mapping, *, kernels_dir: str | Path, output: str | Path, environment: str | Path | Mapping | None,
          progress: bool = True, python_dir=run.PYTHON_KERNELS_DIR, extra_env: Mapping[str, str] | None = None,
          mpi_launcher: str = "", placebo: int | None = None) -> Path:
    """Run the whole sweep (or, with ``placebo``, its A/A subset) and write ``output``; return its path.

    ``mpi_launcher`` (e.g. a scheduler profile's ``srun --mpi=pmi2``) overrides ``prk.mpi_launcher``.
    """
    prk = PrkConfig.from_config(config)
    points, skipped = expand(prk)
    points = placebo_points(points, placebo, prk.seed) if placebo is not None else points
    ordered = measure.seeded_order(points, prk.seed)
    timer = measure.timer_properties()
    attrs = results.provenance(environment, config)
    chosen = mpi_launcher.strip() or prk.mpi_launcher
    launcher = shlex.split(chosen) if chosen else None
    counter = [0]
    started = time.perf_counter()

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (TextColumn("prk"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"))
    with Progress(*columns, console=console, disable=not progress, transient=False) as bar:
        task = bar.add_task("", total=len(ordered))

        def run_one(state: Repeating) -> None:
            bar.update(task, description=f"{state.point.key()} (runs: {counter[0]})")
            invoke(state, prk, kernels_dir=kernels_dir, run_counter=counter, timer_overhead_ns=timer["overhead_ns"],
                   launcher=launcher, python_dir=python_dir, extra_env=extra_env)

        def on_stop(state: Repeating) -> None:
            timed = [r["value"] for r in state.rows if r["metric"] == "time" and r["iteration"] > 0]
            bar.console.print(f"{state.point.key()}: {state.rep.invocations} run(s), {len(timed)} rank-iteration "
                              f"times, stop: {state.reason}", highlight=False, soft_wrap=True)
            bar.advance(task)

        with contention.Sampler("PRK stage") as sampler:
            states, rounds = repeat_all(ordered, prk, run_one, on_stop)
    all_rows = [row for state in states for row in state.rows]
    attrs.update(scheduler_attrs())
    attrs.update({
        "prk_mpi_launcher": " ".join(launcher or run.default_launcher()),
        "prk_run_order": [p.key() for p in ordered],
        **repetition_attrs(states, rounds, prk), "contention": sampler.summary, "prk_skipped": skipped,
        "prk_program_runs": counter[0],
        "prk_sweep_seconds": round(time.perf_counter() - started, 3),
        "prk_timer_overhead_ns": timer["overhead_ns"],
        "prk_timer_resolution_ns": timer["resolution_ns"],
        "prk_time_summary": "time rows: one per rank per iteration (iteration 0 = warm-up); the time of an "
                            "iteration is the maximum over ranks; rate row (iteration -1, rank -1): the kernel's "
                            "rate from the arithmetic mean of iterations 1..N",
        "prk_config": dict(prk.section),
    })
    attrs.update(checklist_attrs(prk))
    ds = results.from_records(all_rows, family="prk", attrs=attrs)
    return results.write(ds, output)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twelveways.prk.sweep", description="Run the PRK sweep -> results/prk.nc")
    add_config(parser)
    parser.add_argument("--kernels-dir", default="build/kernels", help="folder of the C kernel binaries")
    parser.add_argument("--output", default="results/prk.nc", help="results file to write")
    add_environment(parser)
    parser.add_argument("--mpi-launcher", default="", help="MPI launcher overriding prk.mpi_launcher (e.g. 'srun --mpi=pmi2')")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--placebo", type=int, default=None, metavar="N",
                        help="A/A run: repeat a seeded choice of N configurations (0: all) in this second invocation")
    args = parser.parse_args(argv)
    try:
        config = config_module.load(args.config)
        path = sweep(config, kernels_dir=args.kernels_dir, output=args.output, environment=args.environment,
                     progress=not args.no_progress, mpi_launcher=args.mpi_launcher, placebo=args.placebo)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr, flush=True)
        return 1
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
