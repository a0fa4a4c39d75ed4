"""The first screen of the report: what the profile is good for, the headline numbers, the verdict.

A reader of a results page looks for the scores first (MLPerf), with their spread (pyperf, asv).
This module picks one key configuration per benchmark and workload from the derived results
(``results/derived/<family>.nc``, attr ``summaries``: value, CI, method, n, coverage), adds the
share of its measured bound (PRK, from ``bounds.nc``) and the checks that touch it, and states
what the profile is good for with the runtime measured by Snakemake (``logs/bench/*.tsv``).
Every string is escaped; numbers are shown in words, never as JSON.
"""

from __future__ import annotations

import html
import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..checklist.model import AuditReport, CheckResult
from ..evidence import settings
from ..evidence.summary import StatedSummary
from ..families import FAMILIES, Family
from ..key_results import configuration, headline_families, hook, key_rows, load_summaries, short_configuration

#: What each profile is for (config/config.yaml is quick, config/full.yaml is full).
PROFILE_PURPOSE = {
    "quick": "a smoke test: it shows the pipeline works end to end; its numbers are too few and too short "
             "for a paper (few repetitions, small sizes, LoadGen runs below the MLPerf minimums)",
    "full": "paper grade: larger sizes, more repetitions and the MLPerf statistical minimums",
}
#: Time units a headline shows (one per table column, so a column never jumps between ms, s and ns).
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
#: A statistic over invocations in words (PRK's: derived.replicate_summary, derived.median_of_replicates).
OVER_INVOCATIONS = {"geometric_mean": "{metric} per iteration: geometric mean of the invocation means",
                    "median": "{metric} per iteration: median of the invocation means"}


def _e(value) -> str:
    return html.escape(str(value))


def number(value) -> str:
    """Four significant digits, thousands separated; a dash for a missing value."""
    if value is None or not np.isfinite(float(value)):
        return "—"
    value = float(value)
    return f"{value:,.0f}" if 1e4 <= abs(value) < 1e15 else f"{value:.4g}"


def bench_runtime(folder: str | os.PathLike) -> tuple[float | None, int]:
    """(seconds summed over Snakemake ``benchmark:`` files, how many files); (None, 0) when there are none."""
    from ..plan_stages import rule_costs

    costs = rule_costs(folder)
    return (sum(float(seconds.mean()) for seconds in costs.values()) if costs else None), len(costs)


def profile_caveat(config: Mapping, bench_dir: str | os.PathLike | None) -> str:
    """One paragraph: this report's profile, what it is good for, and each profile's measured runtime."""
    profile = str(config.get("profile") or "unknown")
    purpose = PROFILE_PURPOSE.get(profile, "not a profile this project defines; read its configuration")
    from ..plan_stages import duration

    seconds, files = bench_runtime(bench_dir) if bench_dir else (None, 0)
    runtime = (f"Measured runtime of this run on the machine that made it: {duration(seconds)} "
               f"(sum of {files} Snakemake benchmark files, logs/bench/*.tsv)") if seconds is not None else \
        "Measured runtime of this run: unknown (no logs/bench/*.tsv Snakemake benchmark files beside it)"
    others = ", ".join(f"{name}: {'this run' if name == profile else 'runtime not measured on this machine'}"
                       for name in PROFILE_PURPOSE)
    level = "tw-caveat" if profile != "full" else "tw-caveat tw-paper"
    return (f"<p class='{level}'><strong>Profile {_e(profile)}</strong> — {_e(purpose)}. {_e(runtime)}. "
            f"<span class='tw-muted'>Profiles: {_e(others)}.</span></p>")


def statistic_words(summary: StatedSummary) -> str:
    """What the headline's number is, in words: over invocations where the summary names that level."""
    statistic, metric = str(summary.statistic), summary.metric
    if summary.ci_level and statistic in OVER_INVOCATIONS:
        return OVER_INVOCATIONS[statistic].format(metric=metric)
    return f"{statistic} {metric}"


#: Said beside a share above 100 %: the two causes a reader can check (cache-resident data, a bound measured low).
ABOVE_BOUND = (" (above the bound: the data stayed in cache, which the bound's large arrays do not, or the bound "
               "was measured low on a busy machine; see R11 and the load at start and end)")


