# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python (twelveways)
#     language: python
#     name: twelveways
# ---

# %% [markdown]
# # Parallel Research Kernels
#
# How the numbers below were made (SC15 rule 10): every rank times every iteration with a wall
# clock after a barrier; the time of an iteration is the **maximum over ranks**; iteration 0 is
# the warm-up and is never summarized; runs whose self-validation failed are never summarized.
# A configuration's time is summarized **over its invocations** (separate program runs): each
# invocation's mean time per iteration, then the geometric mean of those with the t interval of their
# logs at the confidence stated below, n = invocations (the iterations of one invocation share its
# frequency, placement and neighbours, so they describe that invocation and never count as
# replicates).  This is the number and interval the claims and `twelveways compare` use.  Every
# iteration stays visible as a distribution.  Its rate is PRK's rate, the work per iteration over the
# **arithmetic mean** time, which is the harmonic mean of the per-iteration rates (rule 3).
# Speedups are ratios of these times with the replicate-level CI of the ratio, never averages of
# ratios (rule 4), and always name their base case with its absolute time (rule 1).  Every sample is
# drawn; measured points are not joined
# by lines (rule 12).

# %% tags=["parameters"]
results_dir = "results"
figures_dir = "results/figures/prk"
environment_json = "results/environment.json"
config_json = "results/config.json"
checklist_json = "reports/checklist.json"
derived_path = "results/derived/prk.nc"
confidence = None  # None: the run's config (measurement.confidence); papermill -p confidence 0.9 overrides it
ci_target = None  # None: the run's config (measurement.ci_target), a fraction of the estimate

# %%
import math

import matplotlib.pyplot as plt
import pandas as pd

from twelveways import plots
from twelveways.prk import analysis as pa
from twelveways.report import tables
from twelveways.report.notebooks import inputs, percent, resolve, settings

where = inputs("prk", results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path)
results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path = where.paths()
if where.note:
    tables.note(where.note, "warning")
measure = settings(config_json, confidence, ci_target)
confidence, ci_target = measure.confidence, measure.ci_target
tables.note(measure.sentence())
plots.setup()
samples, bound_rows, attrs = pa.load(resolve(results_dir))
times = pa.iteration_times(samples)
summary = pa.summarize(times, confidence)
bound_table = pa.bounds(bound_rows)
summary["percent_of_bound"] = pa.percent_of_bound(summary, bound_table)
for frame in (times, summary):
    frame["config"] = frame["implementation"] + " " + frame["ranks"].astype(str) + "r×" + frame["threads"].astype(str) + "t"
    several = frame.groupby("workload")["size"].transform("nunique") > 1
    frame["label"] = frame["config"].where(~several, frame["config"] + " n=" + frame["size"].map(plots.compact))
workloads = sorted(times["workload"].unique())


def grid(n, width=6.0, height=3.6, ncols=2):
    """A figure with n panels, two per row."""
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


# %% [markdown]
# ## What was measured

# %%
runs = samples.groupby("run_id").agg(workload=("workload", "first"), valid=("valid", "all"))
overview = (times.groupby("workload")
            .agg(configurations=("config", "nunique"), sizes=("size", "nunique"), runs=("run_id", "nunique"),
                 timed_iterations=("time_s", "size"))
            .reset_index())
invalid_runs = runs[~runs["valid"]].groupby("workload").size()
overview["invalid runs (excluded)"] = overview["workload"].map(invalid_runs).fillna(0).astype(int)
if "flags" in samples.columns:  # timer checks of the measurement core (interval vs resolution, overhead)
    flagged = samples[(samples["metric"] == "time") & (samples["iteration"] > 0) & (samples["flags"].astype(str) != "")]
    overview["timer-flagged iterations"] = overview["workload"].map(flagged.groupby("workload").size()).fillna(0).astype(int)
tables.show(overview, "kernels, configurations and samples")
dirty = " (uncommitted changes)" if str(attrs.get("git_dirty")) == "1" else ""
tables.note(f"Results file: schema {attrs.get('schema_version')}, environment {str(attrs.get('environment_hash'))[:12]}, "
            f"project commit {str(attrs.get('git_commit'))[:12]}{dirty}.")

# %% [markdown]
# ## Every timed iteration
#
# One panel per kernel, one row per configuration (implementation, ranks r × threads t, and n = problem
# size where a kernel ran at several); each dot is one timed iteration (warm-up excluded), over a
# violin (eight or more samples) or a box (fewer).

