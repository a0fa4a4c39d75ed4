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
# # Environment
#
# Everything about the machine and the software that produced these results, as captured at
# the start of the run (SC15 rule 9: all factors, levels and the full setup documented).
# Fields that could not be read say why.  The full capture is `results/environment.json`;
# long lists are folded and open with a click.

# %% tags=["parameters"]
results_dir = "results"
figures_dir = "results/figures/environment"
environment_json = "results/environment.json"
config_json = "results/config.json"
checklist_json = "reports/checklist.json"
derived_path = ""  # this notebook derives no results (results/derived/ is for the benchmark families)

# %%
from twelveways.report import tables
from twelveways.report.notebooks import inputs, resolve

where = inputs("environment", results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path)
results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path = where.paths()
if where.note:
    tables.note(where.note, "warning")
capture = tables.read_json(resolve(environment_json), "environment capture")
config_path = resolve(config_json)
config = tables.read_json(config_path, "config dump") if config_path.is_file() else None

# %% [markdown]
# ## Summary

# %%
import pandas as pd

from twelveways.env import render as env_render

tables.show(pd.DataFrame(env_render.summary_rows(capture), columns=["", "value"]), collapse_after=60)

# %% [markdown]
# ## Start and end of the run
#
# The machine's load when the run started and when it ended, and whether anything in the
# environment changed in between (an end-of-run capture, `environment-end.json`, compared with
# the start).

# %%
end_path = resolve(environment_json).with_name("environment-end.json")
if not end_path.is_file():
    tables.note(f"No end-of-run capture ({end_path.name}) beside the environment capture: "
                "the load at the end and any change during the run are not recorded here.")
else:
    end = tables.read_json(end_path, "end-of-run environment capture")
    loads = [{"when": label, **{k: v for k, v in tables.flatten(snapshot)}}
             for label, snapshot in env_render.in_time_order(end.get("load") or {})]
    if loads:
        tables.show(pd.DataFrame(loads), "load at start and end")
    tables.note(*env_render.changed_during_run(capture, end))

# %% [markdown]
# ## The capture, part by part
#
# Every field as captured, folded by part (click a part to open it).

# %%
tables.show_parts(tables.sections(capture))

# %% [markdown]
# ## The configuration of this run
#
# The validated configuration with every default filled in; each factor and level that the
# benchmarks swept is listed here.

# %%
if config is None:
    tables.note(f"No config dump at {config_path}: the factors of this run are not documented.", "warning")
else:
    tables.show(tables.key_value(config, "key", "value"), "configuration", collapse_after=80)
