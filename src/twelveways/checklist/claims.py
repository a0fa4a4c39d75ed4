"""Claims written by authors, checked against the data with the right statistics.

A claims file is YAML: a list (or ``{claims: [...]}``) of::

    - id: transpose-mpi-2x
      statement: "C MPI transpose is at least 2x faster than mpi4py at 2 ranks"
      kind: speedup            # speedup | ratio | value | accuracy_relative
      metric: time             # the metric compared (rows' ``metric`` column)
      a: {workload: transpose, implementation: c-mpi, ranks: 2}      # the claimed-better side
      b: {workload: transpose, implementation: mpi4py, ranks: 2}     # the base case
      at_least: 2.0            # and/or at_most
      match: [size]            # optional: compare at the largest level both sides share
      confidence: 0.95         # optional (default 0.95)
      relative_accuracy: relative   # accuracy_relative only (F12): absolute_points | relative | relative_to_errors

Estimates (a, b = the two selections, summarised by their medians):

* ``speedup``: cost metric median(b)/median(a); rate metric median(a)/median(b);
* ``ratio``: median(a)/median(b); ``value``: median(a);
* ``accuracy_relative`` (accuracies as fractions; unit ``%`` is divided by 100):
  ``absolute_points`` 100·(acc_a − acc_b) (percentage points), ``relative`` acc_a/acc_b,
  ``relative_to_errors`` (1 − acc_b)/(1 − acc_a) (baseline error over claimed error).

Statistics: each side's median gets a distribution-free CI from exact binomial order statistics
(``twelveways.stats.median_ci``) at confidence sqrt(c), so both intervals hold together with
probability >= c (independent samples); the estimate's interval is the conservative one from the
interval ends (e.g. [lo_b/hi_a, hi_b/lo_a]).  With too few samples for that CI, the sample range
stands in (coverage 1 − 2·0.5^n per side, stated).  A one-sided Mann–Whitney U test
(``scipy.stats.mannwhitneyu``) with its rank-biserial effect size accompanies every a/b claim.

Verdicts: *supported* when the whole interval meets the threshold (and, for a claimed
difference — speedup/ratio beyond 1 — Mann–Whitney p < 1 − c); *not supported* when the whole
interval misses it, or no sample matches a side; otherwise *inconclusive*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy import stats as sps

from .. import stats
from ..errors import ClaimError, StatisticsError
from .evidence import finite, metric_kind, select
from .model import ClaimResult, ClaimVerdict

KINDS = ("speedup", "ratio", "value", "accuracy_relative")
DEFINITIONS = ("absolute_points", "relative", "relative_to_errors")
KEYS = {"id", "statement", "kind", "metric", "a", "b", "at_least", "at_most", "match", "confidence",
        "relative_accuracy", "note"}


@dataclass
class Claim:
    id: str
    statement: str
    kind: str
    metric: str
    a: dict
    b: dict | None = None
    at_least: float | None = None
    at_most: float | None = None
    match: list = field(default_factory=list)
    confidence: float = 0.95
    relative_accuracy: str | None = None
    origin: str = ""


def parse_claim(item, origin: str, index: int) -> Claim:
    """One claim from its mapping; every problem is a one-line :class:`ClaimError`."""
    where = f"{origin}: claim {index + 1}"
    if not isinstance(item, Mapping):
        raise ClaimError(f"{where}: must be a mapping with id, statement, kind, metric, a, b, at_least/at_most")
    claim_id = str(item.get("id") or f"claim-{index + 1}")
    where = f"{origin}: claim {claim_id!r}"
    unknown = sorted(set(item) - KEYS)
    if unknown:
        raise ClaimError(f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(KEYS))})")
    kind = str(item.get("kind", ""))
    if kind not in KINDS:
        raise ClaimError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if not item.get("metric"):
        raise ClaimError(f"{where}: metric is missing (the rows' metric the claim is about)")
    a, b = item.get("a"), item.get("b")
    if not isinstance(a, Mapping):
        raise ClaimError(f"{where}: 'a' must be a mapping of column filters")
    if kind != "value" and not isinstance(b, Mapping):
        raise ClaimError(f"{where}: 'b' (the base case) must be a mapping of column filters")
    bounds = {}
    for key in ("at_least", "at_most"):
        if item.get(key) is not None:
            try:
                bounds[key] = float(item[key])
            except (TypeError, ValueError) as exc:
                raise ClaimError(f"{where}: {key} must be a number, got {item[key]!r}") from exc
    if not bounds:
        raise ClaimError(f"{where}: give at_least and/or at_most (the claimed threshold)")
    definition = item.get("relative_accuracy")
    if kind == "accuracy_relative":
        if definition is None or str(definition) not in DEFINITIONS:
            got = "none given" if definition is None else f"got {definition!r}"
            raise ClaimError(f"{where}: a relative-accuracy claim must say which relative accuracy it means "
                             f"(relative_accuracy: {' | '.join(DEFINITIONS)}; {got}) (F12)")
    confidence = float(item.get("confidence", 0.95))
    if not 0 < confidence < 1:
        raise ClaimError(f"{where}: confidence must lie in (0, 1), got {confidence}")
    match = item.get("match") or []
    if isinstance(match, str):
        match = [match]
    return Claim(claim_id, str(item.get("statement", "")), kind, str(item["metric"]), dict(a),
                 dict(b) if isinstance(b, Mapping) else None, bounds.get("at_least"), bounds.get("at_most"),
                 list(match), confidence, str(definition) if definition is not None else None, origin)


def claim_list(obj, origin: str) -> list:
    if obj is None:
        return []
    if isinstance(obj, Mapping) and "claims" in obj:
        obj = obj["claims"]
    if not isinstance(obj, list):
        raise ClaimError(f"{origin}: expected a list of claims (or a mapping with key 'claims')")
    return obj


def parse_claims(obj, origin: str) -> list[Claim]:
    """Strict: the first bad claim raises :class:`ClaimError`."""
    return [parse_claim(item, origin, i) for i, item in enumerate(claim_list(obj, origin))]


def parse_lenient(obj, origin: str) -> tuple[list[Claim], list[tuple[str, str, str, str]]]:
    """Claims embedded in results files: bad ones are returned as (origin, id, message, kind) problems."""
    claims, problems = [], []
    try:
        items = claim_list(obj, origin)
    except ClaimError as exc:
        return [], [(origin, "", exc.one_line(), "")]
    for i, item in enumerate(items):
        try:
            claims.append(parse_claim(item, origin, i))
        except ClaimError as exc:
            ident = str(item.get("id", f"claim-{i + 1}")) if isinstance(item, Mapping) else f"claim-{i + 1}"
            kind = str(item.get("kind", "")) if isinstance(item, Mapping) else ""
            problems.append((origin, ident, exc.one_line(), kind))
    return claims, problems


def load_claims(path: str | Path) -> list[Claim]:
    path = Path(path)
    if not path.is_file():
        raise ClaimError(f"claims file not found: {path}")
    try:
        obj = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ClaimError(f"{path}: malformed YAML ({getattr(exc, 'problem', None) or 'syntax'})") from exc
    return parse_claims(obj, str(path))


# --------------------------------------------------------------------------- evaluation

def _values(frame: pd.DataFrame, metric: str, filters: Mapping) -> tuple[np.ndarray, str]:
    """Samples of one side; per-rank rows without a whole-run row become the max (cost) / min (rate) per run."""
    rows = select(frame, metric, filters)
    if rows.empty:
        return np.array([]), ""
    unit = str(rows["unit"].iloc[0])
    if "rank" not in filters and rows["rank"].nunique() > 1:
        keys = [c for c in ("source_file", "run_id", "iteration") if c in rows.columns]
        how = "min" if metric_kind(metric, unit) == "rate" else "max"
        rows = rows.groupby(keys, sort=False)["value"].agg(how).reset_index()
    return finite(rows["value"]), unit


def centre(values: np.ndarray, confidence: float) -> dict:
    """Median and its CI (exact binomial ranks; the sample range when n is too small)."""
    n = int(values.size)
    median = float(np.median(values))
    try:
        low, high = stats.median_ci(values, confidence)
        method, coverage = "median CI, exact binomial order statistics", stats.median_ci_ranks(n, confidence)[2]
    except StatisticsError:
        low, high = float(values.min()), float(values.max())
        method = "sample range (too few samples for the CI of the median)"
        coverage = 1.0 - 2.0 * 0.5 ** n if n > 1 else 0.0
        if np.all(values == values[0]):
            method, coverage = "all samples equal (deterministic)", 1.0
    return {"n": n, "median": median, "ci": [low, high], "ci_method": method, "coverage": float(coverage)}


def _ratio_bounds(num: dict, den: dict) -> tuple[float, float, float]:
    est = num["median"] / den["median"]
    low = num["ci"][0] / den["ci"][1] if den["ci"][1] else math.inf
    high = num["ci"][1] / den["ci"][0] if den["ci"][0] else math.inf
    return est, low, high


def _mann_whitney(a: np.ndarray, b: np.ndarray, alternative: str) -> dict:
    result = sps.mannwhitneyu(a, b, alternative=alternative)
    prob = float(result.statistic) / (a.size * b.size)
    return {"U": float(result.statistic), "p_value": float(result.pvalue), "alternative": alternative,
            "prob_a_greater": prob, "rank_biserial": 2.0 * prob - 1.0}


def check_claim(claim: Claim, frame: pd.DataFrame) -> ClaimResult:
    """Label one claim supported / not supported / inconclusive, with its numbers."""
    def result(verdict, message, numbers=None):
        return ClaimResult(claim.id, claim.statement, verdict, numbers or {}, message, claim.origin)

    a_filters, b_filters = dict(claim.a), dict(claim.b or {})
    chosen = {}
    for factor in claim.match:
        a_levels = set(select(frame, claim.metric, a_filters).get(factor, pd.Series(dtype=object)).tolist())
        b_levels = set(select(frame, claim.metric, b_filters).get(factor, pd.Series(dtype=object)).tolist())
        common = a_levels & b_levels if claim.b is not None else a_levels
        if not common:
            return result(ClaimVerdict.NOT_SUPPORTED, f"no level of {factor!r} has samples on both sides")
        chosen[factor] = max(common)
        a_filters[factor] = chosen[factor]
        if claim.b is not None:
            b_filters[factor] = chosen[factor]
    a, unit = _values(frame, claim.metric, a_filters)
    if a.size == 0:
        return result(ClaimVerdict.NOT_SUPPORTED, f"no valid samples of {claim.metric!r} match a={a_filters}")
    per_side = math.sqrt(claim.confidence) if claim.b is not None else claim.confidence
    numbers = {"metric": claim.metric, "unit": unit, "confidence": claim.confidence, "matched": chosen,
               "a": {"filters": a_filters, **centre(a, per_side)}}
    b = np.array([])
    if claim.b is not None:
        b, _ = _values(frame, claim.metric, b_filters)
        if b.size == 0:
            return result(ClaimVerdict.NOT_SUPPORTED, f"no valid samples of {claim.metric!r} match b={b_filters}", numbers)
        numbers["b"] = {"filters": b_filters, **centre(b, per_side)}
    sa, sb = numbers["a"], numbers.get("b")
    alternative = None
    kind = metric_kind(claim.metric, unit)
    if claim.kind == "speedup":
        if kind not in ("cost", "rate"):
            return result(ClaimVerdict.INCONCLUSIVE, f"a speedup needs a cost (time) or rate metric; "
                          f"{claim.metric!r} in {unit!r} is {kind}", numbers)
        est, low, high = _ratio_bounds(sb, sa) if kind == "cost" else _ratio_bounds(sa, sb)
        alternative = "less" if kind == "cost" else "greater"
        numbers["estimate_definition"] = "median(b)/median(a)" if kind == "cost" else "median(a)/median(b)"
    elif claim.kind == "ratio":
        est, low, high = _ratio_bounds(sa, sb)
        numbers["estimate_definition"] = "median(a)/median(b)"
        if claim.at_least is not None and claim.at_least > 1:
            alternative = "greater"
        elif claim.at_most is not None and claim.at_most < 1:
            alternative = "less"
    elif claim.kind == "value":
        est, (low, high) = sa["median"], sa["ci"]
        numbers["estimate_definition"] = "median(a)"
    else:
        scale = 100.0 if unit.strip() == "%" else 1.0
        la, ma, ha = (x / scale for x in (sa["ci"][0], sa["median"], sa["ci"][1]))
        lb, mb, hb = (x / scale for x in (sb["ci"][0], sb["median"], sb["ci"][1]))
        if claim.relative_accuracy == "absolute_points":
            est, low, high = 100 * (ma - mb), 100 * (la - hb), 100 * (ha - lb)
            numbers["estimate_definition"] = "100*(acc_a - acc_b), percentage points"
        elif claim.relative_accuracy == "relative":
            est, low, high = ma / mb, la / hb, ha / lb
            numbers["estimate_definition"] = "acc_a / acc_b"
        else:
            est = (1 - mb) / (1 - ma) if ma < 1 else math.inf
            low = (1 - hb) / (1 - la) if la < 1 else math.inf
            high = (1 - lb) / (1 - ha) if ha < 1 else math.inf
            numbers["estimate_definition"] = "(1 - acc_b) / (1 - acc_a), baseline error over claimed error"
        numbers["relative_accuracy"] = claim.relative_accuracy
    numbers.update({"estimate": est, "interval": [low, high], "at_least": claim.at_least, "at_most": claim.at_most})
    if claim.b is not None:
        numbers["mann_whitney"] = _mann_whitney(a, b, alternative or "two-sided")
    alpha = 1.0 - claim.confidence
    meets_low = claim.at_least is None or low >= claim.at_least
    meets_high = claim.at_most is None or high <= claim.at_most
    misses = (claim.at_least is not None and high < claim.at_least) or (claim.at_most is not None and low > claim.at_most)
    text = f"estimate {est:.4g}, interval [{low:.4g}, {high:.4g}]"
    if misses:
        return result(ClaimVerdict.NOT_SUPPORTED, f"{text}: the whole interval misses the threshold", numbers)
    if meets_low and meets_high:
        if alternative and numbers["mann_whitney"]["p_value"] >= alpha:
            return result(ClaimVerdict.INCONCLUSIVE, f"{text} meets the threshold, but Mann-Whitney p="
                          f"{numbers['mann_whitney']['p_value']:.3g} >= {alpha:.3g}", numbers)
        return result(ClaimVerdict.SUPPORTED, f"{text}: the whole interval meets the threshold", numbers)
    return result(ClaimVerdict.INCONCLUSIVE, f"{text}: the interval straddles the threshold", numbers)


def check_all(claims: list[Claim], frame: pd.DataFrame) -> list[ClaimResult]:
    return [check_claim(claim, frame) for claim in claims]
