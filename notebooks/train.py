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
# # Training: time to quality under MLPerf rules
#
# How the numbers below were made (SC15 rule 10, MLPerf Training rules): every run starts its
# clock (`run_start`) when it first touches the data on disk and stops it (`run_stop`) at the
# end of the first evaluation on the validation split that reaches the quality target; model
# creation and initialisation happen before `run_start` and are recorded as `init_time`, not
# hidden. Each configuration runs with several seeds; its **score** is MLPerf's olympic mean
# (drop the fastest and the slowest run, arithmetic mean of the rest; a run that never reached
# the target counts as the slowest, two such runs make the score invalid). Every run wrote an
# MLPerf `mllog` log that was checked with MLPerf's compliance checker and a ruleset shipped
# with the project. Every sample is drawn; measured configurations are not joined by lines
# (rule 12); the lines in the curve figures join the epochs of one run.

# %% tags=["parameters"]
results_dir = "results"
figures_dir = "results/figures/train"
environment_json = "results/environment.json"
config_json = "results/config.json"
checklist_json = "reports/checklist.json"
derived_path = "results/derived/train.nc"
confidence = None  # None: the run's config (measurement.confidence); papermill -p confidence 0.9 overrides it

# %%

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from twelveways import plots
from twelveways.report import tables
from twelveways.report.notebooks import inputs, percent, resolve, settings
from twelveways.train import analysis as ta

where = inputs("train", results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path)
results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path = where.paths()
if where.note:
    tables.note(where.note, "warning")
measure = settings(config_json, confidence)
confidence = measure.confidence
tables.note(f"Confidence of every interval: {percent(confidence)} ({measure.origin['confidence']}).")
plots.setup()
samples, attrs = ta.load(resolve(results_dir))
runs = ta.per_run(samples)
score_table = ta.scores(attrs)
epochs = ta.curves(samples)
targets = attrs.get("quality_targets", {})
target_text = "; ".join(f"{name} {value:g}" if isinstance(value, (int, float)) else f"{name} {value}"
                        for name, value in targets.items()) if isinstance(targets, dict) else str(targets)
figdir = resolve(figures_dir) if figures_dir else None


def marked(frame, value, spent):
    """Runs that reached the target plot their value; the others their time spent, marked 'x'."""
    ok = frame[frame["converged"] == 1].assign(plotted=lambda d: d[value], outcome="reached target")
    bad = frame[frame["converged"] != 1].assign(plotted=lambda d: d[spent], outcome="missed target")
    return pd.concat([ok, bad])


# %% [markdown]
# ## What was measured

# %%
overview = (runs.groupby(["role"])
            .agg(configurations=("config_id", "nunique"), runs=("run_id", "size"),
                 reached_target=("converged", "sum"), compliant_logs=("compliant", "sum"))
            .reset_index())
tables.show(overview, "training runs (role 'tuning' = learning-rate trials, 'final' = reported)")
compliance = attrs.get("compliance", {})
tables.note(f"MLPerf compliance checker: {compliance.get('passed')} of {compliance.get('checked')} mllog logs pass "
            f"the shipped ruleset ({compliance.get('ruleset')}); quality targets (validation accuracy): {target_text}; "
            f"timing: {attrs.get('timing_rules')}")
if not score_table.empty:
    shown = score_table[["config_id", "study", "score_s", "valid", "n_runs", "n_converged", "reason"]]
    tables.show(shown.sort_values("config_id"), "MLPerf olympic mean time to train per final configuration (s)")

# %% [markdown]
# ## F1: scaling that sacrifices accuracy — time to quality by batch size
#
# Throughput (samples per second of step time) rises with the global batch size; whether the
# target is reached sooner is a different question. Learning rates follow the recorded scaling
# rule. Runs that missed the target within the epoch budget are drawn with an `x` at the time
# they spent.

# %%
batch = ta.in_study(runs, "batch_size")
if not batch.empty:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))  # the page's width: text at the size it was drawn
    order = sorted(batch["batch_size"].unique())
    plotted = marked(batch, "time_to_train", "time_to_train_spent")
    sns.stripplot(data=plotted, x="batch_size", y="plotted", hue="outcome", order=order, ax=axes[0],
                  hue_order=["reached target", "missed target"], jitter=0.15, size=5)
    axes[0].set(yscale="log", ylabel="time to train (s, log)", xlabel="global batch size",
                title="time to the quality target")
    plots.distribution(batch, "batch_size", "epochs_to_target", order=order, ax=axes[1], ylabel="epochs to target",
                       title="epochs to the target (reached runs)")
    plots.distribution(batch, "batch_size", "throughput", order=order, ax=axes[2], log=True,
                       ylabel="samples/s (log)", title="training throughput")
    rule = batch["lr_rule"].iloc[0]
    fig.suptitle(f"F1: batch-size sweep, {batch['workload'].iloc[0]} on {batch['dataset'].iloc[0]}, "
                 f"lr scaled by the '{rule}' rule", y=1.02)
    fig.tight_layout()  # each panel's labels clear of its neighbour
    plots.save(fig, figdir, "f1-batch-size",
               declaration=dict(shows="samples", lines="none", x="batch_size", x_kind="categorical"))
    plt.show()
    tables.show(ta.batch_sweep(runs), "F1 per batch size (medians over seeds)")

