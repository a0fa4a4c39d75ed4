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
# # Inference: the trained models on MLPerf LoadGen
#
# How the numbers below were made (F9, F12, SC15 rules 8 and 10): the trained checkpoints are
# served by a Python system under test and driven by the real MLPerf LoadGen in its four
# scenarios.  **SingleStream** issues one 1-sample query at a time and reports a tail latency;
# **MultiStream** issues 8-sample queries one at a time and reports the per-query tail latency;
# **Server** issues 1-sample queries with Poisson arrivals and reports the highest target QPS
# LoadGen calls VALID (its latency percentile within the bound, early stopping met): the
# *latency-bounded throughput*; **Offline** issues every sample at once and reports samples per
# second.  AccuracyOnly runs every test sample once and the accuracy script scores the logged
# responses.  Every latency is LoadGen's own (completion minus *scheduled* issue time), read from
# its trace, and LoadGen's VALID/INVALID verdict is carried unchanged: nothing here overrides it.
# Each run's logs stay under `results/inference/<model>-<variant>/<scenario>/`.

# %% tags=["parameters"]
results_dir = "results"
figures_dir = "results/figures/inference"
environment_json = "results/environment.json"
config_json = "results/config.json"
checklist_json = "reports/checklist.json"
derived_path = "results/derived/infer.nc"
confidence = None  # None: the run's config (measurement.confidence); papermill -p confidence 0.9 overrides it

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from twelveways import plots
from twelveways.errors import StatisticsError
from twelveways.infer import analysis
from twelveways.report import tables
from twelveways.report.notebooks import inputs, percent, resolve, settings

where = inputs("inference", results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path)
results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path = where.paths()
if where.note:
    tables.note(where.note, "warning")
measure = settings(config_json, confidence)
confidence = measure.confidence
tables.note(f"Confidence of every interval: {percent(confidence)} ({measure.origin['confidence']}).")
plots.setup()
frame, attrs = analysis.load(resolve(results_dir))
VARIANTS = sorted(frame["variant"].unique())
frame["variant"] = pd.Categorical(frame["variant"], categories=VARIANTS)  # one colour per variant in every figure
figures = resolve(figures_dir)
lat = analysis.latencies(frame)
run_table = analysis.runs(frame)
below = bool(frame.loc[frame["role"].isin(analysis.PERFORMANCE_ROLES), "below_statistical_minimum"].any())
label = attrs.get("statistical_minimum_label", "below the MLPerf statistical minimum")
minimum = attrs.get("statistical_minimum", {}) or {}
if below:
    counts = "; ".join(f"{k} {v:,}" for k, v in (minimum.get("query_counts") or {}).items()) or "not stated"
    tables.note(f"These results are {label}: the runs are shorter than {minimum.get('min_duration_s', 60):g} s "
                f"and/or issue fewer queries than MLPerf's counts ({counts}). LoadGen's verdicts "
                "still apply to the runs as made, but their tail percentiles carry less statistical confidence.",
                kind="warning")
tables.note(f"LoadGen {attrs.get('loadgen_version')}; per-query latencies: {attrs.get('per_query_latency_source')}")

# %% [markdown]
# ## What each scenario reports

# %%
definitions = pd.DataFrame([{"scenario": name, "queries": d["arrival"], "latencies over": d["latency_kind"],
                             "reported number": d["reported"]}
                            for name, d in (attrs.get("scenario_definitions") or {}).items()])
tables.show(definitions, "scenarios as declared in twelveways.infer.scenarios")

# %% [markdown]
# ## Headline numbers per model and precision variant
#
# LoadGen's values, unchanged; where a scenario has several performance runs per variant
# (`infer.performance_runs`), the median over its runs, with their number in the scenario's `runs`
# column (every run is in the run table below).  The Server/Offline loss is `1 - latency-bounded
# QPS / Offline samples/s`, a ratio of two such numbers (never an average of ratios).

# %%
head = analysis.headline(frame)
tables.show(head, "per variant: what each scenario reports, and accuracy")
tables.note("Relative accuracy definition used for the check: " + str(attrs.get("relative_accuracy_definition")))

# %% [markdown]
# ## LoadGen's verdict for every run, one line per criterion
#
# The pilot runs only calibrate what LoadGen is told to expect (they are short on purpose, so
# many are INVALID); the Server search probes are INVALID above the latency-bounded throughput.

# %%
tables.show(run_table, "every LoadGen performance run: result and criteria (Yes/NO)")

# %% [markdown]
# ## Latency CDFs per scenario (R8)
#
# Every recorded query's latency as an exact empirical CDF; p50, p90 and p99 are marked.  For
# Server, the run at the highest VALID target QPS of each variant.  A variant with several
# performance runs in a scenario shows their queries together; the percentile table says how many
# runs each row pools (the claims compare runs, not pooled queries).

# %%
server_best = frame[(frame["metric"] == "latency_bounded_qps")].set_index("variant")["value"]
shown = lat[(lat["role"] == "performance") | ((lat["scenario"] == "Server") &
                                              (lat["target_qps"] == lat["variant"].map(server_best)))]
