"""Tidy tables for the PRK notebook: per-iteration times, per-configuration summaries, bounds.

The notebook stays thin: it calls these functions and draws with :mod:`twelveways.plots`.

How a PRK time is summarized (SC15 R10, DESIGN.md kernel contract): each rank times each
iteration after a barrier; the time of an iteration is the maximum over ranks; iteration 0
(warm-up) and invalid runs never enter a summary.  A configuration's cost is summarized by
its median with the exact distribution-free CI (``twelveways.stats.median_ci``) and by its
arithmetic mean; its rate is the work per iteration over the mean time, which is PRK's rate
and equals the harmonic mean of the per-iteration rates (R3) — rates are never averaged
arithmetically, and speedups are ratios of summaries, never averaged ratios (R4).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .. import derived, plots, results, stats
from ..families import prk as prk_kernels
from ..errors import ResultsError, StatisticsError
from ..evidence.settings import resolve_confidence

#: Factors that identify one configuration (the optional ones only when the file has them).
CONFIG = ["workload", "implementation", "ranks", "threads", "size", "precision"]
OPTIONAL_CONFIG = ["scaling", "base_size", "radius", "tile", "pattern"]
TIME_METRICS = ("time", "iteration_time")
#: PRK's rate unit per kernel: the bytes moved (MB/s) or the flops executed (MFlop/s).
RATE_BASIS = {k.name: k.rate_basis for k in prk_kernels.DECLARED}  # declared per kernel (families/prk.py)
#: Unit -> (kind, factor to GB/s or GFlop/s).
BOUND_UNITS = {"B/s": ("bandwidth", 1e-9), "MB/s": ("bandwidth", 1e-3), "GB/s": ("bandwidth", 1.0),
               "Flop/s": ("flops", 1e-9), "MFlop/s": ("flops", 1e-3), "GFlop/s": ("flops", 1.0)}


def config_columns(frame: pd.DataFrame) -> list[str]:
    """The configuration factors present in ``frame``."""
    return CONFIG + [c for c in OPTIONAL_CONFIG if c in frame.columns]


def load(results_dir: str | os.PathLike) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(PRK samples, bound samples, attributes) from ``prk.nc`` and, when present, ``bounds.nc``.

    Bounds may live in their own file or as ``benchmark == 'bounds'`` rows of ``prk.nc``.
    """
    folder = Path(results_dir)
    ds = results.open(folder / "prk.nc")
    frame = results.to_frame(ds)
    parts = [frame[frame["benchmark"] == "bounds"]]
    if (folder / "bounds.nc").is_file():
        parts.append(results.to_frame(results.open(folder / "bounds.nc")))
    bounds = pd.concat(parts, ignore_index=True) if parts else frame.iloc[:0]
    return frame[frame["benchmark"] != "bounds"].reset_index(drop=True), bounds, dict(ds.attrs)


def _work(frame: pd.DataFrame) -> pd.DataFrame:
    """Bytes and flops per iteration per run (extra columns or metric rows; NaN when unknown)."""
    out = frame[["run_id"]].drop_duplicates().set_index("run_id")
    for name in ("bytes_per_iteration", "flops_per_iteration"):
        if name in frame.columns:
            out[name] = frame.groupby("run_id")[name].first().astype(float)
        else:
            rows = frame[frame["metric"] == name]
            out[name] = rows.groupby("run_id")["value"].first().astype(float) if not rows.empty else np.nan
    return out.reset_index()


