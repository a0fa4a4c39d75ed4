"""The twelve fallacies of Hoefler, *Benchmarking data science: twelve ways to lie with statistics
and performance on parallel computers* (2022), each as one small check.

The checks read the merged rows of every audited file (``AuditData.frame``: training and
inference results usually live in different files) and the attributes named in
``docs/checklist-evidence.md``.  Vocabulary: training rows have ``benchmark`` train/training or
a training metric (``train_loss``, ``train_accuracy``, ``time_to_quality``,
``epochs_to_quality``); inference rows have ``benchmark`` infer/inference or a ``*latency*``
metric; rows with ``role == "tuning"`` are hyperparameter trials, not results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .claims import DEFINITIONS
from .evidence import (APPROXIMATION_COLUMNS, END_TO_END_METRICS, INFER_BENCHMARKS, PER_ITERATION_METRICS,
                       TIME_TO_QUALITY, TRAIN_BENCHMARKS, TRAIN_METRICS, AuditData, finite, select, truthy)
from .model import Status, check, ev, worst

NA = Status.NOT_APPLICABLE


def _files(rows: pd.DataFrame) -> str:
    return ", ".join(sorted(set(rows["source_file"]))) if len(rows) else ""


def _level(value) -> str:
    """A factor level as text (32.0 from a merged numeric column prints as 32)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _training(data: AuditData, include_tuning: bool = False) -> pd.DataFrame:
    fr = data.frame
    rows = fr[fr["benchmark"].str.lower().isin(TRAIN_BENCHMARKS) | fr["metric"].isin(TRAIN_METRICS)]
    if not include_tuning and "role" in rows:
        rows = rows[rows["role"] != "tuning"]
    return rows


def _inference(data: AuditData) -> pd.DataFrame:
    fr = data.frame
    return fr[fr["benchmark"].str.lower().isin(INFER_BENCHMARKS) | fr["metric"].str.lower().str.contains("latency")]


def _ml(data: AuditData) -> pd.DataFrame:
    fr = data.frame
    quality_workloads = set(fr.loc[data.kinds == "quality", "workload"])
    mask = (fr["benchmark"].str.lower().isin(TRAIN_BENCHMARKS | INFER_BENCHMARKS) | fr["metric"].isin(TRAIN_METRICS)
            | fr["workload"].isin(quality_workloads))
    rows = fr[mask]
    return rows[rows["role"] != "tuning"] if "role" in rows else rows


THROUGHPUT_METRICS = ("throughput", "samples_per_second", "completed_samples_per_second", "qps")


def _throughput(data: AuditData, rows: pd.DataFrame) -> float | None:
    """Median of the first throughput metric present (one unit only), else of all rate rows of one unit."""
    for metric in THROUGHPUT_METRICS:
        values = finite(select(rows, metric)["value"])
        if values.size:
            return float(np.median(values))
    rates = rows[data.kinds.loc[rows.index] == "rate"]
    rates = rates[rates["unit"] == rates["unit"].iloc[0]] if len(rates) else rates
    values = finite(select(rates)["value"])
    return float(np.median(values)) if values.size else None


def _median(rows: pd.DataFrame, metric: str) -> float | None:
    values = finite(select(rows, metric)["value"])
    return float(np.median(values)) if values.size else None


def _reached(rows: pd.DataFrame) -> pd.DataFrame:
    """time_to_quality rows of runs that reached the target (column reached_target / converged if present)."""
    for name in ("reached_target", "converged"):
        if name in rows:
            return rows[np.array([truthy(v) is not False for v in rows[name]], dtype=bool)]
    return rows


# ------------------------------------------------------------------ F1