def _bound_cell(text: str) -> str:
    """The share unbroken, its explanation (a share above 100 %) in small print below it, free to wrap."""
    share, _, why = text.partition(" (")
    return f"<span class='tw-num'>{_e(share)}</span>" + (f"<br><span class='tw-muted'>({_e(why)}</span>" if why else "")


def percent_of_bound(summary: StatedSummary, rates: Sequence[StatedSummary], bound_table: pd.DataFrame | None,
                     analysis) -> str:
    """The configuration's harmonic-mean rate over the bound measured at the same processing elements
    (``analysis``: the family's analysis module, which reads its bounds)."""
    if bound_table is None or bound_table.empty:
        return "—"
    filters = summary.filters
    rate = next((r for r in rates if r.filters == filters and r.metric == "rate"), None)
    if rate is None or rate.value is None:
        return "—"
    pe = int(filters.get("ranks", 1)) * int(filters.get("threads", 1))
    kind, scale = ("bandwidth", 1e3) if "B/s" in str(rate.unit) and "Flop" not in str(rate.unit) else ("flops", 1e3)
    bound = analysis.best_bound(bound_table, kind, pe)
    if not bound:
        return "—"
    share = 100 * float(rate.value) / (bound * scale)
    text = f"{share:.0f}% of measured {'bandwidth' if kind == 'bandwidth' else 'peak'}"
    return text + (ABOVE_BOUND if share > 100 else "")


#: How a headline names each CI method.
CI_METHODS = {"median_binomial": "binomial CI", "order_statistics": "order-statistic CI",
              "t_log_invocations": "t interval over invocations"}


def replicates_text(summary: StatedSummary) -> str:
    """n in the replicates the summary counts: invocations (iterations beside), seeds, or queries of k runs."""
    n, replicate = "—" if summary.n is None else summary.n, summary.replicate or ""
    if replicate == "invocation":
        values = summary.values
        return f"n={n} invocation{'s' if n != 1 else ''}" + (f" ({values} iterations)" if values else "")
    if replicate == "query":
        runs = summary.runs or 1
        return f"n={n} queries of {runs} LoadGen run{'s' if runs != 1 else ''}"
    return f"n={n} {replicate}s" if replicate else f"n={n}"


def value_text(summary: StatedSummary, unit: str | None = None) -> tuple[str, str]:
    """('value [CI] unit', 'method, n, coverage') of one summary, in words; a time in ``unit`` when given."""
    value, given = summary.value, summary.unit or ""
    scale = TIME_UNITS[given] / TIME_UNITS[unit] if unit in TIME_UNITS and given in TIME_UNITS else 1.0
    shown = unit if scale != 1.0 or given == unit else given
    ci = summary.ci
    text = f"{number(float(value) * scale)} {shown}"
    if ci:
        text += f" [{number(ci[0] * scale)}, {number(ci[1] * scale)}]"
    confidence = summary.confidence
    method = CI_METHODS.get(summary.ci_method or "", summary.ci_method or "no CI")
    if not ci:
        method = "no CI: " + (summary.note or "too few samples").split(";")[-1].strip()
    coverage = summary.coverage
    stated = f"{confidence:.0%} " if ci and confidence else ""
    details = stated + method + ("" if f"n={summary.n}" in method else f", {replicates_text(summary)}")
    if coverage is not None and ci:
        details += f", covers {100 * coverage:.1f}%"
    return text, details


def touching_checks(family: str, checks: Sequence[CheckResult]) -> str:
    """The checks whose evidence names this family's raw file: non-pass ones by id, passes counted."""
    raw = FAMILIES[family].results_file
    statuses = []
    for check in checks:
        if any(item.source.file.endswith(raw) for item in check.evidence):
            statuses.append((check.id, check.status.value))
    passed = sum(1 for _, status in statuses if status == "pass")
    others = [f"{cid} {status.replace('_', ' ')}" for cid, status in statuses if status != "pass"]
    return ", ".join(others + ([f"{passed} pass"] if passed else [])) or "none"


