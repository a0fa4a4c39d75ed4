"""Plain JSON values from what the package computes: the one sanitiser for evidence, records and attributes.

Why: numpy scalars and arrays, tuples, sets and enums are not JSON, and NaN is not valid JSON; every
writer of JSON (checklist evidence, comparison records, statistics' ``to_dict``, results attributes)
goes through :func:`plain` so they agree on what a missing number looks like.
"""

from __future__ import annotations

import math
import sys
from enum import Enum


def plain(value, *, finite: bool = True):
    """``value`` as dicts, lists, str, int, float, bool and None, recursively.

    ``finite`` (the default): NaN and infinities become None; ``finite=False`` keeps them (results
    attributes, which Python's json writes and reads back as NaN).
    """
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): plain(v, finite=finite) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v, finite=finite) for v in value]
    np = sys.modules.get("numpy")  # a numpy value exists only once numpy is loaded: never load it here (fast --help)
    if np is not None and isinstance(value, np.ndarray):
        return plain(value.tolist(), finite=finite)
    if np is not None and isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and finite and not math.isfinite(value):
        return None
    return value


def finite_number(value) -> float | None:
    """``value`` as a finite float, or None where it is not a number, not finite, or absent (a stated field)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