@check("F1", "scaling that sacrifices accuracy")
def f1_scaling_accuracy(data: AuditData):
    """A batch-size or rank sweep reports end-to-end time to quality, not throughput alone."""
    train = _training(data)
    statuses, evidence = [], []
    for factor in ("batch_size", "ranks"):
        if factor not in train or train[factor].nunique() < 2:
            continue
        for workload, rows in train.groupby("workload"):
            if rows[factor].nunique() < 2:
                continue
            table = {}
            for level, part in rows.groupby(factor):
                ttq = select(part, TIME_TO_QUALITY)
                table[_level(level)] = {"throughput_median": _throughput(data, part),
                                     "time_to_quality_median": _median(_reached(ttq), TIME_TO_QUALITY),
                                     "runs": int(ttq["run_id"].nunique()),
                                     "reached_target": int(_reached(ttq)["run_id"].nunique())}
            missing = [lvl for lvl, t in table.items() if t["runs"] == 0]
            statuses.append(Status.FAIL if missing else Status.PASS)
            evidence.append(ev(f"{workload}: {factor} sweep", table, _files(rows), f"column {factor}",
                               "rows metric=time_to_quality", "rows of kind rate", "column reached_target"))
            if missing:
                evidence.append(ev(f"{workload}: {factor} levels without time to quality", missing, _files(rows),
                                   f"column {factor}", "rows metric=time_to_quality"))
            else:
                fastest = max(table, key=lambda k: table[k]["throughput_median"] or -1)
                quickest = min(table, key=lambda k: table[k]["time_to_quality_median"] or np.inf)
                evidence.append(ev(f"{workload}: highest throughput at {factor}={fastest}, shortest time to quality at",
                                   quickest, _files(rows), "rows of kind rate",
                                   "rows metric=time_to_quality"))
    if not statuses:
        return NA, [ev("training sweep of batch_size or ranks", 0, "", "column batch_size", "column ranks")], ""
    return worst(statuses), evidence, ("Report time to quality (and whether the target was reached) for every batch size "
                                       "and scale, not only throughput (F1).")


# ------------------------------------------------------------------ F2

@check("F2", "per-iteration speedups that slow convergence")
def f2_per_iteration(data: AuditData):
    """Per-iteration speedups (claims on iteration metrics, or an approximation factor) come with time to quality."""
    fr = data.frame
    statuses, evidence = [], []
    for claim in data.claims:
        if claim.metric not in PER_ITERATION_METRICS or claim.b is None:
            continue
        a = _reached(select(fr, TIME_TO_QUALITY, claim.a))
        b = _reached(select(fr, TIME_TO_QUALITY, claim.b))
        if a.empty or b.empty:
            statuses.append(Status.FAIL)
            evidence.append(ev(f"claim {claim.id}: per-iteration claim on {claim.metric} without end-to-end time to quality",
                               {"a_runs": int(a["run_id"].nunique()), "b_runs": int(b["run_id"].nunique())},
                               claim.origin, "claims[].metric", "rows metric=time_to_quality"))
            continue
        ratio = float(np.median(finite(b["value"])) / np.median(finite(a["value"])))
        statuses.append(Status.PASS if ratio >= 1 else Status.FAIL)
        evidence.append(ev(f"claim {claim.id}: end-to-end speedup, median time to quality b/a", ratio,
                           _files(pd.concat([a, b])), "rows metric=time_to_quality"))
    train = _training(data)
    for column in APPROXIMATION_COLUMNS:
        if column not in train or train[column].nunique() < 2:
            continue
        table = {}
        for level, part in train.groupby(column):
            per_iter = part[part["metric"].isin(PER_ITERATION_METRICS)]
            table[_level(level)] = {"per_iteration_rows": int(len(per_iter)),
                                    "time_to_quality_median": _median(_reached(part), TIME_TO_QUALITY),
                                    "per_iteration_median": float(np.median(finite(select(per_iter)["value"])))
                                    if len(per_iter) else None}
        missing = [k for k, t in table.items() if t["time_to_quality_median"] is None]
        statuses.append(Status.FAIL if missing else Status.PASS)
        evidence.append(ev(f"{column} levels: per iteration and end to end", table, _files(train),
                           f"column {column}", "rows metric=iteration_time/time_per_step",
                           "rows metric=time_to_quality/time_to_train"))
    if not statuses:
        return NA, [ev("per-iteration claims or approximation factor", 0, "", "claims", "column approximation")], ""
    return worst(statuses), evidence, ("Report an approximation's effect end to end (time to the quality target), "
                                       "beside its per-iteration gain (F2).")


# ------------------------------------------------------------------ F3