def _bound_cell_text(family: Family, summary: StatedSummary, summaries: Sequence[tuple[str, StatedSummary]],
                     results_dir: Path | None, bound_tables: dict) -> str:
    """The "of its bound" cell: the share of the family's measured bound (its ``headline.bounds`` file, read by its
    analysis module), or "no bound defined"."""
    if family.headline.bounds is None:
        return "no bound defined"
    analysis = importlib.import_module(family.analysis)
    if family.name not in bound_tables:
        bound_tables[family.name] = _bounds(results_dir, family.headline.bounds, analysis)
    rates = [s for f, s in summaries if f == family.name and s.metric == "rate"]
    return percent_of_bound(summary, rates, bound_tables[family.name], analysis)


def _bounds(results_dir: Path | None, name: str, analysis) -> pd.DataFrame | None:
    if results_dir is None or not (results_dir / name).is_file():
        return None
    from .. import results

    try:
        return analysis.bounds(results.to_frame(results.open(results_dir / name)))
    except Exception:  # no bound then; R11 reports why
        return None


def table_html(summaries: Sequence[tuple[str, StatedSummary]], checks: Sequence[CheckResult], results_dir: Path | None,
               figures: Mapping[str, str]) -> str:
    """The headline table: benchmark, key configuration, value [CI], how, % of bound, checks, figure and raw rows.
    A family with a table of its own (``headline.table``) is shown there instead."""
    rows = [(FAMILIES[name], summary) for name, summary in key_rows(summaries) if not FAMILIES[name].headline.table]
    if not rows:
        return "" if any(FAMILIES[name].headline.table for name, _ in summaries) else \
            "<p class='tw-note'>No derived results (results/derived/*.nc) beside this report: no headline numbers.</p>"
    bound_tables: dict = {}
    body = []
    for family, summary in rows:
        spec, filters = family.headline, summary.filters
        value, how = value_text(summary, spec.unit)
        anchor = figures.get(f"{family.notebook}/{spec.figure}", f"section-{family.notebook}")
        bound = _bound_cell_text(family, summary, summaries, results_dir, bound_tables)
        body.append(
            f"<tr><td>{_e(spec.title)}</td><td>{_e(short_configuration(family.name, filters))}</td>"
            f"<td>{_e(statistic_words(summary))}</td>"
            f"<td class='tw-num'>{_e(value)}</td><td>{_e(how)}</td><td>{_bound_cell(bound)}</td>"
            f"<td>{_e(touching_checks(family.name, checks))}</td>"
            f"<td><a href='#{_e(anchor)}'>figure</a> · raw rows: <span title='{_e(configuration(filters))}'>"
            f"{_e(family.results_file)}</span></td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("benchmark", "key configuration", "statistic", "value [CI]", "how",
                                              "of its bound", "checks touching it", "shown in"))
    return (f"<table class='tw-headline'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            "<p class='tw-muted tw-small-print'>One row per benchmark and workload: the "
            "configuration with the best value; its raw rows are those of the results file named whose factors equal "
            "the key configuration (hover for every factor).</p>")


def family_tables_html(summaries: Sequence[tuple[str, dict]], results_dir: Path | None, figures: Mapping[str, str],
                       confidence: float) -> str:
    """The tables families show of their own (``headline.table``: inference as MLPerf reports it), in report order."""
    return "".join(hook(family.headline.table)(summaries, results_dir, figures, confidence)
                   for family in headline_families() if family.headline.table)


