"""The twelve rules of Hoefler & Belli, *Scientific Benchmarking of Parallel Computing Systems* (SC15).

One small function per rule; each reads only the evidence named in ``docs/checklist-evidence.md``
and returns (status, evidence, recommendation).  ``fail`` means the data prove a violation,
``warn`` weak evidence, ``needs_human`` undecidable from data, ``not_applicable`` no such feature.
Statistics are recomputed from the raw rows where the rows allow it (scipy for the means and
Shapiro–Wilk, ``twelveways.stats.median_ci`` for the CI of the median).
"""

from __future__ import annotations

import dataclasses
import functools

import math
import re

import numpy as np
import pandas as pd

from .. import families, stability, stats
from ..errors import StatisticsError
from ..evidence import registry
from ..evidence.attributes import is_set, objects
from ..evidence.kinds import StatedBy
from ..resultset import (ResultSet, code_order, code_positions, describe, finite, group_codes, group_positions, is_percentile,
                         kept_runs, normalize_statistic, per_text, select, truthy)
from . import restate
from .model import AuditRun, Status, check, ev, judged, source_parts, worst

COST_STATISTICS = {"arithmetic_mean", "median", "olympic_mean", "trimmed_mean", "min", "max"}
RATE_STATISTICS = {"harmonic_mean", "median", "min", "max"}
PARAMETRIC_CI = {"t", "student_t", "normal", "z", "parametric", "mean_t", "sem", "t_interval", "t_log_invocations"}
NONPARAMETRIC_CI = {"median_binomial", "binomial", "order_statistic", "order_statistics", "exact_binomial",
                    "bootstrap", "nonparametric", "distribution_free"}
#: Spellings of statistical tests -> canonical name (documented in docs/checklist-evidence.md, R7).
TEST_SPELLINGS = {
    "mann_whitney": ("mann_whitney", "mann_whitney_u", "mannwhitneyu", "mann_whitney_u_test", "mwu", "u_test",
                     "wilcoxon_rank_sum", "wilcoxon_rank_sum_test", "ranksums", "rank_sum"),
    "wilcoxon_signed_rank": ("wilcoxon", "wilcoxon_signed_rank", "signed_rank", "wilcoxon_signed_rank_test"),
    "kruskal_wallis": ("kruskal_wallis", "kruskal", "kruskal_wallis_h", "kruskal_wallis_test"),
    "brunner_munzel": ("brunner_munzel", "brunnermunzel"),
    "permutation": ("permutation", "permutation_test", "randomization_test"),
    "bootstrap": ("bootstrap", "bootstrap_ci", "bootstrap_test"),
    "ci_non_overlap": ("ci_overlap", "ci_non_overlap", "non_overlapping_ci", "non_overlapping_cis", "confidence_intervals"),
    "t_test": ("t_test", "ttest", "ttest_ind", "students_t", "student_t", "student_t_test", "t"),
    "welch_t": ("welch", "welch_t", "welchs_t", "welch_t_test", "welchs_t_test", "ttest_ind_welch"),
    "anova": ("anova", "f_oneway", "one_way_anova"),
}
SOUND_TESTS = {"mann_whitney", "wilcoxon_signed_rank", "kruskal_wallis", "brunner_munzel", "permutation", "bootstrap",
               "ci_non_overlap"}
PARAMETRIC_TESTS = {"t_test", "welch_t", "anova"}
NO_TEST = {"", "none", "means", "mean", "eyeball", "visual"}
_SPELLING = {spelling: name for name, spellings in TEST_SPELLINGS.items() for spelling in spellings}


def canonical_test(text) -> str:
    """Canonical name of a stated test ("Mann–Whitney U", "mannwhitneyu", "Welch's t" ...), or ``""``."""
    token = _token(text).replace("'", "").replace("’", "").replace(".", "")
    token = "_".join(part for part in token.split("_") if part)
    return _SPELLING.get(token, _SPELLING.get(token.removesuffix("_test"), ""))


ALPHA = 0.05


def _token(text) -> str:
    return str(text or "").strip().lower().replace("-", "_").replace(" ", "_").replace("–", "_")


# ------------------------------------------------------------------ R1

@check("R1", "speedup base case and its absolute value")
def r1_speedup_base_case(audit: AuditRun):
    """Every speedup names its base case (best serial or one parallel process) and its absolute value."""
    statuses, evidence = [], []
    for src in audit.results.sources:
        rows = src.frame[src.frame["metric"].str.lower().str.contains("speedup")]
        summaries = [s for s in src.summaries() if "speedup" in s.metric.lower()]
        if rows.empty and not summaries:
            continue
        base = src.attributes.speedup_base_case
        attr_ok = isinstance(base, dict) and bool(base.get("kind") or base.get("description")) and _finite(base.get("value"))
        if not rows.empty:
            case = rows["base_case"].astype(str).str.strip() if "base_case" in rows else None
            value = rows["base_value"].astype(float) if "base_value" in rows else None
            ok = np.ones(len(rows), dtype=bool) if attr_ok else np.zeros(len(rows), dtype=bool)
            if case is not None and value is not None:
                ok |= (case != "").to_numpy() & np.isfinite(value.to_numpy()) & (value.to_numpy() > 0)
            bad = int((~ok).sum())
            statuses.append(Status.FAIL if bad else Status.PASS)
            evidence.append(ev("speedup rows without a base case or its absolute value", f"{bad} of {len(rows)}",
                               src.path, "rows metric~speedup", "column base_case", "column base_value",
                               "attr speedup_base_case"))
            if not bad and case is not None:
                evidence.append(ev("base cases", sorted(set(case))[:5], src.path, "column base_case"))
            if attr_ok:
                evidence.append(ev("declared base case", base, src.path, "attr speedup_base_case"))
        for s in summaries:
            ok = attr_ok or ((s.base_case or "").strip() != "" and s.base_value is not None)
            statuses.append(Status.PASS if ok else Status.FAIL)
            evidence.append(ev(f"speedup summary of {s.metric} states base case and value", ok, src.path,
                               "attr summaries[].base_case", "attr summaries[].base_value"))
    return judged(statuses, evidence, ev("speedup rows or summaries", 0, "", "rows metric~speedup", "attr summaries"),
                  ("State the base case (best serial run, or one parallel process) and its absolute "
                   "value: columns base_case + base_value on speedup rows, or attr speedup_base_case."))


def _finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------ R2

ALIASES = {"kernels": ["workload"], "workloads": ["workload"], "models": ["workload"], "benchmarks": ["workload"],
           "implementations": ["implementation"], "resources": ["ranks", "threads"], "datasets": ["dataset"],
           "precisions": ["precision", "variant"], "input_sizes": ["input_size"]}


def _reasons(data: ResultSet, src) -> tuple[dict, str]:
    """factor -> reason, from attr subset_reasons / subset_reason and config.json subset_reasons."""
    merged = {}
    for raw in (data.config_value("subset_reasons", default={}), src.attributes.subset_reasons or {}):
        if isinstance(raw, dict):
            for key, reason in raw.items():
                if str(reason or "").strip():
                    for factor in ALIASES.get(key, [key]):
                        merged[factor] = str(reason)
    general = str(src.attributes.subset_reason or "").strip()
    return merged, general


def _suite_levels(frame: pd.DataFrame) -> tuple[dict, str]:
    """For a file that states no levels: the workloads of a published suite its rows belong to
    (a family declared with ``suite``, twelveways.families), else ({}, "")."""
    for stage in sorted({str(b) for b in frame["benchmark"].tolist()}):
        family = families.by_stage(stage)
        if family is not None and family.suite and family.workloads:
            return ({"workload": list(family.workloads)},
                    f"declared workloads of the {family.name} suite ({len(family.workloads)}, twelveways.families)")
    return {}, ""


