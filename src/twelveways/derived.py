"""Derived results: what the analysis stage computes from the samples and the report shows.

Each analysis notebook writes ``results/derived/<family>.nc`` (family prk, train, infer) in the
results schema (:mod:`twelveways.results`) so the checklist judges what the report shows, not
only the raw samples (DESIGN.md, data flow: results -> analysis -> checklist -> report).  The
format is documented in docs/results-schema.md ("Derived results"); in short:

* attribute ``derived`` = 1, ``family``, ``analysis_version`` (:data:`ANALYSIS_VERSION`),
  ``derived_from`` (the raw files: name, sha256, environment and config hash), and the raw
  file's provenance (``environment_hash``, ``config_hash``, ``git_commit``, ``git_dirty``);
* one row per derived number (``speedup``, ``efficiency``, ``amdahl_serial_fraction``, ...) and
  configuration, with iteration -1, rank -1, run_id ``derived`` and the annotation columns
  :data:`ANNOTATIONS` (``base_case`` text, ``base_value`` and ``base_unit``, ``ci_low``,
  ``ci_high``, ``n``);
* attribute ``summaries``: every summary the report shows, with its statistic, CI, CI method,
  n and achieved coverage; its ``filters`` select the raw rows it summarizes;
* attribute ``fits``: fitted models with their CI and the number of points behind them;
* attribute ``figures``: each figure's declaration, recorded where it was drawn
  (:func:`twelveways.plots.declare`).

Statistics come from :mod:`twelveways.stats` (scipy); this module only records them.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats as sps

from . import results, stats
from .errors import ResultsError, StatisticsError

#: Bumped whenever the analysis changes what it derives or how (format history in docs/results-schema.md).
ANALYSIS_VERSION = "2"
RUN_ID = "derived"
#: Per-row annotation columns of a derived file (never configuration factors).
ANNOTATIONS = {"base_case": "", "base_value": math.nan, "base_unit": "", "ci_low": math.nan, "ci_high": math.nan,
               "n": -1}
#: Provenance attributes copied from the raw file the numbers were derived from.
PROVENANCE = ("environment_hash", "config_hash", "git_commit", "git_dirty")
MEDIAN_CI_METHOD = "median_binomial"
PERCENTILE_CI_METHOD = "order_statistics"
#: The interval of a configuration over its invocations (``stats.replicates.summary_interval``).
REPLICATE_CI_METHOD = "t_log_invocations"
#: The column that names a replicate (an invocation) in the results schema.
REPLICATE_LEVEL = "run_id"


@dataclass
class Derived:
    """What one family's analysis derived: rows, summaries, fits and figure declarations."""

    family: str
    sources: list[Path]
    rows: list[dict] = field(default_factory=list)
    summaries: list[dict] = field(default_factory=list)
    fits: list[dict] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    attrs: dict = field(default_factory=dict)


def plain(value):
    """numpy scalars and containers as plain Python (JSON attributes, filters); NaN as None."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def row(config: Mapping, metric: str, value: float, unit: str, *, base_case: str = "", base_value: float = math.nan,
        base_unit: str = "", ci: Sequence | None = None, n: int = -1) -> dict:
    """One derived number as a results row: ``config``'s factors, iteration -1, rank -1, run_id 'derived'."""
    out = {"benchmark": "", "workload": "", "implementation": "", "ranks": -1, "threads": -1, "size": 0,
           "precision": "", **{k: plain(v) for k, v in config.items()}}
    low, high = (ci if ci is not None and len(ci) == 2 else (math.nan, math.nan))
    out.update(seed=-1, run_id=RUN_ID, iteration=-1, rank=-1, metric=metric, value=float(value), unit=unit, valid=True,
               base_case=str(base_case or ""), base_value=_float(base_value), base_unit=str(base_unit or ""),
               ci_low=_float(low), ci_high=_float(high), n=int(n))
    return out


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def median_summary(values, *, metric: str, unit: str, filters: Mapping, confidence: float, kind: str = "cost",
                   note: str = "", **extra) -> dict:
    """Median with its exact distribution-free CI, n, achieved coverage and the Shapiro–Wilk p (R5, R6)."""
    x = _finite(values)
    ranks = stats.median_ci_ranks(x.size, confidence) if x.size else None
    ci = list(stats.median_ci(x, confidence)) if ranks else None
    if ranks is None and x.size:
        note = _join(note, f"n={x.size} is too few for a {confidence:.0%} CI of the median "
                           f"(needs at least {stats.min_samples_for_ci(0.5, confidence)})")
    shapiro = stats.normality(x).p if x.size >= 3 and np.ptp(x) > 0 else None
    return _summary(metric, "median", unit, kind, filters, float(np.median(x)) if x.size else None, ci, confidence,
                    MEDIAN_CI_METHOD if ci else "", x.size, ranks[2] if ranks else None, note,
                    normality_checked=shapiro is not None, shapiro_p=plain(shapiro), **extra)


