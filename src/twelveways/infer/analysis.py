"""Tables the inference notebook shows, computed from ``results/inference.nc`` only.

Kept out of the notebook so it stays thin and so the checklist can reuse the same definitions.
Every number here is either LoadGen's own (carried unchanged; with several runs of a scenario,
``infer.performance_runs``, the median over them and their count), or a ratio of two such
summaries; no latency is averaged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import derived, plots, results, stats
from ..evidence.settings import resolve_confidence

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
    return table.sort_values(["variant", "scenario", "role", "target_qps", "run_id"]).reset_index(drop=True)


def _rows(frame: pd.DataFrame, metric: str, **where) -> pd.DataFrame:
    rows = frame[frame["metric"] == metric]
    for key, value in where.items():
        rows = rows[rows[key].isin(value if isinstance(value, (list, tuple)) else [value])]
    return rows


def _metric(frame: pd.DataFrame, metric: str, **where) -> pd.Series:
    """Per variant: the metric's value, one per run (its first row); with several runs of the variant
    (``infer.performance_runs``) the median over the runs, never a value of one run picked silently."""
    per_run = _rows(frame, metric, **where).groupby(["variant", "run_id"], observed=True)["value"].first()
    return per_run.groupby(level="variant", observed=True).median()


def _verdict(frame: pd.DataFrame, scenario: str) -> pd.Series:
    """Per variant: LoadGen's verdict of its performance runs in ``scenario`` (several: how many were VALID)."""
    per_run = _rows(frame, "result_valid", scenario=scenario, role="performance").groupby(
        ["variant", "run_id"], observed=True)["value"].first()
    counts = per_run.groupby(level="variant", observed=True).agg(["sum", "count"])

    def text(valid: float, runs: int) -> str:
        if runs == 1:
            return "VALID" if valid else "INVALID"
        return f"VALID ({runs} runs)" if valid == runs else f"INVALID ({runs - int(valid)} of {runs} runs)"

    return pd.Series({v: text(row["sum"], int(row["count"])) for v, row in counts.iterrows()}, dtype=object)


def all_valid(verdicts: pd.Series) -> pd.Series:
    """True where a :func:`headline` verdict says every run was VALID (one run or several)."""
    return verdicts.fillna("").astype(str).str.startswith("VALID")


def performance_runs(frame: pd.DataFrame, scenario: str) -> pd.Series:
    """Per variant: how many LoadGen performance runs it has in ``scenario`` (the n of its run-level numbers)."""
    rows = frame[(frame["scenario"] == scenario) & (frame["role"] == "performance")]
    return rows.groupby("variant", observed=True)["run_id"].nunique()


def headline(frame: pd.DataFrame, percentiles: dict | None = None) -> pd.DataFrame:
    """Per variant: the number each scenario reports (LoadGen's values; the median over a scenario's runs
    when it has several, their count in the verdict column, or MultiStream's ``runs`` column where it repeats),
    accuracy and model size."""
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
        out[f"{scenario} LoadGen result"] = _verdict(frame, scenario)
    counted = performance_runs(frame, "MultiStream")  # SingleStream's and Offline's count is in their verdict
    if len(counted) and counted.max() > 1:
        out["MultiStream runs"] = counted
    out["accuracy"] = _metric(frame, "accuracy", role="accuracy")
    out["relative accuracy (vs fp32)"] = _metric(frame, "relative_accuracy", role="accuracy")
    out["within tolerance"] = _metric(frame, "accuracy_within_tolerance", role="accuracy").map({1.0: "yes", 0.0: "NO"})
    return out.reset_index()