# %%
if not batch.empty:
    curve = epochs[epochs["run_id"].isin(batch["run_id"])]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    sns.lineplot(data=curve, x="epoch", y="val_accuracy", hue="batch_size", units="run_id", estimator=None,
                 palette="viridis", ax=ax, linewidth=1, alpha=0.8)
    stated = targets.get(batch["dataset"].iloc[0]) if isinstance(targets, dict) else None
    target = batch["target"].iloc[0] if "target" in batch else stated
    if target is not None:  # the configured quality target of this data set: no line where none was stated
        ax.axhline(target, color="k", ls="--", lw=1, label="target")
    ax.set(ylabel="validation accuracy", title="validation accuracy per epoch, one line per run")
    ax.legend(title="batch size", fontsize="small")
    plots.save(fig, figdir, "f1-curves",
               declaration=dict(shows="samples", lines="connect_levels", x="epoch", x_kind="continuous"))
    plt.show()

# %% [markdown]
# ## F1/F2: data parallelism over MPI, and a per-iteration approximation
#
# Strong scaling keeps the global batch (each rank takes half); weak scaling keeps the per-rank
# batch (the global batch doubles, and the learning rate with it). The top-k run sends only a
# fraction of each gradient (with error feedback): the bytes per iteration fall sharply — the
# per-iteration number one might report — while the end-to-end time to quality is what counts.

# %%
speed = ta.speedups(runs, score_table, confidence)
if not speed.empty:
    tables.show(speed.drop(columns=["per_iteration_ci"]), "speedups against the 1-rank base case (ratios of summaries)")
    long = speed.melt(id_vars=["config_id", "ranks", "scaling", "sparsification"],
                      value_vars=["per_iteration_speedup", "comm_reduction", "end_to_end_speedup"],
                      var_name="measure", value_name="factor").dropna()
    long["configuration"] = (long["ranks"].astype(str) + " ranks " + long["scaling"] + " "
                             + long["sparsification"].where(long["sparsification"] != "none", "dense"))
    fig, ax = plt.subplots(figsize=(9, 1.2 + plots.CATEGORY_HEIGHT * 2 * long["configuration"].nunique()))
    # configurations on the y axis, one label a line
    sns.stripplot(data=long, y="configuration", x="factor", hue="measure", dodge=True, size=8, ax=ax, jitter=False,
                  orient="h")
    ax.set(xscale="log", xlabel="factor over the base (log; 1 = no change)", ylabel="",
           title=f"F2: base case = {speed['base_case'].iloc[0].split(',')[0]}, "
                 f"{speed['base_time_per_step_s'].iloc[0] * 1e3:.2f} ms/step, score {speed['base_score_s'].iloc[0]:.3f} s")
    ax.legend(fontsize="small")
    plots.save(fig, figdir, "f2-per-iteration-vs-end-to-end",
               declaration=dict(shows="summary", lines="none", x="configuration", x_kind="categorical"))
    plt.show()

# %% [markdown]
# ## F3: training loss without generalisation — train, validation and test accuracy
#
# Every model family and size on every task, every seed: training accuracy, validation accuracy
# at the stop (what the target was checked on) and accuracy on the held-out test split.

# %%
gen = ta.generalisation(runs)
if not gen.empty:
    grid = sns.catplot(data=gen, x="workload", y="accuracy", hue="split", col="dataset", kind="strip",
                       dodge=True, height=4, aspect=1.3, sharex=False, hue_order=["train", "val", "test"])
    grid.set_titles("F3: {col_name}")
    plots.save(grid.figure, figdir, "f3-train-val-test",
               declaration=dict(shows="samples", lines="none", x="workload", x_kind="categorical"))
    plt.show()
    gap = (ta.in_study(runs, "families").assign(gap=lambda d: d["train_accuracy"] - d["test_accuracy"])
           .groupby(["dataset", "workload"]).agg(train=("train_accuracy", "median"), test=("test_accuracy", "median"),
                                                 gap_points=("gap", lambda g: 100 * g.median()),
                                                 parameters=("n_parameters", "first")).reset_index())
    tables.show(gap, "median train and test accuracy and their gap (percentage points)")

# %% [markdown]
# ## F4: hidden tuning cost — every learning-rate trial

# %%
trials, totals = ta.tuning(attrs)
if not trials.empty:
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.6))
    outcome = trials["converged"].astype(float).map({1.0: "reached the target", 0.0: "missed the target"})
    sns.stripplot(data=trials.assign(outcome=outcome), x="lr", y="cost_s", hue="outcome", size=8, ax=axes[0],
                  jitter=False)
    axes[0].legend(title="trial", fontsize="small")  # named outcomes, never a bare "1"
    axes[0].set(ylabel="trial cost (s, whole run)", xlabel="learning rate", title="cost of each trial")
    parts = pd.DataFrame({"what": ["all tuning trials", "reported final score"],
                          "seconds": [totals["total_tuning_cost_s"], totals["final_score_s"] or 0.0]})
    sns.barplot(data=parts, x="what", y="seconds", ax=axes[1])
    axes[1].set(xlabel="", ylabel="s", title=f"F4: tuning cost vs the reported result (chosen lr {totals['chosen_lr']})")
    fig.tight_layout()  # each panel's labels clear of its neighbour
    plots.save(fig, figdir, "f4-tuning-cost",
               declaration=dict(shows="samples", lines="none", x="lr", x_kind="categorical"))
    plt.show()
    tables.show(trials, f"learning-rate trials ({totals['criterion']})")