@check("R2", "reasons for any subset of benchmarks or resources")
def r2_subset_reasons(audit: AuditRun):
    """Levels declared available but not run (attr levels_available) need a stated reason."""
    results = audit.results
    statuses, evidence = [], []
    stages = results.config_value("stages", default={}) or {}
    for stage, enabled in stages.items():
        if not enabled:
            reason = str(results.config_value("subset_reasons", stage, default="") or "").strip()
            statuses.append(Status.PASS if reason else Status.FAIL)
            evidence.append(ev(f"stage {stage} switched off", reason or "no reason given", results.config_path,
                               f"stages.{stage}", f"subset_reasons.{stage}"))
    for src in results.raw_sources:  # derived files restate the raw levels; they select nothing
        available = src.attributes.levels_available
        field = "attr levels_available"
        if not isinstance(available, dict) and (src.frame["benchmark"] == "bounds").all():
            continue  # machine bounds (R11) are not a benchmark selection
        if not isinstance(available, dict):
            available, field = _suite_levels(src.frame)
            if not available:
                statuses.append(Status.NEEDS_HUMAN)
                evidence.append(ev("levels available", "not declared", src.path, "attr levels_available"))
                continue
        reasons, general = _reasons(results, src)
        rows = src.frame
        for factor, levels in available.items():
            if factor not in rows.columns:
                statuses.append(Status.WARN)
                evidence.append(ev(f"factor {factor} declared but absent from the rows", levels, src.path, field))
                continue
            present = {str(v) for v in rows[factor].tolist()}
            missing = [str(v) for v in levels if str(v) not in present]
            if not missing:
                statuses.append(Status.PASS)
                evidence.append(ev(f"all levels of {factor} present", len(levels), src.path, field, f"column {factor}"))
                continue
            reason = reasons.get(factor) or general
            statuses.append(Status.PASS if reason else Status.FAIL)
            evidence.append(ev(f"levels of {factor} not run", missing, src.path, field, f"column {factor}"))
            evidence.append(ev(f"reason for the subset of {factor}", reason or "none given", src.path or results.config_path,
                               "attr subset_reasons", "attr subset_reason", "config subset_reasons"))
    return worst(statuses), evidence, ("Say why any benchmark, implementation or resource level was left out "
                                       "(attr subset_reasons {factor: reason} or config subset_reasons).")


# ------------------------------------------------------------------ R3 / R4 summaries

def _recompute(src, summary) -> dict | None:
    """Arithmetic, harmonic, geometric mean and median of the rows a summary covers (R4's evidence)."""
    rows = select(src.frame, summary.metric, summary.filters)
    values = finite(rows["value"])
    if values.size < 2 or np.any(values <= 0):
        return None
    return {"n": int(values.size), "arithmetic_mean": float(np.mean(values)), "harmonic_mean": stats.harmonic_mean(values),
            "geometric_mean": stats.geometric_mean(values), "median": float(np.median(values))}


def _identify(stored, recomputed) -> str | None:
    """Which recomputed statistic the stored value equals (relative 1e-6), if exactly one."""
    if not _finite(stored) or recomputed is None:
        return None
    hits = [name for name in ("arithmetic_mean", "harmonic_mean", "geometric_mean", "median")
            if math.isclose(float(stored), recomputed[name], rel_tol=1e-6)]
    return hits[0] if len(hits) == 1 else None


def _summary_label(s, kind: str) -> str:
    unit = f" ({s.unit})" if s.unit else ""
    return f"{kind} {s.metric}{unit} {describe(s.filters)}".strip()


def _summary_kind(data: ResultSet, src, s) -> str:
    """A summary's kind; a derived file's summary without a unit takes its unit from the raw rows."""
    kind = src.summary_kind(s)
    if kind == "other" and src.derived and not s.unit and not s.kind:
        units = data.frame.loc[data.frame["metric"] == s.metric, "unit"]
        if len(units):
            kind = src.kind(s.metric, str(units.iloc[0]))
    return kind


def _judge_statistic(src, s, kind: str) -> tuple[Status, str]:
    """Is the stated (or identified) statistic right for a cost / rate? (status, statistic)."""
    statistic = normalize_statistic(s.statistic) or _identify(s.value, _recompute(src, s)) or ""
    if not statistic:
        return Status.WARN, ""
    allowed = COST_STATISTICS if kind == "cost" else RATE_STATISTICS
    if kind == "rate" and statistic == "arithmetic_mean" and s.rate_intervals == "equal_time":
        return Status.PASS, statistic  # rates over equal times (JMH thrpt): their mean is total work / total time
    if statistic == "geometric_mean" and s.ci_level:
        # replicates of ONE configuration (each one's own R3 mean) on the log scale of their t interval: a
        # location estimate, not a sum of different costs or rates, which is what R3 forbids the geometric mean
        return Status.PASS, statistic
    return (Status.PASS if statistic in allowed or is_percentile(statistic) else Status.FAIL), statistic


def _r3_source(audit: AuditRun, src) -> tuple[list[Status], list]:
    """R3 on one file's summaries: the statistic's name, then its value and CI recomputed from the rows."""
    statuses, evidence, tally = [], [], {"agrees": 0, "contradicts": 0, "not_recomputed": 0, "includes_invalid": 0}
    where = (src.path, "attr summaries[].statistic", "attr summaries[].value", "attr summaries[].ci")
    for s in src.summaries():
        kind = _summary_kind(audit.results, src, s)
        if kind not in ("cost", "rate"):
            continue
        label = _summary_label(s, kind)
        if s.stated_by is StatedBy.READER:  # computed on import from these rows: nothing the publisher stated
            evidence.append(ev(f"{label}: {s.statistic} computed by the reader, not stated by the publisher "
                               "(not restated)", s.value, src.path, "attr summaries[].stated_by"))
            continue
        status, statistic = _judge_statistic(src, s, kind)
        statuses.append(status)
        if status is not Status.PASS:
            evidence.append(ev(f"{label}: statistic", statistic or "not stated and not identifiable", *where))
            if status is Status.WARN:
                continue
        for outcome in filter(None, (restate.check_value(audit, src, s.model_copy(update={"statistic": statistic})),
                                     restate.check_ci(audit, src, s))):
            tally[outcome.outcome] += 1
            if outcome.outcome == "contradicts":
                statuses.append(Status.FAIL)
                evidence.append(ev(f"{label}: {statistic} stated vs recomputed from {outcome.n} rows",
                                   outcome.why, *where, "column value"))
            elif outcome.outcome == "includes_invalid":
                statuses.append(Status.WARN)
                evidence.append(ev(f"{label}: {statistic} over failed runs too", outcome.why, *where, "column valid"))
            elif outcome.outcome == "not_recomputed":
                statuses.append(Status.WARN)
                if tally["not_recomputed"] <= 5:
                    evidence.append(ev(f"{label}: {statistic} not recomputed", outcome.why, *where))
            elif tally["agrees"] <= 2:
                evidence.append(ev(f"{label}: {statistic} stated {outcome.stated:.6g}, recomputed {outcome.recomputed:.6g}"
                                   if outcome.stated is not None else f"{label}: CI recomputed", f"{outcome.n} rows",
                                   *where, "column value"))
    for line in src.summaries_left_out():  # a publisher's odd entry: that statement cannot be restated, the rest can
        statuses.append(Status.WARN)
        evidence.append(ev("stated summary left out, not restated", line, src.path, "attr summaries"))
    if any(tally.values()):
        evidence.insert(0, ev("stated numbers recomputed from the rows", tally, src.path, "attr summaries", "column value"))
    return statuses, evidence