def replicate_summary(groups: Sequence, *, metric: str, unit: str, filters: Mapping, confidence: float,
                      replicate: str = "invocation", kind: str = "cost", note: str = "", **extra) -> dict:
    """One configuration over its replicates (``groups``: each invocation's values): the geometric mean of the
    invocation means with the t interval of their logs, n = invocations and the values behind them beside it.

    Why: the iterations of one invocation share its frequency, placement and neighbours, so a CI that counts
    them as replicates is too narrow; this is the number and interval the claims and compare use
    (``stats.replicates``), so every table, figure and verdict tells one story.  The Shapiro–Wilk p is of the
    log invocation means, the scale the interval assumes normal (R6)."""
    arrays = [a for a in (_finite(g) for g in groups) if a.size]
    values = sum(a.size for a in arrays)
    found = stats.replicates.summary_interval(arrays, kind, confidence) if len(arrays) >= 2 else None
    logs = stats.replicates.log_summaries(arrays, kind) if arrays else np.array([])
    if found is None and arrays:
        note = _join(note, f"one {replicate}: no interval over {replicate}s (its {values} values describe one "
                           f"{replicate}); repeat the {replicate} to get one")
    shapiro = stats.normality(logs).p if logs.size >= 3 and np.ptp(logs) > 0 else None
    centre = found[0] if found else (float(np.exp(logs[0])) if logs.size else None)
    return _summary(metric, "geometric_mean", unit, kind, filters, centre, list(found[1:]) if found else None,
                    confidence, REPLICATE_CI_METHOD if found else "", len(arrays), None, note,
                    ci_level=REPLICATE_LEVEL, replicate=replicate, values=int(values),
                    normality_checked=shapiro is not None, shapiro_p=plain(shapiro), **extra)


def median_of_replicates(record: Mapping, groups: Sequence, confidence: float, why: str) -> dict:
    """``record`` (a :func:`replicate_summary`) restated distribution-free: the median of the invocation means with
    the exact order-statistic CI over them, where the data contradict the log-normal the t interval assumes
    (R6: nonparametric where normality fails).  Too few invocations for that CI keep the t interval, noted."""
    arrays = [a for a in (_finite(g) for g in groups) if a.size]
    kind = str(record.get("kind") or "cost")
    means = np.exp(stats.replicates.log_summaries(arrays, kind)) if arrays else np.array([])
    ranks = stats.median_ci_ranks(means.size, confidence) if means.size else None
    if ranks is None:
        return {**record, "note": _join(str(record.get("note") or ""), f"{why}; {means.size} invocations are too few "
                                        f"for a distribution-free {confidence:.0%} CI (needs "
                                        f"{stats.min_samples_for_ci(0.5, confidence)}): the t interval stays")}
    return plain({**record, "statistic": "median", "value": float(np.median(means)),
                  "ci": list(stats.median_ci(means, confidence)), "ci_method": MEDIAN_CI_METHOD, "coverage": ranks[2],
                  "note": _join(str(record.get("note") or ""), f"{why}: median of the invocation means with its "
                                                               "distribution-free CI")})