def verdict_html(report: AuditReport) -> tuple[str, str]:
    """(the verdict with the count of each status, the claims with their outcomes)."""
    checks, found = report.checks, report.status_counts()
    counts = {status: found[status] for status in ("pass", "warn", "fail", "needs_human", "not_applicable")}
    verdict = report.verdict
    css = "tw-status-pass" if verdict.upper() == "VALID" else "tw-status-fail"
    parts = [f"<p class='tw-verdict {css}'>Checklist: <strong>{_e(verdict)}</strong> — "
             + ", ".join(f"<span class='tw-count tw-status-{s.replace('_', '-')}'>{n} {_e(s.replace('_', ' '))}</span>"
                         for s, n in counts.items()) + f" of {len(checks)} checks</p>"]
    if report.claims:
        items = []
        for claim in report.claims:
            interval, estimate = claim.numbers.interval, claim.numbers.estimate
            estimate = f" (estimate {number(estimate)}" + (
                f", interval [{number(interval[0])}, {number(interval[1])}])" if interval else ")") \
                if estimate is not None else ""
            why = claim.message or "the checklist gave no reason for this verdict"
            items.append(f"<li><span class='tw-claim'>{_e(claim.verdict.value.replace('_', ' '))}</span> "
                         f"<strong>{_e(claim.id)}</strong>{_e(estimate)}: {_e(claim.statement)} "
                         f"<details class='tw-why'><summary>why</summary>{_e(why)}</details></li>")
        parts.append(f"<p class='tw-claims-head'>Claims checked against the data:</p><ul class='tw-claims'>{''.join(items)}</ul>")
    return parts[0], "".join(parts[1:])


def undecided_html(report: AuditReport | None, results_dir: Path | None) -> str:
    """The claims this run's profile cannot decide, each with what it needs and the profile that decides it,
    and that profile's predicted runtime (``twelveways plan``); nothing when the profile provides every claim."""
    from .. import decidable, plan

    gaps = [(c, c.numbers.decidable) for c in (report.claims if report else []) if c.numbers.decidable is not None]
    if not gaps:
        return ""
    items = "".join(f"<li><strong>{_e(c.id)}</strong> ({_e(c.verdict.value.replace('_', ' '))} here): "
                    f"{_e(decidable.shortfall_text(gap.to_dict()))}</li>" for c, gap in gaps)
    profiles = sorted({p for _, gap in gaps for p in gap.decided_by if p in plan.PROFILES})
    runtimes = " ".join(f"Predicted for the {p} profile: {plan.profile_runtime_sentence(p, results_dir)}"
                        for p in profiles)
    profile = _e(gaps[0][1].profile)
    return (f"<div class='tw-caveat'><p><strong>Claims the {profile} profile is not sized to decide</strong> (it "
            f"makes fewer replicates than their tests need after Holm; a verdict here other than inconclusive came "
            f"from the other claims' strength):</p><ul class='tw-claims'>{items}</ul>"
            f"<p class='tw-muted'>{_e(runtimes)}</p></div>")


def headline_html(config: Mapping, checklist: Mapping, *, derived_dir: Path | None, results_dir: Path | None,
                  bench_dir: Path | None, figures: Mapping[str, str]) -> str:
    """Profile caveat, headline table, verdict counts and claims: the first screen of the report."""
    summaries = load_summaries(derived_dir)
    report = AuditReport.from_dict(checklist, "checklist") if checklist else None
    counts, claims = verdict_html(report) if report else ("", "")
    confidence = confidence_setting(config).value
    return (profile_caveat(config, bench_dir) + busy_html(results_dir) + counts
            + table_html(summaries, report.checks if report else [], results_dir, figures)
            + family_tables_html(summaries, results_dir, figures, confidence) + claims
            + undecided_html(report, results_dir))


def confidence_setting(config: Mapping | None) -> settings.Setting:
    """The confidence of the report's intervals: the run's config, else the schema's default (a config that sets
    an unusable one is an error naming it, never the default in its place)."""
    return settings.resolve("confidence", {settings.RUN_CONFIG: settings.config_value(config, "confidence")})


def busy_html(results_dir: Path | None) -> str:
    """A busy machine named where it can explain the numbers below (attr ``contention`` of each results
    file): "load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"; nothing when quiet."""
    from .. import contention, results
    from ..evidence import attributes

    reasons = []
    for path in sorted(Path(results_dir).glob("*.nc")) if results_dir and Path(results_dir).is_dir() else []:
        try:
            record = attributes.from_attrs(results.open(path).attrs, str(path)).contention
        except Exception:  # a damaged file must not stop the report; the checklist judges it
            continue
        reason = contention.busy_reason(record)
        reasons += [reason] if reason else []
    return "".join(f"<p class='tw-caveat'>Busy machine: {_e(reason)}.</p>" for reason in reasons)