# %%
per_workload = times.groupby("workload")["label"].nunique().reindex(workloads)
fig, axes = plots.category_panels(per_workload.tolist(), ncols=3)  # labels on the y axis: one line each
for ax, workload in zip(axes, workloads):
    part = times[times["workload"] == workload].sort_values("label")
    spread = part["time_s"].max() / part["time_s"].min()
    plots.distribution(part, x="label", y="time_s", ax=ax, log=spread > 20, ylabel="time per iteration (s)",
                       title=workload, horizontal=True)
fig.tight_layout()
plots.show(fig, figures_dir, "distributions",
           declaration=dict(shows="distribution", lines="none", x="configuration", x_kind="categorical"))

# %% [markdown]
# ## Time per configuration over invocations, with its CI
#
# n counts invocations; the iterations behind them are beside it.  A configuration run once has no
# interval: its iterations describe one invocation.

# %%
tables.show(pa.shown_table(summary), f"per configuration (time per iteration: the statistic of its invocation means, "
            f"{percent(confidence)} CI over invocations)", collapse_after=40)
target = ci_target * 100
wide = summary[summary["ci_halfwidth_pct"] > target]
if len(wide):
    tables.note(f"{len(wide)} of {len(summary)} configurations have a CI over invocations wider than ±{target:g}% "
                "(the sample or time budget ran out first; see the stop reasons).", "warning")
single = int(summary["ci_low_s"].isna().sum())
if single:
    tables.note(f"{single} of {len(summary)} configurations ran once: no interval over invocations.")

# %%
fig, axes = plots.category_panels(summary.groupby("workload")["label"].nunique().reindex(workloads).tolist(), ncols=3)
for ax, workload in zip(axes, workloads):
    part = summary[summary["workload"] == workload].sort_values("label")
    plots.ci_bars(part, x="label", estimate="time_s", low="ci_low_s", high="ci_high_s", ax=ax,
                  log=part["time_s"].max() / part["time_s"].min() > 20, horizontal=True,
                  ylabel="time per iteration (s)", title=f"{workload}: {percent(confidence)} CI over invocations")
fig.tight_layout()
plots.show(fig, figures_dir, "time-ci",
           declaration=dict(shows="summary", lines="none", x="configuration", x_kind="categorical"))

# %% [markdown]
# ## Are the invocation means log-normal? (rule 6)
#
# The interval over invocations is a t interval of the logs of the invocation means: it assumes them
# roughly normal.  Q–Q plots of those logs against the normal distribution, for the configuration with
# the most invocations of each kernel, with the Shapiro–Wilk p-value; below, how many configurations
# Shapiro–Wilk rejects after Holm's correction over all tested configurations (tested one by one at
# 5 %, some would be rejected by chance alone).

# %%
largest = summary.sort_values("n", ascending=False).groupby("workload").head(1)
fig, axes = grid(len(largest), width=4.2, height=3.0, ncols=3)
for ax, (_, row) in zip(axes, largest.iterrows()):
    mask = ((times["workload"] == row["workload"]) & (times["config"] == row["config"]) & (times["size"] == row["size"]))
    plots.qq(pa.log_invocation_means(times[mask]), ax=ax, ylabel="log of invocation mean time",
             title=f"{row['workload']} {row['config']}, size {row['size']}")
fig.tight_layout()
plots.show(fig, figures_dir, "qq", declaration=dict(shows="summary", lines="model", x="normal quantiles",
                                                      x_kind="continuous"),
           fold="Q–Q plots of the log invocation means against the normal distribution, one per kernel")
tables.note(pa.normality_sentence(summary))

# %% [markdown]
# ## Scaling (rules 1 and 11)
#
# Strong scaling keeps the problem size and adds processing elements; the base case is the best
# serial run of that size, whatever its implementation, and its absolute time is printed on the
# figure.  Weak scaling grows the problem with the processing elements; the base case is each
# implementation's own one-process run.  The dashed line is ideal scaling; dotted lines are
# Amdahl's law fitted to each implementation's own runs (a model, so a line is valid), with the
# CI of the serial fraction.