@check("F3", "training loss without generalization")
def f3_generalization(data: AuditData):
    """Every training run with training loss/accuracy also has a held-out test accuracy."""
    train = _training(data)
    with_train = train[train["metric"].isin(["train_loss", "train_accuracy"])]
    if with_train.empty:
        return NA, [ev("rows metric=train_loss/train_accuracy", 0, "", "rows metric=train_loss", "rows metric=train_accuracy")], ""
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

@check("F4", "hidden hyperparameter tuning cost")
def f4_tuning(data: AuditData):
    """Declared tuning (attr tuning {parameters, trials}) matches the tuning rows (role == tuning), with their cost."""
    train = _training(data, include_tuning=True)
    if train.empty:
        return NA, [ev("training rows", 0, "", "column benchmark")], ""
    tuning_rows = train[train["role"] == "tuning"] if "role" in train else train.iloc[0:0]
    declared = data.attrs("tuning") + data.attrs("lr_search")
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
        cost = tuning_rows[data.kinds.loc[tuning_rows.index] == "cost"]
        per_run = cost.groupby(["source_file", "run_id"])["value"].max()
        if per_run.empty:
            statuses.append(Status.WARN)
            evidence.append(ev("tuning runs without a time to cost them", trials_run, _files(tuning_rows), "column role"))
        else:
            final = _reached(select(train[train["role"] != "tuning"] if "role" in train else train, TIME_TO_QUALITY))
            evidence.append(ev("total cost of tuning runs, s (max time row per run)", float(per_run.sum()),
                               _files(tuning_rows), "rows role=tuning of kind cost"))
            if len(final):
                evidence.append(ev("median time to quality of final runs, s", float(np.median(final["value"])),
                                   _files(final), "rows metric=time_to_quality"))
        if not declared:
            statuses.append(Status.PASS)
    if not statuses:
        return Status.NEEDS_HUMAN, [ev("tuning declaration or tuning runs", "none", "", "attr tuning", "column role")], \
            "State whether hyperparameters were tuned (attr tuning, trials 0 if none) and record every trial."
    return worst(statuses), evidence, "Record every tuning trial (role=tuning) and its cost next to the final result (F4)."


# ------------------------------------------------------------------ F5

@check("F5", "op/s with unstated bitwidth or ops never executed")
def f5_dtype_ops(data: AuditData):
    """Every rate names its number format; flop/op rates count executed operations; mixed precision is broken down."""
    statuses, evidence = [], []
    for src in data.sources:
        rates = src.frame[src.kinds == "rate"]
        if rates.empty:
            continue
        precision = rates["precision"].astype(str).str.strip().str.lower()
        bad = int(precision.isin(["", "unknown", "?", "none", "nan"]).sum())
        statuses.append(Status.FAIL if bad else Status.PASS)
        evidence.append(ev("rate rows without a number format", f"{bad} of {len(rates)}", src.path, "column precision",
                           "rows of kind rate"))
        evidence.append(ev("number formats of rates", sorted(set(precision) - {""}), src.path, "column precision"))
        op_rates = rates[rates["unit"].str.lower().str.contains(r"flop|op/s|ops/s", regex=True)]
        if len(op_rates):
            counted = str(src.attr("op_count", "") or "").strip().lower()
            statuses.append(Status.PASS if counted == "executed" else Status.FAIL if counted in ("nominal", "theoretical")
                            else Status.WARN)
            evidence.append(ev("how operations were counted", counted or "not stated", src.path, "attr op_count"))
        mixed = precision[precision.str.startswith("mixed") | precision.str.contains(r"\+|autocast", regex=True)]
        if len(mixed):
            broken_down = src.has("dtype_mix") or src.frame["metric"].str.startswith("ops_").any()
            statuses.append(Status.PASS if broken_down else Status.WARN)
            evidence.append(ev("mixed-precision rates with a per-dtype breakdown", broken_down, src.path, "attr dtype_mix",
                               "rows metric=ops_<dtype>"))
    if not statuses:
        return NA, [ev("rate rows", 0, "", "rows of kind rate")], ""
    return worst(statuses), evidence, ("State the number format of every rate, count only operations actually executed "
                                       "(attr op_count: executed) and break mixed precision down by dtype (F5).")


# ------------------------------------------------------------------ F6