scenarios = [s for s in ("SingleStream", "MultiStream", "Server", "Offline") if s in set(shown["scenario"])]
scenarios = [s for s in scenarios if s != "Offline"]  # one query per Offline run: no distribution
if scenarios:
    ncols = min(3, len(scenarios))  # three panels a row, one legend above them: drawn for the page
    fig, axes = plt.subplots(-(-len(scenarios) // ncols), ncols, figsize=(4.3 * ncols, 3.4 * -(-len(scenarios) // ncols)),
                             squeeze=False)
    for ax in axes.flat[len(scenarios):]:
        ax.set_visible(False)
    for ax, scenario in zip(axes.flat, scenarios):
        part = shown[shown["scenario"] == scenario]
        plots.latency_cdf(part, "latency_ms", hue="variant", ax=ax, xlabel="latency (ms, log scale)",
                          title=f"{scenario}: per-query latency", hue_order=VARIANTS)
        ax.get_legend().remove()  # each variant keeps its colour and line style in every panel: one legend serves
    plots.shared_legend(fig, list(axes.flat[:len(scenarios)]))
    fig.tight_layout()
    plots.save(fig, figures, "latency_cdf",
               declaration=dict(shows="distribution", lines="connect_levels", x="latency", x_kind="continuous"))
    plt.show()

# %%
latency_notes = attrs.get("ci_notes") or {}
percentile_summaries = analysis.percentile_summaries(shown[shown["scenario"] != "Offline"], confidence,
                                                     str(latency_notes.get("latency", "")))
tables.show(analysis.percentile_table(percentile_summaries),
            f"percentiles of the recorded latencies with exact binomial {percent(confidence)} CIs, n and achieved coverage "
            "(LoadGen's own percentiles are in the run table above)")

# %% [markdown]
# ## Latency against load: quantile regression on the Server runs (R8)
#
# Every Server run (search probes and the load sweep) at its target QPS; lines are statsmodels
# QuantReg fits of p50, p90 and p99 latency on the offered load, VALID and INVALID runs alike
# (the INVALID ones are where the load exceeds what the bound allows).

# %%
server = lat[lat["scenario"] == "Server"].copy()
fits, derived_fits = [], []
variants = [v for v in VARIANTS if (server["variant"] == v).any()]
if variants:
    ncols = min(3, len(variants))
    nrows = -(-len(variants) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 2.8 * nrows), squeeze=False, sharey=True)
    for ax in axes.flat[len(variants):]:
        ax.set_visible(False)
    for ax, variant in zip(axes.flat, variants):
        part = server[server["variant"] == variant]
        sample = part.sample(min(len(part), 4000), random_state=0)
        sns.stripplot(data=sample, x="target_qps", y="latency_ms", native_scale=True, size=1.5, alpha=0.3,
                      color="0.4", ax=ax, jitter=False)
        try:  # fitted on log latency, drawn only over the loads measured (plots.quantile_lines)
            fit = plots.quantile_lines(ax, part["target_qps"], part["latency_ms"], quantiles=(0.5, 0.9, 0.99),
                                       confidence=confidence)
        except StatisticsError as exc:
            ax.set_title(f"{variant}\n(no fit: {exc})", fontsize="small")
            continue
        for q, line in fit.items():
            fits.append({"variant": variant, "quantile": f"p{q * 100:g}", "slope (log10 ms per query/s)": line.slope,
                         f"{percent(confidence)} CI": tuple(line.slope_ci), "intercept (log10 ms)": line.intercept,
                         "n": line.n, "converged": line.converged})
        derived_fits += analysis.quantile_fit_records(part, fit, unit="log10 ms per query/s")
        ax.set_yscale("log")
        ax.set_xlabel("target QPS (offered load)")
        ax.set_ylabel("latency (ms, log scale)")
        ax.set_title(f"{variant} (fit to {next(iter(fit.values())).n:,} queries)", fontsize="small")
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    plots.save(fig, figures, "latency_vs_load",
               declaration=dict(shows="samples", lines="model", x="target_qps", x_kind="continuous"))
    plt.show()
tables.show(pd.DataFrame(fits), "quantile regression of log10 latency on target QPS (statsmodels QuantReg)")
tables.show(analysis.server_probes(frame), "every Server run: offered load, LoadGen's verdict, p99")
tables.note(analysis.search_note(attrs))

# %% [markdown]
# ## What the latency bound costs: Server against Offline throughput

# %%
tp = head[["variant", "Offline samples/s", "Server latency-bounded QPS"]].melt(
    id_vars="variant", var_name="scenario", value_name="samples per second")
if tp["samples per second"].notna().any():
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + plots.CATEGORY_HEIGHT * 1.5 * len(VARIANTS)))
    # points, not bars: a bar's length means nothing on a log axis; variants on the y axis, one label a line
    sns.stripplot(data=tp, y="variant", x="samples per second", hue="scenario", order=VARIANTS, dodge=True,
                  jitter=False, size=8, ax=ax, orient="h")
    ax.set_xscale("log")
    ax.set_xlabel("samples per second (log scale)")
    ax.set_ylabel("")
    ax.set_title("Offline throughput vs latency-bounded Server throughput")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plots.save(fig, figures, "server_vs_offline",
               declaration=dict(shows="summary", lines="none", x="variant", x_kind="categorical"))
    plt.show()
