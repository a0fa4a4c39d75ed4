"""Claims written by authors, checked against the data with the right statistics.

Below the checklist and ``twelveways compare``: the audit checks the claims of a result set, and
``twelveways reproduce`` checks the same claims on a stored and a new one.

A claims file is YAML: a list (or ``{claims: [...]}``) of::

    - id: transpose-mpi-2x
      statement: "C MPI transpose is at least 2x faster than mpi4py at 2 ranks"
      kind: speedup            # speedup | ratio | value | accuracy_relative
      metric: time             # the metric compared (rows' ``metric`` column)
      a: {workload: transpose, implementation: c-mpi, ranks: 2}      # the claimed-better side
      b: {workload: transpose, implementation: mpi4py, ranks: 2}     # the base case
      at_least: 2.0            # and/or at_most
      match: [size]            # optional: compare at the largest level both sides share
      confidence: 0.95         # optional (default: the run's config measurement.confidence, else the schema's)
      relative_accuracy: relative   # accuracy_relative only (F12): absolute_points | relative | relative_to_errors

**Replicates only.**  Each side must select replicates of one configuration: its samples may
differ only in replicate columns (seed, run_id, iteration, rank, run bookkeeping).  A side whose
rows take several levels of a configuration factor is never pooled: the claim is inconclusive
and names each factor with its levels (:func:`spanned_factors` says what counts as a factor).

**Design.**  When both sides identify their runs by seed (one run per seed, seed >= 0, at least
two runs) and share at least two seeds, the claim is *paired by seed*: per seed the run's median
value, per pair the claim's estimate (e.g. acc_a/acc_b); the estimate is the median of the
per-pair estimates, its interval the exact binomial order-statistic CI of that median at
confidence c, and the test a one-sided Wilcoxon signed-rank test of (per-pair estimate −
threshold).  Otherwise the sides are *independent*: each median gets an exact binomial CI at
√c (both hold together with probability ≥ c), the estimate's interval is the range of the
estimate over the corners of the two CIs, and the test a one-sided Mann–Whitney U test of the
threshold-scaled samples (e.g. b against 2·a for "a at least 2x faster").  A ``value`` claim uses
one side's median CI at c and a one-sided Wilcoxon signed-rank test of (a − threshold).
Every test takes the claim as its alternative (estimate > at_least, < at_most; both bounds: the
larger p).

**Accuracy on a test set.**  An ``accuracy_relative`` claim whose sides are each ONE evaluation
on a counted test set (rows ``accuracy_samples``/``accuracy_correct``) is decided from the test
set, not from repetitions: each accuracy gets its exact binomial CI.  When both sides also hold
their per-item outcomes (rows ``item_correct``, one per ``sample_index``) on the same items, the
claim is *paired by item* (design ``paired items``): the 2×2 table of the items, McNemar's exact
test at a no-difference threshold, otherwise Tang's (ratio) or Tango's (difference) score test of
the threshold, and the matching score interval (:mod:`twelveways.stats.paired_proportion`); the
discordant and concordant counts are in ``numbers["items"]``.  Without per-item outcomes (older
runs, other publishers) the design is ``test set``: statsmodels' score test and interval for two
independent binomials, and ``numbers["pairing"]`` says why the items are not paired.

Estimates: ``speedup`` median(b)/median(a) for a cost, median(a)/median(b) for a rate;
``ratio`` a/b; ``value`` median(a); ``accuracy_relative`` (accuracies as fractions, ``%`` divided
by 100) ``absolute_points`` 100·(acc_a − acc_b), ``relative`` acc_a/acc_b, ``relative_to_errors``
(1 − acc_b)/(1 − acc_a).

**Confidence really achieved.**  Coverages are computed exactly (``fractions.Fraction``: binomial
sums of the chosen order-statistic ranks) and compared with the confidence read from its decimal
text (0.95 -> 19/20).  A p-value is below α = 1 − c only when it undercuts α by more than one part
in 10⁹ (:func:`below`): with 3 vs 3 samples the smallest one-sided exact Mann–Whitney p is exactly
1/20 and is *not* below 0.05.  When n is too small for an interval at the stated confidence there
is no interval (the sample range is shown only as such, with its own coverage) and the claim is
inconclusive, stating the n needed.  Deterministic means n ≥ 2 samples all equal (n = 1 never is).

**Verdicts.**  *supported*: the whole interval meets the threshold and the test's p is below α;
*not supported*: the whole interval misses it, or no valid sample matches a side; otherwise
*inconclusive*.  The claims of one audit are a family: :func:`check_all` adjusts the tested claims'
p-values with Holm (``statsmodels`` ``multipletests``) and a claim supported on its own but not
after Holm becomes inconclusive, saying so; both results are kept in ``numbers``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from . import decidable, inputs, stats
from .claim_record import Centre, ClaimNumbers, ClaimResult, ClaimVerdict, Holm, PairedItems, TestPart
from .errors import ClaimError, StatisticsError
from .evidence import settings
from .inputs import brief
from .resultset import ANNOTATION_SUFFIXES, CONFIG_COLUMNS, describe, metric_kind, select
from .stats import paired_proportion

KINDS = ("speedup", "ratio", "value", "accuracy_relative")
DEFINITIONS = ("absolute_points", "relative", "relative_to_errors")
#: The claim's thresholds: the estimate at least / at most this.
BOUNDS = ("at_least", "at_most")
KEYS = {"id", "statement", "kind", "metric", "a", "b", "at_least", "at_most", "match", "confidence",
        "relative_accuracy", "note", "needs", "profiles"}


__all__ = ["Claim", "ClaimNumbers", "ClaimResult", "ClaimVerdict", "check_all", "check_claim", "load_claims"]


@dataclass(frozen=True)
class Claim:
    """A claim as its author wrote it, parsed and checked once (:func:`parse_claim`, every problem one line)."""

    id: str
    statement: str
    kind: str
    metric: str
    a: dict
    b: dict | None = None
    at_least: float | None = None
    at_most: float | None = None
    match: list = field(default_factory=list)
    confidence: float | None = None  # as the claim states it; None: the run's config, else the schema (confidence_setting)
    relative_accuracy: str | None = None
    origin: str = ""
    needs: dict = field(default_factory=dict)  # {replicate unit: count} its test needs (twelveways.decidable)
    profiles: tuple = decidable.PROFILE_NAMES  # the profiles that provide them


def confidence_setting(claim: Claim, config: Mapping | None = None) -> settings.Setting:
    """The level a claim is tested at: the claim's own, else the run's config (``measurement.confidence``), else
    the schema's default (``twelveways.evidence.settings``)."""
    return settings.resolve("confidence", {settings.CLAIM: claim.confidence,
                                           settings.RUN_CONFIG: settings.config_value(config, "confidence")},
                            {settings.CLAIM: f"claim {claim.id!r}" + (f" of {claim.origin}" if claim.origin else "")},
                            error=ClaimError)


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
    for side, filters in (("a", a), ("b", b if isinstance(b, Mapping) else {})):
        _check_filters(filters, f"{where}: '{side}'")
    bounds = {key: _number(item[key], f"{where}: {key}") for key in BOUNDS
              if item.get(key) is not None}
    if not bounds:
        raise ClaimError(f"{where}: give at_least and/or at_most (the claimed threshold)")
    definition = item.get("relative_accuracy")
    if kind == "accuracy_relative":
        if definition is None or str(definition) not in DEFINITIONS:
            got = "none given" if definition is None else f"got {definition!r}"
            raise ClaimError(f"{where}: a relative-accuracy claim must say which relative accuracy it means "
                             f"(relative_accuracy: {' | '.join(DEFINITIONS)}; {got}) (F12)")
    confidence = None if "confidence" not in item else settings.resolve(
        "confidence", {settings.CLAIM: _number(item["confidence"], f"{where}: confidence")}, {settings.CLAIM: where},
        error=ClaimError).value
    match = item.get("match") or []
    if isinstance(match, str):
        match = [match]
    if not isinstance(match, list) or not all(isinstance(m, str) and m for m in match):
        raise ClaimError(f"{where}: match must be a column name or a list of column names, got {brief(match)}")
    return Claim(claim_id, str(item.get("statement", "")), kind, str(item["metric"]), dict(a),
                 dict(b) if isinstance(b, Mapping) else None, *(bounds.get(key) for key in BOUNDS),
                 list(match), confidence, str(definition) if definition is not None else None, origin,
                 decidable.parse_needs(item.get("needs"), where), decidable.parse_profiles(item.get("profiles"), where))


