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
# # Checklist in detail
#
# Each SC15 rule (R1–R12) and each data-science fallacy (F1–F12) checked against this run's
# data: its status, the evidence (numbers and where they came from) and a recommendation.
# The summary at the top of the report lists the same checks one line each.

# %% tags=["parameters"]
results_dir = "results"
figures_dir = "results/figures/checklist"
environment_json = "results/environment.json"
config_json = "results/config.json"
checklist_json = "reports/checklist.json"
derived_path = ""  # this notebook derives no results (results/derived/ is for the benchmark families)

# %%
import matplotlib.pyplot as plt

from twelveways import plots
from twelveways.report import checklistview, tables
from twelveways.report.notebooks import inputs, resolve

where = inputs("checklist", results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path)
results_dir, figures_dir, environment_json, config_json, checklist_json, derived_path = where.paths()
if where.note:
    tables.note(where.note, "warning")
plots.setup()
data = tables.read_json(resolve(checklist_json), "checklist")
verdict, checks = checklistview.normalize(data)

# %% [markdown]
# ## Status of the checks

# %%
counts = checks["status"].replace("", "unknown").map(checklistview.status_label).value_counts()
known = [checklistview.status_label(s) for s in checklistview.STATUS_ORDER]
order = [s for s in known if s in counts.index] + [s for s in counts.index if s not in known]
tables.show(counts.reindex(order).rename_axis("status").reset_index(name="checks"), f"overall verdict: {verdict}")
if len(counts):
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.4 * len(order)))
    ax.barh(order[::-1], counts.reindex(order[::-1]).to_numpy())
    ax.set_xlabel("number of checks")
    ax.set_title("checks by status (a count: bars are the right mark)")
    plots.show(fig, figures_dir, "status-counts")

# %% [markdown]
# ## Every check with its evidence and recommendation

# %%
for prefix, title in (("R", "SC15 rules"), ("F", "data-science fallacies")):
    part = checks[checks["id"].str.upper().str.startswith(prefix)]
    if not part.empty:
        tables.show(part, title, collapse_after=40)
other = checks[~checks["id"].str.upper().str.match(r"^[RF]\d")]
if not other.empty:
    tables.show(other, "other checks and claims", collapse_after=40)

# %% [markdown]
# ## Claims checked against the data

# %%
claim_rows = checklistview.claims_frame(data)
if not claim_rows.empty:
    tables.show(claim_rows, "claims: each side's n, value, interval and coverage; test and Holm", collapse_after=40)
else:
    tables.note("This checklist holds no claims.")
