"""The inference stage: every model x variant x scenario on LoadGen, parsed into results/inference.nc.

Usage::

    python -m twelveways.infer.run --config results/config.json --model results/models/reference.pt \\
        --output results/inference.nc [--environment results/environment.json] [--logs results/inference]

Work units (model, variant, scenario or accuracy) run in an order shuffled with the config seed,
so drift cannot masquerade as a difference between variants.  LoadGen logs stay under
``<logs>/<model>-<variant>/<scenario>/<run>/``.  Expected problems print one ``error:`` line and
exit 1.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import asdict
from pathlib import Path

from ..config import read_json
from ..errors import ConfigError, TwelveWaysError
from .querycount import BELOW_MINIMUM_LABEL, MIN_DURATION_S, min_query_count

# pandas, xarray, torch and LoadGen are imported inside the functions that need them, so that a
# bad argument is reported in a fraction of a second.

PER_QUERY_SOURCE = ("LoadGen trace 'Sample' events (complete_ns: completion minus scheduled issue time, the latency "
                    "LoadGen records); percentiles recomputed from them equal mlperf_log_summary.txt. Offline: its one "
                    "query's latency is LoadGen's max latency.")


def _prepare_all(cfg: dict, model_paths: list[Path], root: Path):
    """Load every model and its test split; variants are built lazily (see ``_variant``)."""
    import torch

    from . import data, model

    torch.set_num_threads(int(cfg["threads"]))
    loaded = []
    for path in model_paths:
        m = model.load(path)
        split = data.load_split(m.description.get("data"), m.input_shape, root)
        loaded.append((m, split))
    return loaded


class _Variants:
    """Build each (model, variant) once, on first use, with its calibration."""

    def __init__(self, cfg: dict, seed: int, logs: Path, on_pilot):
        self.cfg, self.seed, self.logs, self.on_pilot = cfg, seed, logs, on_pilot
        self.cache: dict = {}

    def get(self, m, split, name: str):
        key = (m.name, name)
        if key not in self.cache:
            from . import runs, variants

            variant = variants.make(m.module, name)
            runner = variants.TorchRunner(variant, split.features)
            self.cache[key] = runs.prepare(m, variant, runner, len(split), split.labels, self.cfg, self.seed,
                                           pilot_dir=self.logs / f"{m.name}-{name}" / "pilot",
                                           on_pilot=lambda scenario, parsed: self.on_pilot(key, scenario, parsed))
        return self.cache[key]


def execute(config: dict, model_paths: list[Path], output: Path, logs: Path, environment: Path | None = None,
            root: Path = Path("."), progress: bool = True):
    """Run the whole stage and write ``output``; return the dataset."""
    for path in model_paths:  # before the heavy imports: a missing checkpoint is a one-line error, fast
        if not Path(path).is_file():
            raise ConfigError(f"model checkpoint not found: {path} (the training stage writes it)")
    import pandas as pd

    from .. import results
    from ..measure import seeded_order
    from . import harness, records, runs

    cfg, seed = config["infer"], int(config["seed"])
    loaded = _prepare_all(cfg, model_paths, root)
    names = {m.name for m, _ in loaded}
    if len(names) != len(loaded):
        raise TwelveWaysError("two checkpoints describe models with the same name; names must differ")
    kinds = list(cfg["scenarios"]) + (["accuracy"] if cfg["accuracy_mode"] else [])
    units = seeded_order([(i, v, k) for i in range(len(loaded)) for v in cfg["variants"] for k in kinds], seed)
    logs = Path(logs)
    for m, _ in loaded:
        for v in cfg["variants"]:
            harness.fresh_directory(logs / f"{m.name}-{v}")
    frames: list = []
    outcome: dict = {}  # (model, variant) -> {"prep", "accuracy_run", "offline", "server": SearchResult}
    pending_pilots: list = []

    def add_run(prep, name, parsed, role, target_qps=math.nan):
        base = records.base_factors(model=prep.model, variant=prep.variant, scenario=name, mode="PerformanceOnly",
                                    role=role, run_id=str(Path(parsed["run_dir"]).relative_to(logs.resolve())),
                                    threads=cfg["threads"], seed=seed, valid=parsed["valid"],
                                    below_minimum=parsed["below_minimum"], target_qps=target_qps)
        frames.append(records.run_rows(base, parsed, int(cfg["max_latency_rows"])))

    variants = _Variants(cfg, seed, logs.resolve(), lambda key, name, parsed: pending_pilots.append((key, name, parsed)))

    with _progress(progress, len(units)) as advance:
        for index, variant_name, kind in units:
            m, split = loaded[index]
            prep = variants.get(m, split, variant_name)
            slot = outcome.setdefault((m.name, variant_name), {"prep": prep})
            while pending_pilots:
                _, name, parsed = pending_pilots.pop(0)
                add_run(prep, name, parsed, "pilot")
            where = logs.resolve() / prep.label
            advance(f"{prep.label} {kind}")
            if kind == "accuracy":
                slot["accuracy_run"] = runs.accuracy_run(prep, cfg, seed, where / "Offline" / "accuracy")
            elif kind == "Server":
                result = runs.server_search(prep, cfg, seed, where / "Server",
                                            on_probe=lambda q, p, prep=prep: add_run(prep, "Server", p, "search", q))
                slot["server"] = result
                if result.best_qps:
                    for fraction in cfg["server_load_fractions"]:
                        qps = round(result.best_qps * float(fraction), 1)
                        parsed = runs.performance_run(prep, "Server", cfg, seed, where / "Server" / f"load-{fraction:g}",
                                                      target_qps=qps)
                        add_run(prep, "Server", parsed, "load_sweep", qps)
            else:
                parsed = runs.performance_run(prep, kind, cfg, seed, where / kind / "performance")
                add_run(prep, kind, parsed, "performance")
                if kind == "Offline":
                    slot["offline"] = parsed
    frames.extend(_derived_rows(cfg, seed, loaded, outcome, logs.resolve()))
    frame = pd.concat(frames, ignore_index=True)
    ds = results.from_frame(frame, "infer", attrs={**results.provenance(environment, config),
                                                   **_attributes(cfg, loaded, outcome)})
    results.write(ds, output)
    return ds


def _derived_rows(cfg, seed, loaded, outcome, logs):
    """Accuracy comparisons, latency-bounded vs Offline throughput, training beside inference cost."""
    from . import accuracy, records
    frames = []
    acc_cfg = cfg["accuracy"]
    for m, _ in loaded:
        reference = outcome.get((m.name, "fp32"), {}).get("accuracy_run")
        target = (m.description.get("quality") or {}).get("target")
        for v in cfg["variants"]:
            slot = outcome.get((m.name, v))
            if not slot:
                continue
            prep = slot["prep"]

            def base(scenario, mode, role, valid, run_id, below=False):
                return records.base_factors(model=prep.model, variant=prep.variant, scenario=scenario, mode=mode,
                                            role=role, run_id=run_id, threads=cfg["threads"], seed=seed, valid=valid,
                                            below_minimum=below)

            run = slot.get("accuracy_run")
            if run:
                score = run["accuracy"]
                values = [("accuracy", score["accuracy"], "1"), ("accuracy_samples", score["samples"], "samples"),
                          ("accuracy_correct", score["correct"], "samples")]
                if reference:
                    cmp = accuracy.compare(score["accuracy"], reference["accuracy"]["accuracy"],
                                           acc_cfg["definition"], float(acc_cfg["tolerance"]))
                    values += [("accuracy_delta_points", cmp["accuracy_delta_points"], "percentage points"),
                               ("relative_accuracy", cmp["relative_accuracy"], "1"),
                               ("relative_errors", cmp["relative_errors"], "1"),
                               ("accuracy_within_tolerance", float(cmp["within_tolerance"]), "1")]
                if isinstance(target, (int, float)):
                    values.append(("quality_target", float(target), "1"))
                    values.append(("quality_target_met", float(score["accuracy"] >= float(target)), "1"))
                frames.append(records.value_rows(base("Offline", "AccuracyOnly", "accuracy", True,
                                                      str(Path(run["run_dir"]).relative_to(logs))), values))
            offline = slot.get("offline")
            sps = offline["summary"]["values"].get("Samples per second") if offline else None
            server = slot.get("server")
            if server is not None:
                best = server.best_qps
                values = [("latency_bounded_qps", best if best else math.nan, "queries/s"),
                          ("server_search_runs", len(server.probes), "runs")]
                if best and isinstance(sps, (int, float)) and sps > 0:
                    values.append(("offline_samples_per_second", float(sps), "samples/s"))
                    values.append(("server_throughput_loss", 1.0 - best / float(sps), "1"))
                frames.append(records.value_rows(
                    base("Server", "PerformanceOnly", "summary", best is not None, f"{prep.label}/Server",
                         below=any(p.info["parsed"]["below_minimum"] for p in server.probes)), values))
            training = m.description.get("training") or {}
            costs = [(f"training_{k}", float(val), "s" if k.endswith("_s") else "epochs") for k, val in sorted(training.items())
                     if (k.endswith("_s") or k == "epochs") and isinstance(val, (int, float)) and not isinstance(val, bool)]
            if isinstance(sps, (int, float)) and sps > 0:
                costs.append(("inference_time_per_sample", 1.0 / float(sps), "s"))
                ttq = training.get("time_to_quality_s")
                if isinstance(ttq, (int, float)):
                    costs.append(("training_cost_in_inferences", float(ttq) * float(sps), "samples"))
            if costs:
                frames.append(records.value_rows(
                    base("Offline", "PerformanceOnly", "cost", bool(offline and offline["valid"]), f"{prep.label}/cost",
                         below=bool(offline and offline["below_minimum"])), costs))
    return frames


def _attributes(cfg, loaded, outcome) -> dict:
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
                             "probes": [[p.target_qps, p.valid] for p in r.probes]}
    statistical = {name: min_query_count(scenarios.percentile(s, cfg), cfg["confidence"]) for name, s in scenarios.SCENARIOS.items()}
    return {
        "statistical_minimum_label": BELOW_MINIMUM_LABEL,
        "statistical_minimum": {"query_counts": statistical, "min_duration_s": MIN_DURATION_S,
                                "used": bool(cfg["statistical_minimum"])},
        "scenario_definitions": definitions,
        "relative_accuracy_definition": accuracy.DEFINITION_TEXT[cfg["accuracy"]["definition"]],
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
        "infer_config": cfg,
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
        paths = [Path(p) for p in args.model] if args.model else \
            [Path("results/models") / f"{name}.pt" for name in config["infer"]["models"]]
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