# %%
scaling_tables, derived_fits = {}, []
for kind in ("strong", "weak"):
    table, bases = pa.scaling_table(summary, kind, times)
    if table.empty:
        tables.note(f"No {kind}-scaling sweep in these results (needs one-process runs and at least two "
                    "processing-element counts of the same kernel).")
        continue
    scaling_tables[kind] = table
    groups = list(table.groupby("group"))
    lines = table.groupby("group")["base"].first().map(lambda base: len(base.split("; "))).max()
    fig, axes = grid(len(groups), width=4.4, height=2.9 + 0.3 * lines, ncols=3)  # base cases printed under each panel
    fit_rows = []
    for ax, (group, part) in zip(axes, groups):
        fits = pa.amdahl_fits(part, times, confidence) if kind == "strong" else {}
        # a fit whose CI spans most of [0, 1] says nothing: listed below, not drawn (rule 12)
        drawn = {impl: value for impl, value in fits.items() if value[0].ci[1] - value[0].ci[0] < 0.5}
        fit_rows += [{"group": group, "implementation": impl, "serial fraction": fit.serial_fraction,
                      "CI low": fit.ci[0], "CI high": fit.ci[1], "runs": fit.n, "max speedup 1/f": fit.max_speedup,
                      "drawn": impl in drawn} for impl, (fit, _) in fits.items()]
        derived_fits += pa.fit_records(part, fits, drawn)
        plots.scaling(part, x="pe", y="value", low="low", high="high", hue="implementation", kind=kind,
                      base_label=part["base"].iloc[0], amdahl_fits=drawn, ax=ax, title=f"{kind} scaling: {group}",
                      hue_order=sorted(summary["implementation"].unique()), legend=False, wrap=60)
    plots.shared_legend(fig, axes)  # one colour per implementation in every panel
    fig.tight_layout()
    drew_model = kind == "strong" and any(row["drawn"] for row in fit_rows)
    plots.show(fig, figures_dir, f"scaling-{kind}", declaration=dict(
        shows="summary", lines="model" if drew_model else "ideal", x="processing elements", x_kind="continuous"))
    shown = table[["group", "config", "pe", "n", "time_s", "value", "low", "high"]].rename(
        columns={"value": "speedup" if kind == "strong" else "efficiency", "n": "invocations (n)"})
    tables.show(shown, f"{kind} scaling (ratios of the times over invocations; {percent(confidence)} CI of the ratio "
                "over invocations)", collapse_after=40)
    if fit_rows:
        tables.show(pd.DataFrame(fit_rows), f"Amdahl fits, one self-relative speedup per run ({percent(confidence)} CI)",
                    collapse_after=40)

# %% [markdown]
# ## Bounds: how close to this machine's limits? (rule 11)
#
# Memory bandwidth and peak flop rate as measured on this machine by the workflow, the roofline
# they imply, and each configuration's rate as a percentage of the bound that applies to it
# (bandwidth for byte-rate kernels, min(peak, intensity × bandwidth) for flop-rate kernels).

# %%
if bound_table.empty:
    tables.note("No bounds were measured in these results: percent of bound and the roofline are not available.", "warning")
else:
    tables.show(bound_table.rename(columns={"value": "bound (GB/s or GFlop/s)"}), "measured bounds")
    points = pa.roofline_points(summary)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    plots.roofline(points, "intensity", "gflops", bandwidth=pa.best_bound(bound_table, "bandwidth"),
                   peak=pa.best_bound(bound_table, "flops"), hue="workload", style="config", ax=ax)
    plots.show(fig, figures_dir, "roofline", declaration=dict(shows="summary", lines="model",
                                                             x="arithmetic intensity", x_kind="continuous"))
    ranked = summary[["workload", "size", "config", "rate", "rate_unit", "percent_of_bound"]].sort_values(
        ["workload", "percent_of_bound"], ascending=[True, False])
    tables.show(ranked, "percent of the measured bound", collapse_after=40)

# %% [markdown]
# ## What this analysis derived
#
# The speedups and efficiencies above (with their base cases and absolute times), every
# per-configuration summary (statistic, CI, CI method, n, achieved coverage), the Amdahl fits and
# each figure's declaration are written as derived results in the results schema, so the
# checklist judges what this page shows.

# %%
if derived_path:
    written = pa.write_derived(resolve(derived_path), resolve(results_dir) / "prk.nc", samples, times, summary,
                               scaling_tables, derived_fits, attrs, confidence)
    tables.note(f"Derived results: {written.name} ({sum(len(t) for t in scaling_tables.values())} speedup and "
                f"efficiency rows, {len(derived_fits)} fits, analysis version {pa.derived.ANALYSIS_VERSION}).")