def _scope(data: AuditData) -> pd.Series:
    """Timing scope of each row: column timing_scope, else its file's attr timing_scope."""
    fr = data.frame
    per_file = {s.path: str(s.attr("timing_scope", "") or "") for s in data.sources}
    column = fr["timing_scope"].astype(str) if "timing_scope" in fr else pd.Series([""] * len(fr), index=fr.index)
    fallback = fr["source_file"].map(per_file).fillna("")
    return column.where(column.str.strip() != "", fallback).str.strip().str.lower()


@check("F6", "kernels shown without the whole")
def f6_kernel_share(data: AuditData):
    """Kernel/component timings (timing_scope kernel|component, metric *kernel_time) come with end-to-end time."""
    fr = data.frame
    scope = _scope(data)
    kernel = fr[scope.isin(["kernel", "component", "region"]) | fr["metric"].str.endswith("kernel_time")]
    if kernel.empty:
        return NA, [ev("kernel- or component-scoped timings", 0, "", "column/attr timing_scope", "rows metric=*kernel_time")], ""
    whole = fr[(scope == "end_to_end") | fr["metric"].isin(END_TO_END_METRICS)]
    workloads = set(kernel["workload"])
    covered = workloads & set(whole["workload"])
    status = Status.PASS if covered == workloads else Status.FAIL
    evidence = [ev("workloads with kernel timings that also have end-to-end time", f"{len(covered)} of {len(workloads)}",
                   _files(kernel), "column/attr timing_scope", "rows metric=time_to_quality/end_to_end_time")]
    for workload in sorted(covered):
        k = finite(kernel.loc[kernel["workload"] == workload, "value"])
        w = finite(whole.loc[(whole["workload"] == workload) & (data.kinds.loc[whole.index] == "cost"), "value"])
        if k.size and w.size:
            evidence.append(ev(f"{workload}: median kernel time / median end-to-end time", float(np.median(k) / np.median(w)),
                               _files(kernel), "column/attr timing_scope", "column value"))
    return status, evidence, "Show each kernel's share of the end-to-end time, not the kernel alone (F6)."


# ------------------------------------------------------------------ F7

@check("F7", "one network only")
def f7_models(data: AuditData):
    """ML results cover more than one model and more than one dataset."""
    ml = _ml(data)
    if ml.empty:
        return NA, [ev("training or inference rows", 0, "", "column benchmark")], ""
    models = sorted(set(ml["workload"]))
    datasets = set(ml["dataset"]) - {""} if "dataset" in ml else set()
    for src, value in data.attrs("datasets") + data.attrs("dataset"):
        datasets |= set(value) if isinstance(value, list) else {str(value)}
    status = Status.PASS if len(models) > 1 and len(datasets) > 1 else Status.WARN
    return status, [ev("models", models, _files(ml), "column workload"),
                    ev("datasets", sorted(datasets), _files(ml), "column dataset", "attr datasets")], \
        "Benchmark more than one model and more than one dataset before generalizing (F7)."


# ------------------------------------------------------------------ F8

HARDWARE_COLUMNS = ("device", "hardware", "system", "accelerator")
HARDWARE_FIELDS = ("release_year", "peak", "price")


@check("F8", "unfair hardware comparison")
def f8_hardware(data: AuditData):
    """Compared devices (column device/hardware/system, or several environments) state age, peak and cost."""
    fr = data.frame
    compared = set()
    for column in HARDWARE_COLUMNS:
        if column in fr and fr[column].nunique() > 1:
            compared |= set(fr[column]) - {""}
    hashes = {str(s.ds.attrs.get("environment_hash")) for s in data.sources} - {"", "unknown", "mixed"}
    if not compared and len(hashes) < 2:
        return NA, [ev("devices or environments compared", 0, "", "column device", "attr environment_hash")], ""
    described = {}
    for _, value in data.attrs("hardware"):
        if isinstance(value, dict):
            described.update(value)
    names = compared or {h[:12] for h in hashes}
    missing = {n: [f for f in HARDWARE_FIELDS if f not in (described.get(n) or {})] for n in names}
    status = (Status.FAIL if all(len(m) == len(HARDWARE_FIELDS) for m in missing.values())
              else Status.WARN if any(missing.values()) else Status.PASS)
    return status, [ev("compared devices and missing facts", missing, "", "column device", "attr hardware")], \
        "For each compared device state its release year, peak performance and price (attr hardware) (F8)."


