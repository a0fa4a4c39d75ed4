"""`make bench` topic: the ceiling of LoadGen plus our Python SUT, and what limits the real model.

Why this exists: the project asks that the harness (LoadGen + the Python SUT) be cheap enough that
the model, not the harness, limits throughput, and that we say which one does, with numbers.
So the same LoadGen runs are made with a model that does nothing (``NullRunner``: class 0 for
every sample, no tensor work) and with each real model the training stage wrote (the stage's
``infer.models`` and the other trained sizes, ``results/models/*.pt``; on a checkout without them
the quick profile's training stage runs first, in a temporary folder):

* Offline samples/s, ``repetitions`` runs each in a seeded interleaved order: median and range;
* the highest Server target QPS that LoadGen calls VALID (the same search as the stage),
  ``repetitions`` searches each, interleaved: median and range;
* SingleStream median latency with and without LoadGen's trace (our per-query source), to show
  what recording every query costs (and the harness share of a single query's latency).

The share of a model's per-sample time that the harness alone accounts for is
``null time per sample / real time per sample`` = real samples/s / null samples/s: above 0.5 the
harness limits throughput, below it the model does; the verdict is given per model, with the
time split: harness us per sample (do-nothing) and model us per sample (the difference).

``run(quick)`` returns a dict; ``python bench/infer.py [--full] [--output FILE]`` prints it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from twelveways import config as twconfig  # noqa: E402
from twelveways import measure  # noqa: E402
from twelveways.infer.settings import InferConfig  # noqa: E402

SEED = 20261122


def _checkpoints(folder: Path) -> list[Path]:
    """The quick profile's served models (``infer.models``) and every model the training stage trains."""
    names = list(InferConfig.from_config(twconfig.load(ROOT / "config" / "config.yaml")).models) + [
        "mlp-large", "cnn-small", "cnn-large"]
    found = [folder / f"{n}.pt" for n in dict.fromkeys(names)]
    return [p for p in found if p.is_file()]


def _models(workdir: Path):
    """[(loaded model, test split, checkpoint)]: the workflow's ``results/models``, or, on a checkout
    that has not run the workflow yet, the quick profile's training stage run here (bench/train.py)."""
    from twelveways.infer import data, model

    paths = _checkpoints(ROOT / "results" / "models")
    if not paths:
        spec = importlib.util.spec_from_file_location("bench_train", Path(__file__).with_name("train.py"))
        train = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(train)
        train._stage_once(workdir)
        paths = _checkpoints(workdir / "results" / "models")
    loaded = [(model.load(p), p) for p in paths]
    return [(m, data.load_split(m.description.get("data"), m.input_shape, ROOT), str(p)) for m, p in loaded]


def _spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values),
            "values": [round(v, 1) for v in values]}


def _verdict(share):
    if share is None:
        return "undetermined (no VALID Server run)"
    return "harness (LoadGen + Python SUT)" if share > 0.5 else "model"


def _prepare(served, cfg: InferConfig, work: Path) -> tuple[dict, dict]:
    """Prepare the do-nothing model (the harness ceiling) and every served model (fp32) for the same LoadGen runs."""
    from twelveways.infer import runs, variants

    split0 = served[0][1]
    null_variant = SimpleNamespace(name="null", precision="none")
    null_model = SimpleNamespace(name="do-nothing", parameters=0)
    preps = {"do-nothing": runs.prepare(null_model, null_variant, variants.NullRunner(), len(split0), split0.labels,
                                        cfg, SEED, pilot_dir=work / "null" / "pilot")}
    models = {}
    for loaded, split, source in served:
        fp32 = variants.make(loaded.module, "fp32")
        preps[loaded.name] = runs.prepare(loaded, fp32, variants.TorchRunner(fp32, split.features), len(split),
                                          split.labels, cfg, SEED, pilot_dir=work / loaded.name / "pilot")
        models[loaded.name] = {"source": source, "parameters": loaded.parameters}
    return preps, models


def _offline(preps: dict, cfg: InferConfig, work: Path, repetitions: int) -> dict:
    """Offline samples/s of every model, ``repetitions`` runs each, interleaved in a seeded order against drift."""
    from twelveways.infer import runs

    offline = {name: [] for name in preps}
    order = measure.seeded_order([(name, i) for name in preps for i in range(repetitions)], SEED)
    for name, i in order:
        parsed = runs.performance_run(preps[name], "Offline", cfg, SEED, work / name / f"offline-{i}")
        offline[name].append(float(parsed["summary"]["values"]["Samples per second"]))
    return offline


