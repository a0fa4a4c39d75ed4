"""Tables the training notebook (and the checklist) draw from ``results/train.nc``; no benchmark runs.

Each function takes the long-form samples (``results.to_frame``) or the file's attributes and
returns a tidy table; the notebook only plots them.  Ratios are ratios of summaries (R4), times
are costs (arithmetic mean or median, R3), and every speedup names its base case and that base
case's absolute value (R1).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .. import derived, plots, results, stats
from ..errors import StatisticsError
from ..evidence.settings import resolve_confidence

FACTORS = ["config_id", "run_id", "seed", "workload", "dataset", "input_size", "batch_size", "per_rank_batch", "lr",
           "lr_rule", "precision", "variant", "ranks", "scaling", "sparsification", "role", "study", "status", "target"]


def load(results_dir: str | Path = "results") -> tuple[pd.DataFrame, dict]:
    """(samples, attributes with the JSON ones decoded) of ``<results_dir>/train.nc``."""
    ds = results.open(Path(results_dir) / "train.nc")
    attrs = dict(ds.attrs)
    for key in ("scores", "lr_search", "compliance", "quality_targets", "datasets", "definitions", "mpi",
                "warmup_s", "models_saved", "ci_notes"):
        attrs[key] = results.attr_json(ds, key, {})
    return results.to_frame(ds), attrs


def per_run(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per run: its factors and every per-run metric (time_to_train is NaN unless converged)."""
    rows = frame[(frame["iteration"] == -1) & (frame["seed"] >= 0)]
    wide = rows.pivot_table(index="run_id", columns="metric", values="value", aggfunc="first")
    for metric in ("time_to_train", "epochs_to_target"):
        wide[f"{metric}_spent"] = np.nan
    invalid = rows[~rows["valid"].astype(bool)]
    for _, row in invalid.iterrows():  # an unconverged run has no time to train, only a time spent
        wide.loc[row["run_id"], f"{row['metric']}_spent"] = row["value"]
        wide.loc[row["run_id"], row["metric"]] = np.nan
    factors = rows.drop_duplicates("run_id").set_index("run_id")[[c for c in FACTORS if c not in ("run_id",)]]
    return factors.join(wide).reset_index()


