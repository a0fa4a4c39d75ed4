"""Small helpers the software-benchmark readers share (asv, JMH, pytest-benchmark, criterion).

Why here: each of these formats states summaries its tool computed and environment facts as
plain dicts; these turn them into the attributes the results schema keeps.  Typed checks of the
files themselves live in the format models (:mod:`.decode`), not here.
"""

from __future__ import annotations


def scalars(values: dict) -> dict:
    """The plain (str, number, bool) entries of a dict, as stated: what an environment or settings hash covers."""
    return {str(k): v for k, v in values.items() if isinstance(v, (str, int, float, bool)) or v is None}


def common_items(dicts: list[dict]) -> dict:
    """The entries every dict shares with the same value."""
    if not dicts:
        return {}
    return {k: v for k, v in dicts[0].items() if all(k in d and d[k] == v for d in dicts[1:])}


def summary(metric: str, statistic: str, value, unit: str, filters: dict, n, note: str, **extra) -> dict:
    """One stated number (attr ``summaries``): what the tool itself computed, for the checklist to recompute."""
    out = {"metric": metric, "statistic": statistic, "value": value, "unit": unit, "filters": dict(filters), "n": n,
           "note": note}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out