def _server(preps: dict, cfg: InferConfig, work: Path, repetitions: int) -> dict:
    """The highest VALID Server QPS of every model: ``repetitions`` searches each, interleaved, median and range."""
    from twelveways.infer import runs

    searches = {name: [] for name in preps}
    for name, i in measure.seeded_order([(name, i) for name in preps for i in range(repetitions)], SEED + 1):
        start = time.perf_counter()
        result = runs.server_search(preps[name], cfg, SEED + i, work / name / f"server-{i}")
        searches[name].append({"highest_valid_qps": result.best_qps, "bracket": list(result.bracket),
                               "stop_reason": result.stop_reason,
                               "probes": [[round(p.target_qps, 1), p.valid] for p in result.probes],
                               "search_s": round(time.perf_counter() - start, 1)})
    server = {}
    for name, found in searches.items():
        best = [f["highest_valid_qps"] for f in found if f["highest_valid_qps"]]
        server[name] = {"highest_valid_qps": statistics.median(best) if best else None,
                        "spread": _spread(best) if best else None, "searches": found}
    return server


def _singlestream(preps: dict, cfg: InferConfig, work: Path) -> dict:
    """SingleStream latency percentiles with and without LoadGen's trace: what recording every query costs."""
    from twelveways.infer import runs

    singlestream = {}
    for name, prep in preps.items():
        row = {}
        for traced in (False, True):
            parsed = runs.performance_run(prep, "SingleStream", cfg, SEED, work / name / f"ss-trace-{traced}", trace=traced)
            row["with_trace" if traced else "without_trace"] = {
                "p50_latency_us": parsed["summary"]["percentiles"][0.5] / 1000,
                "p90_latency_us": parsed["summary"]["percentiles"][0.9] / 1000}
        singlestream[name] = row
    return singlestream


def _per_model(models: dict, offline: dict, server: dict, singlestream: dict) -> dict:
    """Answer the question this bench exists for: per model, the harness share, the time split and what limits it."""
    null_sps = statistics.median(offline["do-nothing"])
    null_qps = server["do-nothing"]["highest_valid_qps"]
    null_ss = singlestream["do-nothing"]["with_trace"]["p50_latency_us"]
    per_model = {}
    for name in models:
        offline_share = null_sps and statistics.median(offline[name]) / null_sps
        real_qps = server[name]["highest_valid_qps"]
        server_share = (real_qps / null_qps) if (null_qps and real_qps) else None
        ss_share = null_ss / singlestream[name]["with_trace"]["p50_latency_us"]
        shares = {"offline": round(offline_share, 3), "server": None if server_share is None else round(server_share, 3),
                  "singlestream_p50": round(ss_share, 3)}
        real_sps = statistics.median(offline[name])
        per_us = {"offline_harness_us_per_sample": round(1e6 / null_sps, 3),
                  "offline_model_us_per_sample": round(1e6 / real_sps - 1e6 / null_sps, 3)}
        if null_qps and real_qps:
            per_us.update({"server_harness_us_per_query": round(1e6 / null_qps, 2),
                           "server_model_us_per_query": round(1e6 / real_qps - 1e6 / null_qps, 2)})
        per_model[name] = {**models[name], "harness_share": shares, "time_split": per_us,
                           "limits_throughput": {k: _verdict(v) for k, v in shares.items()}}
    return per_model


def run(quick: bool = True) -> dict:
    import torch

    from twelveways.infer import runs, variants  # noqa: F401  (a missing LoadGen fails here, before any training)

    torch.set_num_threads(1)
    duration = 0.5 if quick else 2.0
    repetitions = 3 if quick else 7
    cfg = InferConfig.from_config(twconfig.validate({"seed": SEED, "infer": {
        "min_duration_s": duration, "server_search": {"max_runs": 6 if quick else 9, "rel_tolerance": 0.1 if quick else 0.03},
        "server_load_fractions": [], "max_latency_rows": 1}}))
    with tempfile.TemporaryDirectory(prefix="twelveways-bench-infer-") as tmp:
        work = Path(tmp)
        served = _models(work)
        preps, models = _prepare(served, cfg, work)
        offline = _offline(preps, cfg, work, repetitions)
        server = _server(preps, cfg, work, repetitions)
        singlestream = _singlestream(preps, cfg, work)

    per_model = _per_model(models, offline, server, singlestream)
    return {
        "what": "LoadGen + Python SUT ceiling (do-nothing model) vs each served model, fp32, 1 torch thread",
        "settings": {"min_duration_s": duration, "offline_repetitions": repetitions, "offline_batch": cfg.offline_batch,
                     "server_max_batch": cfg.server_max_batch, "server_latency_bound_ms": cfg.server_latency_bound_ms},
        "offline_samples_per_s": {name: _spread(v) for name, v in offline.items()},
        "server_highest_valid_qps": server,
        "singlestream_latency_and_trace_cost": singlestream,
        "models": per_model,
        "note": ("harness share = model throughput / do-nothing throughput = harness time per sample / model time per "
                 "sample (SingleStream: do-nothing p50 latency / model p50 latency); above 0.5 the harness, not the "
                 "model, is the bottleneck. Shared 2-core machine: noisy."),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--output")
    args = parser.parse_args(argv)
    figures = run(quick=not args.full)
    text = json.dumps(figures, indent=2, default=str)
    if args.output:
        Path(args.output).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