@check("R3", "arithmetic mean for costs, harmonic for rates")
def r3_means(audit: AuditRun):
    """Summaries of costs use arithmetic mean/median, of rates harmonic mean/median; each stated value is recomputed."""
    statuses, evidence = [], []
    for src in audit.results.sources:
        found, more = _r3_source(audit, src)
        statuses += found
        evidence += more
    if not statuses:
        return Status.NOT_APPLICABLE, evidence + [ev("summaries of costs or rates stated by the publisher or the "
                                                     "analysis", 0, "", "attr summaries")], \
            "Record the summaries you report (attr summaries) so the audit can check them."
    return worst(statuses), evidence, ("Summarize costs (times) with the arithmetic mean or median and rates with the "
                                       "harmonic mean or median (SC15 R3), and state values the rows reproduce.")


@check("R4", "no averaged ratios")
def r4_ratios(audit: AuditRun):
    """Ratios (speedup, efficiency, *_ratio) are never averaged: compute the ratio of summaries."""
    statuses, evidence = [], []
    saw_ratio = False
    for src in audit.results.sources:
        ratio_rows = src.kinds == "ratio"
        saw_ratio |= bool(ratio_rows.any())
        for s in src.summaries():
            if src.summary_kind(s) != "ratio":
                continue
            saw_ratio = True
            statistic = normalize_statistic(s.statistic) or _identify(s.value, _recompute(src, s)) or ""
            where = (src.path, "attr summaries[].statistic", "attr summaries[].kind")
            label = f"ratio {s.metric} {describe(s.filters)}".strip()
            if statistic in ("arithmetic_mean", "harmonic_mean", "median", "olympic_mean", "trimmed_mean"):
                statuses.append(Status.FAIL)
            elif statistic == "geometric_mean":
                statuses.append(Status.WARN)  # allowed only when the underlying costs are unavailable
            else:
                statuses.append(Status.PASS)
            evidence.append(ev(f"{label}: averaged with", statistic or "not stated", *where))
            again = _recompute(src, s)
            if again:
                evidence.append(ev(f"{label}: mean of {again['n']} ratio rows", again["arithmetic_mean"], src.path,
                                   "column value"))
        if ratio_rows.any() and not statuses:
            evidence.append(ev("ratio rows kept per configuration, none averaged", int(ratio_rows.sum()), src.path,
                               "rows of kind ratio"))
    if not saw_ratio:
        return Status.NOT_APPLICABLE, [ev("ratio rows or summaries", 0, "", "rows of kind ratio", "attr summaries")], ""
    return worst(statuses, Status.PASS), evidence, ("Do not average ratios: summarize the costs or rates they are made of "
                                                    "and report the ratio of the summaries (SC15 R4).")


# ------------------------------------------------------------------ R5

def _noted(src, rows: pd.DataFrame, where: np.ndarray, metric: str, stop_reasons: np.ndarray | None) -> str:
    """A recorded reason why the configuration at row positions ``where`` may miss the CI target
    (``stop_reasons``: the rows' stop_reason column, None when the file has none)."""
    if stop_reasons is not None:
        reasons = {str(r) for r in stop_reasons[where]} - {"", "ci_target_met"}
        if reasons:
            return "stop_reason: " + ", ".join(sorted(reasons))
    notes = src.attributes.ci_notes or {}
    if str(notes.get(metric, "")).strip():
        return str(notes[metric])
    for s in src.summaries():
        if s.metric == metric and s.noted:
            first = rows.iloc[int(where[0])]
            if all(str(first[k]) == str(v) for k, v in s.filters.items() if k in rows and not isinstance(v, list)):
                return s.note
    return ""


def _stability(src, rows, target: float) -> tuple[Status, list]:
    """R5's stability findings (``twelveways.stability``) as a status and evidence: a warm-up past iteration 0
    or a mid-run shift warns."""
    unsteady, found = stability.findings(src, rows, target)  # rows already reduced over ranks
    evidence = [ev(item.what, item.value, src.path, *stability.FIELDS) for item in found]
    return (Status.WARN if unsteady else Status.PASS), evidence


def _r5_source(data: ResultSet, src) -> tuple[list[Status], list, bool]:
    """R5 on one raw file: its statuses, evidence, and whether it holds a measured configuration (a round's files
    are judged side by side, forkmap)."""
    confidence = data.measurement(src, "confidence")
    target = data.measurement(src, "ci_target")
    rows, not_finite = stability.measured_rows(src)
    if len(rows):  # what is summarized per iteration: the maximum over ranks where the file says so (R10)
        rows = stability.max_over_ranks(src, rows, [c for c in src.factor_columns if c in rows.columns])
    counts = {"configurations": 0, "within_target": 0, "deterministic": 0, "wide_noted": 0, "wide_unnoted": 0,
              "too_few_noted": 0, "too_few_unnoted": 0, "one_replicate": 0}
    cases = _r5_measured(src, rows, confidence, target, counts) + _r5_stated(src, target, counts)
    statuses, evidence = _source_validity(src)
    if not counts["configurations"]:  # e.g. every run failed its own check: the excluded runs, judged by none
        return statuses, evidence, False
    stable_status, stable_evidence = _stability(src, rows, target)
    target_stated = is_set(src.attributes.ci_target) or data.config_value("measurement", "ci_target") is not None
    status = _r5_status(counts)
    if status is Status.FAIL and not target_stated:  # nobody set the target: a default is no proof
        status = Status.WARN
        evidence.append(ev("no CI target stated (attr ci_target or config measurement.ci_target)",
                           f"judged against the default ±{target:.1%}", src.path, "attr ci_target"))
    statuses.append(status)
    evidence.append(ev(f"configurations (confidence {confidence:.0%}, target ±{target:.1%})", counts, src.path,
                       "column value", "attr ci_target", "attr confidence", "config measurement"))
    evidence.append(ev("what the counts mean", _r5_reading(counts, confidence, target), src.path, "column value"))
    if ci_level(src, rows):
        evidence.append(ev("nested measurements: each CI is over the means of", ci_level(src, rows), src.path,
                           "attr ci_level", f"column {ci_level(src, rows)}"))
    if not_finite:
        statuses.append(Status.WARN)
        evidence.append(ev("rows with a NaN or infinite value, left out", not_finite, src.path, "column value"))
    evidence += _r5_worst_cases(src, cases) + stable_evidence
    if src.busy_reason() and status is not Status.PASS:
        evidence.append(ev("a busy machine can explain wide CIs", src.busy_reason(), src.path, "attr contention"))
    return statuses + [stable_status], evidence, True


@check("R5", "deterministic or CIs", per_source=_r5_source)
def r5_confidence_intervals(audit: AuditRun):
    """Every measured configuration is deterministic or has a CI (over invocations if nested) within target, or says why not."""
    statuses, evidence, measured = [], [], False
    for source_statuses, source_evidence, source_measured in source_parts(audit, "R5"):  # raw files only: derived
        statuses += source_statuses  # summaries restate these CIs
        evidence += source_evidence
        measured |= source_measured
    if evidence and not measured and not audit.results.kept.any():  # every run failed its own check: say so, not "no data"
        statuses.append(Status.WARN)  # (beside any run that was kept, the excluded runs change nothing)
    return judged(statuses, evidence, ev("measured costs or rates", 0, "", "rows of kind cost/rate"),
                  ("Repeat until the CI (over invocations, where there are several) is within the target, or record why not "
                   "(stop_reason column, attr ci_notes, or a summary note); keep warm-up "
                   "iterations and interference out of the timed iterations (SC15 R5)."))