missing = head.loc[head["Server latency-bounded QPS"].isna(), "variant"].tolist()
if missing:
    tables.note(f"No VALID Server run for {', '.join(missing)}: no target QPS met the latency bound "
                "(see the Server runs above); their latency-bounded throughput is unknown, not zero.", kind="warning")

# %% [markdown]
# ## Accuracy, throughput and tail latency: the Pareto front (F12)
#
# A variant is on the front when no other variant is at least as accurate, at least as fast
# (Offline samples/s) and at least as quick in the tail (SingleStream p90 latency) and better in
# one of them.  Comparing a variant with anything off the front is a badly chosen comparison point.
# Only variants whose SingleStream and Offline runs LoadGen called VALID compete.

# %%
front_table = head[["variant", "workload", "precision", "parameters", "accuracy", "Offline samples/s",
                    "SingleStream p90 latency (ms)", "SingleStream LoadGen result", "Offline LoadGen result"]].copy()
eligible = analysis.all_valid(front_table["SingleStream LoadGen result"]) & \
    analysis.all_valid(front_table["Offline LoadGen result"])
on_front = analysis.pareto(front_table[eligible], ["accuracy", "Offline samples/s"], ["SingleStream p90 latency (ms)"])
front_table["on Pareto front"] = "not eligible (INVALID run)"
front_table.loc[eligible, "on Pareto front"] = on_front.map({True: "yes", False: "no"})
points = front_table[eligible]
if len(points) and points[["accuracy", "Offline samples/s"]].notna().all(axis=None):
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    sns.scatterplot(data=points, x="Offline samples/s", y="accuracy", hue="workload", style="precision",
                    size="SingleStream p90 latency (ms)", sizes=(40, 300), ax=ax)
    for _, row in points[points["on Pareto front"] == "yes"].iterrows():
        ax.annotate("front", (row["Offline samples/s"], row["accuracy"]), textcoords="offset points", xytext=(0, 7),
                    ha="center", fontsize="x-small")  # above its point: clear of the legend at the right
    bars = analysis.accuracy_intervals(frame, confidence).reindex(points["variant"])
    ax.errorbar(points["Offline samples/s"], points["accuracy"], yerr=[points["accuracy"] - bars["low"].to_numpy(),
                bars["high"].to_numpy() - points["accuracy"]], fmt="none", ecolor="0.5", elinewidth=1, capsize=3,
                zorder=0, label=f"{percent(confidence)} binomial CI (test set)")
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
    ax.set_xlabel("Offline samples per second")
    ax.set_title("accuracy (with its test-set CI) vs throughput; marker size = SingleStream p90 latency")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plots.save(fig, figures, "pareto",
               declaration=dict(shows="summary", lines="none", x="Offline samples/s", x_kind="continuous"))
    plt.show()
    if bars["items"].notna().any():
        step = 1 / bars["items"].max()
        tables.note(f"One test item moves an accuracy by {step:.2%} (test set of {bars['items'].max():.0f} items); "
                    "accuracies whose binomial intervals overlap are not shown to differ, so where the front turns on "
                    "accuracy alone it is not decided by these data.")
tables.show(front_table, "accuracy, throughput and tail latency per variant")

# %% [markdown]
# ## Inference cost beside training cost (F9)
#
# The training stage's time to quality of each checkpoint, the Offline time per sample, and how
# many inferences cost as much as training did.

# %%
tables.show(analysis.costs(frame), "training vs inference cost per variant")

# %% [markdown]
# ## How LoadGen was configured
#
# What LoadGen was told to expect, from short pilot runs (these set how many queries it
# pre-generates; they are not results), and the stage's configuration.

# %%
calibration = pd.DataFrame([{"variant": k, **{kk: vv for kk, vv in v.items() if kk != "runner_only"}}
                            for k, v in (attrs.get("calibration") or {}).items()])
tables.show(calibration, "calibration per variant")
tables.show(tables.key_value(attrs.get("infer_config") or {}), "infer configuration")

# %% [markdown]
# ## What this analysis derived
#
# The Server/Offline throughput ratios (the loss above is one minus the ratio) and the accuracy
# against each model's fp32 variant, each with its base and absolute value, the latency
# percentiles with their CIs, n and coverage, the quantile-regression fits and each figure's
# declaration are written as derived results so the checklist judges what this page shows.

# %%
if derived_path:
    written = analysis.write_derived(resolve(derived_path), resolve(results_dir) / "inference.nc", frame, head,
                                     percentile_summaries, derived_fits, confidence)
    tables.note(f"Derived results: {written.name} ({len(percentile_summaries)} percentile summaries, "
                f"{len(derived_fits)} fits, analysis version {analysis.derived.ANALYSIS_VERSION}).")