def curves(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, epoch) with val_accuracy, train_loss, wall_time, samples_seen as columns."""
    rows = frame[(frame["iteration"] > 0) & (frame["seed"] >= 0)]
    wide = rows.pivot_table(index=["run_id", "iteration"], columns="metric", values="value", aggfunc="first")
    factors = rows.drop_duplicates("run_id").set_index("run_id")[[c for c in FACTORS if c != "run_id"]]
    return wide.reset_index().join(factors, on="run_id").rename(columns={"iteration": "epoch"})


def in_study(runs: pd.DataFrame, name: str) -> pd.DataFrame:
    return runs[runs["study"].str.split(";").apply(lambda s: name in s)]


def scores(attrs: dict) -> pd.DataFrame:
    """The stored MLPerf olympic means, one row per final configuration."""
    table = pd.DataFrame.from_records([{"config_id": k, **v} for k, v in attrs.get("scores", {}).items()])
    if table.empty:
        return table
    table["study"] = table["study"].apply(lambda s: ";".join(s) if isinstance(s, list) else s)
    return table


def batch_sweep(runs: pd.DataFrame) -> pd.DataFrame:
    """F1: per batch size, epochs and time to the target, throughput, how many runs reached it."""
    part = in_study(runs, "batch_size")
    out = part.groupby("batch_size").agg(
        lr=("lr", "first"), lr_rule=("lr_rule", "first"), runs=("run_id", "size"),
        converged=("converged", "sum"), median_epochs=("epochs_to_target", "median"),
        median_time_to_train_s=("time_to_train", "median"),
        median_throughput=("throughput", "median")).reset_index()
    out["converged"] = out["converged"].astype(int)
    return out


def _median_ratio(base: pd.Series, other: pd.Series, confidence: float):
    """base / other as a ratio of medians (R4), with its conservative CI when the samples allow one."""
    base, other = base.dropna().to_numpy(float), other.dropna().to_numpy(float)
    if len(base) == 0 or len(other) == 0:
        return math.nan, None
    try:
        ratio = stats.ratio_of_summaries(base, other, "cost", statistic="median", confidence=confidence)
        return ratio.value, ratio.ci
    except StatisticsError:
        return float(np.median(base) / np.median(other)), None


def speedups(runs: pd.DataFrame, score_table: pd.DataFrame, confidence: float | None = None) -> pd.DataFrame:
    """F1/F2: each parallel configuration against the 1-rank base, per iteration and end to end.

    per-iteration speedup = median time per step (base) / median time per step (config);
    communication reduction = payload bytes (dense) / payload bytes (config), at equal ranks;
    end-to-end speedup = olympic score (base) / olympic score (config).  All ratios of summaries.
    """
    part = in_study(runs, "parallel")
    base = part[part["ranks"] == 1]
    if base.empty:
        return pd.DataFrame()
    score_of = dict(zip(score_table.get("config_id", []), score_table.get("score_s", [])))
    base_id = base["config_id"].iloc[0]
    rows = []
    for config_id, group in part.groupby("config_id", sort=False):
        first = group.iloc[0]
        step, step_ci = _median_ratio(base["time_per_step"], group["time_per_step"], resolve_confidence(confidence))
        dense = part[(part["ranks"] == first["ranks"]) & (part["sparsification"] == "none")]
        dense_bytes = dense["comm_bytes_per_step"].median() if not dense.empty else math.nan
        dense_ids = sorted(dense["config_id"].unique())
        bytes_here = group["comm_bytes_per_step"].median()
        rows.append({
            "config_id": config_id, "ranks": int(first["ranks"]), "scaling": first["scaling"],
            "sparsification": first["sparsification"], "global_batch": int(first["batch_size"]),
            "per_iteration_speedup": step, "per_iteration_ci": step_ci,
            "comm_reduction": dense_bytes / bytes_here if bytes_here else math.nan,
            "median_epochs": group["epochs_to_target"].median(),
            "end_to_end_speedup": score_of.get(base_id, math.nan) / score_of.get(config_id, math.nan),
            "base_case": f"1 rank, {base_id}",
            "base_time_per_step_s": float(base["time_per_step"].median()),
            "base_score_s": score_of.get(base_id, math.nan),
            "comm_base_case": f"dense gradients at {int(first['ranks'])} ranks, {', '.join(dense_ids)}",
            "comm_base_bytes": dense_bytes,
        })
    return pd.DataFrame(rows)


def tuning(attrs: dict) -> tuple[pd.DataFrame, dict]:
    """F4: every learning-rate trial with its cost, and the totals next to the final score."""
    search = attrs.get("lr_search") or {}
    trials = pd.DataFrame.from_records([
        {"lr": t["lr"], "seeds": len(t["run_ids"]), "converged": sum(t["converged"]),
         "cost_s": t["cost_s"], "mean_time_to_train_s": t["mean_time_to_train_s"]}
        for t in search.get("trials", [])])
    totals = {"total_tuning_cost_s": search.get("total_cost_s"), "chosen_lr": search.get("chosen_lr"),
              "final_score_s": search.get("final_score_s"), "trials": search.get("n_trials"),
              "criterion": search.get("criterion")}
    return trials, totals


def ops_by_dtype(frame: pd.DataFrame) -> pd.DataFrame:
    """F5: ops of one training step per configuration, by kind and dtype as executed."""
    ops = frame[frame["metric"] == "ops_per_step"]
    return ops[["config_id", "workload", "precision", "per_rank_batch", "op_kind", "op_dtype", "value"]].rename(
        columns={"value": "ops_per_step"}).reset_index(drop=True)


def generalisation(runs: pd.DataFrame) -> pd.DataFrame:
    """F3: train, validation (at stop) and test accuracy per model and data set, and the gap."""
    part = in_study(runs, "families")
    long = part.melt(id_vars=["run_id", "workload", "dataset"], value_vars=["train_accuracy", "val_accuracy", "test_accuracy"],
                     var_name="split", value_name="accuracy")
    long["split"] = long["split"].str.replace("_accuracy", "", regex=False)
    return long


# --------------------------------------------------------------------------- derived results

#: Per-run metrics summarized per configuration (median with its exact CI where n allows one).
CONFIG_METRICS = ("time_to_train", "time_per_step", "throughput")


def config_medians(samples: pd.DataFrame, runs: pd.DataFrame, confidence: float | None = None,
                   ci_notes: dict | None = None) -> list[dict]:
    """Per final configuration and metric: median over its runs with the CI, n and achieved coverage.

    Each summary's filters select the raw per-run rows it summarizes (iteration -1 of that
    config_id; invalid runs, which never reached the target, are not summarized).
    """
    confidence = stats.check_confidence(resolve_confidence(confidence))
    usable = results.summarizable(samples)
    usable = usable[(usable["iteration"] == -1) & (usable["seed"] >= 0)]
    out = []
    for config_id in sorted(runs.loc[runs["role"] == "final", "config_id"].unique()):
        for metric in CONFIG_METRICS:
            rows = usable[(usable["config_id"] == config_id) & (usable["metric"] == metric)]
            if rows.empty:
                continue
            unit = str(rows["unit"].iloc[0])
            kind = "rate" if unit.endswith("/s") else "cost"
            filters = {"benchmark": "train", "config_id": config_id, "iteration": -1}
            out.append(derived.median_summary(rows["value"], metric=metric, unit=unit, filters=filters,
                                              confidence=confidence, kind=kind, replicate="seed",
                                              note=str((ci_notes or {}).get(metric, ""))))
    return out


def median_table(summaries: list[dict]) -> pd.DataFrame:
    """The per-configuration medians as the notebook shows them: value, CI, n and coverage."""
    return pd.DataFrame([{"config_id": s["filters"]["config_id"], "metric": s["metric"], "median": s["value"],
                          "unit": s["unit"], "CI": s["ci"], "n": s["n"], "coverage": s["coverage"]}
                         for s in summaries])


def _config_of(samples: pd.DataFrame, config_id: str) -> dict:
    first = samples[samples["config_id"] == config_id].iloc[0]
    keys = ["workload", "implementation", "ranks", "threads", "size", "precision", "config_id", "scaling",
            "sparsification", "batch_size"]
    return {"benchmark": "train", **{k: first[k] for k in keys if k in first}}


def derived_rows(samples: pd.DataFrame, speed: pd.DataFrame, runs: pd.DataFrame) -> list[dict]:
    """Per-iteration and end-to-end speedups and the communication reduction, each with its base (R1)."""
    rows = []
    n_of = runs.groupby("config_id")["time_per_step"].count()
    for _, r in speed.iterrows():
        config = _config_of(samples, r["config_id"])
        base = r["base_case"]
        rows.append(derived.row(config, "per_iteration_speedup", r["per_iteration_speedup"], "1",
                                base_case=f"{base}: median time per step", base_value=r["base_time_per_step_s"],
                                base_unit="s", ci=r["per_iteration_ci"], n=int(n_of.get(r["config_id"], -1))))
        rows.append(derived.row(config, "end_to_end_speedup", r["end_to_end_speedup"], "1",
                                base_case=f"{base}: MLPerf olympic mean time to train", base_value=r["base_score_s"],
                                base_unit="s"))
        rows.append(derived.row(config, "comm_reduction_ratio", r["comm_reduction"], "1",
                                base_case=f"{r['comm_base_case']}: median payload bytes per step",
                                base_value=r["comm_base_bytes"], base_unit="B"))
    return rows


def write_derived(path, raw_path, samples: pd.DataFrame, runs: pd.DataFrame, speed: pd.DataFrame,
                  summaries: list[dict], confidence: float | None = None):
    """Write ``results/derived/train.nc``: speedups with their bases, medians, figure declarations."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    bundle = derived.Derived(
        "train", [Path(raw_path)], rows=derived_rows(samples, speed, runs) if not speed.empty else [],
        summaries=summaries, figures=plots.declared(),
        attrs={"confidence": confidence,
               "metric_kinds": {"per_iteration_speedup": "ratio", "end_to_end_speedup": "ratio",
                                "comm_reduction_ratio": "ratio"}})
    return derived.write(path, bundle)