def _source_validity(src) -> tuple[list[Status], list]:
    """How many runs the tool itself judged invalid were left out of every CI (HPL's FAILED residual, STREAM's
    failed validation, an INVALID HPCG or LoadGen run: what R5 did not read, never a status of its own) and
    what the tool warns about the runs it kept (attr ``source_warnings``, e.g. HPCG's "valid but not valid for
    submission")."""
    statuses, evidence = [], []
    frame = src.frame
    invalid = frame.loc[(src.kinds.isin(["cost", "rate"]) & (frame["iteration"] != 0)).to_numpy()
                        & ~frame["valid"].to_numpy(dtype=bool), ["run_id"]]  # rows are taken: only the column read
    if len(invalid):
        reasons = sorted(set(src.column("status").loc[invalid.index].astype(str)) - {""})
        evidence.append(ev("runs their source judged invalid, left out", {
            "runs": int(invalid["run_id"].nunique()), "rows": int(len(invalid)),
            "reasons": reasons[:3] or ["none stated"]}, src.path, "column valid", "column status"))
    warnings = [str(w) for w in src.attributes.source_warnings or [] if str(w).strip()]
    if warnings:
        statuses.append(Status.WARN)
        evidence.append(ev("what the source itself says about the runs it kept", warnings[:5], src.path,
                           "attr source_warnings"))
    return statuses, evidence


def _r5_measured(src, rows, confidence: float, target: float, counts: dict) -> list:
    """Count each configuration of the rows; return its (width, label, n, ci, note) when it is not within target.

    Why positions and arrays: a published round is thousands of files of dozens of configurations
    each; one pandas groupby per configuration cost ~2 ms, this pass a tenth of that.
    """
    cases = []
    keys = [c for c in src.factor_columns if c in rows.columns]
    if not len(rows):
        return cases
    varying = {c for c in keys if rows[c].nunique(dropna=False) > 1} | {"metric", "workload"}
    stated = ci_level(src, rows)
    arrays = _R5Arrays.of(src, rows, stated)
    codes = group_codes(rows, keys)
    batch = None if stated else arrays.batch_intervals(codes, confidence)
    facts = _Configurations.of(arrays, codes, stated)
    for code, (key, where) in enumerate(group_positions(rows, keys, codes)):  # in order of first appearance
        # nested data (values inside processes, iterations inside invocations): the CI is over the
        # replicates' means, not pooled values (replicates counted at the outermost random level)
        level = stated or ("run_id" if facts.by_invocation[code] else "")
        by_invocation = level == "run_id" and not stated
        counts["one_replicate"] += bool(facts.one_invocation[code])
        if not facts.values[code]:
            continue
        counts["configurations"] += 1
        if facts.deterministic[code]:  # equal invocation means are not determinism
            counts["deterministic"] += 1
            continue
        try:
            known = by_invocation and batch is not None and not np.isnan(batch[code]).any()
            median, low, high = (float(v) for v in batch[code]) if known else \
                arrays.interval(where, arrays.level_means(where, level), by_invocation, confidence)
            width = stats.relative_half_width(median, low, high) if median else math.inf
        except StatisticsError:
            width, low, high = math.inf, None, None
        if width <= target:
            counts["within_target"] += 1
            continue
        note = _noted(src, rows, where, str(arrays.metric[where[0]]), arrays.stop_reason)
        counts[("too_few_" if low is None else "wide_") + ("noted" if note else "unnoted")] += 1
        cases.append((width, functools.partial(describe, dict(zip(keys, key)), varying), int(facts.values[code]),
                      None if low is None else [low, high], note))  # named only if among the worst shown
    return cases


@dataclasses.dataclass(frozen=True)
class _R5Arrays:
    """The columns R5 reads for one file, as arrays indexed by row position."""

    value: np.ndarray
    metric: np.ndarray
    rate: np.ndarray  # row is of kind rate
    runs: np.ndarray | None  # run_id codes (-1: missing)
    level_codes: np.ndarray | None  # codes of the stated ci_level column (-1: missing)
    stop_reason: np.ndarray | None  # the stop_reason column, when the file has one

    @classmethod
    def of(cls, src, rows: pd.DataFrame, stated: str) -> "_R5Arrays":
        runs = pd.factorize(rows["run_id"], use_na_sentinel=True)[0] if "run_id" in rows else None
        level = pd.factorize(rows[stated], use_na_sentinel=True)[0] if stated else None
        kinds = src.kinds.reindex(rows.index).to_numpy()
        stop = rows["stop_reason"].to_numpy() if "stop_reason" in rows else None
        return cls(rows["value"].to_numpy(dtype=float), rows["metric"].to_numpy(), kinds == "rate", runs, level, stop)

    def _codes(self, level: str) -> np.ndarray:
        return self.runs if level == "run_id" and self.level_codes is None else self.level_codes

    def level_means(self, where: np.ndarray, level: str) -> np.ndarray:
        """The finite values, or with a level the mean of each of its groups (rows without one left out)."""
        values = self.value[where]
        if not level:
            return finite(values)
        codes = self._codes(level)[where]
        keep = (codes >= 0) & np.isfinite(values)
        _, inverse = np.unique(codes[keep], return_inverse=True)
        return finite(np.bincount(inverse, weights=values[keep]) / np.bincount(inverse))

    def batch_intervals(self, codes: np.ndarray, confidence: float) -> np.ndarray | None:
        """The two-level interval of every configuration (``codes`` per row) at once, where it can be had so
        (``stats.replicates.summary_intervals``; NaN rows are left to :meth:`interval`)."""
        if self.runs is None or not codes.size:
            return None
        first = np.unique(codes, return_index=True)[1]
        return stats.replicates.summary_intervals(self.value, codes, self.runs, self.rate[first], confidence)

    def interval(self, where: np.ndarray, values: np.ndarray, by_invocation: bool,
                 confidence: float) -> tuple[float, float, float]:
        """(centre, low, high): over invocations by the two-level model (``stats.replicates``), else the
        exact CI of the median; raises StatisticsError where the data support no interval."""
        if not by_invocation:
            low, high = stats.median_ci(values, confidence)
            return float(np.median(values)), low, high
        codes, run_values = self.runs[where], self.value[where]
        runs = [run_values[codes == code] for code in np.unique(codes[codes >= 0])]
        kind = "rate" if self.rate[where[0]] else "cost"
        return stats.replicates.summary_interval(runs, kind, confidence)