def percentile_summary(values, q: float, *, metric: str, unit: str, filters: Mapping, confidence: float,
                       kind: str = "cost", note: str = "", **extra) -> dict:
    """The q-quantile (a fraction) with its exact order-statistic CI where n supports one (R8)."""
    x = _finite(values)
    row_ = stats.percentiles(x, qs=(q,), confidence=confidence)[0]
    if row_["ci"] is None:
        note = _join(note, row_["note"])
    return _summary(metric, f"p{q * 100:g}", unit, kind, filters, row_["value"], row_["ci"], confidence,
                    PERCENTILE_CI_METHOD if row_["ci"] else "", x.size, row_["coverage"], note, **extra)


def mean_summary(values, *, metric: str, unit: str, filters: Mapping, statistic: str = "arithmetic_mean",
                 kind: str = "cost", note: str = "", **extra) -> dict:
    """An arithmetic (costs) or harmonic (rates) mean of the selected rows, without a CI (R3)."""
    x = _finite(values)
    means = {"arithmetic_mean": np.mean, "harmonic_mean": sps.hmean}
    if statistic not in means:
        raise StatisticsError(f"mean_summary takes arithmetic_mean or harmonic_mean, not {statistic!r}")
    value = float(means[statistic](x)) if x.size else None
    return _summary(metric, statistic, unit, kind, filters, value, None, None, "", x.size, None, note, **extra)


def _summary(metric, statistic, unit, kind, filters, value, ci, confidence, ci_method, n, coverage, note, **extra):
    return plain({"metric": metric, "statistic": statistic, "unit": unit, "kind": kind, "filters": dict(filters),
                  "value": value, "ci": list(ci) if ci is not None else None, "confidence": confidence,
                  "ci_method": ci_method, "n": int(n), "coverage": coverage, "note": note, **extra})


def _finite(values) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    return x[np.isfinite(x)]


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def fit_record(model: str, parameter: str, *, value: float, ci: Sequence | None, confidence: float, n_points: int,
               filters: Mapping, drawn: bool, unit: str = "1", note: str = "", **extra) -> dict:
    """A fitted model's parameter with its CI and the number of points behind it."""
    return plain({"model": model, "parameter": parameter, "value": value, "unit": unit,
                  "ci": list(ci) if ci is not None else None, "confidence": confidence, "n_points": int(n_points),
                  "filters": dict(filters), "drawn": bool(drawn), "note": note, **extra})


def sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def derived_from(paths: Iterable[str | os.PathLike]) -> list[dict]:
    """The raw files a derived file was computed from: name, sha256, environment and config hash."""
    out = []
    for path in paths:
        ds = results.open(path)
        out.append({"file": Path(path).name, "sha256": sha256(path), "family": str(ds.attrs.get("family", "")),
                     "environment_hash": str(ds.attrs.get("environment_hash", "")),
                     "config_hash": str(ds.attrs.get("config_hash", ""))})
    return out


def dataset(bundle: Derived):
    """The derived results as a validated results Dataset (see the module docstring)."""
    if not bundle.sources:
        raise ResultsError(f"derived {bundle.family} results name no raw results file")
    origin = derived_from(bundle.sources)
    first = results.open(bundle.sources[0]).attrs
    commit, dirty = results.git_state()
    attrs = {key: first.get(key, "unknown") for key in PROVENANCE}
    attrs.update(bundle.attrs)
    attrs.update(derived=1, analysis_version=ANALYSIS_VERSION, derived_from=origin,
                 analysis_git_commit=commit, analysis_git_dirty=int(dirty),
                 summaries=bundle.summaries, fits=bundle.fits, figures=bundle.figures,
                 factors=sorted({k for r in bundle.rows for k in r} - set(results.COLUMNS) - set(ANNOTATIONS)))
    attrs.setdefault("metric_kinds", {})
    hashes = {o["environment_hash"] for o in origin}
    if len(hashes) > 1:
        attrs["environment_hash"] = "mixed"
    return results.from_records(bundle.rows, bundle.family, attrs)


def write(path: str | os.PathLike, bundle: Derived) -> Path:
    """Write ``bundle`` to ``path`` atomically (``twelveways.results.write``); returns the path."""
    return results.write(dataset(bundle), path)