# ------------------------------------------------------------------ F9

@check("F9", "inference cost ignored")
def f9_inference(data: AuditData):
    """Trained models are also measured at inference (latency and throughput)."""
    train, infer = _training(data), _inference(data)
    if train.empty and infer.empty:
        return NA, [ev("training or inference rows", 0, "", "column benchmark")], ""
    evidence = [ev("training rows", int(len(train)), _files(train), "column benchmark", "training metrics"),
                ev("inference rows", int(len(infer)), _files(infer), "column benchmark", "rows metric~latency")]
    if len(infer):
        latency = finite(infer.loc[infer["metric"].str.contains("latency"), "value"])
        if latency.size:
            evidence.append(ev("median inference latency", float(np.median(latency)), _files(infer), "rows metric~latency"))
    if len(train):
        ttq = _median(_reached(train), TIME_TO_QUALITY)
        if ttq is not None:
            evidence.append(ev("median training time to quality", ttq, _files(train), "rows metric=time_to_quality"))
    status = Status.WARN if infer.empty else Status.PASS
    return status, evidence, "Measure the trained model's inference latency and throughput beside its training cost (F9)."


# ------------------------------------------------------------------ F10

@check("F10", "I/O not counted")
def f10_io(data: AuditData):
    """Runs labelled end to end include I/O (timed region starts when data is touched)."""
    fr = data.frame
    scope = _scope(data)
    per_file = {s.path: s.attr("io_included") for s in data.sources}
    io = fr["io_included"] if "io_included" in fr else pd.Series([None] * len(fr), index=fr.index)
    io = pd.Series([truthy(v) if truthy(v) is not None else truthy(per_file.get(f))
                    for v, f in zip(io, fr["source_file"])], index=fr.index, dtype=object)
    end_to_end = scope == "end_to_end"
    statuses, evidence = [], []
    if end_to_end.any():
        excluded = fr[end_to_end & (io == False)]  # noqa: E712 - three-valued
        unstated = fr[end_to_end & io.isna()]
        statuses.append(Status.FAIL if len(excluded) else Status.WARN if len(unstated) else Status.PASS)
        evidence.append(ev("rows labelled end to end", {"total": int(end_to_end.sum()), "io_excluded": int(len(excluded)),
                           "io_unstated": int(len(unstated))}, _files(fr[end_to_end]), "column/attr timing_scope",
                           "column/attr io_included"))
        preloaded = fr[scope.isin(["preloaded", "in_memory"])]
        a, b = _median(_reached(fr[end_to_end]), TIME_TO_QUALITY), _median(_reached(preloaded), TIME_TO_QUALITY)
        if a is not None and b is not None:
            evidence.append(ev("median time to quality: with I/O / preloaded", a / b, _files(fr), "rows metric=time_to_quality"))
    elif len(_training(data)):
        statuses.append(Status.WARN)
        evidence.append(ev("timing scope of training runs", "not stated", _files(_training(data)), "attr timing_scope",
                           "attr io_included"))
    if not statuses:
        return NA, [ev("end-to-end timings or training rows", 0, "", "attr timing_scope")], ""
    return worst(statuses), evidence, ("Start the timed region when data are first touched on disk (io_included: 1) and "
                                       "label any preloaded variant as such (F10).")


# ------------------------------------------------------------------ F11

@check("F11", "unreasonably large inputs")
def f11_input_size(data: AuditData):
    """An input-size sweep reports quality at every size, beside the rate."""
    ml = _ml(data)
    column = "input_size" if "input_size" in ml else "size"
    ml = ml[~ml[column].astype(str).str.strip().isin(["", "0", "-1", "nan", "0.0", "-1.0"])]
    if ml.empty or not (data.kinds.loc[ml.index] == "quality").any():
        return NA, [ev("ML rows with quality and an input size", 0, "", f"column {column}")], ""
    table = {}
    for level, part in ml.groupby(column):
        kinds = data.kinds.loc[part.index]
        table[_level(level)] = {"quality_rows": int((kinds == "quality").sum()),
                             "performance_rows": int(kinds.isin(["cost", "rate"]).sum())}
    evidence = [ev(f"input sizes ({column})", table, _files(ml), f"column {column}", "rows of kind quality/cost/rate")]
    if len(table) < 2:
        return Status.WARN, evidence, "Sweep the input size and show quality beside flop/s or throughput (F11)."
    missing = [k for k, t in table.items() if t["quality_rows"] == 0]
    return (Status.FAIL if missing else Status.PASS), evidence, \
        "Report quality at every input size, so a larger input's higher rate is weighed against what it buys (F11)."


