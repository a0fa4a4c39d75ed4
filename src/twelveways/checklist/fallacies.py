"""The twelve fallacies of Hoefler, *Benchmarking data science: twelve ways to lie with statistics
and performance on parallel computers* (2022), each as one small check.

The checks read the merged rows of every audited file (``ResultSet.frame``: training and
inference results usually live in different files) and the attributes named in
``docs/checklist-evidence.md``.  Vocabulary: training rows have ``benchmark`` train/training or
a training metric (``train_loss``, ``train_accuracy``, ``time_to_quality``,
``epochs_to_quality``); inference rows have ``benchmark`` infer/inference or a ``*latency*``
metric; rows with ``role == "tuning"`` are hyperparameter trials, not results.

Each check declares its domain (``@check(..., domain=...)``) and is not applicable outside it.
A run that missed the quality target (``valid`` false, or column ``reached_target`` /
``converged`` false) has no time to quality.  Every number in evidence names its unit; medians
are taken over rows of one metric and one unit only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .. import envdiff
from ..env.capture_model import Description, description_of
from ..evidence import kinds as kinds_mod
from ..claims import DEFINITIONS, spanned_factors
from ..evidence.attributes import is_set
from ..evidence.machine import MachineIdentity
from ..resultset import (APPROXIMATION_COLUMNS, END_TO_END_METRICS, INFER_BENCHMARKS, PER_ITERATION_METRICS,
                         TIME_TO_QUALITY, TIME_UNITS, TRAIN_BENCHMARKS, TRAIN_METRICS, ResultSet, describe, finite,
                         group_codes, group_positions, per_text, select, truthy)
from .model import AuditRun, Status, check, ev, judged, worst

NA = Status.NOT_APPLICABLE
#: Schema columns that name a configuration apart from the swept factor (F2, F10 group by them).
SETUP_COLUMNS = ("workload", "implementation", "ranks", "threads", "size", "precision")


def _files(rows: pd.DataFrame) -> str:
    return ", ".join(sorted(map(str, rows["source_file"].unique()))) if len(rows) else ""


def _level(value) -> str:
    """A factor level as text (32.0 from a merged numeric column prints as 32)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _name(columns, key) -> str:
    """``ranks=2 sparsification=none`` for a groupby key; missing (NaN) levels left out."""
    key = key if isinstance(key, tuple) else (key,)
    return describe({c: _level(v) for c, v in zip(columns, key) if not (isinstance(v, float) and np.isnan(v))})


def _training(data: ResultSet, include_tuning: bool = False) -> pd.DataFrame:
    fr = data.frame
    rows = fr[fr["benchmark"].str.lower().isin(TRAIN_BENCHMARKS) | fr["metric"].isin(TRAIN_METRICS)]
    if not include_tuning and "role" in rows:
        rows = rows[rows["role"] != "tuning"]
    return rows


def _inference(data: ResultSet) -> pd.DataFrame:
    fr = data.frame
    return fr[fr["benchmark"].str.lower().isin(INFER_BENCHMARKS) | fr["metric"].str.lower().str.contains("latency")]


def _ml(data: ResultSet) -> pd.DataFrame:
    fr = data.frame
    quality_workloads = set(fr.loc[data.kinds == "quality", "workload"])
    mask = (fr["benchmark"].str.lower().isin(TRAIN_BENCHMARKS | INFER_BENCHMARKS) | fr["metric"].isin(TRAIN_METRICS)
            | fr["workload"].isin(quality_workloads))
    rows = fr[mask]
    return rows[rows["role"] != "tuning"] if "role" in rows else rows


def _seconds(rows: pd.DataFrame) -> pd.Series:
    """Values of time rows in seconds (NaN where the unit is not a time unit)."""
    scale = rows["unit"].astype(str).str.strip().map(TIME_UNITS)
    return rows["value"].astype(float) * scale.astype(float)


THROUGHPUT_METRICS = ("throughput", "samples_per_second", "completed_samples_per_second", "qps")


def _throughput(data: ResultSet, rows: pd.DataFrame) -> dict | None:
    """{metric, unit, median} of the first throughput metric present, else of the rate rows of one unit."""
    for metric in THROUGHPUT_METRICS:
        chosen = select(rows, metric)
        chosen = chosen[chosen["unit"] == chosen["unit"].iloc[0]] if len(chosen) else chosen
        values = finite(chosen["value"])
        if values.size:
            return {"metric": metric, "unit": str(chosen["unit"].iloc[0]), "median": float(np.median(values))}
    rates = select(rows[data.kinds.loc[rows.index] == "rate"])
    if rates.empty:
        return None
    first = rates.iloc[0]
    rates = rates[(rates["metric"] == first["metric"]) & (rates["unit"] == first["unit"])]
    values = finite(rates["value"])
    return {"metric": str(first["metric"]), "unit": str(first["unit"]), "median": float(np.median(values))} \
        if values.size else None


def _median(rows: pd.DataFrame, metric: str) -> float | None:
    values = finite(select(rows, metric)["value"])
    return float(np.median(values)) if values.size else None


def _missed(rows: pd.DataFrame) -> np.ndarray:
    """Rows of runs that missed the quality target: ``valid`` false, or ``reached_target``/``converged`` false."""
    missed = ~rows["valid"].astype(bool).to_numpy()
    for name in ("reached_target", "converged"):
        if name in rows:
            missed |= np.array([truthy(v) is False for v in rows[name]], dtype=bool)
    return missed