def iteration_times(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per timed iteration of a valid run: its time (max over ranks) and work.

    Rows measured for the whole run (rank -1) are the per-iteration maximum already; when a
    run only has per-rank rows, the maximum over ranks is taken here (R10).
    """
    keys = config_columns(frame)
    usable = results.summarizable(frame)
    usable = usable[usable["metric"].isin(TIME_METRICS) & (usable["iteration"] > 0)]
    if usable.empty:
        raise ResultsError("prk results hold no valid timed iterations (metric 'time', iteration >= 1)")
    whole = usable[usable["rank"] < 0]
    per_rank = usable[(usable["rank"] >= 0) & ~usable["run_id"].isin(set(whole["run_id"]))]
    per_rank = per_rank.groupby(keys + ["run_id", "iteration"], as_index=False, observed=True)["value"].max()
    times = pd.concat([part for part in (whole[keys + ["run_id", "iteration", "value"]], per_rank) if len(part)],
                      ignore_index=True)
    times = times.rename(columns={"value": "time_s"})
    times = times.merge(_work(frame), on="run_id", how="left")
    if "stop_reason" in frame.columns:
        times = times.merge(frame.groupby("run_id")["stop_reason"].first().reset_index(), on="run_id", how="left")
    times["pe"] = times["ranks"].astype(int) * times["threads"].astype(int)
    basis = times["workload"].map(RATE_BASIS).fillna("bytes")
    work = np.where(basis == "flops", times["flops_per_iteration"], times["bytes_per_iteration"])
    times["rate"] = work / times["time_s"] / 1e6
    times["rate_unit"] = np.where(basis == "flops", "MFlop/s", "MB/s")
    return times


def summarize(times: pd.DataFrame, confidence: float | None = None) -> pd.DataFrame:
    """Per configuration: its time over invocations with the CI over invocations, n = invocations and the
    iterations behind them, the pooled mean (PRK's rate), Shapiro–Wilk p and stop reasons (``confidence`` None:
    the schema's).

    ``time_s`` and ``ci_low_s``/``ci_high_s`` are :func:`configuration_summaries`' (over invocations): the
    numbers the headline, the claims and compare show.  One invocation has no interval (NaN): its iterations
    describe that one invocation.
    """
    confidence = stats.check_confidence(resolve_confidence(confidence))
    keys = [c for c in config_columns(times) if c in times.columns]
    rows = []
    for (key, group), record in zip(times.groupby(keys, observed=True, sort=True),
                                    configuration_summaries(times, confidence)):
        row = dict(zip(keys, key))
        low, high = record["ci"] or (np.nan, np.nan)
        row.update(n=record["n"], iterations=record["values"], pe=int(group["pe"].iloc[0]), time_s=record["value"],
                   statistic=STATISTIC_NAMES[record["statistic"]], ci_low_s=low, ci_high_s=high,
                   mean_s=float(group["time_s"].mean()), confidence=float(confidence),
                   shapiro_p=record["shapiro_p"] if record["shapiro_p"] is not None else np.nan)
        row["ci_halfwidth_pct"] = 100 * stats.relative_half_width(row["time_s"], low, high) if record["ci"] else np.nan
        basis = RATE_BASIS.get(str(row["workload"]), "bytes")
        work = group["flops_per_iteration" if basis == "flops" else "bytes_per_iteration"].iloc[0]
        row["rate"] = float(work / row["mean_s"] / 1e6) if np.isfinite(work) else np.nan
        row["rate_unit"] = "MFlop/s" if basis == "flops" else "MB/s"
        if "stop_reason" in group.columns:
            reasons = group.drop_duplicates("run_id")["stop_reason"].replace("", "unrecorded").value_counts()
            row["stop_reasons"] = ", ".join(f"{reason} ×{count}" for reason, count in reasons.items())
        row["bytes_per_iteration"] = float(group["bytes_per_iteration"].iloc[0])
        row["flops_per_iteration"] = float(group["flops_per_iteration"].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows)


#: The per-configuration table's columns, in the order a reader needs them.
SHOWN_COLUMNS = ["workload", "size", "config", "scaling", "n", "iterations", "time_s", "statistic", "CI (s)",
                 "ci_halfwidth_pct", "shapiro_p", "rate", "rate_unit", "percent_of_bound", "stop_reasons"]


def shown_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The per-configuration table as the notebook shows it: the interval over invocations in one cell
    ("[low, high]", four significant digits; "none: one invocation"), n named as invocations."""
    interval = [f"[{low:.4g}, {high:.4g}]" if np.isfinite(low) and np.isfinite(high) else "none: one invocation"
                for low, high in zip(summary["ci_low_s"], summary["ci_high_s"])]
    table = summary.assign(**{"CI (s)": interval})
    return table[[c for c in SHOWN_COLUMNS if c in table.columns]].rename(columns={"n": "invocations (n)"})


#: What a configuration's time is, in the table's words.
STATISTIC_NAMES = {"geometric_mean": "geometric mean", "median": "median"}


def configuration_summaries(times: pd.DataFrame, confidence: float, metric: str = "time") -> list[dict]:
    """One summary over invocations per configuration (groupby order), with filters that select its raw rows.

    Each is the geometric mean of the invocation means with the t interval of their logs
    (``derived.replicate_summary``).  Where Shapiro–Wilk rejects the normality of the log invocation means
    after Holm over all configurations (testing dozens at 5 % each would reject some by chance), the
    configuration is restated distribution-free (``derived.median_of_replicates``, SC15 R6).
    """
    keys = [c for c in config_columns(times) if c in times.columns]
    made, groups = [], []
    for key, group in times.groupby(keys, observed=True, sort=True):
        filters = {"benchmark": "prk", **derived.plain(dict(zip(keys, key)))}
        extra = {"rank_reduction": "max over ranks per (run_id, iteration)" if int(filters["ranks"]) > 1 else "none"}
        groups.append(invocations(group))
        made.append(derived.replicate_summary(groups[-1], metric=metric, unit="s", filters=filters,
                                              confidence=confidence, note=_stop_note(group), **extra))
    tested = [i for i, record in enumerate(made) if record["shapiro_p"] is not None]
    rejected, adjusted = stats.holm_adjust([made[i]["shapiro_p"] for i in tested])
    for i, reject, p in zip(tested, rejected, adjusted):
        if reject:
            why = f"Shapiro–Wilk rejects normal log invocation means (Holm-adjusted p = {p:.2g} over {len(tested)})"
            made[i] = derived.median_of_replicates(made[i], groups[i], confidence, why)
    return made


def invocations(group: pd.DataFrame) -> list[np.ndarray]:
    """A configuration's per-iteration times per invocation (run), in run order: its replicates."""
    return [part["time_s"].to_numpy(float) for _, part in group.groupby("run_id", sort=True)]


def log_invocation_means(group: pd.DataFrame) -> np.ndarray:
    """The logs of a configuration's invocation means: what its interval over invocations assumes normal (R6)."""
    return stats.replicates.log_summaries(invocations(group))


def normality_sentence(summary: pd.DataFrame, alpha: float = 0.05) -> str:
    """How many configurations Shapiro–Wilk rejects on their log invocation means, after Holm over them all."""
    tested = summary["shapiro_p"].dropna()
    if tested.empty:
        return "No configuration has three or more distinct invocation means: normality not tested."
    rejected, _ = stats.holm_adjust(tested.to_list(), alpha)
    raw = int((tested < alpha).sum())
    return (f"Shapiro–Wilk on the log invocation means rejects normality for {sum(rejected)} of {tested.size} "
            f"configurations after Holm's correction at {alpha:g} ({raw} at {alpha:g} before it).")


def bounds(frame: pd.DataFrame) -> pd.DataFrame:
    """Measured bounds per processing-element count: kind (bandwidth|flops), value in GB/s or GFlop/s.

    The bound of one level is the median of its valid samples (a rate measured as a whole run).
    """
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["kind", "pe", "value", "source"])
    usable = results.summarizable(frame)
    usable = usable[usable["unit"].isin(BOUND_UNITS)]
    rows = []
    for (workload, impl, unit, ranks, threads), group in usable.groupby(
            ["workload", "implementation", "unit", "ranks", "threads"], observed=True):
        kind, factor = BOUND_UNITS[unit]
        rows.append({"kind": kind, "pe": int(ranks) * int(threads), "value": float(np.median(group["value"])) * factor,
                     "source": f"{workload} ({impl}, {int(ranks)} rank(s) × {int(threads)} thread(s), median of {len(group)})"})
    return pd.DataFrame(rows, columns=["kind", "pe", "value", "source"])


def best_bound(table: pd.DataFrame, kind: str, pe: int | None = None) -> float | None:
    """The bound measured at ``pe`` processing elements, else the best measured at any count."""
    part = table[table["kind"] == kind]
    if part.empty:
        return None
    if pe is not None and (part["pe"] == pe).any():
        return float(part[part["pe"] == pe]["value"].max())
    return float(part["value"].max())


def percent_of_bound(summary: pd.DataFrame, bound_table: pd.DataFrame) -> pd.Series:
    """Achieved rate as a percentage of the measured bound at the same resources (R11).

    Byte-rate kernels compare with the bandwidth; flop-rate kernels with the roofline bound
    min(peak, intensity × bandwidth) when both are known, else with the peak.
    """
    out = []
    for _, row in summary.iterrows():
        bw = best_bound(bound_table, "bandwidth", row["pe"])
        peak = best_bound(bound_table, "flops", row["pe"])
        rate = row["rate"]
        if row["rate_unit"] == "MB/s":
            limit = bw * 1e3 if bw else None
        else:
            intensity = row["flops_per_iteration"] / row["bytes_per_iteration"] if row["bytes_per_iteration"] else np.nan
            limit = None
            if peak:
                limit = peak * 1e3
                if bw and np.isfinite(intensity):
                    limit = min(limit, intensity * bw * 1e3)
        out.append(100.0 * rate / limit if limit and np.isfinite(rate) else np.nan)
    return pd.Series(out, index=summary.index, name="percent_of_bound")


def _describe_base(base: pd.Series, role: str) -> str:
    text = (f"{role} = {base['implementation']}, size {int(base['size'])}: {base['time_s']:.4g} s per iteration "
            f"over {int(base['n'])} invocation(s)")
    if np.isfinite(base["ci_low_s"]):
        level = f"{100 * float(base['confidence']):g}% " if "confidence" in base.index else ""
        text += f" ({level}CI {base['ci_low_s']:.4g}–{base['ci_high_s']:.4g} s)"
    if np.isfinite(base["rate"]):
        text += f", {base['rate']:.4g} {base['rate_unit']}"
    return text


def scaling_table(summary: pd.DataFrame, kind: str, times: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
    """Speedup (strong) or efficiency (weak) of every configuration, with its base case.

    Strong scaling, per workload and size: the base case is the best serial run (fastest
    time among all one-process, one-thread configurations of that size, whatever their
    label, e.g. the sweep's ``single`` runs).  Weak scaling, per workload and base size: each
    implementation's efficiency is over its own one-process run at the base size.  Values are
    ratios of the configurations' times over invocations (R4).  With ``times`` the interval is the
    replicate-level CI of that ratio (``stats.ratio_ci``: invocations are the replicates), else it
    divides the bounds of both CIs (conservative).
    Returns the table and, per group, the base case(s) with their absolute time (R1).
    """
    if kind not in ("strong", "weak"):
        raise ValueError(f"kind must be 'strong' or 'weak', not {kind!r}")
    if "scaling" in summary.columns:
        swept = summary[summary["scaling"].astype(str) == kind]
    else:
        swept = summary if kind == "strong" else summary.iloc[:0]
    serial = summary[summary["pe"] == 1]
    if kind == "weak" and "base_size" not in summary.columns:
        # files from elsewhere: the smallest one-process size of an implementation is its base
        swept = swept.assign(base_size=swept.groupby(["workload", "implementation"])["size"].transform("min"))
    keys = ["workload", "size"] if kind == "strong" else ["workload", "base_size"]
    rows, bases = [], {}
    for key, group in swept.groupby(keys, observed=True):
        workload, size = key
        pool = serial[(serial["workload"] == workload) & (serial["size"] == size)]
        if kind == "strong":
            pool_by_impl = {None: pool}
        else:
            pool_by_impl = {impl: pool[pool["implementation"] == impl] for impl in group["implementation"].unique()}
        labels, group_rows = [], []
        for impl, own in pool_by_impl.items():
            members = group[group["pe"] > 1] if impl is None else group[(group["implementation"] == impl) & (group["pe"] > 1)]
            if own.empty or members.empty:
                continue
            base = own.loc[own["time_s"].idxmin()]
            labels.append(_describe_base(base, "best serial" if kind == "strong" else "one process"))
            case = (f"best serial run of size {int(size)}: {base['implementation']}" if kind == "strong"
                    else f"one process of {impl} (size {int(base['size'])})")
            for _, row in pd.concat([own, members], ignore_index=True).iterrows():
                low, high = _speedup_interval(base, row, times)
                group_rows.append({**row.to_dict(), "group": f"{workload} {size}",
                                   "value": base["time_s"] / row["time_s"], "low": low, "high": high,
                                   "base_case": case, "base_value": float(base["time_s"]), "base_unit": "s"})
        if labels:
            bases[key] = "base case: " + "; ".join(labels)
            rows += [{**row, "base": bases[key]} for row in group_rows]
    return pd.DataFrame(rows), bases


def _speedup_interval(base: pd.Series, row: pd.Series, times: pd.DataFrame | None) -> tuple[float, float]:
    """The CI of base time / row time: over invocations when the iteration times are given, else from both CIs."""
    if times is None:
        return base["ci_low_s"] / row["ci_high_s"], base["ci_high_s"] / row["ci_low_s"]
    groups = []
    for one in (base, row):
        mask = np.ones(len(times), dtype=bool)
        for column in config_columns(times):
            if column in one.index and column in times.columns:
                mask &= (times[column] == one[column]).to_numpy()
        groups.append(invocations(times[mask]))
    try:
        ratio = stats.ratio_ci(groups[0], groups[1], "cost", confidence=float(base["confidence"]))
    except StatisticsError:
        return np.nan, np.nan
    return ratio.ci if ratio.ci else (np.nan, np.nan)


def amdahl_fits(table: pd.DataFrame, times: pd.DataFrame, confidence: float | None = None) -> dict[str, tuple]:
    """Per implementation of one strong-scaling group: (AmdahlFit, speedup of its one-process run).

    The fit (``twelveways.stats.amdahl_fit``) takes one self-relative speedup per program run —
    the implementation's one-process median over that run's median — so its CI reflects the
    run-to-run spread; implementations with too few runs or fewer than
    ``plots.MIN_MODEL_LEVELS`` process counts get no curve.
    """
    fits = {}
    for impl, group in table.groupby("implementation"):
        own = group[group["pe"] == 1]
        if own.empty or group["pe"].nunique() < plots.MIN_MODEL_LEVELS:
            continue  # two process counts fix any one-parameter curve: no evidence for the model
        t1 = float(own["time_s"].min())
        mask = times["implementation"] == impl
        for column in ("workload", "size"):
            mask &= times[column] == group[column].iloc[0]
        mask &= times["pe"].isin(group["pe"])
        per_run = times[mask].groupby(["pe", "run_id"])["time_s"].mean().reset_index()
        try:
            fit = stats.amdahl_fit(per_run["pe"], t1 / per_run["time_s"], confidence=resolve_confidence(confidence))
        except StatisticsError:
            continue
        fits[str(impl)] = (fit, float(own["value"].max()))
    return fits


def roofline_points(summary: pd.DataFrame) -> pd.DataFrame:
    """Arithmetic intensity (flop/byte) and achieved GFlop/s per configuration with both counts known."""
    points = summary.copy()
    points["intensity"] = points["flops_per_iteration"] / points["bytes_per_iteration"]
    points["gflops"] = points["flops_per_iteration"] / points["mean_s"] / 1e9
    return points[np.isfinite(points["intensity"]) & np.isfinite(points["gflops"])]


# --------------------------------------------------------------------------- derived results


def _matching(frame: pd.DataFrame, filters: dict) -> pd.DataFrame:
    """Rows of ``frame`` whose columns equal every filter value (a list: any of its values)."""
    mask = np.ones(len(frame), dtype=bool)
    for column, wanted in filters.items():
        options = wanted if isinstance(wanted, list) else [wanted]
        mask &= frame[column].isin(options).to_numpy() if column in frame else False
    return frame[mask]


def _stop_note(group: pd.DataFrame) -> str:
    """Why a configuration stopped repeating, when not because its CI met the target (R5)."""
    if "stop_reason" not in group:
        return ""
    reasons = group.drop_duplicates("run_id")["stop_reason"].replace("", "unrecorded").value_counts()
    if set(reasons.index) <= {"ci_target_met"}:
        return ""
    return "stop reasons of its runs: " + ", ".join(f"{reason} ×{count}" for reason, count in reasons.items())


def derived_summaries(samples: pd.DataFrame, times: pd.DataFrame, summary: pd.DataFrame,
                      confidence: float | None = None) -> list[dict]:
    """Every per-configuration summary the notebook shows, with filters that select its raw rows.

    Time: over invocations (:func:`configuration_summaries`: n = invocations, the iterations beside it) of
    the per-iteration time, which on
    several ranks is the maximum over ranks of each (run_id, iteration) (``rank_reduction``).  Rate:
    harmonic mean of the runs' own rate rows (PRK's rate per run, one per invocation).
    """
    keys = [c for c in config_columns(times) if c in times.columns]
    confidence = stats.check_confidence(resolve_confidence(confidence))
    metric = next((m for m in TIME_METRICS if (samples["metric"] == m).any()), "time")
    rates = results.summarizable(samples)
    rates = rates[rates["metric"] == "rate"]
    shown = summary.set_index(keys)["rate"] if "rate" in summary else None
    out = []
    for key, record in zip((key for key, _ in times.groupby(keys, observed=True, sort=True)),
                           configuration_summaries(times, confidence, metric)):
        filters = record["filters"]
        out.append(record)
        rate_rows = _matching(rates, filters)
        if rate_rows.empty:
            continue
        rate = derived.mean_summary(rate_rows["value"], metric="rate", unit=str(rate_rows["unit"].iloc[0]),
                                    filters=filters, statistic="harmonic_mean", kind="rate",
                                    rank_reduction="none (one rate row per run)")
        table_rate = float(shown.loc[key]) if shown is not None else math.nan
        if rate["value"] and math.isfinite(table_rate) and not math.isclose(rate["value"], table_rate, rel_tol=1e-6):
            rate["note"] = f"the table's rate (work per iteration over the mean time) is {table_rate:.6g}"
        out.append(rate)
    return out


def derived_rows(tables: dict[str, pd.DataFrame]) -> list[dict]:
    """One speedup (strong) or efficiency (weak) row per configuration, with its base case (R1, R4)."""
    rows = []
    for kind, table in tables.items():
        metric = "speedup" if kind == "strong" else "efficiency"
        for _, r in table.iterrows():
            config = {"benchmark": "prk", **{c: r[c] for c in config_columns(table) if c in r}}
            rows.append(derived.row(config, metric, r["value"], "1", base_case=r["base_case"],
                                    base_value=r["base_value"], base_unit=r["base_unit"], ci=(r["low"], r["high"]),
                                    n=int(r["n"]) if "n" in r and np.isfinite(r["n"]) else -1))
    return rows


def fit_records(group: pd.DataFrame, fits: dict, drawn: dict) -> list[dict]:
    """Amdahl fits of one strong-scaling group (:func:`amdahl_fits`) in the derived-results format."""
    out = []
    for impl, (fit, _scale) in fits.items():
        own = group[group["implementation"] == impl]
        filters = {"benchmark": "prk", "workload": derived.plain(own["workload"].iloc[0]),
                   "size": derived.plain(own["size"].iloc[0]), "implementation": impl,
                   "ranks": sorted(derived.plain(own["ranks"].unique())),
                   "threads": sorted(derived.plain(own["threads"].unique()))}
        out.append(derived.fit_record(
            "amdahl", "serial_fraction", value=fit.serial_fraction, ci=fit.ci, confidence=fit.confidence,
            n_points=fit.n, filters=filters, drawn=impl in drawn, max_speedup=fit.max_speedup, method=fit.method,
            note="one self-relative speedup per program run: the implementation's best one-process median time "
                 "over the run's median time per iteration"))
    return out


def write_derived(path, raw_path, samples: pd.DataFrame, times: pd.DataFrame, summary: pd.DataFrame,
                  tables: dict[str, pd.DataFrame], fits: list[dict], attrs: dict, confidence: float | None = None):
    """Write ``results/derived/prk.nc``: speedups, summaries, fits and this notebook's figure declarations."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    bundle = derived.Derived(
        "prk", [Path(raw_path)], rows=derived_rows(tables), summaries=derived_summaries(samples, times, summary, confidence),
        fits=fits, figures=plots.declared(),
        attrs={"confidence": confidence, "rank_summary": str(attrs.get("rank_summary", "")),
               "metric_kinds": {"speedup": "ratio", "efficiency": "ratio", "time": "cost", "rate": "rate"}})
    return derived.write(path, bundle)