# ------------------------------------------------------------------ F12

def _pareto(data: AuditData) -> list[dict]:
    """Variants (workload, precision, implementation) with median accuracy and throughput; front flagged."""
    ml = _ml(data)
    points = []
    for key, part in ml.groupby(["workload", "precision", "implementation"]):
        acc = finite(select(part, ["test_accuracy", "accuracy"])["value"])
        rate = _throughput(data, part)
        if acc.size and rate is not None:
            points.append({"variant": "/".join(map(str, key)), "accuracy": float(np.median(acc)), "throughput": rate})
    for p in points:
        p["on_front"] = not any(q["accuracy"] >= p["accuracy"] and q["throughput"] >= p["throughput"] and q is not p
                                and (q["accuracy"] > p["accuracy"] or q["throughput"] > p["throughput"]) for q in points)
    return points


def definition_key(text) -> str:
    """'relative_to_errors', or a text starting 'relative to errors: ...' -> the definition's key ('' if none)."""
    head = str(text or "").split(":")[0].strip().lower().replace("_", " ").replace("-", " ")
    return {"relative": "relative", "absolute points": "absolute_points",
            "relative to errors": "relative_to_errors"}.get(" ".join(head.split()), "")


@check("F12", "badly chosen comparison points")
def f12_comparison_points(data: AuditData):
    """Relative accuracy states its definition (absolute points, relative, relative to errors); Pareto front shown."""
    statuses, evidence = [], []
    for src in data.sources:
        rows = src.frame[src.frame["metric"].str.startswith("relative_accuracy")]
        summaries = [s for s in src.summaries() if str(s.get("metric", "")).startswith("relative_accuracy")]
        if rows.empty and not summaries:
            continue
        definition = str(src.attr("relative_accuracy_definition", "") or "")
        ok = definition_key(definition) in DEFINITIONS
        statuses.append(Status.PASS if ok else Status.FAIL)
        evidence.append(ev("relative accuracy definition", definition or "not stated", src.path,
                           "attr relative_accuracy_definition", "rows metric=relative_accuracy"))
        for s in summaries:
            if not ok and definition_key(s.get("relative_accuracy", "")) not in DEFINITIONS:
                evidence.append(ev(f"summary of {s.get('metric')} without a definition", s.get("value"), src.path,
                                   "attr summaries[].relative_accuracy"))
    for origin, ident, message, kind in data.claim_problems:
        if kind == "accuracy_relative":
            statuses.append(Status.FAIL)
            evidence.append(ev(f"claim {ident}", message, origin, "attr claims[].relative_accuracy"))
    for claim in data.claims:
        if claim.kind == "accuracy_relative":
            statuses.append(Status.PASS)
            evidence.append(ev(f"claim {claim.id}: relative accuracy means", claim.relative_accuracy, claim.origin,
                               "claims[].relative_accuracy"))
    points = _pareto(data)
    if len(points) > 1:
        statuses.append(Status.PASS)
        evidence.append(ev("accuracy/throughput Pareto front", [p for p in points if p["on_front"]], _files(_ml(data)),
                           "rows metric=test_accuracy", "rows of kind rate"))
        dominated = [p["variant"] for p in points if not p["on_front"]]
        if dominated:
            evidence.append(ev("dominated variants (poor comparison points)", dominated, _files(_ml(data)),
                                   "rows metric=test_accuracy", "rows of kind rate"))
    if not statuses:
        return NA, [ev("relative accuracy or accuracy/performance variants", 0, "", "rows metric=relative_accuracy")], ""
    return worst(statuses), evidence, ("Say whether relative accuracy means absolute points, relative, or relative to "
                                       "errors (attr relative_accuracy_definition), and compare on the Pareto front (F12).")