def _reached(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of runs that reached the target (see :func:`_missed`)."""
    return rows[~_missed(rows)] if len(rows) else rows


def _time_to_quality(rows: pd.DataFrame) -> dict:
    """Time to quality of some runs: {runs, reached_target, median_s over the runs that reached it, or None}.

    Why: a run that missed the target has no time to quality; its stop time is not one.
    """
    ttq = rows[rows["metric"].isin(TIME_TO_QUALITY) & (rows["iteration"] != 0)]
    reached = _reached(ttq)
    seconds = finite(_seconds(reached))
    return {"runs": int(ttq[["source_file", "run_id"]].drop_duplicates().shape[0]),
            "reached_target": int(reached[["source_file", "run_id"]].drop_duplicates().shape[0]),
            "median_s": float(np.median(seconds)) if seconds.size else None}


# ------------------------------------------------------------------ F1

def _f1_sweep(data: ResultSet, workload: str, factor: str, rows: pd.DataFrame) -> tuple[Status, list]:
    """One workload's sweep of ``factor``: every level needs a time to quality (target reached)."""
    table = {}
    for level, part in rows.groupby(factor):
        table[_level(level)] = {"throughput": _throughput(data, part),
                                "time_to_quality": _time_to_quality(part)}
    fields = (f"column {factor}", "rows metric=time_to_quality/time_to_train", "column valid",
              "column reached_target/converged", "rows metric=throughput or of kind rate")
    evidence = [ev(f"{workload}: {factor} sweep (medians over the runs at each level; time to quality in s "
                   "over runs that reached the target)", table, _files(rows), *fields)]
    missing = [lvl for lvl, t in table.items() if t["time_to_quality"]["median_s"] is None]
    if missing:
        evidence.append(ev(f"{workload}: {factor} levels without a time to quality (no run, or every run missed "
                           "the target)", missing, _files(rows), *fields[:4]))
        return Status.FAIL, evidence
    quickest = min(table, key=lambda k: table[k]["time_to_quality"]["median_s"])
    rates = {k: t["throughput"] for k, t in table.items() if t["throughput"]}
    same_unit = len({(r["metric"], r["unit"]) for r in rates.values()}) == 1
    if rates and same_unit:
        fastest = max(rates, key=lambda k: rates[k]["median"])
        evidence.append(ev(f"{workload}: level with the highest {next(iter(rates.values()))['metric']} vs the "
                           "shortest time to quality", {"highest_throughput": f"{factor}={fastest}",
                                                        "shortest_time_to_quality": f"{factor}={quickest}"},
                           _files(rows), *fields[1:]))
    return Status.PASS, evidence


@check("F1", "scaling that sacrifices accuracy", domain="training")
def f1_scaling_accuracy(audit: AuditRun):
    """A batch-size or rank sweep reports end-to-end time to quality, not throughput alone."""
    results = audit.results
    train = _training(results)
    statuses, evidence = [], []
    for factor in ("batch_size", "ranks"):
        if factor not in train or train[factor].nunique() < 2:
            continue
        for workload, rows in train.groupby("workload"):
            if rows[factor].nunique() >= 2:
                status, items = _f1_sweep(results, workload, factor, rows)
                statuses.append(status)
                evidence.extend(items)
    return judged(statuses, evidence, ev("training sweep of batch_size or ranks", 0, "", "column batch_size", "column ranks"),
                  ("Report time to quality (and whether the target was reached) for every batch size "
                   "and scale, not only throughput (F1)."))


# ------------------------------------------------------------------ F2

def _per_iteration(rows: pd.DataFrame) -> dict:
    """{metric: {median, unit, rows}} of each per-iteration metric (one unit per metric, never pooled)."""
    found = {}
    for (metric, unit), part in rows[rows["metric"].isin(PER_ITERATION_METRICS)].groupby(["metric", "unit"]):
        values = finite(select(part)["value"])
        if values.size:
            found[f"{metric} ({unit})"] = {"median": float(np.median(values)), "rows": int(values.size)}
    return found


def _f2_claims(audit: AuditRun, train: pd.DataFrame) -> tuple[list, list]:
    """Per-iteration claims on training rows: both sides need a time to quality, b/a >= 1."""
    statuses, evidence = [], []
    for claim in audit.claims:
        if claim.metric not in PER_ITERATION_METRICS or claim.b is None or select(train, claim.metric, claim.a).empty:
            continue
        a, b = _time_to_quality(select(train, None, claim.a, summarizable=False)), \
            _time_to_quality(select(train, None, claim.b, summarizable=False))
        fields = ("claims[].metric", "rows metric=time_to_quality/time_to_train", "column reached_target/converged")
        if a["median_s"] is None or b["median_s"] is None:
            statuses.append(Status.FAIL)
            evidence.append(ev(f"claim {claim.id}: per-iteration claim on {claim.metric} without end-to-end time to "
                               "quality on both sides", {"a": a, "b": b}, claim.origin, *fields))
            continue
        ratio = b["median_s"] / a["median_s"]
        statuses.append(Status.PASS if ratio >= 1 else Status.FAIL)
        evidence.append(ev(f"claim {claim.id}: end-to-end speedup, median time to quality b/a (s/s)",
                           {"ratio": ratio, "a": a, "b": b}, _files(train), *fields))
    return statuses, evidence


def _f2_approximations(train: pd.DataFrame) -> tuple[list, list]:
    """Each approximation level, per setup (workload, ranks, ...): per-iteration gain and time to quality."""
    statuses, evidence = [], []
    setup = [c for c in SETUP_COLUMNS if c in train]
    for column in APPROXIMATION_COLUMNS:
        if column not in train or train[column].nunique() < 2:
            continue
        for key, rows in train.groupby(setup, dropna=False):
            if rows[column].nunique() < 2:
                continue
            table = {_level(level): {"per_iteration": _per_iteration(part), "time_to_quality": _time_to_quality(part)}
                     for level, part in rows.groupby(column)}
            missing = [k for k, t in table.items() if t["time_to_quality"]["median_s"] is None]
            statuses.append(Status.FAIL if missing else Status.PASS)
            what = _name(setup, key)
            evidence.append(ev(f"{what}: {column} levels, per iteration and end to end (time to quality in s over "
                               "runs that reached the target)", table, _files(rows), f"column {column}",
                               "rows metric=iteration_time/time_per_step", "rows metric=time_to_quality/time_to_train",
                               "column reached_target/converged"))
            if missing:
                evidence.append(ev(f"{what}: {column} levels without a time to quality", missing, _files(rows),
                                   f"column {column}", "rows metric=time_to_quality/time_to_train"))
    return statuses, evidence


@check("F2", "per-iteration speedups that slow convergence", domain="training")
def f2_per_iteration(audit: AuditRun):
    """Per-iteration speedups (claims on iteration metrics, or an approximation factor) come with time to quality."""
    train = _training(audit.results)
    claim_statuses, claim_evidence = _f2_claims(audit, train)
    approx_statuses, approx_evidence = _f2_approximations(train)
    statuses = claim_statuses + approx_statuses
    looked_for = ev("per-iteration claims or approximation factor on training rows", 0, "", "claims",
                    "column approximation/sparsification/compression")
    return judged(statuses, claim_evidence + approx_evidence, looked_for,
                  "Report an approximation's effect end to end (time to the quality target), beside its "
                  "per-iteration gain (F2).")


# ------------------------------------------------------------------ F3

@check("F3", "training loss without generalization", domain="training")
def f3_generalization(audit: AuditRun):
    """Every training run with training loss/accuracy also has a held-out test accuracy."""
    train = _training(audit.results)
    with_train = train[train["metric"].isin(["train_loss", "train_accuracy"])]
    if with_train.empty:
        return NA, [ev("rows metric=train_loss/train_accuracy", 0, "", "rows metric=train_loss",
                       "rows metric=train_accuracy")], ""
    runs = set(zip(with_train["source_file"], with_train["run_id"]))
    tested = train[train["metric"] == "test_accuracy"]
    covered = runs & set(zip(tested["source_file"], tested["run_id"]))
    status = Status.PASS if covered == runs else Status.FAIL if not covered else Status.WARN
    evidence = [ev("training runs with a test accuracy", f"{len(covered)} of {len(runs)}", _files(with_train),
                   "rows metric=train_accuracy/train_loss", "rows metric=test_accuracy", "column run_id")]
    train_acc, test_acc = _median(train, "train_accuracy"), _median(tested, "test_accuracy")
    if train_acc is not None and test_acc is not None:
        evidence.append(ev("median train accuracy minus median test accuracy", train_acc - test_acc, _files(train),
                                "rows metric=train_accuracy", "rows metric=test_accuracy"))
    return status, evidence, "Report accuracy on a held-out test split for every run, and the train/test gap (F3)."


# ------------------------------------------------------------------ F4

@check("F4", "hidden hyperparameter tuning cost", domain="training")
def f4_tuning(audit: AuditRun):
    """Declared tuning (attr tuning {parameters, trials}) matches the tuning rows (role == tuning), with their cost."""
    results = audit.results
    train = _training(results, include_tuning=True)
    if train.empty:
        return NA, [ev("training rows", 0, "", "column benchmark")], ""
    tuning_rows = train[train["role"] == "tuning"] if "role" in train else train.iloc[0:0]
    declared = results.stating(lambda stated: stated.tuning) + results.stating(lambda stated: stated.lr_search)
    trials_run = int(tuning_rows[["source_file", "run_id"]].drop_duplicates().shape[0])
    statuses, evidence = [], []
    for src, spec in declared:
        spec = spec if isinstance(spec, dict) else {}
        trials = spec.get("n_trials", spec.get("trials", 0)) or 0
        trials = len(trials) if isinstance(trials, list) else int(trials)
        tuned = spec.get("parameters") or (["learning_rate"] if "chosen_lr" in spec else [])
        if trials == 0 and not tuned:
            statuses.append(Status.PASS if trials_run == 0 else Status.WARN)
        else:
            statuses.append(Status.PASS if trials_run >= max(trials, 1) else Status.FAIL)
        evidence.append(ev("declared tuning vs tuning runs reported", {"declared_trials": trials, "parameters": tuned,
                           "tuning_runs_in_rows": trials_run}, src.path, "attr tuning / lr_search", "column role"))
    if trials_run:
        cost = tuning_rows[results.kinds.loc[tuning_rows.index] == "cost"]
        per_run = cost.assign(seconds=_seconds(cost)).groupby(["source_file", "run_id"])["seconds"].max().dropna()
        if per_run.empty:
            statuses.append(Status.WARN)
            evidence.append(ev("tuning runs without a time to cost them", trials_run, _files(tuning_rows), "column role"))
        else:
            final = _time_to_quality(train[train["role"] != "tuning"] if "role" in train else train)
            evidence.append(ev("total cost of tuning runs, s (longest time row of each run, summed)",
                               float(per_run.sum()), _files(tuning_rows), "rows role=tuning of kind cost"))
            if final["median_s"] is not None:
                evidence.append(ev("time to quality of the final runs, s (median over every final run that "
                                   "reached the target)", final, _files(train), "rows metric=time_to_quality",
                                   "column reached_target/converged"))
        if not declared:
            statuses.append(Status.PASS)
    if not statuses:
        return Status.NEEDS_HUMAN, [ev("tuning declaration or tuning runs", "none", "", "attr tuning", "column role")], \
            "State whether hyperparameters were tuned (attr tuning, trials 0 if none) and record every trial."
    return worst(statuses), evidence, "Record every tuning trial (role=tuning) and its cost next to the final result (F4)."


# ------------------------------------------------------------------ F5

@check("F5", "op/s with unstated bitwidth or ops never executed", domain="op_rates")
def f5_dtype_ops(audit: AuditRun):
    """Every rate names its number format; flop/op rates count executed operations; mixed precision is broken down."""
    statuses, evidence = [], []
    for src in audit.results.sources:
        rates = operation_rates(src)
        if rates.empty:
            continue
        precision = pd.Series(per_text(rates["precision"], lambda text: text.strip().lower()), index=rates.index,
                              dtype=object)
        bad = int(precision.isin(["", "unknown", "?", "none", "nan"]).sum())
        statuses.append(Status.FAIL if bad else Status.PASS)
        evidence.append(ev("operation-rate rows (op/s, flop/s) without a number format", f"{bad} of {len(rates)}",
                           src.path, "column precision", "column unit"))
        evidence.append(ev("number formats of rates", sorted(set(precision) - {""}), src.path, "column precision"))
        if len(rates):
            counted = str(src.attributes.op_count or "").strip().lower()
            statuses.append(Status.PASS if counted == "executed" else Status.FAIL if counted in ("nominal", "theoretical")
                            else Status.WARN)
            evidence.append(ev("how operations were counted", counted or "not stated", src.path, "attr op_count"))
        mixed = precision[precision.str.startswith("mixed") | precision.str.contains(r"\+|autocast", regex=True)]
        if len(mixed):
            broken_down = is_set(src.attributes.dtype_mix) or src.frame["metric"].str.startswith("ops_").any()
            statuses.append(Status.PASS if broken_down else Status.WARN)
            evidence.append(ev("mixed-precision rates with a per-dtype breakdown", broken_down, src.path, "attr dtype_mix",
                               "rows metric=ops_<dtype>"))
    return judged(statuses, evidence, ev("valid operation-rate rows (op/s, flop/s; bytes/s and samples, queries or "
                                         "items per second are not operation rates)", 0, "", "column unit", "column valid"),
                  ("State the number format of every rate, count only operations actually executed "
                   "(attr op_count: executed) and break mixed precision down by dtype (F5)."))


def operation_rates(src) -> pd.DataFrame:
    """The valid rows of one file whose unit counts operations per second (F5's domain): their precision and unit."""
    frame = src.frame
    counts_ops = per_text(frame["unit"], lambda unit: kinds_mod.rate_kind(unit) is kinds_mod.MetricKind.OP_RATE)
    return frame[["precision", "unit"]][counts_ops.astype(bool) & frame["valid"].astype(bool).to_numpy()]


# ------------------------------------------------------------------ F6

KERNEL_SCOPES = ("kernel", "component", "region")
STEP_SCOPES = ("iteration", "step")
RUN_KEYS = ["source_file", "run_id"]


def _scope(data: ResultSet) -> pd.Series:
    """Timing scope of each row: column timing_scope, else its file's attr timing_scope."""
    fr = data.frame
    per_file = {s.path: str(s.attributes.timing_scope or "").strip().lower() for s in data.sources}
    fallback = per_text(fr["source_file"], lambda path: per_file.get(path, ""))
    if "timing_scope" not in fr:
        return pd.Series(fallback, index=fr.index, dtype=object)
    stated = per_text(fr["timing_scope"], lambda scope: scope.strip().lower())
    return pd.Series(np.where(stated != "", stated, fallback), index=fr.index, dtype=object)


def _timed(data: ResultSet, mask: pd.Series) -> pd.DataFrame:
    """Summarizable rows under ``mask`` that are times (kind cost), with their value in seconds."""
    fr = data.frame
    rows = fr[mask & (data.kinds == "cost")]
    rows = select(rows, collapse_ranks=False)
    return rows.assign(seconds=_seconds(rows)).dropna(subset=["seconds"])


def _kernel_shares(kernel: pd.DataFrame, steps: pd.DataFrame, whole: pd.DataFrame) -> pd.DataFrame:
    """Per kernel row (or run): its time / the time it is part of, in seconds over seconds.

    A kernel row with an iteration-scoped time of the same run, iteration and rank is a share of
    that step; otherwise the kernel's total over the run is a share of the run's end-to-end time.
    """
    keys = RUN_KEYS + ["iteration", "rank"]
    step = steps.groupby(keys)["seconds"].median().rename("denominator").reset_index()
    paired = kernel.merge(step, on=keys, how="inner")
    paired["of"] = "the step time of the same run and iteration"
    alone = kernel[~kernel.set_index(keys).index.isin(paired.set_index(keys).index)]
    totals = alone.groupby(RUN_KEYS + ["metric"])["seconds"].sum().rename("seconds").reset_index()
    run_time = whole.groupby(RUN_KEYS)["seconds"].median().rename("denominator").reset_index()
    per_run = totals.merge(run_time, on=RUN_KEYS, how="inner").assign(of="the end-to-end time of the same run")
    shares = pd.concat([paired[RUN_KEYS + ["metric", "seconds", "denominator", "of"]], per_run], ignore_index=True)
    shares = shares[shares["denominator"] > 0]
    return shares.assign(share=shares["seconds"] / shares["denominator"])


def naming_factors(rows: pd.DataFrame, exclude: tuple = ("unit",)) -> list[str]:
    """Few factors that still tell every configuration of ``rows`` apart (fewest levels first).

    Why: a configuration named by all its factors (config ids, derived batch sizes, ...) is unreadable.
    """
    factors = [c for c in spanned_factors(rows) if c not in exclude]
    if not factors:
        return []
    def groups(columns: list[str]) -> int:
        return rows.groupby(columns, dropna=False).ngroups if columns else 1

    target, chosen = groups(factors), []
    for column in sorted(factors, key=lambda c: (rows[c].nunique(dropna=False), factors.index(c))):
        if groups(chosen) >= target:
            break
        if groups(chosen + [column]) > groups(chosen):
            chosen.append(column)
    return chosen


def _f6_workload(kernel: pd.DataFrame, steps: pd.DataFrame, whole: pd.DataFrame) -> dict:
    """Kernel share per configuration of one workload: {config: {share_median, unit, of, runs}}."""
    factors = naming_factors(kernel)
    table = {}
    for key, rows in kernel.groupby(factors + ["metric"], dropna=False):
        name = _name(factors, key[:-1]) or "every run"
        if not (rows["seconds"] != 0).any():
            table[f"{name} {key[-1]}"] = "every row 0 s: the component did not run (no share)"
            continue
        shares = _kernel_shares(rows, steps, whole)
        table[f"{name} {key[-1]}"] = ({"share_median": float(np.median(shares["share"])), "unit": "s/s",
                                       "of": sorted(set(shares["of"])), "runs": int(shares[RUN_KEYS]
                                       .drop_duplicates().shape[0])} if len(shares) else
                                      "no time of the same run to divide by (share unknown)")
    return table


@check("F6", "kernels shown without the whole")
def f6_kernel_share(audit: AuditRun):
    """Kernel/component timings (timing_scope kernel|component|region, metric *kernel_time) come with end-to-end time.

    Domain: results with kernel timings.  Shares divide seconds by seconds of the same run.
    """
    results = audit.results
    fr, scope = results.frame, _scope(results)
    kernel = _timed(results, scope.isin(KERNEL_SCOPES) | fr["metric"].str.endswith("kernel_time"))
    exercised = set(kernel.loc[kernel["seconds"] != 0, "workload"])
    fields = ("column/attr timing_scope", "rows metric=*kernel_time", "rows metric=time_to_quality/end_to_end_time")
    if not exercised:
        return NA, [ev("kernel- or component-scoped timings with a nonzero time", 0 if kernel.empty else
                       f"{len(kernel)} rows, all 0 s", _files(kernel), *fields)], ""
    whole = _timed(results, (scope == "end_to_end") | fr["metric"].isin(END_TO_END_METRICS))
    steps = _timed(results, scope.isin(STEP_SCOPES))
    covered = exercised & set(whole["workload"])
    evidence = [ev("workloads with kernel timings that also have an end-to-end time", f"{len(covered)} of "
                   f"{len(exercised)}", _files(kernel), *fields)]
    if covered != exercised:
        evidence.append(ev("workloads with kernel timings but no end-to-end time", sorted(exercised - covered),
                           _files(kernel), *fields))
    idle = sorted(set(kernel["workload"]) - exercised)
    if idle:
        evidence.append(ev("workloads whose kernel timings are all 0 s (the component did not run: no share)", idle,
                           _files(kernel), *fields))
    unknown = False
    for workload in sorted(covered):
        table = _f6_workload(kernel[kernel["workload"] == workload], steps, whole)
        unknown |= all(isinstance(v, str) for v in table.values())
        evidence.append(ev(f"{workload}: kernel time as a share of the time it is part of (s/s, median over runs)",
                           table, _files(kernel), *fields, "column/attr timing_scope=iteration"))
    status = Status.FAIL if covered != exercised else Status.WARN if unknown else Status.PASS
    return status, evidence, "Show each kernel's share of the end-to-end time, not the kernel alone (F6)."


# ------------------------------------------------------------------ F7

def dataset_names(value) -> set[str]:
    """Dataset names in attr ``datasets``/``dataset``: a dict's keys, a list's items (or their ``name``), a text."""
    if isinstance(value, Mapping):
        named = value.get("name")
        return {str(named)} if isinstance(named, str) and named.strip() else {str(k) for k in value}
    if isinstance(value, (list, tuple)):
        names = set()
        for item in value:
            names |= dataset_names(item) if isinstance(item, Mapping) and "name" in item else \
                {str(item)} if not isinstance(item, Mapping) else set()
        return names
    text = str(value or "").strip()
    return {text} if text else set()


def model_names(rows: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(models, names left out): the ``workload`` of each row, except where it repeats the row's
    ``implementation``: a reader that knows only the system's name (LoadGen's SUT name, "PySUT") puts it in
    both, and a system is no model.  What names a model: a folder, MLPerf's ``submission_benchmark``, a
    model field, our own producers' workload."""
    pairs = rows[["workload", "implementation"]].astype(str).drop_duplicates()
    system = pairs["workload"] == pairs["implementation"]
    models = set(pairs.loc[~system, "workload"]) - {"", "nan"}
    return sorted(models), sorted(set(pairs.loc[system, "workload"]) - models - {"", "nan"})


@check("F7", "one network only", domain="ml")
def f7_models(audit: AuditRun):
    """ML results cover more than one model and more than one dataset (excluded runs say nothing here)."""
    results = audit.results
    ml = results.kept_rows(_ml(results))
    if ml.empty:
        return NA, [ev("training or inference rows outside the excluded runs", 0, "", "column benchmark")], ""
    models, systems = model_names(ml)
    datasets = set(ml["dataset"].astype(str)) - {"", "nan"} if "dataset" in ml else set()
    kept = results.kept_sources
    for src, value in results.stating(lambda stated: stated.datasets):
        datasets |= dataset_names(value) if any(src is k for k in kept) else set()
    status = Status.PASS if len(models) > 1 and len(datasets) > 1 else Status.WARN
    evidence = [ev("models", models or "none named (no folder, benchmark name or model field names one)", _files(ml),
                   "column workload"),
                ev("datasets", sorted(datasets), _files(ml), "column dataset", "attr datasets (names)")]
    if systems:
        evidence.append(ev("names of systems, not models (workload equal to implementation: a SUT name)", systems,
                           _files(ml), "column workload", "column implementation"))
    return status, evidence, "Benchmark more than one model and more than one dataset before generalizing (F7)."


# ------------------------------------------------------------------ F8

HARDWARE_COLUMNS = ("device", "hardware", "system", "accelerator")
HARDWARE_FIELDS = ("release_year", "peak", "price")
UNKNOWN_HASHES = {"", "unknown", "mixed", "none", "nan"}
ENV_FIELDS = ("attr environment_hash", "column environment_hash", "attr environment", "--environment")


def environment_descriptions(data: ResultSet) -> dict[str, tuple[Description | None, str]]:
    """Environment hash -> (its description, where it was read) for every hash the results carry.

    Descriptions come from a file's attr ``environment`` (import-csv, foreign readers) and from
    ``--environment`` (matched by its ``hash``); a hash with neither has ``(None, file)``.
    """
    found: dict[str, tuple[Description | None, str]] = {}
    for src in data.kept_sources:  # a file whose every run is excluded names no machine a check may compare
        hashes = {str(src.attributes.environment_hash or "")}
        if "environment_hash" in src.frame:
            hashes |= set(src.frame["environment_hash"].astype(str))
        described = src.attributes.environment
        for value in sorted(hashes - UNKNOWN_HASHES):
            if found.get(value, (None, ""))[0] is None:
                usable = isinstance(described, dict) and len(hashes - UNKNOWN_HASHES) == 1
                where = f"{src.path} attr environment"
                found[value] = (description_of(described, where), where) if usable else (None, src.path)
    captured = str(data.environment.hash or "") if data.environment else ""
    if captured in found and found[captured][0] is None:
        found[captured] = (data.environment, data.environment_path or "--environment")
    return found


def _compared_devices(data: ResultSet) -> set[str]:
    fr, compared = data.frame, set()
    for column in HARDWARE_COLUMNS:
        if column in fr and fr[column].nunique() > 1:
            compared |= set(fr[column].astype(str)) - {""}
    return compared


def _device_names(known: Mapping[str, Description]) -> dict[str, str]:
    """Environment hash -> a device name (CPU/GPU model), made unique with the hash prefix when needed."""
    names = {h: envdiff.device_name(d) or h[:12] for h, d in known.items()}
    clashes = {n for n in names.values() if list(names.values()).count(n) > 1}
    return {h: f"{n} ({h[:12]})" if n in clashes else n for h, n in names.items()}


def _hardware_facts(data: ResultSet, names: set[str], evidence: list):
    """Each compared device needs release year, peak and price (attr hardware); missing facts warn."""
    described = {}
    for _, value in data.stating(lambda stated: stated.hardware):
        if isinstance(value, dict):
            described.update(value)
    missing = {n: [f for f in HARDWARE_FIELDS if f not in (described.get(n) or {})] for n in sorted(names)}
    evidence = evidence + [ev("compared devices and the facts not stated (release_year, peak, price)", missing, "",
                              "column device", "attr hardware")]
    status = Status.WARN if any(missing.values()) else Status.PASS
    return status, evidence, "For each compared device state its release year, peak performance and price " \
                             "(attr hardware) (F8)."


def _machines(data: ResultSet) -> list[MachineIdentity]:
    """The machine identity of every audited file that describes its environment."""
    found = []
    for src in data.kept_sources:
        described, machine = src.attributes.environment, src.attributes.machine
        merged = {**(described if isinstance(described, dict) else {}), **(machine if isinstance(machine, dict) else {})}
        if merged:
            found.append(MachineIdentity.of(merged))
    return found


#: F8's advice where hardware is unknown: the fact that is missing, and where to state it.
DESCRIBE_HARDWARE = ("Add each system's description with its hardware (CPU and accelerator models and counts: attr "
                     "environment, or --environment) (F8).")


def hardware_unknown(data: ResultSet, known: Mapping[str, Description], envs: Mapping[str, tuple]):
    """Evidence that some compared environments state no hardware fact (e.g. LoadGen logs: only LoadGen's
    build), or None: "unknown" is never "same hardware"."""
    blind = [h for h, description in known.items() if not _states_hardware(description)]
    if not blind:
        return None
    where = {envs[h][1].split(" attr ")[0] for h in blind}
    formats = sorted({str(s.attributes.source_format or s.family or "results") for s in data.sources
                      if s.path in where}) or ["their"]
    return ev("hardware facts of the compared systems",
              f"hardware unknown for {len(blind)} of {len(known)} systems: {', '.join(formats)} files carry none; "
              "add the submission's system description", "", *ENV_FIELDS, "attr source_format")


def _states_hardware(description: Description | None) -> bool:
    return description is not None and any(envdiff.classify(field) == "hardware"
                                                    for field in envdiff.flatten(description))


def files_without_hardware(data: ResultSet, envs: Mapping[str, tuple]):
    """Evidence naming the measured files whose machine is unknown, or None: no environment hash, or an imported
    file (attr ``source_format``) whose description holds no hardware fact, as LoadGen logs are (their hash is
    of LoadGen's build, which says nothing about the machine; a twelveways capture's hash covers its hardware).
    With one such file beside another, nobody can tell one system from two (one file alone compares nothing)."""
    blind = []
    for src in (s for s in data.kept_sources if not s.derived):
        value = str(src.attributes.environment_hash or "")
        described = envs.get(value, (None, ""))[0] if value not in UNKNOWN_HASHES else None
        imported = is_set(src.attributes.source_format)
        if value in UNKNOWN_HASHES or (imported and described is not None and not _states_hardware(described)):
            blind.append(src)
    total = len([s for s in data.kept_sources if not s.derived])
    if not blind or total < 2:
        return None
    formats = sorted({str(s.attributes.source_format or s.family or "results") for s in blind})
    return ev("hardware facts of the measured files",
              f"hardware unknown for {len(blind)} of {total} files: {', '.join(formats)} files carry none, so one "
              "system cannot be told from several; add the submission's system description", _files_of(blind),
              *ENV_FIELDS, "attr source_format")


def _files_of(sources) -> str:
    return ", ".join(sorted(s.path for s in sources))


@check("F8", "unfair hardware comparison")
def f8_hardware(audit: AuditRun):
    """Compared hardware (column device/..., or environments whose hardware facts differ) states age, peak and cost.

    Domain: results that compare hardware.  Environments are compared field by field
    (``twelveways.envdiff``); differing only in toolchain, system, libraries or settings is no
    hardware comparison.  Missing facts warn; F8 never fails (unfairness is not proven by data).
    """
    results = audit.results
    devices = _compared_devices(results)
    if devices:
        return _hardware_facts(results, devices, [])
    envs = environment_descriptions(results)
    if len(envs) < 2:
        blind = files_without_hardware(results, envs)
        if blind:
            return Status.NEEDS_HUMAN, [blind], DESCRIBE_HARDWARE
        return NA, [ev("devices or environments compared", len(envs), "", "column device", *ENV_FIELDS)], ""
    machines = _machines(results)
    if len(machines) >= 2 and all(machines[0].same_machine(m) for m in machines[1:]):
        return NA, [ev("machines compared", f"one machine ({machines[0].describe()}): the {len(envs)} environments "
                       "differ in software only", "", "attr machine", *ENV_FIELDS)], ""
    known = {h: d for h, (d, _) in envs.items() if d is not None}
    sources = {h[:12]: where if d is not None else f"no description ({where})" for h, (d, where) in envs.items()}
    if len(known) < len(envs):
        return Status.NEEDS_HUMAN, [ev("environments in the results and their descriptions", sources, "",
                                       *ENV_FIELDS)], \
            "Give each environment's capture (attr environment, or --environment) so its hardware can be compared (F8)."
    unknown = hardware_unknown(results, known, envs)
    if unknown:
        return Status.NEEDS_HUMAN, [unknown], DESCRIBE_HARDWARE
    first, *others = list(known)  # in the order the files were given
    diffs = {f"{first[:12]} vs {h[:12]}": envdiff.diff(known[first], known[h]) for h in others}
    evidence = [ev("environments compared field by field (differing fields by class)",
                   {pair: envdiff.by_class(d) for pair, d in diffs.items()}, "", *ENV_FIELDS),
                ev("differing fields with both values", diffs, "", *ENV_FIELDS)]
    if not any(envdiff.hardware_differs(d) for d in diffs.values()):
        evidence.insert(0, ev("hardware facts that differ between the environments", "none (same hardware)", "",
                              *ENV_FIELDS))
        return NA, evidence, ""
    return _hardware_facts(results, set(_device_names(known).values()), evidence)


# ------------------------------------------------------------------ F9

def _latency(infer: pd.DataFrame) -> dict | None:
    """Median latency per configuration of one model: {metric, unit, configurations, lowest, highest}."""
    rows = select(infer[infer["metric"].str.contains("latency")])
    rows = rows[rows["unit"].astype(str).str.strip().isin(TIME_UNITS)]
    if rows.empty:
        return None
    metric = "latency" if (rows["metric"] == "latency").any() else rows["metric"].value_counts().index[0]
    rows = rows[rows["metric"] == metric]
    unit = rows["unit"].value_counts().index[0]
    rows = rows[rows["unit"] == unit]
    factors = naming_factors(rows, ("unit", "workload"))
    groups = rows.groupby(factors, dropna=False) if factors else [((), rows)]
    medians = [(_name(factors, k) or "every run", float(np.median(part["value"]))) for k, part in groups]
    low, high = min(medians, key=lambda m: m[1]), max(medians, key=lambda m: m[1])
    return {"metric": metric, "unit": unit, "configurations": len(medians),
            "lowest_median": {"value": low[1], "unit": unit, "configuration": low[0]},
            "highest_median": {"value": high[1], "unit": unit, "configuration": high[0]}}


@check("F9", "inference cost ignored", domain="training")
def f9_inference(audit: AuditRun):
    """Trained models are also measured at inference (latency), beside their training cost; an excluded
    inference run (a search probe, an INVALID run) measures nothing here."""
    results = audit.results
    train, infer = _training(results), results.kept_rows(_inference(results))
    measured = sorted(set(train["workload"]) & set(infer["workload"]))
    evidence = [ev("trained models (workloads) with an inference measurement",
                   f"{len(measured)} of {train['workload'].nunique()}", _files(pd.concat([train, infer])),
                   "column workload", "column benchmark", "rows metric~latency")]
    for workload in sorted(set(train["workload"])):
        ttq = _time_to_quality(train[train["workload"] == workload])
        latency = _latency(infer[infer["workload"] == workload]) if workload in measured else None
        evidence.append(ev(f"{workload}: training time to quality (s, median over runs that reached the target) "
                           "and inference latency (median per configuration, in its unit)",
                           {"time_to_quality": ttq, "inference_latency": latency or "not measured"},
                           _files(pd.concat([train, infer])), "rows metric=time_to_quality/time_to_train",
                           "rows metric~latency", "column unit"))
    status = Status.WARN if infer.empty else Status.PASS
    return status, evidence, ("Measure the trained model's inference latency and throughput beside its training "
                              "cost (F9).")


# ------------------------------------------------------------------ F10

def _io_ratio(fr: pd.DataFrame, end_to_end: pd.Series, scope: pd.Series) -> list:
    """Time to quality with I/O over preloaded, per setup that has both (s/s)."""
    preloaded = fr[scope.isin(["preloaded", "in_memory"])]
    setup = [c for c in SETUP_COLUMNS + ("batch_size", "dataset", "input_size")
             if c in fr and preloaded[c].notna().all()]
    evidence = []
    for key, part in preloaded.groupby(setup):
        key = key if isinstance(key, tuple) else (key,)
        same = np.logical_and.reduce([fr[c] == v for c, v in zip(setup, key)]) & end_to_end
        a, b = _time_to_quality(fr[same]), _time_to_quality(part)
        if a["median_s"] is not None and b["median_s"] is not None:
            evidence.append(ev(f"{_name(setup, key)}: time to quality with I/O / preloaded (s/s)",
                               {"ratio": a["median_s"] / b["median_s"], "with_io": a, "preloaded": b}, _files(fr[same]),
                               "rows metric=time_to_quality", "column/attr timing_scope"))
    return evidence


def _io_included(results) -> pd.Series:
    """Each row's ``io_included`` (True, False or None), from its column or else its file's attribute; worked
    out once per distinct (value, file) pair, as a file of LoadGen latencies has hundreds of thousands of rows."""
    fr = results.frame
    per_file = {s.path: s.attributes.io_included for s in results.sources}
    stated = fr["io_included"] if "io_included" in fr else pd.Series([None] * len(fr), index=fr.index, dtype=object)
    pairs = pd.DataFrame({"io": stated, "file": fr["source_file"]}, index=fr.index)
    codes = group_codes(pairs, ["io", "file"])
    resolved = [truthy(value) if truthy(value) is not None else truthy(per_file.get(file))
                for (value, file), _ in group_positions(pairs, ["io", "file"], codes)]
    return pd.Series(np.asarray(resolved, dtype=object)[codes], index=fr.index, dtype=object)


@check("F10", "I/O not counted", domain="training")
def f10_io(audit: AuditRun):
    """Runs labelled end to end include I/O (timed region starts when data is touched)."""
    results = audit.results
    fr = results.frame
    scope = _scope(results)
    io = _io_included(results)
    end_to_end = scope == "end_to_end"
    statuses, evidence = [], []
    if end_to_end.any():
        excluded = fr[end_to_end & (io == False)]  # noqa: E712 - three-valued
        unstated = fr[end_to_end & io.isna()]
        statuses.append(Status.FAIL if len(excluded) else Status.WARN if len(unstated) else Status.PASS)
        evidence.append(ev("rows labelled end to end", {"total": int(end_to_end.sum()), "io_excluded": int(len(excluded)),
                           "io_unstated": int(len(unstated))}, _files(fr[end_to_end]), "column/attr timing_scope",
                           "column/attr io_included"))
        evidence.extend(_io_ratio(fr, end_to_end, scope))
    else:
        statuses.append(Status.WARN)
        evidence.append(ev("timing scope of training runs", "not stated", _files(_training(results)), "attr timing_scope",
                           "attr io_included"))
    return worst(statuses), evidence, ("Start the timed region when data are first touched on disk (io_included: 1) and "
                                       "label any preloaded variant as such (F10).")


# ------------------------------------------------------------------ F11

@check("F11", "unreasonably large inputs", domain="ml")
def f11_input_size(audit: AuditRun):
    """An input-size sweep reports quality at every size, beside the rate; time to quality where the target was met."""
    results = audit.results
    ml = _ml(results)
    column = "input_size" if "input_size" in ml else "size"
    ml = ml[~ml[column].astype(str).str.strip().isin(["", "0", "-1", "nan", "0.0", "-1.0"])]
    if ml.empty or not (results.kinds.loc[ml.index] == "quality").any():
        return NA, [ev("ML rows with quality and an input size", 0, "", f"column {column}")], ""
    table = {}
    for level, part in ml.groupby(column):
        kinds = results.kinds.loc[part.index]
        table[_level(level)] = {"quality_rows": int((kinds == "quality").sum()),
                                "performance_rows": int(kinds.isin(["cost", "rate"]).sum()),
                                "time_to_quality": _time_to_quality(part)}
    evidence = [ev(f"input sizes ({column}): quality rows, performance rows, time to quality (s, runs that reached "
                   "the target)", table, _files(ml), f"column {column}", "rows of kind quality/cost/rate",
                   "column reached_target/converged")]
    if len(table) < 2:
        return Status.WARN, evidence, "Sweep the input size and show quality beside flop/s or throughput (F11)."
    missing = [k for k, t in table.items() if t["performance_rows"] and (
        t["quality_rows"] == 0 or (t["time_to_quality"]["runs"] and t["time_to_quality"]["median_s"] is None))]
    if missing:
        evidence.append(ev("input sizes with performance but no quality (no quality rows, or every run missed the "
                           "target)", missing, _files(ml), f"column {column}", "column reached_target/converged"))
    return (Status.FAIL if missing else Status.PASS), evidence, \
        "Report quality at every input size, so a larger input's higher rate is weighed against what it buys (F11)."


# ------------------------------------------------------------------ F12

def _pareto(data: ResultSet) -> list[dict]:
    """Variants (workload, precision, implementation) with median accuracy and throughput; front flagged.

    A variant is dominated only by one whose throughput is the same metric in the same unit.
    """
    ml = _ml(data)
    points = []
    for key, part in ml.groupby(["workload", "precision", "implementation"]):
        acc = finite(select(part, ["test_accuracy", "accuracy"])["value"])
        rate = _throughput(data, part)
        if acc.size and rate is not None:
            points.append({"variant": "/".join(map(str, key)), "accuracy": float(np.median(acc)),
                           "throughput": rate["median"], "throughput_unit": f"{rate['metric']} ({rate['unit']})"})
    for p in points:
        p["on_front"] = not any(q["accuracy"] >= p["accuracy"] and q["throughput"] >= p["throughput"] and q is not p
                                and q["throughput_unit"] == p["throughput_unit"]  # never across units
                                and (q["accuracy"] > p["accuracy"] or q["throughput"] > p["throughput"]) for q in points)
    return points


def definition_key(text) -> str:
    """'relative_to_errors', or a text starting 'relative to errors: ...' -> the definition's key ('' if none)."""
    head = str(text or "").split(":")[0].strip().lower().replace("_", " ").replace("-", " ")
    return {"relative": "relative", "absolute points": "absolute_points",
            "relative to errors": "relative_to_errors"}.get(" ".join(head.split()), "")


@check("F12", "badly chosen comparison points", domain="ml")
def f12_comparison_points(audit: AuditRun):
    """Relative accuracy states its definition (absolute points, relative, relative to errors); Pareto front shown."""
    results = audit.results
    statuses, evidence = [], []
    for src in results.sources:
        rows = src.frame[src.frame["metric"].str.startswith("relative_accuracy")]
        summaries = [s for s in src.summaries() if s.metric.startswith("relative_accuracy")]
        if rows.empty and not summaries:
            continue
        definition = str(src.attributes.relative_accuracy_definition or "")
        ok = definition_key(definition) in DEFINITIONS
        statuses.append(Status.PASS if ok else Status.FAIL)
        evidence.append(ev("relative accuracy definition", definition or "not stated", src.path,
                           "attr relative_accuracy_definition", "rows metric=relative_accuracy"))
        for s in summaries:
            if not ok and definition_key(s.relative_accuracy) not in DEFINITIONS:
                evidence.append(ev(f"summary of {s.metric} without a definition", s.value, src.path,
                                   "attr summaries[].relative_accuracy"))
    for origin, ident, message, kind in audit.claim_problems:
        if kind == "accuracy_relative":
            statuses.append(Status.FAIL)
            evidence.append(ev(f"claim {ident}", message, origin, "attr claims[].relative_accuracy"))
    for claim in audit.claims:
        if claim.kind == "accuracy_relative":
            statuses.append(Status.PASS)
            evidence.append(ev(f"claim {claim.id}: relative accuracy means", claim.relative_accuracy, claim.origin,
                               "claims[].relative_accuracy"))
    points = _pareto(results)
    if len(points) > 1:
        statuses.append(Status.PASS)
        evidence.append(ev("accuracy/throughput Pareto front", [p for p in points if p["on_front"]], _files(_ml(results)),
                           "rows metric=test_accuracy", "rows of kind rate"))
        dominated = [p["variant"] for p in points if not p["on_front"]]
        if dominated:
            evidence.append(ev("dominated variants (poor comparison points)", dominated, _files(_ml(results)),
                                   "rows metric=test_accuracy", "rows of kind rate"))
    return judged(statuses, evidence,
                  ev("relative accuracy or accuracy/performance variants", 0, "", "rows metric=relative_accuracy"),
                  ("Say whether relative accuracy means absolute points, relative, or relative to "
                   "errors (attr relative_accuracy_definition), and compare on the Pareto front (F12)."))
