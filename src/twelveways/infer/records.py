"""Turn one parsed LoadGen run into long-form results rows (DESIGN.md "Results store").

Every run contributes: its per-query latencies (metric ``latency``, ns, one row per query, from
the trace), LoadGen's summary values unchanged (percentiles, QPS, early-stopping estimates),
the verdict and each criterion as 1/0 rows.  The ``valid`` column is LoadGen's own verdict
("Result is : VALID") and is never overridden; accuracy runs are valid when the accuracy log
covers every sample exactly once.  Extra factors: scenario, mode, variant (``<model>-<precision
variant>``; the model is the ``workload``), target_qps, below_statistical_minimum, role (pilot,
performance, search, load_sweep, accuracy, summary, cost), query_seq, sample_index.  A scenario's
repeated performance runs (``infer.performance_runs``) differ only in ``run_id``: they are replicates.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd

from .settings import InferConfig

#: LoadGen values carried as metrics: (log, its key) -> (metric name, unit); the summary's "key : value"
#: lines and the detail log's keys.
LOG_VALUES = {
    ("summary", "Completed samples per second"): ("completed_samples_per_second", "samples/s"),
    ("summary", "Scheduled samples per second"): ("scheduled_samples_per_second", "samples/s"),
    ("summary", "Samples per second"): ("samples_per_second", "samples/s"),
    ("summary", "QPS w/ loadgen overhead"): ("qps_with_loadgen_overhead", "queries/s"),
    ("summary", "QPS w/o loadgen overhead"): ("qps_without_loadgen_overhead", "queries/s"),
    ("summary", "Min latency (ns)"): ("latency_min", "ns"),
    ("summary", "Max latency (ns)"): ("latency_max", "ns"),
    ("summary", "Mean latency (ns)"): ("latency_mean", "ns"),
    ("detail", "result_query_count"): ("query_count", "queries"),
    ("detail", "result_overlatency_query_count"): ("overlatency_query_count", "queries"),
    ("detail", "effective_min_query_count"): ("min_query_count", "queries"),
    ("detail", "effective_samples_per_query"): ("samples_per_query", "samples"),
    ("detail", "effective_target_latency_ns"): ("latency_bound", "ns"),
    ("detail", "effective_target_latency_percentile"): ("target_latency_percentile", "1"),
    ("detail", "num_errors"): ("loadgen_errors", "1"),
}


#: Every metric this stage writes, with its meaning (stored in the results' ``metrics`` attribute).
METRICS = {
    "latency": "one row per query: LoadGen's latency (completion minus scheduled issue; MultiStream: of the "
               "query's last sample; Offline: its single query), ns",
    "latency_rows_fraction": "share of the run's queries that have a 'latency' row (1 = all)",
    "result_valid": "LoadGen's 'Result is' line: 1 VALID, 0 INVALID",
    "latency_bound_satisfied": "Server: 'Performance constraints satisfied' (percentile latency within the bound)",
    "min_duration_satisfied": "LoadGen's 'Min duration satisfied'",
    "min_queries_satisfied": "LoadGen's 'Min queries satisfied'",
    "early_stopping_satisfied": "LoadGen's 'Early stopping satisfied'",
    "latency_pXX": "LoadGen's summary percentile (sorted[floor(n*p)]) of per-sample (MultiStream: per-query) latency, ns",
    "early_stopping_latency_pXX": "LoadGen's early-stopping estimate of that percentile, ns (MLPerf's reported "
                                  "SingleStream/MultiStream number)",
    "latency_min / latency_max / latency_mean": "LoadGen's summary values, ns",
    "samples_per_second": "Offline: LoadGen's 'Samples per second'",
    "completed_samples_per_second / scheduled_samples_per_second": "Server: LoadGen's summary values",
    "qps_with_loadgen_overhead / qps_without_loadgen_overhead": "SingleStream: LoadGen's summary values",
    "query_count / overlatency_query_count / min_query_count / samples_per_query": "from mlperf_log_detail.txt",
    "latency_bound / target_latency_percentile": "the Server bound LoadGen applied (ns) and its percentile",
    "min_duration / run_wall_time": "LoadGen's min duration and the run's wall time, s",
    "latency_bounded_qps": "Server summary: highest target QPS LoadGen called VALID (NaN: none)",
    "server_search_runs": "Server probes made by the search",
    "offline_samples_per_second / server_throughput_loss": "Offline samples/s (LoadGen's; the median over the "
        "variant's Offline runs when it has several), and 1 - latency_bounded_qps / it",
    "accuracy / accuracy_samples / accuracy_correct": "AccuracyOnly: top-1 accuracy over every test sample once",
    "item_correct": "AccuracyOnly: one row per test sample (sample_index = its QSL index): 1 when its top-1 "
                    "prediction is right, else 0 (variants scored on the same samples are compared item by item)",
    "accuracy_delta_points / relative_accuracy / relative_errors": "vs the fp32 variant of the same model: "
        "points (acc - acc_fp32, x100), acc / acc_fp32, err / err_fp32",
    "accuracy_within_tolerance": "1 when the configured relative-accuracy definition passes",
    "quality_target / quality_target_met": "the training quality target and whether this variant reaches it",
    "training_*": "the checkpoint's training cost from its description (time to quality, total time, epochs)",
    "inference_time_per_sample": "1 / Offline samples per second (the median over runs when several), s",
    "training_cost_in_inferences": "training time to quality x Offline samples/s: inferences that cost as much",
}


def pct_name(fraction: float) -> str:
    return f"p{fraction * 100:g}"


def keep_rows(total: int, max_rows: int, key: str, seed: int) -> np.ndarray | None:
    """Indices of a seeded uniform subsample of ``max_rows`` out of ``total`` (None: keep all).

    Long runs (the full profile's Server runs hold over a million queries) would make the
    long-form results file enormous; the exact percentiles stay LoadGen's (summary rows), every
    latency stays in the run's gzipped trace, and metric ``latency_rows_fraction`` says how many
    of the run's per-query latencies the ``latency`` rows hold.
    """
    if max_rows <= 0 or total <= max_rows:
        return None
    rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
    return np.sort(rng.choice(total, size=max_rows, replace=False))


def run_rows(base: dict, parsed: dict, max_latency_rows: int = 0) -> pd.DataFrame:
    """Rows of one performance run: ``base`` holds the factors, ``parsed`` the parse results."""
    summary, detail = parsed["summary"], parsed["detail"]
    rows: list[tuple[str, float, str]] = []
    rows.append(("result_valid", float(summary.get("result") == "VALID"), "1"))
    for name, flag in summary["criteria"].items():
        rows.append((name, float(flag), "1"))
    for fraction, value in sorted(summary["percentiles"].items()):
        rows.append((f"latency_{pct_name(fraction)}", float(value), "ns"))
    for fraction, value in sorted(summary["early_stopping"].items()):
        rows.append((f"early_stopping_latency_{pct_name(fraction)}", float(value), "ns"))
    for (log, key), (name, unit) in LOG_VALUES.items():
        value = parsed[log]["values"].get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            rows.append((name, float(value), unit))
    duration = detail["values"].get("effective_min_duration_ms")
    if isinstance(duration, (int, float)):
        rows.append(("min_duration", float(duration) / 1000.0, "s"))
    if "wall_s" in parsed:
        rows.append(("run_wall_time", float(parsed["wall_s"]), "s"))
    frame = pd.DataFrame(rows, columns=["metric", "value", "unit"])
    frame["query_seq"] = -1
    frame["sample_index"] = -1
    latencies = parsed.get("per_query")
    if latencies is not None:
        total = int(latencies["latency_ns"].shape[0])
        keep = keep_rows(total, max_latency_rows, str(base.get("run_id", "")), int(base.get("seed", 0)))
        pick = (lambda a: a) if keep is None else (lambda a: a[keep])
        per_query = pd.DataFrame({"metric": "latency", "value": pick(latencies["latency_ns"]).astype(np.float64),
                                  "unit": "ns", "query_seq": pick(latencies["query_seq"]),
                                  "sample_index": pick(latencies["sample_index"])})
        fraction = pd.DataFrame({"metric": ["latency_rows_fraction"], "value": [len(per_query) / max(total, 1)],
                                 "unit": ["1"], "query_seq": [-1], "sample_index": [-1]})
        frame = pd.concat([frame, fraction, per_query], ignore_index=True)
    return _with_base(frame, base)


def value_rows(base: dict, values: list[tuple[str, float, str]]) -> pd.DataFrame:
    """Rows for derived or accuracy values sharing ``base`` factors."""
    frame = pd.DataFrame(values, columns=["metric", "value", "unit"])
    frame["query_seq"] = -1
    frame["sample_index"] = -1
    return _with_base(frame, base)


def item_rows(base: dict, outcomes: np.ndarray) -> pd.DataFrame:
    """One ``item_correct`` row per test sample of an accuracy run (1 right, 0 wrong; sample_index: its QSL index)."""
    frame = pd.DataFrame({"metric": "item_correct", "value": np.asarray(outcomes, dtype=np.float64), "unit": "1",
                          "query_seq": -1, "sample_index": np.arange(len(outcomes), dtype=np.int64)})
    return _with_base(frame, base)


def _with_base(frame: pd.DataFrame, base: dict) -> pd.DataFrame:
    for key, value in base.items():
        frame[key] = value
    return frame


def base_factors(*, model, variant, scenario: str, mode: str, role: str, run_id: str, threads: int, seed: int,
                 valid: bool, below_minimum: bool, target_qps: float = math.nan,
                 implementation: str = "torch-python-sut", stop_reason: str | None = None) -> dict:
    """The factor columns every row of one run shares."""
    return {
        "benchmark": "infer", "workload": model.name, "implementation": implementation,
        "ranks": 1, "threads": int(threads), "size": int(model.parameters), "precision": variant.precision,
        "seed": int(seed), "run_id": run_id, "iteration": -1, "rank": -1, "valid": bool(valid),
        "scenario": scenario, "mode": mode, "variant": f"{model.name}-{variant.name}",
        "target_qps": float(target_qps), "below_statistical_minimum": bool(below_minimum), "role": role,
        "stop_reason": STOP_REASON if stop_reason is None else stop_reason,
    }


#: Why a configuration holds one run (R5 note): each scenario/variant is one LoadGen run that ends when
#: LoadGen's min duration and min query count are met, as MLPerf prescribes; not repeated to a CI target.
STOP_REASON = "one_loadgen_run"
#: The same with ``infer.performance_runs`` above 1: a fixed number of such runs, not repeated to a CI target.
FIXED_RUNS = "fixed_loadgen_runs"
#: Per-run summaries of other rows (exempt from R5's per-configuration CI): LoadGen's own summary
#: values of a run, and values derived across runs or copied from the training stage.
DERIVED_METRICS = ["samples_per_second", "completed_samples_per_second", "scheduled_samples_per_second",
                   "qps_with_loadgen_overhead", "qps_without_loadgen_overhead", "latency_bounded_qps",
                   "offline_samples_per_second", "inference_time_per_sample", "training_time_to_quality_s",
                   "training_total_time_s", "training_init_time_s", "training_cost_in_inferences"]
#: Settings LoadGen applied (not measurements), and counts.
METRIC_KINDS = {"latency_bound": "other", "min_duration": "other", "target_latency_percentile": "other",
                "query_count": "count", "overlatency_query_count": "count", "min_query_count": "count",
                "samples_per_query": "count", "training_epochs": "count", "server_search_runs": "count",
                "item_correct": "other"}  # per-item outcomes: what accuracy counts, never summarized themselves


def _runs_text(cfg: InferConfig) -> str:
    """How many LoadGen performance runs each scenario holds per variant, in words (R5's note)."""
    from . import scenarios

    counts = [f"{name} {cfg.runs_per_variant(name)}" for name in scenarios.SCENARIOS if name != "Server"]
    return ("LoadGen performance runs per variant (infer.performance_runs): " + ", ".join(counts)
            + "; Server: its QPS search and load sweep")


def checklist_attrs(cfg: InferConfig, model_names: list[str]) -> dict:
    """What the checklist reads (docs/checklist-evidence.md), stated by the benchmark that knows it."""
    from . import scenarios, variants

    return {
        "derived_metrics": DERIVED_METRICS,
        "metric_kinds": METRIC_KINDS,
        "ci_notes": {"run_wall_time": f"{_runs_text(cfg)}, not repeated to a CI target",
                     "latency": "per-query latencies of LoadGen runs, each of which ends at LoadGen's min duration and "
                                f"min query count ({_runs_text(cfg)}; the runs are the replicates, queries describe "
                                "one run); tails are reported as LoadGen's percentiles and early-stopping estimates"},
        "tail_metrics": ["latency"],
        "timer": "LoadGen's clock (std::chrono steady clock, ns): latency = completion minus scheduled issue time; "
                 "run_wall_time: time.perf_counter around the LoadGen run",
        "op_count": "executed",
        "levels_available": {"scenario": list(scenarios.SCENARIOS),
                             "mode": ["PerformanceOnly"] + (["AccuracyOnly"] if cfg.accuracy_mode else []),
                             "variant": [f"{m}-{v}" for m in model_names for v in variants.VARIANTS]},
    }