def reported(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant, LoadGen's own throughput numbers (Offline: the median over its runs, ``offline_runs`` of them)
    and the AccuracyOnly counts (the report's inference headline)."""
    return pd.DataFrame({
        "latency_bounded_qps": _metric(frame, "latency_bounded_qps", role="summary"),
        "samples_per_second": _metric(frame, "samples_per_second", scenario="Offline", role="performance"),
        "offline_runs": performance_runs(frame, "Offline"),
        "accuracy_correct": _metric(frame, "accuracy_correct", role="accuracy"),
        "accuracy_samples": _metric(frame, "accuracy_samples", role="accuracy")})


def accuracy_intervals(frame: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per variant: the AccuracyOnly accuracy's exact binomial CI from its test-set size (low, high, items).

    One item of the test set moves the accuracy by 1/items; a difference inside these intervals is
    not one the test set can show (the Pareto figure draws them).
    """
    from ..stats import proportion

    correct = _metric(frame, "accuracy_correct", role="accuracy")
    items = _metric(frame, "accuracy_samples", role="accuracy")
    rows = {variant: proportion.accuracy_ci(correct[variant], items[variant], confidence)
            for variant in correct.index if variant in items.index and items[variant] > 0}
    return pd.DataFrame({"low": {v: a.ci[0] for v, a in rows.items()}, "high": {v: a.ci[1] for v, a in rows.items()},
                         "items": {v: a.items for v, a in rows.items()}})


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


def search_note(attrs: dict) -> str:
    """One sentence on how the Server search was bounded (probe cap, floor, Offline ceiling, stop reasons)."""
    searches = attrs.get("server_search") or {}
    if not searches:
        return "No Server search ran."
    reasons = sorted({str(s.get("stop_reason")) for s in searches.values()})
    cap = next((s.get("probe_cap_s") for s in searches.values() if s.get("probe_cap_s")), None)
    text = (f"Server search: {len(searches)} variants, stop reasons {', '.join(r.replace('_', ' ') for r in reasons)}; "
            "no probe above the variant's Offline throughput (a latency bound cannot beat it)")
    if cap:
        floors = [s["floor_qps"] for s in searches.values() if s.get("floor_qps")]
        text += (f"; each probe capped at {cap:g} s, so target QPS below {min(floors):,.0f} (the Server minimum query "
                 "count in 70% of the cap) were not probed" if floors else f"; each probe capped at {cap:g} s")
    return text + "."


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
    return table.rename_axis(columns=None).reset_index()  # no unnamed "metric" header row above the columns


# --------------------------------------------------------------------------- derived results

#: Percentiles of the recorded latencies the notebook shows (fractions).
PERCENTILES = (0.5, 0.9, 0.99)
#: A percentile summary's note when it pools the queries of several LoadGen runs.
POOLED_NOTE = ("queries of {runs} LoadGen runs pooled: the interval is over queries and leaves out how much the "
               "runs differ (the runs are the replicates a claim counts)")


def _filters(part: pd.DataFrame, columns) -> dict:
    """``benchmark`` plus each column's level(s) in ``part`` (a list when several); unknown levels left out."""
    out = {"benchmark": str(part["benchmark"].iloc[0])}
    for column in columns:
        if column not in part or not part[column].notna().all():
            continue
        levels = sorted(derived.plain(pd.unique(part[column].astype(object)).tolist()), key=str)
        out[column] = levels[0] if len(levels) == 1 else levels
    return out


def percentile_summaries(shown: pd.DataFrame, confidence: float | None = None, note: str = "") -> list[dict]:
    """p50/p90/p99 of every (variant, scenario)'s recorded latencies with exact order-statistic CIs (R8).

    Values stay in the rows' unit (ns); only valid rows are summarized, and the filters select them.
    Several runs of one (variant, scenario) are pooled, and the summary says so: ``runs`` counts them
    and the note says that the interval, over queries, leaves out how much the runs differ.
    """
    confidence = stats.check_confidence(resolve_confidence(confidence))
    out = []
    usable = shown[shown["valid"].astype(bool)]
    for (_variant, _scenario), part in usable.groupby(["variant", "scenario"], observed=True):
        filters = _filters(part, ("variant", "scenario", "role", "target_qps"))
        runs = int(part["run_id"].nunique())
        pooled = "; ".join(text for text in (note, POOLED_NOTE.format(runs=runs)) if text) if runs > 1 else note
        for q in PERCENTILES:
            out.append(derived.percentile_summary(part["value"], q, metric="latency", unit=str(part["unit"].iloc[0]),
                                                  filters=filters, confidence=confidence, note=pooled,
                                                  replicate="query", runs=runs))
    return out


def percentile_table(summaries: list[dict]) -> pd.DataFrame:
    """The percentile summaries as the notebook shows them (ms), with n, the runs it pools and the achieved coverage."""
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    rows = []
    for s in summaries:
        factor = scale.get(s["unit"], float("nan"))
        rows.append({"variant": s["filters"]["variant"], "scenario": s["filters"]["scenario"],
                     "percentile": s["statistic"], "latency (ms)": s["value"] * factor,
                     "CI (ms)": tuple(v * factor for v in s["ci"]) if s["ci"] else None, "n (queries)": s["n"],
                     "LoadGen runs": s.get("runs", 1), "coverage": s["coverage"], "note": s["note"]})
    return pd.DataFrame(rows)


def quantile_fit_records(part: pd.DataFrame, fit: dict, unit: str = "ms per query/s") -> list[dict]:
    """QuantReg lines of latency on target QPS (``twelveways.stats.quantile_regression``) as derived fits.

    ``unit`` is the slope's: the latency unit the fit was made in per unit of target QPS.
    """
    filters = {**_filters(part, ("variant", "scenario")), "role": sorted(part["role"].unique())}
    return [derived.fit_record("quantile_regression", "slope", value=line.slope, ci=line.slope_ci,
                               confidence=line.confidence, n_points=line.n, filters=filters, drawn=True,
                               unit=unit, quantile=q, intercept=line.intercept,
                               converged=line.converged, method=line.method,
                               note="latency of every recorded query on the run's target QPS, VALID and INVALID "
                                    "runs alike (INVALID: where the load exceeds the latency bound)")
            for q, line in fit.items()]


def _variant_config(frame: pd.DataFrame, variant: str, scenario: str = "") -> dict:
    first = frame[frame["variant"] == variant].iloc[0]
    keys = ("workload", "implementation", "ranks", "threads", "size", "precision")
    return {"benchmark": str(first["benchmark"]), **{k: first[k] for k in keys}, "variant": variant,
            "scenario": scenario}


def ratio_rows(frame: pd.DataFrame, head: pd.DataFrame) -> list[dict]:
    """Server/Offline throughput and accuracy against fp32, per variant, each with its base (R1, R4)."""
    rows = []
    for _, h in head.iterrows():
        variant = str(h["variant"])
        offline, server = h.get("Offline samples/s"), h.get("Server latency-bounded QPS")
        if pd.notna(offline) and pd.notna(server) and offline:
            runs = h.get("Offline runs")
            over = f"; the median of {int(runs)} runs" if pd.notna(runs) and runs > 1 else ""
            rows.append(derived.row(_variant_config(frame, variant, "Server"), "server_offline_throughput_ratio",
                                    server / offline, "1", base_case=f"Offline samples/s of {variant} (LoadGen{over})",
                                    base_value=offline, base_unit="samples/s"))
        base = head[(head["workload"] == h["workload"]) & (head["precision"] == "fp32")]
        if pd.notna(h.get("accuracy")) and not base.empty and pd.notna(base["accuracy"].iloc[0]) and base["accuracy"].iloc[0]:
            reference = base.iloc[0]
            rows.append(derived.row(_variant_config(frame, variant), "accuracy_ratio",
                                    h["accuracy"] / reference["accuracy"], "1",
                                    base_case=f"fp32 variant {reference['variant']}: top-1 accuracy (AccuracyOnly)",
                                    base_value=reference["accuracy"], base_unit="1"))
    return rows


def write_derived(path, raw_path, frame: pd.DataFrame, head: pd.DataFrame, summaries: list[dict], fits: list[dict],
                  confidence: float | None = None):
    """Write ``results/derived/infer.nc``: ratios with their bases, percentiles, fits, figure declarations."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    bundle = derived.Derived(
        "infer", [Path(raw_path)], rows=ratio_rows(frame, head), summaries=summaries, fits=fits,
        figures=plots.declared(),
        attrs={"confidence": confidence,
               "metric_kinds": {"server_offline_throughput_ratio": "ratio", "accuracy_ratio": "ratio"}})
    return derived.write(path, bundle)
