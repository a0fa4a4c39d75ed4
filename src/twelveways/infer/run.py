"""The inference stage: every model x variant x scenario on LoadGen, parsed into results/inference.nc.

Usage::

    python -m twelveways.infer.run --config results/config.json --model results/models/reference.pt \\
        --output results/inference.nc [--environment results/environment.json] [--logs results/inference]

Work units (model, variant, scenario or accuracy, and each of a scenario's ``infer.performance_runs``)
run in an order shuffled with the config seed, so drift cannot masquerade as a difference between
variants.  LoadGen logs stay under ``<logs>/<model>-<variant>/<scenario>/<run>/`` (the n-th
performance run of several: ``performance/run_<n>``, MLPerf's layout).  Expected problems print
one ``error:`` line and exit 1.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ..config import read_json
from ..errors import ConfigError, TwelveWaysError
from .settings import InferConfig
from .querycount import BELOW_MINIMUM_LABEL, MIN_DURATION_S, min_query_count

# pandas, xarray, torch and LoadGen are imported inside the functions that need them, so that a
# bad argument is reported in a fraction of a second.

PER_QUERY_SOURCE = ("LoadGen trace 'Sample' events (complete_ns: completion minus scheduled issue time, the latency "
                    "LoadGen records); percentiles recomputed from them equal mlperf_log_summary.txt. Offline: its one "
                    "query's latency is LoadGen's max latency.")


def _prepare_all(cfg: InferConfig, model_paths: list[Path], root: Path):
    """Load every model and its test split; variants are built lazily (see ``_variant``)."""
    import torch

    from . import data, model

    torch.set_num_threads(cfg.threads)
    loaded = []
    for path in model_paths:
        m = model.load(path)
        split = data.load_split(m.description.get("data"), m.input_shape, root)
        loaded.append((m, split))
    return loaded


class _Variants:
    """Build each (model, variant) once, on first use, with its calibration."""

    def __init__(self, cfg: InferConfig, logs: Path, on_pilot):
        self.cfg, self.logs, self.on_pilot = cfg, logs, on_pilot
        self.cache: dict = {}

    def get(self, m, split, name: str):
        key = (m.name, name)
        if key not in self.cache:
            from . import runs, variants

            variant = variants.make(m.module, name)
            runner = variants.TorchRunner(variant, split.features)
            self.cache[key] = runs.prepare(m, variant, runner, len(split), split.labels, self.cfg,
                                           pilot_dir=self.logs / f"{m.name}-{name}" / "pilot",
                                           on_pilot=lambda scenario, parsed: self.on_pilot(key, scenario, parsed))
        return self.cache[key]


def execute(config: dict, model_paths: list[Path] | None, output: Path, logs: Path, environment: Path | None = None,
            root: Path = Path("."), progress: bool = True):
    """Run the whole stage and write ``output``; return the dataset.

    ``config`` is the whole validated config: its ``infer`` section is parsed here, once, and the
    results' provenance records all of it.  ``model_paths`` None: the checkpoints of ``infer.models``.
    """
    cfg = InferConfig.from_config(config)
    if model_paths is None:
        model_paths = [Path("results/models") / f"{name}.pt" for name in cfg.models]
    for path in model_paths:  # before the heavy imports: a missing checkpoint is a one-line error, fast
        if not Path(path).is_file():
            raise ConfigError(f"model checkpoint not found: {path} (the training stage writes it)")
    import pandas as pd

    from .. import results
    from . import harness

    loaded = _prepare_all(cfg, model_paths, root)
    if len({m.name for m, _ in loaded}) != len(loaded):
        raise TwelveWaysError("two checkpoints describe models with the same name; names must differ")
    units = work_units(cfg, len(loaded), cfg.seed)
    logs = Path(logs).resolve()
    for m, _ in loaded:
        for v in cfg.variants:
            harness.fresh_directory(logs / f"{m.name}-{v}")
    stage = _Stage(cfg, logs)
    with _progress(progress, len(units)) as advance:
        for index, variant_name, kind, number in units:
            stage.run_unit(*loaded[index], variant_name, kind, number, advance)
    frames = stage.frames + _derived_rows(cfg, loaded, stage.outcome, logs)
    frame = pd.concat(frames, ignore_index=True)
    ds = results.from_frame(frame, "infer", attrs={**results.provenance(environment, config),
                                                   **_attributes(cfg, loaded, stage.outcome),
                                                   "stage_seconds": stage.seconds_by_model()})
    results.write(ds, output)
    return ds


def work_units(cfg: InferConfig, models: int, seed: int) -> list[tuple[int, str, str, int]]:
    """(model index, variant, scenario or "accuracy", run number) in an order shuffled with the seed.

    Each of a scenario's ``infer.performance_runs`` is its own unit, so drift hits the repeated runs
    of every variant alike instead of one variant's block; a variant's Server search comes after its
    first Offline run, whose throughput is the search's upper bracket.
    """
    from ..measure import seeded_order

    kinds = [(kind, number) for kind in cfg.scenarios for number in range(1, cfg.runs_per_variant(kind) + 1)]
    kinds += [("accuracy", 1)] if cfg.accuracy_mode else []
    shuffled = seeded_order([(i, v, k, n) for i in range(models) for v in cfg.variants for k, n in kinds], seed)
    if "Offline" not in cfg.scenarios:
        return shuffled
    ordered, waiting, offline_done = [], {}, set()
    for unit in shuffled:
        key = unit[:2]
        if unit[2] == "Server" and key not in offline_done:
            waiting[key] = unit
            continue
        ordered.append(unit)
        if unit[2] == "Offline":
            offline_done.add(key)
            if key in waiting:
                ordered.append(waiting.pop(key))
    return ordered


def performance_folder(number: int, runs: int) -> str:
    """The folder of a scenario's n-th of ``runs`` performance runs (the end of its run_id): ``performance`` for
    one run; ``performance/run_1``, ``performance/run_2``, ... for several, MLPerf's submission layout, so the
    LoadGen reader (``twelveways audit results/inference``) names the scenario and model of every run."""
    return "performance" if runs == 1 else f"performance/run_{number}"


class _Stage:
    """The stage's state while its units run: result frames, outcomes per variant, seconds per model."""

    def __init__(self, cfg: InferConfig, logs: Path):
        self.cfg, self.logs = cfg, logs
        self.frames: list = []
        self.outcome: dict = {}  # (model, variant) -> {"prep", "accuracy_run", "offline": [runs], "server": SearchResult}
        self.seconds: dict = {}  # (model, variant) -> wall seconds of its units, pilots included
        self.pending_pilots: list = []
        self.variants = _Variants(cfg, logs, lambda key, name, parsed: self.pending_pilots.append((name, parsed)))

    def add_run(self, prep, name: str, parsed: dict, role: str, target_qps: float = math.nan) -> None:
        from . import records

        repeated = role == "performance" and self.cfg.runs_per_variant(name) > 1
        base = records.base_factors(model=prep.model, variant=prep.variant, scenario=name, mode="PerformanceOnly",
                                    role=role, run_id=str(Path(parsed["run_dir"]).relative_to(self.logs)),
                                    threads=self.cfg.threads, seed=self.cfg.seed, valid=parsed["valid"],
                                    below_minimum=parsed["below_minimum"], target_qps=target_qps,
                                    stop_reason=records.FIXED_RUNS if repeated else records.STOP_REASON)
        self.frames.append(records.run_rows(base, parsed, self.cfg.max_latency_rows))

    def run_unit(self, m, split, variant_name: str, kind: str, number: int, advance) -> None:
        started = time.perf_counter()
        prep = self.variants.get(m, split, variant_name)
        slot = self.outcome.setdefault((m.name, variant_name), {"prep": prep})
        while self.pending_pilots:
            self.add_run(prep, *self.pending_pilots.pop(0), "pilot")
        total = self.cfg.runs_per_variant(kind) if kind != "accuracy" else 1
        advance(f"{prep.label} {kind}" + (f" run {number}/{total}" if total > 1 else ""))
        self._run_kind(prep, slot, kind, number, self.logs / prep.label)
        key = (m.name, variant_name)
        self.seconds[key] = self.seconds.get(key, 0.0) + time.perf_counter() - started

    def _run_kind(self, prep, slot: dict, kind: str, number: int, where: Path) -> None:
        from . import runs

        cfg, seed = self.cfg, self.cfg.seed
        if kind == "accuracy":
            slot["accuracy_run"] = runs.accuracy_run(prep, cfg, seed, where / "Offline" / "accuracy")
        elif kind == "Server":
            rates = [_samples_per_second(run) for run in slot.get("offline", []) if run["valid"]]
            ceiling = max((r for r in rates if r is not None), default=None)  # no latency bound beats Offline
            result = runs.server_search(prep, cfg, seed, where / "Server", ceiling=ceiling,
                                        on_probe=lambda q, p: self.add_run(prep, "Server", p, "search", q))
            slot["server"] = result
            for fraction in cfg.server_load_fractions if result.best_qps else []:
                qps = round(result.best_qps * float(fraction), 1)
                parsed = runs.performance_run(prep, "Server", cfg, seed, where / "Server" / f"load-{fraction:g}",
                                              target_qps=qps)
                self.add_run(prep, "Server", parsed, "load_sweep", qps)
        else:
            folder = performance_folder(number, cfg.runs_per_variant(kind))
            parsed = runs.performance_run(prep, kind, cfg, seed, where / kind / folder)
            self.add_run(prep, kind, parsed, "performance")
            if kind == "Offline":
                slot.setdefault("offline", []).append(parsed)

    def seconds_by_model(self) -> dict:
        """{model: {"total": s, variant: s, ...}}: where the stage's time went (make bench reads it)."""
        by_model: dict = {}
        for (model, variant), seconds in self.seconds.items():
            entry = by_model.setdefault(model, {"total": 0.0})
            entry[variant] = round(seconds, 2)
            entry["total"] = round(entry["total"] + seconds, 2)
        return by_model


