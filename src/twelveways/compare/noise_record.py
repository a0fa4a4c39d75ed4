"""A recorded A/A (noise floor) record, checked before anything uses it.

Why apart from :mod:`.noise` (which measures the record from two sides): reading a side
(:mod:`.sides`) loads the record beside its results, and must not import the measurement that
itself takes sides.
"""

from __future__ import annotations

import math

from .. import resultset
from ..errors import AuditInputError

FORMAT = "twelveways-noise-floor/2"


def load_record(path, label: str) -> dict:
    """A recorded ``noise_floor.json``, checked before use: an A/A record's run levels (format 2) or an older
    record's global floor (format 1, named but not used) must be finite and not negative, with what stands
    behind them; a record that fails is one line naming the field, never a misleading "±-50.0%"."""
    record = resultset.read_json(path, f"{label} noise floor")
    problem = _rates_problem(record) or (_levels_problem(record) if record.get("format") == FORMAT
                                         else _old_floor_problem(record))
    if problem:
        raise AuditInputError(f"{path}: noise floor record: {problem} (rewrite it with twelveways noise-floor)")
    return record


def _rates_problem(record: dict) -> str | None:
    if any(record.get(k) is not None and not (_is_number(record[k]) and 0 <= record[k] <= 1)
           for k in ("false_positive_rate", "confidence")):
        return "'false_positive_rate' and 'confidence' must be fractions between 0 and 1"
    if record.get("false_positive_rate") is not None and not _is_number(record.get("false_positives")):
        return "'false_positive_rate' without the count 'false_positives'"
    return None


def _levels_problem(record: dict) -> str | None:
    """Format 2: each run level a group, a name, and a finite non-negative variance, spread and df."""
    levels = record.get("run_levels")
    if not isinstance(levels, list):
        return "'run_levels' must be a list of A/A run levels"
    if not (_is_number(record.get("configurations")) and record["configurations"] >= 0):
        return "'configurations' must be the number of A/A configurations behind the run levels"
    for level in levels:
        if not isinstance(level, dict) or not isinstance(level.get("group"), list) \
                or not isinstance(level.get("name"), str):
            return "each of 'run_levels' must be an object with its 'group' and 'name'"
        for key in ("variance", "relative_sd", "df", "configurations"):
            value = level.get(key)
            if not (_is_number(value) and math.isfinite(value) and value >= 0):
                return f"run level {level['name']!r}: {key!r} must be a finite number >= 0, not {value!r}"[:120]
    return None


def _old_floor_problem(record: dict) -> str | None:
    """Format 1 (one global floor): still checked, since its floor is named in the comparison."""
    floor = record.get("floor")
    if floor is None:
        return None
    if not _is_number(floor) or not math.isfinite(floor) or floor < 0:
        return f"'floor' must be a finite fraction >= 0, not {floor!r}"[:120]
    if not isinstance(record.get("floor_configuration"), str):
        return "no 'floor_configuration' (which configuration showed the floor)"
    if not (_is_number(record.get("configurations")) and record["configurations"] >= 1):
        return "'configurations' must be the number (>= 1) of A/A configurations behind the floor"
    if record.get("median_detectable_ratio") is not None and not (
            _is_number(record["median_detectable_ratio"]) and record["median_detectable_ratio"] > 0):
        return "'median_detectable_ratio' must be a positive number"
    return None


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