@dataclasses.dataclass(frozen=True)
class _Configurations:
    """What R5's loop asks of each configuration (code 0..C-1), for all of a file's at once.

    Why: a round has thousands of files of dozens of configurations; a few numpy calls per file
    replace several per configuration.  Per configuration: whether its replicates are its
    invocations (run_id: two or more, with more rows than invocations; iterations describe one and
    never multiply n), whether it has one invocation of several values, how many values its CI is
    over (:meth:`_R5Arrays.level_means`) and whether those are all equal (its finite values, when
    replicated by invocation: equal means are not determinism).
    A stated ``ci_level`` is rare and judged one configuration at a time.
    """

    by_invocation: np.ndarray
    one_invocation: np.ndarray
    values: np.ndarray
    deterministic: np.ndarray

    @classmethod
    def of(cls, arrays: "_R5Arrays", codes: np.ndarray, stated: str) -> "_Configurations":
        count = int(codes.max(initial=-1)) + 1
        if stated:
            return cls._one_by_one(arrays, codes, stated, count)
        rows = np.bincount(codes, minlength=count)
        finite_rows = np.isfinite(arrays.value)
        finite_count = np.bincount(codes, weights=finite_rows, minlength=count)
        runs, runs_with_values = cls._invocations(arrays, codes, finite_rows, count)
        by_invocation = (runs >= 2) & (rows > runs)
        low, high = cls._finite_range(arrays.value, finite_rows, codes, count)
        return cls(by_invocation=by_invocation, one_invocation=(runs == 1) & (rows > 1) & ~by_invocation,
                   values=np.where(by_invocation, runs_with_values, finite_count).astype(np.int64),
                   deterministic=(finite_count > 1) & (low == high))

    @classmethod
    def _one_by_one(cls, arrays: "_R5Arrays", codes: np.ndarray, stated: str, count: int) -> "_Configurations":
        means = [arrays.level_means(where, stated) for where in code_positions(codes)]
        return cls(by_invocation=np.zeros(count, dtype=bool), one_invocation=np.zeros(count, dtype=bool),
                   values=np.asarray([m.size for m in means], dtype=np.int64).reshape(count),
                   deterministic=np.asarray([m.size > 1 and bool(np.all(m == m[0])) for m in means], dtype=bool
                                            ).reshape(count))

    @staticmethod
    def _finite_range(values: np.ndarray, finite_rows: np.ndarray, codes: np.ndarray, count: int
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Per configuration: the smallest and largest finite value (inf and -inf where it has none)."""
        if not count:
            return np.zeros(0), np.zeros(0)
        order, starts = code_order(codes)
        ordered, usable = values[order], finite_rows[order]
        return (np.minimum.reduceat(np.where(usable, ordered, np.inf), starts),
                np.maximum.reduceat(np.where(usable, ordered, -np.inf), starts))

    @staticmethod
    def _invocations(arrays: "_R5Arrays", codes: np.ndarray, finite_rows: np.ndarray, count: int
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Per configuration: its distinct invocations, and those whose mean of finite values is finite."""
        if arrays.runs is None:
            return np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
        kept = arrays.runs >= 0
        width = int(arrays.runs.max(initial=0)) + 1
        pairs, pair_of = np.unique(codes[kept] * width + arrays.runs[kept], return_inverse=True)
        owner = pairs // width
        usable = finite_rows[kept]
        sums = np.bincount(pair_of, weights=np.where(usable, arrays.value[kept], 0.0), minlength=pairs.size)
        sizes = np.bincount(pair_of, weights=usable, minlength=pairs.size)
        with np.errstate(invalid="ignore", divide="ignore"):
            means_finite = (sizes > 0) & np.isfinite(sums / np.where(sizes > 0, sizes, 1))
        return np.bincount(owner, minlength=count), np.bincount(owner, weights=means_finite, minlength=count)


def ci_level(src, rows) -> str:
    """The column a CI must resample (attr ``ci_level``, e.g. pyperf's ``invocation``), when the rows have it."""
    level = str(src.attributes.ci_level or "")
    return level if level and level in rows.columns else ""


def _r5_stated(src, target: float, counts: dict) -> list:
    """Stated CIs (attr summaries) against their stated target."""
    cases = []
    for s in src.summaries():
        if s.ci is None or not s.value:
            continue
        width = stats.relative_half_width(s.value, s.ci_low, s.ci_high)
        counts["configurations"] += 1
        if width <= (target if s.ci_target is None else s.ci_target):
            counts["within_target"] += 1
        elif s.noted:
            counts["wide_noted"] += 1
        else:
            counts["wide_unnoted"] += 1
            cases.append((width, f"summary {s.metric} {describe(s.filters)}", s.n, s.ci, ""))
    return cases


def _r5_worst_cases(src, cases: list) -> list:
    """The five worst configurations (unexplained first), each with n, its CI and its note."""
    out = []
    for width, label, n, ci, note in sorted(cases, key=lambda c: (bool(c[4]), -c[0] if math.isfinite(c[0]) else -1e300))[:5]:
        label = label() if callable(label) else label
        ci_text = f"CI [{ci[0]:.4g}, {ci[1]:.4g}]" if ci else "no CI (too few samples)"
        out.append(ev(f"{label}: n={n}, {ci_text}", {"relative_half_width": width if math.isfinite(width) else "none",
                                                     "note": note or "none"},
                      src.path, "column value", "column stop_reason", "attr ci_notes", "attr summaries[].note"))
    return out


def _r5_status(counts: dict) -> Status:
    """Fail: a wide CI nobody explained.  Warn: wide but noted, or too few samples for any CI."""
    if counts["wide_unnoted"]:
        return Status.FAIL
    if counts["wide_noted"] or counts["too_few_noted"] or counts["too_few_unnoted"]:
        return Status.WARN
    return Status.PASS


def _r5_reading(counts: dict, confidence: float, target: float) -> str:
    """The counts as one sentence a reader can check."""
    smallest = stats.min_samples_for_ci(0.5, confidence)
    single = (f"; {counts['one_replicate']} with one invocation only: its values describe one replicate, and only "
              "more invocations would show how much another differs" if counts.get("one_replicate") else "")
    return (f"where a configuration has several invocations of several values, its CI is over the invocations "
            f"(random-effects t interval of the invocation means on a log scale; n counts invocations, not "
            f"iterations){single}; "
            f"{counts['within_target']} of {counts['configurations']} within ±{target:.1%}; "
            f"{counts['deterministic']} deterministic (several samples, all equal); "
            f"{counts['wide_noted']} wider than the target with a recorded reason, {counts['wide_unnoted']} without; "
            f"{counts['too_few_noted'] + counts['too_few_unnoted']} with too few samples for a {confidence:.0%} CI of "
            f"the median (it needs n >= {smallest}), {counts['too_few_unnoted']} of them without a reason")


# ------------------------------------------------------------------ R6

def _r6_values(audit: AuditRun, src, s) -> np.ndarray:
    """What a parametric CI assumed normal: the log replicate means of a CI over replicates (``ci_level``),
    else the rows themselves."""
    rows = restate.summary_rows(audit, src, s)
    if s.ci_level and _token(s.ci_method) in restate.REPLICATE_CI_METHODS:
        means = restate.replicate_values(rows, s)
        return np.log(means[means > 0])
    return finite(rows["value"])


@check("R6", "no assumed normality")
def r6_normality(audit: AuditRun):
    """Parametric CIs only on data that pass Shapiro–Wilk (recomputed, Holm over each file's tests);
    otherwise nonparametric CIs."""
    statuses, evidence = [], []
    for src in audit.results.sources:
        file_checked = truthy(src.attributes.normality_checked)
        tested = []  # (label, p, checked, where): judged together, Holm over the file's tests
        for s in src.summaries():
            if s.ci is None:
                continue
            method = _token(s.ci_method)
            label = f"CI of {s.metric} {describe(s.filters)}".strip()
            where = (src.path, "attr summaries[].ci_method", "attr summaries[].normality_checked")
            if method in NONPARAMETRIC_CI:
                statuses.append(Status.PASS)
                evidence.append(ev(f"{label}: method", method, *where))
                continue
            if method not in PARAMETRIC_CI:
                statuses.append(Status.WARN)
                evidence.append(ev(f"{label}: CI method not stated or unknown", s.ci_method, *where))
                continue
            checked = file_checked if s.normality_checked is None else s.normality_checked
            values = _r6_values(audit, src, s)
            if values.size >= 3 and np.ptp(values) > 0:
                tested.append((label, values, checked, where))
            else:
                statuses.append(Status.PASS if checked else Status.WARN)
                evidence.append(ev(f"{label}: parametric, rows not available to recompute",
                                   {"normality_checked": checked}, *where))
        more_statuses, more_evidence = _r6_tested(tested)
        statuses += more_statuses
        evidence += more_evidence
    return judged(statuses, evidence, ev("stored confidence intervals", 0, "", "attr summaries[].ci"),
                  ("Check normality (Shapiro-Wilk, Q-Q plot) before a parametric CI; otherwise use the "
                   "nonparametric CI of the median (SC15 R6)."))


def _r6_tested(tested: list) -> tuple[list[Status], list]:
    """Shapiro–Wilk on each parametric CI's data, rejected after Holm over one file's tests: testing dozens
    of configurations at 5 % each would reject normal data by chance alone."""
    if not tested:
        return [], []
    p_values = [float(stats.normality(values).p) for _, values, _, _ in tested]
    rejected, adjusted = stats.holm_adjust(p_values, ALPHA)
    statuses, evidence, passed = [], [], 0
    for (label, values, checked, where), p, reject, p_holm in zip(tested, p_values, rejected, adjusted):
        statuses.append(Status.FAIL if reject else Status.PASS if checked else Status.WARN)
        if reject or not checked or passed < 3:
            shape = {"p_value": p, "holm_adjusted_p": p_holm, "tests_in_file": len(tested),
                     "skewness": stats.skewness(values), "normality_checked": checked}
            evidence.append(ev(f"{label}: Shapiro-Wilk on {values.size} values", shape, *where, "column value"))
        passed += not reject and checked
    if passed > 3:
        evidence.append(ev("further parametric CIs whose data Shapiro-Wilk does not reject (after Holm)", passed - 3,
                           tested[0][3][0], "attr summaries[].ci_method"))
    return statuses, evidence


# ------------------------------------------------------------------ R7

@check("R7", "statistically sound comparison")
def r7_comparisons(audit: AuditRun):
    """Stored comparisons use a sound test and an effect size; claims are checked with CIs and Mann–Whitney."""
    statuses, evidence = [], []
    for src, c in audit.results.objects(lambda stated: stated.comparisons):
        stated_method = str(c.get("method") or "").strip()
        method = canonical_test(stated_method)
        label = f"comparison of {c.get('metric')}: {describe(c.get('a') or {})} vs {describe(c.get('b') or {})}"
        where = (src.path, "attr comparisons[].method", "attr comparisons[].effect_size", "attr comparisons[].significant")
        a = finite(select(src.frame, str(c.get("metric")), c.get("a") or {})["value"])
        b = finite(select(src.frame, str(c.get("metric")), c.get("b") or {})["value"])
        found = []
        if not method and _token(stated_method) in NO_TEST:
            found.append(Status.FAIL)
            evidence.append(ev(f"{label}: no statistical test", stated_method or "none stated", *where))
        elif not method:
            found.append(Status.WARN)
            evidence.append(ev(f"{label}: unknown test (not one of the spellings R7 knows)", stated_method, *where))
        elif method in PARAMETRIC_TESTS and a.size >= 3 and b.size >= 3:
            p = min(float(stats.normality(a).p), float(stats.normality(b).p))
            found.append(Status.FAIL if p < ALPHA else Status.PASS)
            evidence.append(ev(f"{label}: parametric test; smallest Shapiro-Wilk p", p, *where, "column value"))
        else:
            found.append(Status.PASS)
            evidence.append(ev(f"{label}: method", method, *where))
        if c.get("effect_size") in (None, ""):
            found.append(Status.WARN)
            evidence.append(ev(f"{label}: effect size", "not stated", *where))
        if a.size and b.size:
            p = stats.mann_whitney(a, b)[1]
            evidence.append(ev(f"{label}: Mann-Whitney recomputed", {"p_value": p, "n_a": int(a.size), "n_b": int(b.size)},
                               src.path, "column value"))
            if truthy(c.get("significant")) and p >= ALPHA:
                found.append(Status.FAIL)
                evidence.append(ev(f"{label}: called significant, data disagree", p, *where))
        statuses.append(worst(found))
    if audit.claims:
        statuses.append(Status.PASS)
        evidence.append(ev("claims checked with exact order-statistic CIs of medians, a one-sided Mann-Whitney U "
                           "(independent runs) or Wilcoxon signed-rank test (runs paired by seed), Holm-adjusted "
                           "over the claims", len(audit.claims), "", "claims"))
    return judged(statuses, evidence, ev("stored comparisons or claims", 0, "", "attr comparisons", "claims"),
                  ("Compare with non-overlapping CIs or Mann-Whitney / Kruskal-Wallis and report an "
                   "effect size; use t-tests only on data that pass a normality check (SC15 R7)."))


# ------------------------------------------------------------------ R8

CENTRE_STATISTICS = {"arithmetic_mean", "median", "harmonic_mean", "geometric_mean", "olympic_mean", "p50"}


def _tail_metrics(src) -> list[str]:
    """Measured time metrics whose tail matters: name ~latency or attr tail_metrics, in a time unit."""
    declared = src.attributes.tail_metrics or []
    kept = src.frame[kept_runs(src.frame)]  # a metric only excluded runs hold is no tail the results report
    pairs = set(kept[["metric", "unit"]].drop_duplicates().itertuples(index=False, name=None))
    pairs |= {(s.metric, s.unit or "") for s in src.summaries()}  # stated, maybe no rows
    return sorted({m for m, u in pairs if ("latency" in m.lower() or m in declared) and src.kind(m, u) == "cost"})


def _is_tail_percentile(statistic) -> bool:
    statistic = normalize_statistic(statistic)
    return is_percentile(statistic) and statistic not in CENTRE_STATISTICS


def _recomputed_tails(src, metric: str) -> tuple[int, list]:
    """Per configuration (never pooled): p50/p90/p99 of a raw tail metric, with its unit; a few examples."""
    rows = select(src.frame, metric)
    keys = [c for c in src.factor_columns if c in rows.columns]
    examples, count = [], 0
    for key, group in rows.groupby(keys, sort=False, dropna=False) if len(rows) else []:
        values = finite(group["value"])
        if values.size < 2:
            continue
        count += 1
        if len(examples) < 3:
            p50, p90, p99 = (float(np.percentile(values, q)) for q in (50, 90, 99))
            unit = str(group["unit"].iloc[0])
            named = describe(dict(zip(keys, key)), {"workload", "scenario", "variant", "implementation", "precision"})
            examples.append(ev(f"{metric} of {named}",
                               f"n={values.size}: p50 {p50:.4g} {unit}, p90 {p90:.4g} {unit}, p99 {p99:.4g} {unit}",
                               src.path, f"rows metric={metric}"))
    return count, examples


def _r8_metric(data: ResultSet, src, metric: str) -> tuple[Status, list]:
    """Percentile rows or tail summaries of ``metric``; a summary giving only the centre is flagged."""
    base = metric.lower()
    stored_rows = sorted(m for m in _tail_metrics(src) if is_percentile(m) and base in m.lower() and m != metric)
    summaries = [s for source in data.kept_sources for s in source.summaries() if s.metric == metric]
    tails = [s for s in summaries if _is_tail_percentile(s.statistic)]
    centres = [s for s in summaries if normalize_statistic(s.statistic) in CENTRE_STATISTICS]
    count, examples = _recomputed_tails(src, metric)
    evidence = examples + [ev(f"{metric}: configurations with percentiles recomputed per configuration", count,
                              src.path, f"rows metric={metric}")] if count else \
        [ev(f"{metric}: percentiles not recomputable", "the file holds no per-sample rows of it (stated by its source)",
            src.path, f"rows metric={metric}", "attr per_query_latency_source")]
    if tails or stored_rows:
        stated = sorted({normalize_statistic(s.statistic) for s in tails}) + stored_rows
        evidence.append(ev(f"{metric}: percentiles reported", stated, src.path, "attr summaries[].statistic", "rows metric~pNN"))
        if centres and not tails:  # the summaries a reader sees give the centre; the tail is only in rows
            evidence.append(ev(f"{metric}: summaries state only the centre", len(centres), src.path, "attr summaries"))
            return Status.WARN, evidence
        return Status.PASS, evidence
    if centres:
        evidence.append(ev(f"{metric}: summarized by its centre only",
                           sorted({normalize_statistic(s.statistic) for s in centres}), src.path, "attr summaries"))
        return Status.FAIL, evidence
    evidence.append(ev(f"{metric}: no stored percentile", "none", src.path, "rows", "attr summaries"))
    return Status.WARN, evidence


@check("R8", "percentiles where the centre is not the point")
def r8_percentiles(audit: AuditRun):
    """Latency-like time metrics (name ~latency, or attr tail_metrics) are reported by percentiles."""
    results = audit.results
    statuses, evidence = [], []
    for src in results.raw_sources:
        for metric in (m for m in _tail_metrics(src) if not is_percentile(m) and not src.is_derived(m)):
            status, more = _r8_metric(results, src, metric)
            statuses.append(status)
            evidence += more
    return judged(statuses, evidence,
                  ev("latency or declared tail metrics in a time unit", 0, "", "rows metric~latency", "attr tail_metrics"),
                  ("Report latency by percentiles (p50/p90/p99) with their confidence, not by the mean "
                   "or median alone (SC15 R8)."))


# ------------------------------------------------------------------ R9

def _known(value) -> bool:
    return str(value or "").strip().lower() not in ("", "unknown", "mixed", "none")


@check("R9", "all factors, levels and the full setup documented")
def r9_setup(audit: AuditRun):
    """Environment captured and matching, config hash and git state known, every factor's levels listed."""
    results = audit.results
    statuses, evidence = [], []
    env_hash = results.environment.hash if results.environment else None
    for src in results.sources:
        stated = src.attributes
        if not _known(stated.environment_hash) and not is_set(stated.environment):
            statuses.append(Status.NEEDS_HUMAN)
            evidence.append(ev("environment capture", "none in the file", src.path, "attr environment_hash", "attr environment"))
        elif env_hash and _known(stated.environment_hash) and stated.environment_hash != env_hash:
            statuses.append(Status.FAIL)
            evidence.append(ev("environment hash differs from the captured environment",
                               {"file": str(stated.environment_hash)[:16], "environment.json": str(env_hash)[:16]},
                               src.path, "attr environment_hash", f"{results.environment_path}: hash"))
        else:
            statuses.append(Status.PASS if env_hash or is_set(stated.environment) else Status.WARN)
            evidence.append(ev("environment hash", str(stated.environment_hash)[:16] or "unknown", src.path,
                               "attr environment_hash", results.environment_path or "(no environment.json given)"))
        for key, value in (("config_hash", stated.config_hash), ("git_commit", stated.git_commit)):
            statuses.append(Status.PASS if _known(value) else Status.WARN)
            evidence.append(ev(key, str(value)[:16], src.path, f"attr {key}"))
        dirty = truthy(stated.git_dirty)
        statuses.append(Status.WARN if dirty else Status.PASS)
        evidence.append(ev("uncommitted changes when the results were made", bool(dirty), src.path, "attr git_dirty"))
        no_unit = int(per_text(src.frame["unit"], lambda unit: unit.strip() == "").astype(bool).sum())
        if no_unit:
            statuses.append(Status.WARN)
            evidence.append(ev("rows without a unit", no_unit, src.path, "column unit"))
        levels = {c: int(src.frame[c].nunique()) for c in src.factor_columns if c in src.frame.columns}
        evidence.append(ev("factors and their number of levels", levels, src.path, *[f"column {c}" for c in levels]))
        busy = src.busy_reason()
        if busy:
            statuses.append(Status.WARN)
            evidence.append(ev("machine load during the run", busy, src.path, "attr contention"))
    hashes = {str(s.attributes.environment_hash) for s in results.sources if _known(s.attributes.environment_hash)}
    if len(hashes) > 1:
        statuses.append(Status.WARN)
        evidence.append(ev("results from different environments audited together", len(hashes), "", "attr environment_hash"))
    return worst(statuses), evidence, ("Keep the environment capture, config hash and a clean git commit with every result; "
                                       "a human should still read the artifact description for anything not captured (SC15 R9).")


# ------------------------------------------------------------------ R10

def _stated(src, key: str, value) -> str:
    """The file's attribute ``key`` (its ``value``, found under the canonical name or an alias), else a constant
    column of that name (or an alias, twelveways.evidence.registry)."""
    if str(value or "").strip():
        return str(value)
    for name in registry.names(key):
        if name in src.frame.columns:
            values = sorted({str(value) for value in pd.unique(src.frame[name])} - {""})  # each text once
            if values:
                return "; ".join(values)
    return ""


def _r10_source(data: ResultSet, src) -> tuple[list[Status], list]:
    """R10 on one raw file (derived rows are computed, not timed): its statuses and evidence."""
    statuses, evidence = [], []
    multi_rank = (src.frame["ranks"] > 1).to_numpy()
    parallel = int((multi_rank | (src.frame["threads"] > 1).to_numpy()).sum())
    if not parallel:
        return statuses, evidence
    needed = ["timer", "rank_summary"] + (["synchronization"] if multi_rank.any() else [])
    stated = {"timer": src.attributes.timer, "rank_summary": src.attributes.rank_summary,
              "synchronization": src.attributes.synchronization}
    present = {k: _stated(src, k, stated[k]) for k in needed}
    missing = [k for k, v in present.items() if not str(v or "").strip()]
    statuses.append(Status.WARN if missing else Status.PASS)  # an unstated method is not a proven violation
    evidence.append(ev("parallel rows", parallel, src.path, "column ranks", "column threads"))
    evidence.append(ev("stated timing method" if not missing else f"missing: {', '.join(missing)}",
                       {k: v for k, v in present.items() if v}, src.path, *[f"attr {k}" for k in needed],
                       *[f"attr {alias}" for alias in registry.names("rank_summary")[1:]], "column timer"))
    checked = _max_over_ranks_mismatches(src) if "max" in str(present.get("rank_summary") or "").lower() else None
    if checked:
        statuses.append(Status.FAIL if checked[0] else Status.PASS)
        evidence.append(ev("whole-run times that are not the max over ranks", f"{checked[0]} of {checked[1]}",
                           src.path, "rows rank=-1", "rows rank>=0", "column value"))
    return statuses, evidence


def _max_over_ranks_mismatches(src) -> tuple[int, int] | None:
    """(whole-run rows that are not the maximum of their per-rank cost rows, whole-run rows compared) among a
    file's multi-rank rows, matched on run, iteration and metric; None when no whole-run row has per-rank rows.

    Why arrays: a round of thousands of files, and a pandas groupby and join per file cost ~3 ms."""
    frame, keys = src.frame, ["run_id", "iteration", "metric"]
    multi, rank = (frame["ranks"] > 1).to_numpy(), frame["rank"]
    whole = multi & (rank == -1).to_numpy()
    costs = multi & (rank >= 0).to_numpy() & (src.kinds == "cost").to_numpy()
    taken = (whole | costs) & np.logical_and.reduce([pd.notna(frame[key]).to_numpy() for key in keys])
    codes = group_codes(frame.loc[taken, keys], keys)
    values, is_cost, is_whole = frame["value"].to_numpy(dtype=float)[taken], costs[taken], whole[taken]
    count = int(codes.max(initial=-1)) + 1
    maxima = np.full(count, np.nan)
    np.fmax.at(maxima, codes[is_cost], values[is_cost])  # NaN values left out, as groupby's max leaves them
    matched = is_whole & (np.bincount(codes[is_cost], minlength=count) > 0)[codes]
    if not matched.any():
        return None
    bad = ~np.isclose(values[matched], maxima[codes[matched]], rtol=1e-9, atol=0)
    return int(bad.sum()), int(matched.sum())


@check("R10", "how parallel time was measured, synchronized, summarized", domain="parallel", per_source=_r10_source)
def r10_parallel_time(audit: AuditRun):
    """Parallel runs state their timer, synchronization and rank summary; a stated max over ranks is recomputed."""
    statuses, evidence = [], []
    for source_statuses, source_evidence in source_parts(audit, "R10"):
        statuses += source_statuses
        evidence += source_evidence
    return judged(statuses, evidence, ev("rows with ranks > 1 or threads > 1", 0, "", "column ranks", "column threads"),
                  ("State the timer, how processes were synchronized (e.g. a barrier before each "
                   "iteration) and how per-rank times were summarized (e.g. max over ranks) (SC15 R10)."))


# ------------------------------------------------------------------ R11

UNIT_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
BINARY_PREFIX = {"Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40}
HARDWARE_UNIT = re.compile(r"\s*(Ki|Mi|Gi|Ti|k|K|M|G|T|P)?(B|byte|bytes|flop|flops|op|ops)/s\s*", re.IGNORECASE)


def hardware_unit(unit: str) -> tuple[str, float] | None:
    """('byte'|'flop'|'op', scale to base units/s) for units like MB/s, GiB/s, MFlop/s, Gop/s; None otherwise."""
    match = HARDWARE_UNIT.fullmatch(str(unit))
    if not match:
        return None
    prefix, base = match.group(1) or "", match.group(2).lower()
    if prefix in BINARY_PREFIX:
        scale = BINARY_PREFIX[prefix]
    else:
        scale = UNIT_PREFIX.get(prefix, UNIT_PREFIX.get(prefix.upper(), 1.0))
    kind = "byte" if base.startswith("b") else "flop" if base.startswith("flop") else "op"
    return kind, scale


def _memory_bound_rows(group: pd.DataFrame, llc: int | None, unit: str, where: str) -> tuple[pd.DataFrame, list]:
    """Byte rates whose configuration moves no more than the last-level cache per iteration can be served
    from cache, so a memory-bandwidth bound is not theirs: they are set aside, and named as such."""
    if not llc or "bytes_per_iteration" not in group.columns:
        return group, []
    resident = pd.to_numeric(group["bytes_per_iteration"], errors="coerce").le(llc)
    if not resident.any():
        return group, []
    in_cache = group[resident]
    top = in_cache.loc[in_cache["value"].idxmax()]
    named = describe({k: top[k] for k in ("workload", "implementation", "size", "threads", "ranks") if k in in_cache})
    return group[~resident], [ev(f"{unit} rates of configurations that move at most the {llc / 2 ** 20:.0f} MiB "
                                 "last-level cache per iteration (may be cache-resident: the memory bound is not theirs)",
                                 f"{int(resident.sum())} rows; highest {named}: {float(top['value']):.4g} {unit}",
                                 where, "column bytes_per_iteration", "environment hardware.caches")]


#: What R11 reads of a rate row: its unit and value, the configuration it names, bytes moved per iteration.
R11_COLUMNS = ("unit", "value", "workload", "implementation", "size", "threads", "ranks", "bytes_per_iteration")


@check("R11", "upper performance bounds")
def r11_bounds(audit: AuditRun):
    """Hardware rates (bytes/s, flop/s, op/s) have a measured or modelled upper bound to compare with."""
    results = audit.results
    bounds = {}  # base -> (value in base units/s, where)
    for src in results.sources:
        is_bound = ((src.frame["benchmark"] == "bounds") & src.frame["valid"]).to_numpy()
        rows = src.frame.loc[is_bound, ["unit", "value"]] if is_bound.any() else None  # most files hold none
        for unit, group in rows.groupby("unit") if rows is not None else ():
            parsed = hardware_unit(unit)
            if parsed:
                value = float(np.nanmax(group["value"])) * parsed[1]
                if value > bounds.get(parsed[0], (0, ""))[0]:
                    bounds[parsed[0]] = (value, f"{src.path}: rows benchmark=bounds")
        for b in objects(src.attributes.bounds):
            parsed = hardware_unit(b.get("unit", ""))
            if parsed and _finite(b.get("value")):
                stated = (float(b["value"]) * parsed[1], f"{src.path}: attr bounds")
                bounds[parsed[0]] = max(bounds.get(parsed[0], (0, "")), stated)
    llc = results.environment.last_level_cache_bytes if results.environment else None
    statuses, evidence = [], []
    for src in results.sources:
        frame = src.frame[[c for c in R11_COLUMNS if c in src.frame.columns]]  # only the columns read below
        rows = frame[((src.frame["benchmark"] != "bounds") & (src.kinds == "rate") & src.frame["valid"]
                      & (src.frame["iteration"] != 0)).to_numpy()]
        for unit, group in rows.groupby("unit"):
            parsed = hardware_unit(unit)
            if not parsed:
                continue
            if parsed[0] == "byte" and parsed[0] in bounds:
                group, set_aside = _memory_bound_rows(group, llc, unit, src.path)
                evidence += set_aside
                if group.empty:  # all cache-resident: above a memory bound is what they should be
                    statuses.append(Status.PASS)
                    continue
            top = group.loc[group["value"].idxmax()]
            best = float(top["value"]) * parsed[1]
            where_best = describe({k: top[k] for k in ("workload", "implementation", "size", "threads", "ranks")
                                   if k in group.columns})
            if parsed[0] not in bounds:
                statuses.append(Status.WARN)
                evidence.append(ev(f"rates in {unit} without an upper bound", int(len(group)), src.path, "column unit",
                                   "rows benchmark=bounds", "attr bounds"))
                continue
            bound, where = bounds[parsed[0]]
            fraction = best / bound
            statuses.append(Status.WARN if fraction > 1.1 else Status.PASS)
            evidence.append(ev(f"highest {unit} rate ({where_best}: {float(top['value']):.4g} {unit}) as a fraction of "
                               f"the bound ({bound / parsed[1]:.4g} {unit})", fraction, src.path, "column value", where))
    return judged(statuses, evidence, ev("rates in bytes/s, flop/s or op/s", 0, "", "column unit"),
                  ("Measure or model an upper bound (memory bandwidth, peak flop rate) and show "
                   "each rate as a fraction of it; a rate above its bound (e.g. cache-resident) "
                   "needs a comment (SC15 R11)."))


# ------------------------------------------------------------------ R12

@check("R12", "plots that show the data, lines only where valid")
def r12_plots(audit: AuditRun):
    """Declared figures (attr figures) show the samples and draw lines only across continuous factors."""
    statuses, evidence = [], []
    for src, f in audit.results.objects(lambda stated: stated.figures):
        name = f.get("name", "?")
        lines = _token(f.get("lines", "none"))
        x_kind = _token(f.get("x_kind", ""))
        shows = _token(f.get("shows", ""))
        found = Status.PASS
        if lines not in ("none", "") and x_kind == "categorical":
            found = Status.FAIL
        elif shows not in ("samples", "distribution"):
            found = Status.WARN
        statuses.append(found)
        evidence.append(ev(f"figure {name}", {"shows": shows, "lines": lines, "x_kind": x_kind}, src.path,
                           "attr figures[].shows", "attr figures[].lines", "attr figures[].x_kind"))
    if not statuses:
        return Status.NEEDS_HUMAN, [ev("figure descriptions", "none in the results", "", "attr figures")], \
            ("Look at the plots: they should show every sample or the distribution, and connect points only along "
             "a continuous factor.")
    return worst(statuses), evidence, ("Show the samples or their distribution (box/violin), and draw lines only along "
                                       "continuous factors (SC15 R12).")