def _derived_rows(cfg: InferConfig, loaded, outcome, logs):
    """Accuracy comparisons, latency-bounded vs Offline throughput, training beside inference cost."""
    from . import records

    frames = []
    for m, _ in loaded:
        reference = outcome.get((m.name, "fp32"), {}).get("accuracy_run")
        for v in cfg.variants:
            slot = outcome.get((m.name, v))
            if not slot:
                continue
            prep = slot["prep"]

            def base(scenario, mode, role, valid, run_id, below=False, prep=prep):
                return records.base_factors(model=prep.model, variant=prep.variant, scenario=scenario, mode=mode,
                                            role=role, run_id=run_id, threads=cfg.threads, seed=cfg.seed, valid=valid,
                                            below_minimum=below)

            offline = slot.get("offline", [])
            sps = _median_rate(offline)
            if slot.get("accuracy_run"):
                run = slot["accuracy_run"]
                factors = base("Offline", "AccuracyOnly", "accuracy", True, str(Path(run["run_dir"]).relative_to(logs)))
                frames.append(records.value_rows(factors, _accuracy_values(cfg, m, run, reference)))
                frames.append(records.item_rows(factors, run["item_correct"]))
            if slot.get("server") is not None:
                server = slot["server"]
                frames.append(records.value_rows(
                    base("Server", "PerformanceOnly", "summary", server.best_qps is not None, f"{prep.label}/Server",
                         below=any(p.info["parsed"]["below_minimum"] for p in server.probes)),
                    _server_values(server, sps)))
            costs = _cost_values(m, sps)
            if costs:
                frames.append(records.value_rows(
                    base("Offline", "PerformanceOnly", "cost", bool(offline) and all(r["valid"] for r in offline),
                         f"{prep.label}/cost", below=any(r["below_minimum"] for r in offline)), costs))
    return frames


