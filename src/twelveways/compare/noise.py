"""The between-run level of the noise, measured by an A/A run: two sweeps of identical code.

Why: each configuration's own invocations show how much one invocation differs from the next
within a sweep (the noise every verdict uses, :mod:`twelveways.compare.verdicts`); two sweeps run
at different times add a level (drift, a neighbour that comes and goes, frequency settling).  The
workflow runs a set of configurations a second time (``measurement.placebo``); this module
compares the two runs and records

* the verdicts of the comparison on identical code without the run level: how many identical
  configurations it calls different (the false-positive rate);
* the between-run variance on a log scale, estimated by the method of moments (each A/A pair:
  half the squared log difference minus what the invocations explain) and pooled per kernel and
  implementation, per kernel, and for the benchmark family as a whole — one A/A pair gives one
  degree of freedom, too few for a configuration alone, so the pooled groups are what a verdict
  uses: the most specific one measured, the family as a whole only as the last resort, named so.

``results/noise_floor.json`` holds these with the configurations behind them.  An older file
(format 1: one global floor) is named and not used: a global number hid every difference
smaller than the noisiest configuration's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .. import stats
from ..errors import StatisticsError
from ..evidence.settings import resolve_confidence
from . import sides, table, verdicts
from .noise_record import FORMAT, AARecord, OldFloorRecord


def _pair_terms(a: dict, b: dict) -> dict[tuple, float]:
    """{configuration: its A/A run-variance term} for every configuration both runs hold."""
    terms = {}
    for key in sorted(set(a) & set(b), key=str):
        kind = "rate" if a[key].kind == "rate" else "cost"
        try:
            term = stats.replicates.run_variance_terms(stats.replicates.log_summaries(a[key].replicates(), kind),
                                                       stats.replicates.log_summaries(b[key].replicates(), kind))
        except StatisticsError:
            continue
        if math.isfinite(term):
            terms[key] = term
    return terms


def _group_name(group: tuple) -> str:
    return " ".join(group[1:]) if len(group) > 1 else f"all {group[0]} configurations (last resort)"


def pooled_levels(terms: dict[tuple, float]) -> list[dict]:
    """Pooled between-run variances per (family, kernel, implementation), (family, kernel) and family,
    each from at least two A/A configurations (the family as a whole from any); a group's variance is
    moderated towards the group above it (:func:`_moderate`)."""
    groups: dict[tuple, list[float]] = {}
    for key, term in terms.items():
        named = dict(key)
        family, workload, implementation = (str(named.get(c, "")) for c in ("family", "workload", "implementation"))
        for group in ((family, workload, implementation), (family, workload), (family,)):
            groups.setdefault(group, []).append(term)
    levels: dict[tuple, dict] = {}
    for group, values in sorted(groups.items(), key=lambda item: len(item[0])):  # parents first
        if len(values) < 2 and len(group) > 1:
            continue
        estimate = sum(values) / len(values)
        raw = max(0.0, estimate)
        parent = levels.get(group[:-1])
        variance, df, prior = _moderate(raw, len(values), parent if parent and parent["measured"] else None)
        levels[group] = {"group": list(group), "variance": variance, "relative_sd": math.sqrt(variance), "df": df,
                         "configurations": len(values), "name": _group_name(group), "raw_variance": raw,
                         "moderated_by": prior, "measured": variance > 0}
        if variance <= 0:  # the truncated moment estimate: no evidence of a run level, not a run level of zero
            levels[group]["why"] = (f"not measured: each configuration's own invocations explain all of the "
                                    f"difference between the two runs (moment estimate {estimate:.2g} <= 0)")
    return [levels[group] for group in sorted(levels)]


def _moderate(raw: float, pairs: int, parent: dict | None) -> tuple[float, float, str | None]:
    """(variance, df, parent name): a group of few A/A pairs borrows strength from the group above it
    (Smyth's moderated variance, as :func:`twelveways.stats.replicates.family_prior` does for invocations):
    (d0·s0² + d·s²)/(d0 + d) on d0 + d degrees of freedom, d0 the parent's df capped at
    ``PRIOR_DF_CAP``.  Two pairs alone give an estimate on 2 df, whose t quantile (4.3) would hide
    any difference smaller than the noise itself."""
    if parent is None:
        return raw, float(pairs), None
    prior_df = float(min(parent["df"], stats.replicates.PRIOR_DF_CAP))
    variance = (prior_df * parent["variance"] + pairs * raw) / (prior_df + pairs)
    return variance, prior_df + pairs, parent["name"]


def measure(first: sides.Side, second: sides.Side, *, confidence: float | None = None) -> dict:
    """The A/A record of two runs of identical code (see the module docstring); ``confidence`` None: the schema's."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    columns = table.family_columns(first.data, second.data)
    a, b = table.samples(first.data, columns), table.samples(second.data, columns)
    rows = [r for r in verdicts.compare_tables(a, b, verdicts.Noise(), confidence=confidence) if r.ratio]
    terms = _pair_terms(a, b)
    if not terms:
        return {"format": FORMAT, "configurations": 0, "run_levels": [],
                "why": "no configuration with two invocations on one run and one on the other"}
    called = [r for r in rows if r.differs]
    return {
        "format": FORMAT, "configurations": len(terms), "confidence": confidence,
        "margin": verdicts.DEFAULT_MARGIN, "false_positives": len(called),
        "false_positive_rate": len(called) / len(rows) if rows else None,
        "run_levels": pooled_levels(terms),
        "runs": [sides.describe(first), sides.describe(second)],
        "rows": [{"configuration": r.configuration, "ratio": r.ratio, "ci": r.ci, "n": [r.n_base, r.n_new],
                  "verdict": r.verdict, "run_variance_term": terms.get(tuple(r.key.items()))} for r in rows],
    }


def floor_text(record: AARecord) -> str:
    """The A/A record in one sentence with its evidence."""
    levels = record.run_levels
    shown = "; ".join(f"{lv.name} " + (f"±{lv.relative_sd:.1%}" if lv.is_measured else "not measured")
                      + f" ({lv.configurations} configurations)" for lv in levels[:6])
    more = f" and {len(levels) - 6} more groups" if len(levels) > 6 else ""
    text = (f"between-run sd measured by an A/A run of {record.configurations} configurations: "
            f"{shown or 'none'}{more}")
    if record.false_positive_rate is not None:
        text += (f"; without it, the comparison called {record.false_positives} identical configurations "
                 f"different (rate {record.false_positive_rate:.0%})")
    return text


def _levels(record: AARecord) -> dict[tuple, verdicts.RunLevel]:
    """The measured run levels: a level the A/A run could not measure is left out, so a comparison falls back
    to the level above it by name, never to a measured-looking ±0.0 %."""
    return {level.group: verdicts.RunLevel(level.variance, level.df, f"A/A run, {level.name}: ±{level.relative_sd:.1%}")
            for level in record.run_levels if level.is_measured}


def choose(recorded: Sequence[AARecord | OldFloorRecord | None], given: float | None, *,
           margin: float = verdicts.DEFAULT_MARGIN) -> verdicts.Noise:
    """What a comparison uses: each side's measured run levels (the larger where both measured one),
    the practical-equivalence margin, widened to a floor the user gave (named as given, not measured)."""
    if not math.isfinite(margin) or not 0 <= margin < 1:
        raise StatisticsError(f"margin must be a fraction in [0, 1) such as 0.02, got {margin}")
    margin_text = f"±{margin:.1%} practical-equivalence margin"
    if given is not None:
        if not math.isfinite(given) or given < 0:
            raise StatisticsError(f"noise floor must be a non-negative fraction, got {given}")
        if given > margin:
            margin, margin_text = given, f"±{given:.1%} given with --noise-floor (assumed, not measured)"
    levels: dict[tuple, verdicts.RunLevel] = {}
    texts, old = [], []
    for record in (r for r in recorded if r):
        if not isinstance(record, AARecord):
            if record.floor is not None:
                old.append(f"a stored noise floor of an older format (one global ±{record.floor:.1%}) is not used: "
                           "each configuration's own invocations give its noise")
            continue
        texts.append(floor_text(record))
        for group, level in _levels(record).items():
            if group not in levels or level.variance > levels[group].variance:
                levels[group] = level
    text = "; ".join(texts + old) or ("no A/A run on either side (set measurement.placebo: true): the between-run "
                                      "level is not measured, only each configuration's own invocations")
    fpr = next((r.false_positive_rate for r in recorded if isinstance(r, AARecord)), None)
    return verdicts.Noise(margin, margin_text, levels, text, bool(levels), fpr)