def _number(value, where: str) -> float:
    """A finite number from a claim field, or a one-line ClaimError naming the field."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ClaimError(f"{where} must be a number, got {brief(value)}")
    try:
        number = float(value)
    except ValueError as exc:
        raise ClaimError(f"{where} must be a number, got {brief(value)}") from exc
    if not math.isfinite(number):
        raise ClaimError(f"{where} must be a finite number, got {brief(value)}")
    return number


def _check_filters(filters: Mapping, where: str) -> None:
    """Filters map column names to a value or a list of values (numbers, text, booleans)."""
    scalar = (str, int, float, bool)
    for column, wanted in filters.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        if not isinstance(column, str) or not all(isinstance(v, scalar) for v in values):
            raise ClaimError(f"{where}: filter {brief(column)} must map a column name to a value or a list "
                             f"of values, got {brief(wanted)}")


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
    obj = inputs.read_yaml(path, "claims file", ClaimError)
    return parse_claims(obj, str(path))


# --------------------------------------------------------------------------- evaluation

# --------------------------------------------------------------------------- replicates

#: Columns whose levels are replicates of one configuration (pooled freely).
REPLICATE_COLUMNS = {"seed", "run_id", "iteration", "rank", "run_order", "timestamp", "source_file"}
#: Per-run outcomes and per-sample annotations: they may differ between replicates.
OUTCOME_COLUMNS = {"stop_reason", "reached_target", "converged", "status", "loadgen_valid", "below_statistical_minimum",
                   "note", "epoch", "samples_seen", "wall_time", "query", "query_id", "base_case", "base_value"}
#: Configuration factors even when they vary inside one run_id (the schema's own, and the learning rate).
ALWAYS_FACTORS = (set(CONFIG_COLUMNS) - {"metric", "rank"}) | {"lr", "learning_rate"}
#: p must undercut alpha by more than this relative margin to count as below it (float noise).
P_TOLERANCE = Fraction(1, 10**9)
#: Levels named per factor in a one-line message (the JSON keeps them all).
MAX_LEVELS_SHOWN = 6


def _level_key(value):
    return (0, float(value), "") if isinstance(value, (int, float, np.number)) and not isinstance(value, bool) \
        else (1, 0.0, str(value))


def _level_text(value) -> str:
    if isinstance(value, float):
        return "missing" if math.isnan(value) else f"{value:g}"
    return str(value) if str(value) != "" else "(empty)"


def spanned_factors(rows: pd.DataFrame) -> dict[str, list]:
    """Configuration factors taking several levels in one side's rows: {column: sorted levels}.

    Why: pooling two learning rates or two models is not a replicate sample.  A factor is a schema
    configuration column, ``lr``/``learning_rate``, or any other column constant within each run
    but varying across runs -- except the replicate columns (:data:`REPLICATE_COLUMNS`, names
    ending in ``_order``/``_seq``/``_index``...) and per-run outcomes (:data:`OUTCOME_COLUMNS`).
    A column that varies inside one run annotates samples (a query, an epoch), not configurations.
    """
    spans = {}
    for column in rows.columns:
        if (column in ("metric", "value", "valid") or column in REPLICATE_COLUMNS or column in OUTCOME_COLUMNS
                or column.endswith(ANNOTATION_SUFFIXES)):
            continue
        levels = rows[column].drop_duplicates().tolist()
        if len(levels) < 2:
            continue
        if column not in ALWAYS_FACTORS and "run_id" in rows.columns and \
                rows.groupby("run_id", sort=False)[column].nunique(dropna=False).max() > 1:
            continue
        spans[column] = sorted(levels, key=_level_key)
    return spans


def spans_text(side: str, spans: Mapping) -> str:
    """``side b spans lr=0.005, 0.05 and role=tuning, final`` (one line)."""
    def levels_text(levels: list) -> str:
        shown = ", ".join(_level_text(v) for v in levels[:MAX_LEVELS_SHOWN])
        return shown + (f" and {len(levels) - MAX_LEVELS_SHOWN} more" if len(levels) > MAX_LEVELS_SHOWN else "")

    parts = [f"{column}={levels_text(levels)}" for column, levels in spans.items()]
    return f"side {side} spans " + " and ".join(parts)


@dataclass
class Side:
    """One side of a claim: its filters, selected rows and samples (per-rank rows reduced per run)."""

    name: str
    filters: dict
    rows: pd.DataFrame
    samples: pd.DataFrame  # columns: run, seed, value
    unit: str

    @property
    def values(self) -> np.ndarray:
        return self.samples["value"].to_numpy(dtype=float)


def _side(name: str, frame: pd.DataFrame, metric: str, filters: Mapping) -> Side:
    """Samples of one side; per-rank rows without a whole-run row become the max (cost) / min (rate) per run."""
    rows = select(frame, metric, filters)
    rows = rows[np.isfinite(rows["value"].to_numpy(dtype=float))]
    unit = str(rows["unit"].iloc[0]) if len(rows) else ""
    keys = [c for c in ("source_file", "run_id", "iteration") if c in rows.columns]
    if len(rows) and "rank" not in filters and rows["rank"].nunique() > 1:
        how = "min" if metric_kind(metric, unit) == "rate" else "max"
        samples = rows.groupby(keys, sort=False).agg(seed=("seed", "first"), value=("value", how)).reset_index()
    else:
        samples = rows[keys + ["seed", "value"]].reset_index(drop=True)
    run_keys = [k for k in keys if k != "iteration"]
    samples["run"] = samples[run_keys].astype(str).agg("/".join, axis=1) if len(samples) else ""
    return Side(name, dict(filters), rows, samples[["run", "seed", "value"]], unit)


def seed_pairs(a: Side, b: Side) -> pd.DataFrame | None:
    """Per-seed values (the run's median) of both sides over their common seeds, or None.

    Pairing needs seeds that identify replicates: on each side one run per seed, seeds >= 0, at
    least two runs; and at least two seeds in common.  (A campaign-wide seed shared by every run
    identifies nothing.)
    """
    per_seed = []
    for side in (a, b):
        runs = side.samples.groupby("run", sort=False).agg(seed=("seed", "first"), value=("value", "median"))
        if len(runs) < 2 or (runs["seed"] < 0).any() or runs["seed"].nunique() != len(runs):
            return None
        per_seed.append(runs.set_index("seed")["value"])
    pairs = pd.concat(per_seed, axis=1, keys=["a", "b"], join="inner").sort_index()
    return pairs.rename_axis("seed").reset_index() if len(pairs) >= 2 else None


# --------------------------------------------------------------------------- intervals

def exact_coverage(n: int, j: int, k: int) -> Fraction:
    """Coverage of [x_(j), x_(k)] for the median, exactly: P(j <= B < k), B ~ Binomial(n, 1/2)."""
    return Fraction(sum(math.comb(n, i) for i in range(j, k)), 2 ** n)


def is_deterministic(values: np.ndarray) -> bool:
    """Several samples, all equal (one sample is never deterministic)."""
    return values.size >= 2 and bool(np.all(values == values[0]))


def centre(values: np.ndarray, level: float) -> Centre:
    """n, median and the distribution-free CI of the median at ``level`` with its exact coverage.

    With too few samples for that CI there is no interval (``ci`` None); the sample range is given
    as ``range`` with its own coverage (1 − 2·0.5^n), never as the CI.
    """
    n, deterministic = int(values.size), is_deterministic(values)
    out = {"n": n, "median": float(np.median(values)) if n else None, "ci": None, "coverage": None,
           "coverage_exact": None, "level": level, "deterministic": deterministic}
    if deterministic:
        return Centre.from_dict({**out, "ci": [float(values[0])] * 2, "coverage": 1.0, "coverage_exact": "1",
                                 "ci_method": f"deterministic: all {n} samples equal"})
    ranks = stats.median_ci_ranks(n, level) if n else None
    if ranks is None:
        covers = 1 - 2 * Fraction(1, 2 ** n) if n >= 2 else Fraction(0)
        return Centre.from_dict({**out, "range": [float(values.min()), float(values.max())] if n else None,
                                 "range_coverage": float(covers),
                                 "ci_method": f"none: n={n} is too few for a {level:.2%} CI of the median"})
    j, k, _ = ranks
    ordered, coverage = np.sort(values), exact_coverage(n, j, k)
    return Centre.from_dict({**out, "ci": [float(ordered[j - 1]), float(ordered[k - 1])], "coverage": float(coverage),
                             "coverage_exact": str(coverage),
                             "ci_method": f"exact binomial order statistics x({j}), x({k}) of {n}"})


def n_needed(level: float, enough: Callable[[Fraction], bool]) -> int:
    """Smallest n whose median CI at ``level`` has an exact coverage that ``enough`` accepts."""
    n = stats.min_samples_for_ci(0.5, level)
    while n < 100_000:
        ranks = stats.median_ci_ranks(n, level)
        if ranks is not None and enough(exact_coverage(n, ranks[0], ranks[1])):
            return n
        n += 1
    raise ClaimError(f"no sample size up to 100000 reaches a {level:.4g} CI of the median")


def _coverage(side: Centre) -> Fraction | None:
    return Fraction(side.coverage_exact) if side.coverage_exact else None


def below(p: float, alpha: Fraction) -> bool:
    """p < alpha, exactly and conservatively (p must undercut alpha by a relative 1e-9)."""
    return p is not None and math.isfinite(p) and Fraction(p) < alpha * (1 - P_TOLERANCE)


# --------------------------------------------------------------------------- estimates and tests

FORMULAS = {"b/a": lambda a, b: b / a, "a/b": lambda a, b: a / b,
            "points": lambda a, b: 100.0 * (a - b), "errors": lambda a, b: (1.0 - b) / (1.0 - a)}
DEFINITIONS_TEXT = {"b/a": "median(b)/median(a)", "a/b": "median(a)/median(b)",
                    "points": "100·(median acc_a − median acc_b), percentage points",
                    "errors": "(1 − median acc_b)/(1 − median acc_a), baseline error over claimed error", "a": "median(a)"}
REPLICATES_TEXT = {"b/a": "b/a of the run summaries' geometric means (each run: mean of its iterations)",
                   "a/b": "a/b of the run summaries' geometric means (each run: mean, harmonic for rates)"}
PAIRED_TEXT = {"b/a": "b/a", "a/b": "a/b", "points": "100·(acc_a − acc_b) in percentage points",
               "errors": "(1 − acc_b)/(1 − acc_a)"}


def estimand(claim: "Claim", kind: str) -> str:
    """Which estimate the claim is about (a key of :data:`FORMULAS`, or ``a`` for a value)."""
    if claim.kind == "speedup":
        return "b/a" if kind == "cost" else "a/b"
    if claim.kind == "value":
        return "a"
    if claim.kind == "ratio":
        return "a/b"
    return {"relative": "a/b", "absolute_points": "points", "relative_to_errors": "errors"}[claim.relative_accuracy]


def _formula(name: str, a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return FORMULAS[name](np.asarray(a, dtype=float), np.asarray(b, dtype=float))


def _scaled(name: str, a: np.ndarray, b: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) such that "x tends to exceed y" means "the estimate exceeds t" (independent samples)."""
    return {"b/a": (b, t * a), "a/b": (a, t * b), "points": (a - t / 100.0, b), "errors": (1.0 - b, t * (1.0 - a))}[name]


def claim_test(claim: "Claim", design: str, name: str, a, b, claim_kind: str = "cost") -> dict:
    """One-sided test with the claim as the alternative; both bounds: the larger p (intersection-union)."""
    parts = []
    for bound, alternative in (("at_least", "greater"), ("at_most", "less")):
        t = getattr(claim, bound)
        if t is None:
            continue
        if design == "replicates":
            num, den = (b, a) if name == "b/a" else (a, b)
            statistic, p = None, stats.replicates.ratio_test(num, den, claim_kind, t, alternative)
        elif design == "independent":
            x, y = _scaled(name, a, b, t)
            statistic, p = stats.mann_whitney(x, y, alternative)
        else:
            d = (a - t) if design == "one sample" else (_formula(name, a, b) - t)
            statistic, p = stats.signed_rank(d, alternative)
        parts.append(TestPart(hypothesis=f"estimate {'>' if alternative == 'greater' else '<'} {t:g}",
                              statistic=statistic, p_value=p))
    alpha = 1 - Fraction(repr(claim.confidence))
    p = max(part.p_value for part in parts)
    test = {"replicates": "Welch t on the log run summaries, one-sided, threshold on the log scale",
            "independent": "Mann–Whitney U, one-sided, threshold-scaled samples",
            "paired": "Wilcoxon signed-rank, one-sided, per-seed estimate − threshold",
            "one sample": "Wilcoxon signed-rank, one-sided, a − threshold"}[design]
    out = {"name": test, "hypothesis": " and ".join(part.hypothesis for part in parts), "parts": parts,
           "p_value": p, "alpha": float(alpha), "alpha_exact": str(alpha), "significant": below(p, alpha)}
    if design == "independent":
        out["effect_size"] = stats.effect_size(a, b)
    return out


# --------------------------------------------------------------------------- designs

def _independent(name: str, a: Side, b: Side, confidence: Fraction) -> dict:
    """Each median's CI at √c (c when the other side is deterministic); the estimate over the CI corners."""
    av, bv = a.values, b.values
    level = float(confidence) if (is_deterministic(av) or is_deterministic(bv)) else math.sqrt(float(confidence))
    sa, sb = centre(av, level), centre(bv, level)
    ca, cb = _coverage(sa), _coverage(sb)
    out = {"design": "independent", "a": sa.to_dict(), "b": sb.to_dict(),
           "estimate": float(_formula(name, sa.median, sb.median))}
    if ca is None or cb is None or ca * cb < confidence:
        needed = {}
        for key, own, other in (("a", ca, cb), ("b", cb, ca)):
            if own is None or other is None or own * other < confidence:
                partner = other if own is None else None
                needed[key] = n_needed(level, lambda cov, p=partner: cov * (cov if p is None else p) >= confidence)
        return {**out, "n_needed": needed}
    corners = [float(_formula(name, x, y)) for x in sa.ci for y in sb.ci]
    coverage = ca * cb
    return {**out, "interval": [min(corners), max(corners)],
            "coverage": float(coverage), "coverage_exact": str(coverage)}


def _paired(name: str, a: Side, b: Side, pairs: pd.DataFrame, confidence: Fraction) -> dict:
    """The median of the per-seed estimates and its exact binomial CI at c."""
    level = float(confidence)
    pa, pb = pairs["a"].to_numpy(dtype=float), pairs["b"].to_numpy(dtype=float)
    per_pair = centre(_formula(name, pa, pb), level)
    left_out = {side.name: int(side.samples["run"].nunique()) - len(pairs) for side in (a, b)}
    out = {"design": "paired", "a": centre(pa, level).to_dict(), "b": centre(pb, level).to_dict(),
           "pairs": {**per_pair.to_dict(), "seeds": [int(s) for s in pairs["seed"]], "runs_without_partner": left_out},
           "estimate": per_pair.median}
    coverage = _coverage(per_pair)
    if coverage is None or coverage < confidence:
        return {**out, "n_needed": {"pairs": n_needed(level, lambda cov: cov >= confidence)}}
    return {**out, "interval": per_pair.ci, "coverage": per_pair.coverage, "coverage_exact": per_pair.coverage_exact}


def _one_sample(a: Side, confidence: Fraction) -> dict:
    level = float(confidence)
    sa = centre(a.values, level)
    out = {"design": "one sample", "a": sa.to_dict(), "estimate": sa.median}
    coverage = _coverage(sa)
    if coverage is None or coverage < confidence:
        return {**out, "n_needed": {"a": n_needed(level, lambda cov: cov >= confidence)}}
    return {**out, "interval": sa.ci, "coverage": sa.coverage, "coverage_exact": sa.coverage_exact}


def runs_of(side: Side) -> list[np.ndarray]:
    """A side's values per run (invocation): the replicates."""
    return [group["value"].to_numpy(dtype=float) for _, group in side.samples.groupby("run", sort=True)]


def _run_summary(groups: list[np.ndarray], kind: str, level: float) -> dict:
    """One side's value as the replicate model sees it: the geometric mean of its run summaries, with the
    interval over runs (none with one run), so a reader sees each side, not only the ratio."""
    found = stats.replicates.summary_interval(groups, kind, level)
    if found is None:
        return {"summary": float(np.mean(groups[0])) if groups else None, "ci": None}
    return {"summary": found[0], "ci": [found[1], found[2]]}


def _replicates(name: str, kind: str, a: Side, b: Side, confidence: Fraction) -> dict | None:
    """Speedups and ratios of times or rates whose runs hold several iterations: the replicate-level
    model (``stats.ratio_ci``: runs are the replicates, iterations describe one); None where every
    sample is its own run (the independent design then counts right) or the estimand is no ratio."""
    ga, gb = runs_of(a), runs_of(b)
    if name not in ("b/a", "a/b") or kind not in ("cost", "rate") or max(g.size for g in ga + gb) < 2:
        return None
    num, den = (gb, ga) if name == "b/a" else (ga, gb)
    ratio = stats.ratio_ci(num, den, kind, confidence=float(confidence))
    level = float(confidence)
    sides = {key: {"n": len(groups), "runs": len(groups), "values": int(sum(g.size for g in groups)),
                   "level": level, "ci_method": "runs counted as replicates; iterations describe one run",
                   **_run_summary(groups, kind, level)}
             for key, groups in (("a", ga), ("b", gb))}
    out = {"design": "replicates", **sides, "estimate": ratio.value, "method": stats.REPLICATE_METHOD}
    if ratio.ci is None:
        return {**out, "n_needed": {"a": 3, "b": 3}}
    return {**out, "interval": list(ratio.ci), "coverage": level, "coverage_exact": str(confidence)}


def _evaluate(claim: "Claim", name: str, a: Side, b: Side | None, confidence: Fraction) -> tuple[dict, tuple]:
    """The design's numbers and the samples its test takes ((a, b) arrays; runs for replicates)."""
    if b is None:
        return _one_sample(a, confidence), (a.values, np.array([]))
    pairs = seed_pairs(a, b)
    if pairs is not None:
        return _paired(name, a, b, pairs, confidence), (pairs["a"].to_numpy(dtype=float), pairs["b"].to_numpy(dtype=float))
    replicated = _replicates(name, metric_kind(claim.metric, a.unit), a, b, confidence)
    if replicated is not None:
        return replicated, (runs_of(a), runs_of(b))
    return _independent(name, a, b, confidence), (a.values, b.values)


# --------------------------------------------------------------------------- accuracy on a counted test set

#: Accuracy metrics stored with the test set they were scored on: metric -> (items metric, correct metric).
TEST_SET_COUNTS = {"accuracy": ("accuracy_samples", "accuracy_correct")}
#: Accuracy metric -> the metric of its per-item outcomes (one row per test item: value 1 correct, 0 wrong;
#: column ``sample_index`` names the item), which lets two evaluations on one test set be paired item by item.
ITEM_OUTCOMES = {"accuracy": "item_correct"}


def test_set_counts(claim: "Claim", frame: pd.DataFrame, sides: list[Side]) -> list[tuple[int, int]] | None:
    """(correct, items) per side when every side is ONE evaluation on a counted test set, else None.

    A deterministic evaluation repeated gives the same count, so its uncertainty is the binomial
    one of the test set, not a spread over repetitions; sides with several runs (seeds) keep the
    replicate design, whose interval is over seeds.
    """
    names = TEST_SET_COUNTS.get(claim.metric)
    if claim.kind != "accuracy_relative" or names is None or len(sides) != 2:
        return None
    counts = []
    for side in sides:
        if side.samples["run"].nunique() != 1 or len(side.samples) != 1:
            return None
        found = [select(frame, name, side.filters)["value"].dropna().unique() for name in names]
        if any(len(values) != 1 for values in found):
            return None
        counts.append((int(found[1][0]), int(found[0][0])))
    return counts


def item_outcomes(frame: pd.DataFrame, metric: str, side: Side) -> pd.Series | None:
    """The side's per-item outcomes (index: the item's ``sample_index``; True: correct) from the same run as
    its accuracy, or None when its results hold none (older runs, other publishers)."""
    name = ITEM_OUTCOMES.get(metric)
    if name is None or "sample_index" not in frame.columns:
        return None
    rows = select(frame, name, side.filters)
    runs = [c for c in ("source_file", "run_id") if c in rows.columns]
    if rows.empty or any(set(rows[c]) != set(side.rows[c]) for c in runs):
        return None
    return pd.Series(rows["value"].to_numpy(dtype=float) > 0.5, index=rows["sample_index"].to_numpy(dtype=np.int64))


def paired_items(claim: "Claim", frame: pd.DataFrame, sides: list[Side],
                 counts: list[tuple[int, int]]) -> tuple[paired_proportion.PairedItems | None, str]:
    """The two sides' 2×2 table of per-item outcomes (item i of a beside item i of b), or None and why not."""
    outcomes = [item_outcomes(frame, claim.metric, side) for side in sides]
    missing = [side.name for side, found in zip(sides, outcomes) if found is None]
    if missing:
        return None, (f"items not paired: per-item outcomes not recorded (side {' and '.join(missing)}); the "
                      "independent test is conservative here when the variants err on the same items")
    for side, found, (correct, items) in zip(sides, outcomes, counts):
        if found.index.has_duplicates or len(found) != items or int(found.sum()) != correct:
            return None, (f"items not paired: side {side.name}'s per-item outcomes ({int(found.sum())} correct of "
                          f"{len(found)} rows) do not match its count ({correct} of {items}); the independent test "
                          "is used")
    if set(outcomes[0].index) != set(outcomes[1].index):
        return None, "items not paired: the sides were scored on different items; the independent test applies"
    a, b = outcomes[0].sort_index(), outcomes[1].sort_index()
    return paired_proportion.PairedItems.from_outcomes(a.to_numpy(), b.to_numpy()), ""


ACCURACY_TEXT = {"a/b": "acc_a/acc_b", "points": "100·(acc_a − acc_b) in percentage points",
                 "errors": "(1 − acc_b)/(1 − acc_a)"}
INDEPENDENT_TEST = "score test of two binomial proportions (statsmodels test_proportions_2indep)"
INDEPENDENT_INTERVAL = "score interval for two independent binomial proportions (statsmodels confint_proportions_2indep)"


def _one_sided(claim: "Claim", run: Callable[[float, str], tuple]) -> dict:
    """The claim's test record: ``run(threshold, "larger" | "smaller")`` gives (statistic, p, test name) per
    bound; both bounds: the larger p (intersection-union)."""
    alpha = 1 - Fraction(repr(claim.confidence))
    parts, names = [], []
    for bound, alternative in (("at_least", "larger"), ("at_most", "smaller")):
        threshold = getattr(claim, bound)
        if threshold is not None:
            statistic, p, name = run(threshold, alternative)
            names.append(name)
            parts.append(TestPart(hypothesis=f"estimate {'>' if bound == 'at_least' else '<'} {threshold:g}",
                                  statistic=statistic, p_value=p, test=name))
    p = max(part.p_value for part in parts)
    return {"name": " and ".join(dict.fromkeys(names)) + ", one-sided",
            "hypothesis": " and ".join(part.hypothesis for part in parts), "parts": parts, "p_value": p,
            "alpha": float(alpha), "alpha_exact": str(alpha), "significant": below(p, alpha)}


def _paired_test_set(claim: "Claim", name: str, items, level: float) -> dict:
    """The paired design: the score interval and the test on the discordant items (``stats.paired_proportion``)."""
    estimate, interval = paired_proportion.paired_interval(name, items, level)
    test = _one_sided(claim, lambda threshold, alternative: paired_proportion.paired_test(name, items, threshold,
                                                                                           alternative))
    return {"design": "paired items", "estimate": estimate, "interval": list(interval),
            "method": paired_proportion.INTERVAL_NAMES[name], "test": test,
            "items": {**items.to_dict(), "mcnemar_exact_p": paired_proportion.mcnemar_exact(items),
                      "mcnemar_test": paired_proportion.MCNEMAR_NAME + ", two-sided, of equal accuracy"},
            "estimate_definition": f"{ACCURACY_TEXT[name]} of the two accuracies on the same {items.items} test items"}


def _independent_test_set(claim: "Claim", name: str, counts: list[tuple[int, int]], level: float, why: str) -> dict:
    """Two test sets treated as independent binomials: where the items cannot be paired (``why``)."""
    from .stats import proportion

    estimate, interval = proportion.relative_interval(name, counts[0], counts[1], level)

    def run(threshold: float, alternative: str) -> tuple:
        return (*proportion.relative_test(name, counts[0], counts[1], threshold, alternative), INDEPENDENT_TEST)

    return {"design": "test set", "estimate": estimate, "interval": list(interval), "method": INDEPENDENT_INTERVAL,
            "test": _one_sided(claim, run), "pairing": why,
            "estimate_definition": f"{ACCURACY_TEXT[name]} of the two test-set accuracies"}


def _test_set(claim: "Claim", name: str, counts: list[tuple[int, int]], confidence: Fraction,
              pairing: tuple) -> dict:
    """Each side's accuracy with its exact binomial CI; the estimate's interval and test paired item by item
    where ``pairing`` (:func:`paired_items`) holds the table, else from the two test sets as independent."""
    from .stats import proportion

    level = float(confidence)
    items, why = pairing
    per_side = {key: {"n": 1, "median": acc.accuracy, "ci": list(acc.ci), "coverage": level, "level": level,
                      "deterministic": False, "test_set_items": acc.items, "correct": acc.correct,
                      "ci_method": f"{acc.method} from {acc.items} test items (one evaluation; repeating it "
                                   "gives the same count)"}
                for key, acc in zip(("a", "b"), (proportion.accuracy_ci(*count, level) for count in counts))}
    found = _paired_test_set(claim, name, items, level) if items is not None else \
        _independent_test_set(claim, name, counts, level, why)
    return {**per_side, **found, "coverage": level}


def _test_set_text(numbers: ClaimNumbers) -> str:
    """Both sides' counts with their binomial CIs, and the paired items or why there are none, in words."""
    counted = ("accuracy " + " vs ".join(f"{s.correct}/{s.test_set_items} = {s.median:.4g} "
                                         f"[{s.ci[0]:.4g}, {s.ci[1]:.4g}]" for s in (numbers.a, numbers.b))
               + " (exact binomial CIs from the test-set sizes; one evaluation each)")
    if numbers.design != "paired items":
        return f"{counted}; {numbers.pairing}"
    return f"{counted}; {items_text(numbers.items)}"


def items_text(items: PairedItems) -> str:
    """The paired items in words: discordant counts first (they decide), then the concordant ones."""
    return (f"paired on {items.items} items: {items.only_a} only a right, {items.only_b} only b right "
            f"(the discordant items), {items.both} both right, {items.neither} neither; McNemar's exact "
            f"test of equal accuracy p={items.mcnemar_exact_p:.3g} (two-sided)")


#: An exact fraction longer than this (binomial sums over thousands of samples run to 1,000 digits) is
#: left out of the numbers a checklist shows; the float ``coverage`` beside it says the same to 16 digits.
MAX_FRACTION_TEXT = 32


def _short_fractions(numbers: dict) -> None:
    """Drop ``*_exact`` fraction texts too long for a reader (the comparisons used them already)."""
    for key, value in list(numbers.items()):
        if isinstance(value, dict):
            _short_fractions(value)
        elif key.endswith("_exact") and isinstance(value, str) and len(value) > MAX_FRACTION_TEXT:
            del numbers[key]


def _test_set_hint(claim: "Claim", numbers: ClaimNumbers) -> str:
    """For an accuracy claim without an interval: what would decide it besides repetitions (not for runs paired by
    seed, whose seeds are the replicates: the spread between training runs is what such a claim is about)."""
    if claim.kind != "accuracy_relative" or numbers.design == "paired":
        return ""
    counts = TEST_SET_COUNTS.get(claim.metric, ("<metric>_samples", "<metric>_correct"))
    return (f"; a deterministic evaluation is better decided by its test set: record {counts[0]} and {counts[1]} "
            "beside each accuracy for a binomial CI")


def p_text(p: float) -> str:
    """A p-value in words: ``p=1.33e-09``; a p that underflowed to 0 is ``p<1e-300``, never ``p=0``."""
    return "p<1e-300" if p == 0 else f"p={p:.3g}"


# --------------------------------------------------------------------------- verdicts

def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def _too_few(claim: "Claim", numbers: ClaimNumbers) -> str:
    """Why there is no interval, and the n each side (or the pairs) would need."""
    need, a, b = numbers.n_needed, numbers.a, numbers.b
    if numbers.design == "replicates":
        return (f"one run per side (n(a)={a.runs}, n(b)={b.runs} runs of {a.values} and {b.values} values): "
                "iterations describe one run and cannot show how much another run differs; at least "
                f"{need['a']} runs per side would decide")
    if numbers.design == "paired":
        (pairs_needed,) = need.values()  # the paired design needs pairs only
        return (f"{numbers.pairs.n} seed pairs are too few for a {_pct(claim.confidence)} interval of the "
                f"median per-seed estimate: {pairs_needed} pairs needed")
    have = ", ".join(f"n({name})={side.n}" for name, side in (("a", a), ("b", b)) if side is not None)
    want = ", ".join(f"{side} needs n >= {n}" for side, n in need.items())
    level = a.level
    return (f"too few samples for a {_pct(claim.confidence)} interval ({have}; each median's CI at {_pct(level)}): "
            f"{want}")


def _judge(claim: "Claim", numbers: ClaimNumbers) -> tuple[ClaimVerdict, str]:
    est, (low, high), test = numbers.estimate, numbers.interval, numbers.test
    how = (numbers.pairs or numbers.a) if numbers.design != "independent" else None
    deterministic = f" ({how.ci_method})" if how and how.deterministic else ""
    runs = f" from {numbers.a.runs} and {numbers.b.runs} runs (the replicates)" if numbers.design == "replicates" else ""
    text = (f"estimate {est:.4g}{runs}, interval [{low:.4g}, {high:.4g}] at coverage {_pct(numbers.coverage)}"
            f"{deterministic}")
    if (claim.at_least is not None and high < claim.at_least) or (claim.at_most is not None and low > claim.at_most):
        return ClaimVerdict.NOT_SUPPORTED, f"{text}: the whole interval misses the threshold"
    if (claim.at_least is None or low >= claim.at_least) and (claim.at_most is None or high <= claim.at_most):
        if test.significant:
            return ClaimVerdict.SUPPORTED, f"{text} meets the threshold; test {p_text(test.p_value)} < α={test.alpha:g}"
        return ClaimVerdict.INCONCLUSIVE, (f"{text} meets the threshold, but test {p_text(test.p_value)} is not "
                                           f"below α={test.alpha:g}")
    return ClaimVerdict.INCONCLUSIVE, f"{text}: the interval straddles the threshold"


def _matched_filters(claim: "Claim", frame: pd.DataFrame) -> tuple[dict, dict, str]:
    """Filters per side with ``match`` factors fixed at the largest level both sides share."""
    filters = {"a": dict(claim.a), **({"b": dict(claim.b)} if claim.b is not None else {})}
    chosen = {}
    for factor in claim.match:
        levels = [set(select(frame, claim.metric, f).get(factor, pd.Series(dtype=object)).tolist()) for f in filters.values()]
        common = set.intersection(*levels)
        if not common:
            return filters, chosen, f"no level of {factor!r} has samples on both sides"
        chosen[factor] = max(common)
        for f in filters.values():
            f[factor] = chosen[factor]
    return filters, chosen, ""


def _unusable(claim: "Claim", sides: list[Side], numbers: dict) -> tuple[ClaimVerdict, str] | None:
    """Why the sides cannot be compared (no samples, pooled configurations, units), or None."""
    for side in sides:
        if side.samples.empty:
            return ClaimVerdict.NOT_SUPPORTED, (f"no valid samples of {claim.metric!r} match side {side.name} "
                                                f"({describe(side.filters) or 'no filters'})")
    spans = {side.name: spanned_factors(side.rows) for side in sides}
    spans = {name: found for name, found in spans.items() if found}
    if spans:
        numbers["spans"] = spans
        return ClaimVerdict.INCONCLUSIVE, ("; ".join(spans_text(name, found) for name, found in spans.items())
                                           + ": name them in the claim (a side must hold replicates of one configuration)")
    units = sorted({side.unit for side in sides})
    if len(units) > 1:
        return ClaimVerdict.INCONCLUSIVE, f"the sides are in different units ({', '.join(units)})"
    kind = metric_kind(claim.metric, units[0])
    if claim.kind == "speedup" and kind not in ("cost", "rate"):
        return ClaimVerdict.INCONCLUSIVE, (f"a speedup needs a cost (time) or rate metric; {claim.metric!r} in "
                                           f"{units[0]!r} is {kind}")
    return None


def check_claim(claim: "Claim", frame: pd.DataFrame, config: Mapping | None = None) -> ClaimResult:
    """Label one claim supported / not supported / inconclusive, with its numbers (before Holm); ``config``: the
    run's config, whose confidence a claim that states none is tested at (:func:`confidence_setting`)."""
    claim = replace(claim, confidence=confidence_setting(claim, config).value)
    numbers = {"metric": claim.metric, "unit": "", "confidence": claim.confidence, "at_least": claim.at_least,
               "at_most": claim.at_most}

    def typed() -> ClaimNumbers:
        return ClaimNumbers.from_dict(numbers, f"claim {claim.id!r}: numbers")

    def result(verdict: ClaimVerdict, message: str) -> ClaimResult:
        numbers["per_claim_verdict"] = verdict.value
        _short_fractions(numbers)
        return ClaimResult(id=claim.id, statement=claim.statement, verdict=verdict, numbers=typed(), message=message,
                           origin=claim.origin)

    filters, numbers["matched"], problem = _matched_filters(claim, frame)
    if problem:
        return result(ClaimVerdict.NOT_SUPPORTED, problem)
    sides = [_side(name, frame, claim.metric, f) for name, f in filters.items()]
    for side in sides:
        numbers[side.name] = {"filters": side.filters, "configuration": describe(side.filters), "n": len(side.samples)}
    unusable = _unusable(claim, sides, numbers)
    if unusable:
        return result(*unusable)
    numbers["unit"] = sides[0].unit
    name = estimand(claim, metric_kind(claim.metric, sides[0].unit))
    if claim.kind == "accuracy_relative" and sides[0].unit.strip() == "%":
        for side in sides:
            side.samples["value"] = side.samples["value"] / 100.0
        numbers["unit"] = "1 (converted from %)"
    confidence = Fraction(repr(claim.confidence))
    counts = test_set_counts(claim, frame, sides)
    if counts is not None:  # one evaluation per side: the test set's binomial CI decides, not repetitions
        try:
            tested = _test_set(claim, name, counts, confidence, paired_items(claim, frame, sides, counts))
        except StatisticsError as exc:  # e.g. a ratio of errors whose base made none: no finite estimate
            return result(ClaimVerdict.INCONCLUSIVE, f"{exc.one_line()}; the counts are {counts[0][0]} of "
                                                     f"{counts[0][1]} (a) and {counts[1][0]} of {counts[1][1]} (b)")
        for side in sides:
            tested[side.name] = {**numbers[side.name], **tested[side.name]}
        numbers.update(tested)
        verdict, message = _judge(claim, typed())
        return result(verdict, f"{message}; {_test_set_text(typed())}")
    design, (xa, xb) = _evaluate(claim, name, sides[0], sides[1] if len(sides) > 1 else None, confidence)
    for side in sides:
        design[side.name] = {**numbers[side.name], **design[side.name]}
    numbers.update(design)
    found = typed()
    numbers["estimate_definition"] = (f"median over seeds of the per-seed {PAIRED_TEXT[name]}"
                                      if found.design == "paired" else REPLICATES_TEXT[name]
                                      if found.design == "replicates" else DEFINITIONS_TEXT[name])
    if found.interval is None:
        return result(ClaimVerdict.INCONCLUSIVE, _too_few(claim, found) + _test_set_hint(claim, found))
    numbers["test"] = claim_test(claim, found.design, name, xa, xb, metric_kind(claim.metric, sides[0].unit))
    return result(*_judge(claim, typed()))


def apply_holm(results: list[ClaimResult]) -> list[ClaimResult]:
    """Holm over the tested claims' p-values; supported per claim but not after Holm -> inconclusive."""
    tested = [r for r in results if r.numbers.test is not None and r.numbers.test.p_value is not None]
    adjusted = dict(zip(map(id, tested), stats.holm_adjust([r.numbers.test.p_value for r in tested])[1]))
    out = []
    for r in results:
        holm, verdict, message = Holm(family_size=len(tested), p_adjusted=None, significant=None), r.verdict, r.message
        if id(r) in adjusted:
            p_adjusted = float(adjusted[id(r)])
            significant = below(p_adjusted, Fraction(r.numbers.test.alpha_exact))
            holm = Holm(family_size=len(tested), p_adjusted=p_adjusted, significant=significant)
            if verdict is ClaimVerdict.SUPPORTED and not significant:
                verdict = ClaimVerdict.INCONCLUSIVE
                message += (f"; supported on its own, but not after Holm over {len(tested)} claims "
                            f"(adjusted p={p_adjusted:.3g} is not below α={r.numbers.test.alpha:g})")
        numbers = r.numbers.replaced(holm=holm, verdict_after_holm=verdict.value)
        out.append(r.replaced(verdict=verdict, message=message, numbers=numbers))
    return out


def check_all(claims: list[Claim], frame: pd.DataFrame, busy: Mapping[str, str] | None = None,
              config: Mapping | None = None) -> list[ClaimResult]:
    """Every claim, then Holm over the family of tested claims; ``busy``: {results file: why its machine was
    busy} (``ResultSet.busy_machine``), named in the claims it can explain; ``config``: the run's config."""
    results = apply_holm([check_claim(claim, frame, config) for claim in claims])
    return name_busy_machine(results, frame, busy or {})


def name_busy_machine(results: list[ClaimResult], frame: pd.DataFrame, busy: Mapping[str, str]) -> list[ClaimResult]:
    """A claim judged not supported or inconclusive on samples a busy machine measured says so: threads
    without a free core, or a neighbour's bursts, explain a missed speedup better than the code does."""
    if not busy or "source_file" not in frame:
        return results
    return [_named_busy(result, frame, busy) for result in results]


def _named_busy(result: ClaimResult, frame: pd.DataFrame, busy: Mapping[str, str]) -> ClaimResult:
    sides = [side for side in (result.numbers.a, result.numbers.b) if side is not None]
    if result.verdict is ClaimVerdict.SUPPORTED or not sides or not all(side.n for side in sides):
        return result  # supported, or nothing measured that a busy machine could have disturbed
    files = {str(path) for side in sides
             for path in pd.unique(select(frame, result.numbers.metric, side.filters)["source_file"])}
    reasons = sorted({busy[path] for path in files if path in busy})
    if not reasons:
        return result
    return result.replaced(numbers=result.numbers.replaced(busy_machine=reasons),
                           message=result.message + f"; a busy machine can explain this: {'; '.join(reasons)}")