def _samples_per_second(parsed: dict) -> float | None:
    rate = parsed["summary"]["values"].get("Samples per second")
    return float(rate) if isinstance(rate, (int, float)) and not isinstance(rate, bool) else None


def _median_rate(offline_runs: list[dict]) -> float | None:
    """The variant's Offline samples/s: LoadGen's number of its one run, the median over several (a summary
    of run summaries, never their queries pooled); what the cost and the Server/Offline loss divide by."""
    rates = [r for r in map(_samples_per_second, offline_runs) if r is not None]
    return float(statistics.median(rates)) if rates else None


def _accuracy_values(cfg: InferConfig, m, run, reference) -> list[tuple]:
    """(metric, value, unit) of one AccuracyOnly run, against the fp32 run and the model's quality target."""
    from . import accuracy

    score, acc_cfg = run["accuracy"], cfg.accuracy
    values = [("accuracy", score["accuracy"], "1"), ("accuracy_samples", score["samples"], "samples"),
              ("accuracy_correct", score["correct"], "samples")]
    if reference:
        cmp = accuracy.compare(score["accuracy"], reference["accuracy"]["accuracy"],
                               acc_cfg.definition, acc_cfg.tolerance)
        values += [("accuracy_delta_points", cmp["accuracy_delta_points"], "percentage points"),
                   ("relative_accuracy", cmp["relative_accuracy"], "1"),
                   ("relative_errors", cmp["relative_errors"], "1"),
                   ("accuracy_within_tolerance", float(cmp["within_tolerance"]), "1")]
    target = (m.description.get("quality") or {}).get("target")
    if isinstance(target, (int, float)):
        values.append(("quality_target", float(target), "1"))
        values.append(("quality_target_met", float(score["accuracy"] >= float(target)), "1"))
    return values


def _server_values(server, sps) -> list[tuple]:
    """The search's answer, and what the latency bound costs against the Offline throughput."""
    best = server.best_qps
    values = [("latency_bounded_qps", best if best else math.nan, "queries/s"),
              ("server_search_runs", len(server.probes), "runs")]
    if best and isinstance(sps, (int, float)) and sps > 0:
        values.append(("offline_samples_per_second", float(sps), "samples/s"))
        values.append(("server_throughput_loss", 1.0 - best / float(sps), "1"))
    return values


