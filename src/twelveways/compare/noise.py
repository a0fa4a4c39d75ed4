"""The machine's measured noise floor: two independent invocations of identical code (A/A).

Why: the samples of one invocation understate how much a second invocation differs (frequency,
memory placement, neighbours), so a test on them calls identical code "different" far more
often than its alpha says.  The workflow runs a set of configurations a second time
(``measurement.placebo``); this module compares the two runs and records

* the false-positive rate of the test alone: identical configurations it calls different after
  Benjamini–Hochberg, which is why a floor is needed at all;
* the floor: the farthest bound of the A/A ratio CIs over all configurations, or the largest
  spread between one configuration's own runs (invocations) on either side when that is larger —
  each pair of runs of identical code is an A/A observation too, and a configuration whose runs
  fall into two modes (a power-of-two transpose whose cache conflicts depend on where its pages
  land) shows it there more often than in one A/A pair; i.e. the largest difference identical
  code showed here; differences within it are never called faster or slower;
* the power: the median smallest ratio a test at these sample sizes detects with 80% power.

``results/noise_floor.json`` holds these with the configurations behind them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from . import sides, table, verdicts

FORMAT = "twelveways-noise-floor/1"
#: Used when neither side measured a floor and the user gave none (stated as assumed).
DEFAULT_ASSUMED = 0.05


def _farthest(row: verdicts.Row) -> float:
    """Largest relative distance from 1 that the A/A row's CI (else its ratio) allows."""
    bounds = row.ci if row.ci else (row.ratio, row.ratio)
    return max(math.exp(abs(math.log(b))) - 1.0 for b in bounds if b > 0)


def measure(first: sides.Side, second: sides.Side, *, confidence: float = 0.95) -> dict:
    """The A/A record of two runs of identical code (see the module docstring)."""
    columns = table.family_columns(first.data, second.data)
    a, b = table.samples(first.data, columns), table.samples(second.data, columns)
    raw = verdicts.Floor(0.0, True, "none (the test alone)")
    rows = verdicts.compare_tables(a, b, raw, confidence=confidence)
    usable = [r for r in rows if r.p_adjusted is not None and r.ratio]
    if not usable:
        return {"format": FORMAT, "configurations": 0, "floor": None,
                "why": "no configuration with at least 2 samples on both runs"}
    called = [r for r in usable if r.verdict != "same" and r.verdict != "inconclusive"]
    detectable = [r.detectable_ratio for r in usable if r.detectable_ratio]
    worst = max(usable, key=_farthest)
    floor, where, source = _farthest(worst), worst.configuration, "largest A/A CI bound"
    spreads = {k: max(a[k].run_spread(), b[k].run_spread()) for k in set(a) & set(b)}
    if spreads and max(spreads.values()) > floor:
        widest = max(spreads, key=spreads.get)
        floor, where, source = spreads[widest], table.label(widest), "largest spread between one configuration's own runs"
    return {
        "format": FORMAT, "configurations": len(usable), "confidence": confidence,
        "floor": floor, "floor_configuration": where, "floor_source": source,
        "largest_observed": max(abs(r.ratio - 1.0) for r in usable),
        "false_positives": len(called), "false_positive_rate": len(called) / len(usable),
        "median_detectable_ratio": statistics.median(detectable) if detectable else None,
        "runs": [sides.describe(first), sides.describe(second)],
        "rows": [{"configuration": r.configuration, "ratio": r.ratio, "ci": r.ci, "p_adjusted": r.p_adjusted,
                  "n": [r.n_base, r.n_new]} for r in usable],
    }


def load_record(path, label: str) -> dict:
    """A recorded ``noise_floor.json``, checked before use: a floor that is finite and not negative, with the
    configuration and counts behind it (a record without them cannot be stated as evidence)."""
    from ..checklist import evidence
    from ..errors import AuditInputError

    record = evidence.read_json(path, f"{label} noise floor")
    floor = record.get("floor")
    problem = None
    if floor is not None and (not _is_number(floor) or not math.isfinite(floor) or floor < 0):
        problem = f"'floor' must be a finite fraction >= 0, not {floor!r}"[:120]
    elif floor is not None and not isinstance(record.get("floor_configuration"), str):
        problem = "no 'floor_configuration' (which configuration showed the floor)"
    elif floor is not None and not (_is_number(record.get("configurations")) and record["configurations"] >= 1):
        problem = "'configurations' must be the number (>= 1) of A/A configurations behind the floor"
    elif any(record.get(k) is not None and not (_is_number(record[k]) and 0 <= record[k] <= 1)
             for k in ("false_positive_rate", "confidence")):
        problem = "'false_positive_rate' and 'confidence' must be fractions between 0 and 1"
    elif record.get("false_positive_rate") is not None and not _is_number(record.get("false_positives")):
        problem = "'false_positive_rate' without the count 'false_positives'"
    elif record.get("median_detectable_ratio") is not None and not (
            _is_number(record["median_detectable_ratio"]) and record["median_detectable_ratio"] > 0):
        problem = "'median_detectable_ratio' must be a positive number"
    if problem:
        raise AuditInputError(f"{path}: noise floor record: {problem} (rewrite it with twelveways noise-floor)")
    return record


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def floor_text(record: dict) -> str:
    """The floor in one sentence with its evidence."""
    rate = record.get("false_positive_rate")
    power = record.get("median_detectable_ratio")
    parts = [f"±{record['floor']:.1%} measured by an A/A run of {record['configurations']} configurations "
             f"({record.get('floor_source', 'largest A/A CI bound')}, at {record['floor_configuration']})"]
    if rate is not None:
        parts.append(f"the test alone called {record['false_positives']} of {record['configurations']} identical "
                     f"configurations different (false-positive rate {rate:.0%})")
    if power:
        parts.append(f"median smallest detectable ratio {power:.3g} (80% power)")
    return "; ".join(parts)


def choose(recorded: Sequence[dict | None], given: float | None) -> verdicts.Floor:
    """The floor a comparison uses: the user's, else the larger measured one, else the assumed default."""
    if given is not None:
        return verdicts.assumed_floor(given, "given with --noise-floor")
    measured = [r for r in recorded if r and isinstance(r.get("floor"), (int, float))]
    if not measured:
        return verdicts.assumed_floor(DEFAULT_ASSUMED, "no A/A run on either side: set measurement.placebo: true")
    record = max(measured, key=lambda r: r["floor"])
    return verdicts.Floor(float(record["floor"]), True, floor_text(record),
                          record.get("false_positive_rate"))
