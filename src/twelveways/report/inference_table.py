"""Inference on the report's first screen as MLPerf reports it: each scenario's own metric per variant.

The inference family's own headline table (its declaration names :func:`table_html`): LoadGen's
reported throughput where MLPerf states one, the latency percentiles with their CIs, and the
accuracy with its test-set CI.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..evidence import settings
from ..evidence.summary import StatedSummary
from ..families.infer import FAMILY
from .headline import number, value_text


def _e(value) -> str:
    return html.escape(str(value))


#: Each LoadGen scenario's MLPerf metric: (column, scenario, derived statistic or raw LoadGen metric, unit).
MLPERF_METRICS = (
    ("SingleStream: p90 latency", "SingleStream", "p90", "ms"),
    ("MultiStream: p99 latency", "MultiStream", "p99", "ms"),
    ("Server: QPS at its latency bound", "Server", "latency_bounded_qps", "queries/s"),
    ("Offline: samples/s", "Offline", "samples_per_second", "samples/s"),
)


#: Which raw count says how many LoadGen runs a throughput metric of ``analysis.reported`` summarizes.
RUN_COUNTS = {"samples_per_second": "offline_runs"}


def _loadgen_numbers(results_dir: Path | None) -> tuple[dict, dict]:
    """Per variant from the raw inference.nc: LoadGen's throughput metrics as {metric: {variant: (value, runs)}}
    (runs: how many runs the value is the median of), and (correct, items) of its accuracy run."""
    if results_dir is None or not (results_dir / FAMILY.results_file).is_file():
        return {}, {}
    from ..infer import analysis

    try:
        frame, _ = analysis.load(results_dir)
    except Exception:  # a damaged results file: the table says the numbers are missing; the checklist judges it
        return {}, {}
    numbers = analysis.reported(frame)
    throughput = {}
    for metric in ("latency_bounded_qps", "samples_per_second"):
        runs = numbers[RUN_COUNTS[metric]] if metric in RUN_COUNTS else pd.Series(1, index=numbers.index)
        throughput[metric] = {v: (value, int(runs.get(v)) if pd.notna(runs.get(v)) else 1)
                              for v, value in numbers[metric].dropna().items()}
    counted = numbers[(numbers["accuracy_samples"] > 0) & numbers["accuracy_correct"].notna()]
    accuracy = {v: (int(row["accuracy_correct"]), int(row["accuracy_samples"])) for v, row in counted.iterrows()}
    return throughput, accuracy


def _throughput_cell(found: tuple[float, int] | None, unit: str) -> str:
    """LoadGen's number of one run, or the median of several with their count (hover: what the value is)."""
    if found is None or not np.isfinite(found[0]):
        return "no VALID run"
    value, runs = found
    if runs < 2:
        return f"{_e(number(value))} {_e(unit)}"
    how = f"median of the {runs} LoadGen runs' reported values"
    return f"<span title='{_e(how)}'>{_e(number(value))} {_e(unit)} · median of {runs} runs</span>"


def _latency_cell(summaries: Sequence[tuple[str, StatedSummary]], variant: str, scenario: str, statistic: str
                  ) -> str:
    found = next((s for f, s in summaries if f == FAMILY.name and s.statistic == statistic
                  and s.metric == "latency" and s.filters.get("variant") == variant
                  and s.filters.get("scenario") == scenario
                  and s.filters.get("role", "performance") == "performance"), None)
    if found is None:
        return "—"
    value, how = value_text(found, "ms")
    runs = found.runs or 1
    pooled = f" · {runs} runs pooled" if runs > 1 else ""
    return f"<span title='{_e(how)}'>{_e(value)}{_e(pooled)}</span>"


def _accuracy_cell(count: tuple[int, int] | None, confidence: float) -> str:
    if count is None:
        return "—"
    from ..stats import proportion

    acc = proportion.accuracy_ci(*count, confidence)
    return (f"<span title='{_e(f'{confidence:.0%} {acc.method} CI from {acc.items} test items')}'>"
            f"{_e(f'{acc.accuracy:.4f} [{acc.ci[0]:.4f}, {acc.ci[1]:.4f}] ({acc.correct}/{acc.items})')}</span>")


def table_html(summaries: Sequence[tuple[str, StatedSummary]], results_dir: Path | None, figures: Mapping[str, str],
                         confidence: float | None = None) -> str:
    """Inference as MLPerf reports it: each scenario's own metric per variant, and the accuracy with its test-set CI
    (``confidence`` None: the schema's)."""
    confidence = settings.resolve_confidence(confidence)
    variants = sorted({str(s.filters.get("variant")) for f, s in summaries
                       if f == FAMILY.name and s.filters.get("variant")})
    if not variants:
        return ""
    throughput, accuracy = _loadgen_numbers(results_dir)
    rows = []
    for variant in variants:
        cells = []
        for _, scenario, metric, unit in MLPERF_METRICS:
            if metric in throughput:
                cells.append(_throughput_cell(throughput[metric].get(variant), unit))
            else:
                cells.append(_latency_cell(summaries, variant, scenario, metric))
        cells.append(_accuracy_cell(accuracy.get(variant), confidence))
        rows.append(f"<tr><td>{_e(variant)}</td>" + "".join(f"<td class='tw-num'>{c}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{_e(h)}</th>" for h in ("variant", *(m[0] for m in MLPERF_METRICS),
                                                  "accuracy [CI] (correct/items)"))
    anchor = figures.get("inference/latency_cdf", "section-inference")
    return (f"<p class='tw-claims-head'>Inference, as MLPerf reports each scenario "
            f"(<a href='#{_e(anchor)}'>figures</a>):</p>"
            f"<table class='tw-headline'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p class='tw-muted tw-small-print'>Latencies: percentiles of the per-query latencies of the LoadGen "
            f"performance runs with {confidence:.0%} order-statistic CIs (hover for n and coverage; where a variant "
            "has several runs their queries are pooled, and the interval leaves out how much the runs differ: the "
            "claims compare runs); Server and Offline: LoadGen's reported numbers (Server: the highest target QPS "
            "LoadGen called VALID; several Offline runs: their median); accuracy: one "
            f"AccuracyOnly pass with its {confidence:.0%} exact binomial CI from the test-set size.</p>")