# %% [markdown]
# ## F5: ops per dtype as executed, and what bf16 autocast did

# %%
ops = ta.ops_by_dtype(samples)
precision = ta.in_study(runs, "precision")
if not precision.empty:
    chosen = ops[ops["config_id"].isin(precision["config_id"])]
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.6))
    # points, not bars: a bar's length means nothing on a log axis
    sns.stripplot(data=chosen, x="precision", y="ops_per_step", hue=chosen["op_kind"] + " " + chosen["op_dtype"],
                  dodge=True, jitter=False, size=8, ax=axes[0])
    axes[0].set(yscale="log", ylabel="ops per step (log scale)", title="F5: ops of one step by kind and dtype (counted)")
    axes[0].legend(title="op kind, dtype as executed", fontsize="small")
    plots.distribution(precision, "precision", "time_to_train", ax=axes[1], ylabel="time to train (s)",
                       title="time to the target")
    fig.tight_layout()  # each panel's labels clear of its neighbour
    plots.save(fig, figdir, "f5-precision",
               declaration=dict(shows="samples", lines="none", x="precision", x_kind="categorical"))
    plt.show()
    tables.show(precision.groupby("precision").agg(flop_rate=("flop_rate", "median"), test_accuracy=("test_accuracy", "median"),
                                                   time_to_train=("time_to_train", "median")).reset_index(),
                "medians per precision (flop rate counts matmul/conv flops in the dtype they ran in)")

# %% [markdown]
# ## F10: I/O counted or not — data read inside vs before the timed region

# %%
io = ta.in_study(runs, "io")
if not io.empty:
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.6))
    plots.distribution(io, "variant", "time_to_train", ax=axes[0], ylabel="time to train (s)", title="F10: time to train")
    plots.distribution(io, "variant", "data_load_time", ax=axes[1], log=True, ylabel="data read + decode (s, log)",
                       title="reading the data (inside the clock only for 'io')")
    fig.tight_layout()  # each panel's labels clear of its neighbour
    plots.save(fig, figdir, "f10-io",
               declaration=dict(shows="distribution", lines="none", x="variant", x_kind="categorical"))
    plt.show()

# %% [markdown]
# ## F11: input size — flop rate against quality

# %%
size = ta.in_study(runs, "input_size")
if not size.empty and size["input_size"].nunique() > 1:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))  # the page's width: text at the size it was drawn
    plots.distribution(size, "input_size", "flop_rate", ax=axes[0], log=True, ylabel="flop/s (log)", title="F11: flop rate")
    plots.distribution(size, "input_size", "test_accuracy", ax=axes[1], ylabel="test accuracy", title="quality")
    plots.distribution(size, "input_size", "time_to_train", ax=axes[2], ylabel="time to train (s)", title="time to train")
    fig.tight_layout()  # each panel's labels clear of its neighbour
    plots.save(fig, figdir, "f11-input-size",
               declaration=dict(shows="distribution", lines="none", x="input_size", x_kind="categorical"))
    plt.show()

# %% [markdown]
# ## Every run
#
# Raw per-run values, for readers who want to recompute any summary above.

# %%
columns = ["config_id", "seed", "status", "time_to_train", "epochs_to_target", "init_time", "data_load_time",
           "test_accuracy", "train_accuracy", "throughput", "compliant"]
tables.show(runs[[c for c in columns if c in runs]].sort_values(["config_id", "seed"]), "every run")

# %% [markdown]
# ## Median per configuration, and what this analysis derived
#
# Each final configuration's median over its seeded runs with the exact distribution-free CI where
# the number of runs allows one at this confidence (none at five runs and 95%: the sample range
# covers only 93.75%), n and the CI's achieved coverage.  The seeds are the replicates: each is a
# separate training run from its own initialisation and data order, so n counts seeds (epochs and
# steps describe one run and never count).  These medians, the speedups above with
# their base cases and absolute values, and each figure's declaration are written as derived
# results so the checklist judges what this page shows.

# %%
medians = ta.config_medians(samples, runs, confidence, attrs.get("ci_notes"))
tables.show(ta.median_table(medians), f"median per final configuration over its seeds ({percent(confidence)} CI "
            "where n allows; n = seeds)",
            collapse_after=20)
if derived_path:
    written = ta.write_derived(resolve(derived_path), resolve(results_dir) / "train.nc", samples, runs, speed,
                               medians, confidence)
    tables.note(f"Derived results: {written.name} ({3 * len(speed)} ratio rows with their base cases, "
                f"{len(medians)} summaries, analysis version {ta.derived.ANALYSIS_VERSION}).")