def _cost_values(m, sps) -> list[tuple]:
    """Training cost (from the checkpoint's description) beside the cost of one inference."""
    training = m.description.get("training") or {}
    costs = [(f"training_{k}", float(val), "s" if k.endswith("_s") else "epochs") for k, val in sorted(training.items())
             if (k.endswith("_s") or k == "epochs") and isinstance(val, (int, float)) and not isinstance(val, bool)]
    if isinstance(sps, (int, float)) and sps > 0:
        costs.append(("inference_time_per_sample", 1.0 / float(sps), "s"))
        ttq = training.get("time_to_quality_s")
        if isinstance(ttq, (int, float)):
            costs.append(("training_cost_in_inferences", float(ttq) * float(sps), "samples"))
    return costs


def _attributes(cfg: InferConfig, loaded, outcome) -> dict:
    from . import accuracy, records, scenarios, variants
    definitions = {name: {k: v for k, v in asdict(s).items() if k not in ("queued",)} for name, s in scenarios.SCENARIOS.items()}
    search = {}
    calibration = {}
    notes = {}
    dtype_mix = {}  # F5: per-sample operations by layer kind and dtype, for every non-fp32 variant
    for (model_name, v), slot in outcome.items():
        label = f"{model_name}-{v}"
        calibration[label] = slot["prep"].calibration
        notes[label] = {"precision": slot["prep"].variant.precision, "note": slot["prep"].variant.note}
        if slot["prep"].variant.precision != "fp32":
            dtype_mix[label] = variants.ops_by_dtype(slot["prep"].variant, slot["prep"].model.input_shape)
        if "server" in slot:
            r = slot["server"]
            search[label] = {"best_qps": r.best_qps, "bracket": list(r.bracket), "stop_reason": r.stop_reason,
                             "floor_qps": r.floor_qps, "ceiling_qps": r.ceiling_qps,
                             "probe_cap_s": cfg.server_search.probe_cap_s,
                             "probes": [[p.target_qps, p.valid] for p in r.probes]}
    statistical = {name: min_query_count(scenarios.percentile(s, cfg), cfg.confidence)
                   for name, s in scenarios.SCENARIOS.items()}
    return {
        "statistical_minimum_label": BELOW_MINIMUM_LABEL,
        "statistical_minimum": {"query_counts": statistical, "min_duration_s": MIN_DURATION_S,
                                "used": cfg.statistical_minimum},
        "scenario_definitions": definitions,
        "relative_accuracy_definition": accuracy.DEFINITION_TEXT[cfg.accuracy.definition],
        "per_query_latency_source": PER_QUERY_SOURCE,
        "validity_source": ("performance rows: 'valid' is LoadGen's 'Result is : VALID' line, unchanged (metric "
                            "result_valid repeats it; each criterion is its own metric); accuracy rows: the accuracy "
                            "log covers every sample once; Server summary rows: some probe was VALID"),
        "calibration": calibration,
        "variants": notes,
        "dtype_mix": dtype_mix,
        "server_search": search,
        "models": {m.name: {"path": str(m.path), "parameters": m.parameters, "data_source": split.source,
                            "test_samples": len(split), "description": m.description} for m, split in loaded},
        "loadgen_version": _loadgen_version(),
        "metrics": records.METRICS,
        "infer_config": dict(cfg.section),
        **records.checklist_attrs(cfg, [m.name for m, _ in loaded]),
    }


def _loadgen_version() -> str:
    try:
        from importlib.metadata import version

        return version("mlcommons-loadgen")
    except Exception:  # noqa: BLE001 - provenance only
        return "unknown"


class _progress:
    """A rich progress bar on stderr (or nothing), used as ``with _progress(on, n) as advance``."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total, self.bar = enabled, total, None

    def __enter__(self):
        if not self.enabled:
            return lambda text: None
        from rich.console import Console
        from rich.progress import Progress

        self.bar = Progress(console=Console(stderr=True), transient=False)
        self.bar.start()
        task = self.task = self.bar.add_task("inference", total=self.total)
        state = {"started": False}

        def advance(text):
            if state["started"]:
                self.bar.advance(task)
            state["started"] = True
            self.bar.update(task, description=f"inference: {text}")

        return advance

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.update(self.task, completed=self.total)
            self.bar.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twelveways.infer.run", description="Run the LoadGen inference benchmark.")
    parser.add_argument("--config", required=True, help="validated config as JSON (results/config.json)")
    parser.add_argument("--model", nargs="+", help="checkpoint(s) to serve (default: results/models/<name>.pt for infer.models)")
    parser.add_argument("--output", required=True, help="results file to write (results/inference.nc)")
    parser.add_argument("--environment", help="environment capture for provenance (results/environment.json)")
    parser.add_argument("--logs", default="results/inference", help="folder for the LoadGen logs of every run")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        config = read_json(args.config)
        paths = [Path(p) for p in args.model] if args.model else None
        environment = Path(args.environment) if args.environment else None
        execute(config, paths, Path(args.output), Path(args.logs), environment, progress=not args.quiet)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
