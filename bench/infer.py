"""`make bench` topic: the ceiling of LoadGen plus our Python SUT, and what limits the real model.

Why this exists: issue 6 asks that the harness (LoadGen + the Python SUT) be cheap enough that
the model, not the harness, limits throughput, and that we say which one does, with numbers.
So the same LoadGen runs are made with a model that does nothing (``NullRunner``: class 0 for
every sample, no tensor work) and with the real model (``results/models/reference.pt`` when the
workflow has produced it, else a small MLP trained here on digits):

* Offline samples/s, ``repetitions`` runs each in a seeded interleaved order: median and range;
* the highest Server target QPS that LoadGen calls VALID (the same search as the stage);
* SingleStream median latency with and without LoadGen's trace (our per-query source), to show
  what recording every query costs (and the harness share of a single query's latency).

The share of the real model's per-sample time that the harness alone accounts for is
``null time per sample / real time per sample`` = real samples/s / null samples/s: above 0.5 the
harness limits throughput, below it the model does.

``run(quick)`` returns a dict; ``python bench/infer.py [--full] [--output FILE]`` prints it.
"""

from __future__ import annotations

import argparse
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

SEED = 20261122


def _model(workdir: Path):
    """(loaded model, test split, where it came from)."""
    import torch

    from twelveways.infer import data, model

    reference = ROOT / "results" / "models" / "reference.pt"
    if reference.is_file():
        loaded = model.load(reference)
        return loaded, data.load_split(loaded.description.get("data"), loaded.input_shape, ROOT), str(reference)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    torch.manual_seed(0)
    bunch = load_digits()
    x, _, y, _ = train_test_split(bunch.data / 16.0, bunch.target, test_size=0.2, random_state=0, stratify=bunch.target)
    x, y = torch.tensor(x, dtype=torch.float32).reshape(-1, 1, 8, 8), torch.tensor(y)
    arch = {"family": "mlp", "input_shape": [1, 8, 8], "hidden": [64], "num_classes": 10}
    net = model.build(arch)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(20):
        for idx in torch.randperm(len(x)).split(64):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    path = model.save(net, workdir / "bench-mlp.pt", {"name": "bench-mlp-64", "architecture": arch,
                                                       "data": data.DEFAULT_DATA})
    loaded = model.load(path)
    return loaded, data.load_split(data.DEFAULT_DATA, loaded.input_shape), "MLP(64) trained here on digits (no results/models/reference.pt)"


def _spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values),
            "values": [round(v, 1) for v in values]}


def run(quick: bool = True) -> dict:
    import torch

    from twelveways.infer import runs, variants

    torch.set_num_threads(1)
    duration = 0.5 if quick else 2.0
    repetitions = 3 if quick else 7
    cfg = twconfig.validate({"seed": SEED, "infer": {
        "min_duration_s": duration, "server_search": {"max_runs": 6 if quick else 9, "rel_tolerance": 0.1 if quick else 0.03},
        "server_load_fractions": [], "max_latency_rows": 1}})["infer"]
    with tempfile.TemporaryDirectory(prefix="twelveways-bench-infer-") as tmp:
        work = Path(tmp)
        loaded, split, source = _model(work)
        fp32 = variants.make(loaded.module, "fp32")
        null_variant = SimpleNamespace(name="null", precision="none")
        null_model = SimpleNamespace(name="do-nothing", parameters=0)
        preps = {
            "do_nothing": runs.prepare(null_model, null_variant, variants.NullRunner(), len(split), split.labels, cfg,
                                       SEED, pilot_dir=work / "null" / "pilot"),
            "real_model": runs.prepare(loaded, fp32, variants.TorchRunner(fp32, split.features), len(split),
                                       split.labels, cfg, SEED, pilot_dir=work / "real" / "pilot"),
        }
        offline = {name: [] for name in preps}
        order = measure.seeded_order([(name, i) for name in preps for i in range(repetitions)], SEED)
        for name, i in order:
            parsed = runs.performance_run(preps[name], "Offline", cfg, SEED, work / name / f"offline-{i}")
            offline[name].append(float(parsed["summary"]["values"]["Samples per second"]))
        server = {}
        for name, prep in preps.items():
            start = time.perf_counter()
            result = runs.server_search(prep, cfg, SEED, work / name / "server")
            server[name] = {"highest_valid_qps": result.best_qps, "bracket": list(result.bracket),
                            "stop_reason": result.stop_reason, "probes": [[p.target_qps, p.valid] for p in result.probes],
                            "search_s": round(time.perf_counter() - start, 1)}
        trace_cost = {}
        for name, prep in preps.items():
            row = {}
            for traced in (False, True):
                parsed = runs.performance_run(prep, "SingleStream", cfg, SEED, work / name / f"ss-trace-{traced}", trace=traced)
                row["with_trace" if traced else "without_trace"] = {
                    "p50_latency_us": parsed["summary"]["percentiles"][0.5] / 1000,
                    "p90_latency_us": parsed["summary"]["percentiles"][0.9] / 1000}
            trace_cost[name] = row
    null_sps = statistics.median(offline["do_nothing"])
    real_sps = statistics.median(offline["real_model"])
    offline_share = real_sps / null_sps
    null_qps, real_qps = server["do_nothing"]["highest_valid_qps"], server["real_model"]["highest_valid_qps"]
    server_share = (real_qps / null_qps) if (null_qps and real_qps) else None

    ss_share = (trace_cost["do_nothing"]["with_trace"]["p50_latency_us"]
                / trace_cost["real_model"]["with_trace"]["p50_latency_us"])

    def verdict(share):
        if share is None:
            return "undetermined (no VALID Server run)"
        return "harness (LoadGen + Python SUT)" if share > 0.5 else "model"

    return {
        "what": "LoadGen + Python SUT ceiling (do-nothing model) vs the real model, fp32, 1 torch thread",
        "model": {"source": source, "name": loaded.name, "parameters": loaded.parameters},
        "settings": {"min_duration_s": duration, "offline_repetitions": repetitions, "offline_batch": cfg["offline_batch"],
                     "server_max_batch": cfg["server_max_batch"], "server_latency_bound_ms": cfg["server_latency_bound_ms"]},
        "offline_samples_per_s": {name: _spread(v) for name, v in offline.items()},
        "server_highest_valid_qps": server,
        "singlestream_trace_cost": trace_cost,
        "harness_share_of_real_time_per_sample": {"offline": round(offline_share, 3),
                                                  "server": None if server_share is None else round(server_share, 3),
                                                  "singlestream_p50": round(ss_share, 3)},
        "limits_throughput": {"offline": verdict(offline_share), "server": verdict(server_share),
                              "singlestream": verdict(ss_share)},
        "note": ("share = real throughput / do-nothing throughput = harness time per sample / real time per sample; "
                 "above 0.5 the harness, not the model, is the bottleneck. Shared 2-core machine: noisy."),
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
