"""Tables the inference notebook shows, computed from ``results/inference.nc`` only.

Kept out of the notebook so it stays thin and so the checklist can reuse the same definitions.
Every number here is either LoadGen's own (carried unchanged) or a ratio of two such summaries;
no latency is averaged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import results

PERFORMANCE_ROLES = ("performance", "search", "load_sweep")
CRITERIA = ("result_valid", "latency_bound_satisfied", "min_duration_satisfied", "min_queries_satisfied",
            "early_stopping_satisfied")


def load(results_dir: str | Path) -> tuple[pd.DataFrame, dict]:
    """All rows of ``<results_dir>/inference.nc`` and its attributes (JSON ones decoded)."""
    ds = results.open(Path(results_dir) / "inference.nc")
    attrs = {key: results.attr_json(ds, key) for key in ds.attrs}
    return results.to_frame(ds), attrs


def latencies(frame: pd.DataFrame, roles=PERFORMANCE_ROLES) -> pd.DataFrame:
    """Per-query latency rows (ms) of performance runs."""
    rows = frame[(frame["metric"] == "latency") & frame["role"].isin(roles)].copy()
    rows["latency_ms"] = rows["value"] / 1e6
    return rows


def runs(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per LoadGen performance run: factors, LoadGen's verdict and each criterion (Yes/No)."""
    part = frame[frame["role"].isin((*PERFORMANCE_ROLES, "pilot")) & frame["metric"].isin(CRITERIA + ("query_count",))]
    table = part.pivot_table(index=["variant", "scenario", "role", "target_qps", "run_id"], columns="metric",
                             values="value", aggfunc="first", dropna=False).reset_index()
    table = table.dropna(subset=["result_valid"])
    for column in CRITERIA:
        if column in table:
            table[column] = table[column].map({1.0: "Yes", 0.0: "NO"}).fillna("n/a")
    table = table.rename(columns={"result_valid": "LoadGen result"})
    table["LoadGen result"] = table["LoadGen result"].map({"Yes": "VALID", "NO": "INVALID"})
    below = frame.groupby("run_id")["below_statistical_minimum"].first()
    table["below statistical minimum"] = table["run_id"].map(below)
    return table.sort_values(["variant", "scenario", "role", "target_qps"]).reset_index(drop=True)


def _metric(frame: pd.DataFrame, metric: str, **where) -> pd.Series:
    rows = frame[frame["metric"] == metric]
    for key, value in where.items():
        rows = rows[rows[key].isin(value if isinstance(value, (list, tuple)) else [value])]
    return rows.groupby("variant")["value"].first()


def headline(frame: pd.DataFrame, percentiles: dict | None = None) -> pd.DataFrame:
    """Per variant: the number each scenario reports (LoadGen's values), accuracy and model size."""
    perf = {"role": "performance"}
    out = pd.DataFrame({
        "workload": frame.groupby("variant")["workload"].first(),
        "precision": frame.groupby("variant")["precision"].first(),
        "parameters": frame.groupby("variant")["size"].first(),
    })
    ss = frame[(frame["scenario"] == "SingleStream") & (frame["role"] == "performance")]
    ms = frame[(frame["scenario"] == "MultiStream") & (frame["role"] == "performance")]
    ss_metric = _early_metric(ss, "p90")
    ms_metric = _early_metric(ms, "p99")
    if ss_metric:
        out["SingleStream early-stopping latency (ms)"] = _metric(ss, ss_metric) / 1e6
    out["SingleStream p90 latency (ms)"] = _metric(frame, "latency_p90", scenario="SingleStream", **perf) / 1e6
    if ms_metric:
        out["MultiStream early-stopping latency (ms)"] = _metric(ms, ms_metric) / 1e6
    out["Server latency-bounded QPS"] = _metric(frame, "latency_bounded_qps", role="summary")
    out["Offline samples/s"] = _metric(frame, "samples_per_second", scenario="Offline", **perf)
    out["Server/Offline throughput loss"] = _metric(frame, "server_throughput_loss", role="summary")
    for scenario in ("SingleStream", "Offline"):
        verdict = _metric(frame, "result_valid", scenario=scenario, **perf)
        out[f"{scenario} LoadGen result"] = verdict.map({1.0: "VALID", 0.0: "INVALID"})
    out["accuracy"] = _metric(frame, "accuracy", role="accuracy")
    out["relative accuracy (vs fp32)"] = _metric(frame, "relative_accuracy", role="accuracy")
    out["within tolerance"] = _metric(frame, "accuracy_within_tolerance", role="accuracy").map({1.0: "yes", 0.0: "NO"})
    return out.reset_index()


def _early_metric(rows: pd.DataFrame, fallback: str) -> str | None:
    names = sorted(m for m in rows["metric"].unique() if m.startswith("early_stopping_latency_"))
    wanted = f"early_stopping_latency_{fallback}"
    return wanted if wanted in names else (names[0] if names else None)


def server_probes(frame: pd.DataFrame) -> pd.DataFrame:
    """Every Server run: target QPS, LoadGen's verdict and the p99 latency (ms)."""
    rows = frame[(frame["scenario"] == "Server") & frame["role"].isin(("search", "load_sweep"))]
    table = rows.pivot_table(index=["variant", "role", "target_qps", "run_id"], columns="metric", values="value",
                             aggfunc="first").reset_index()
    keep = ["variant", "role", "target_qps", "result_valid", "latency_p99", "completed_samples_per_second"]
    table = table[[c for c in keep if c in table]].copy()
    table["LoadGen result"] = table.pop("result_valid").map({1.0: "VALID", 0.0: "INVALID"})
    table["p99 latency (ms)"] = table.pop("latency_p99") / 1e6
    return table.sort_values(["variant", "target_qps"]).reset_index(drop=True)


def pareto(table: pd.DataFrame, maximize: list[str], minimize: list[str]) -> pd.Series:
    """True where no other row is at least as good in every objective and better in one."""
    values = np.column_stack([table[c].to_numpy(float) for c in maximize] + [-table[c].to_numpy(float) for c in minimize])
    ok = np.isfinite(values).all(axis=1)
    front = np.zeros(len(table), dtype=bool)
    for i in np.flatnonzero(ok):
        others = values[ok]
        dominated = np.any(np.all(others >= values[i], axis=1) & np.any(others > values[i], axis=1))
        front[i] = not dominated
    return pd.Series(front, index=table.index)


def costs(frame: pd.DataFrame) -> pd.DataFrame:
    """Training cost beside inference cost per variant (F9)."""
    rows = frame[frame["role"] == "cost"]
    table = rows.pivot_table(index="variant", columns="metric", values="value", aggfunc="first")
    return table.reset_index()
