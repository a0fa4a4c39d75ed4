"""Small typed getters for the software-benchmark readers: a wrong type is one :class:`ReaderError` line.

(Local to these readers until the shared safe-input layer in :mod:`.common` lands; each getter names
the format, the place in the file and what was found, so switching is a rename.)
"""

from __future__ import annotations

import math

from .common import ReaderError


def _shown(value) -> str:
    text = " ".join(str(value).split())
    return repr(text if len(text) <= 40 else text[:39] + "…")


def number(path, fmt: str, where: str, value, *, allow_none: bool = False) -> float | None:
    """A finite number (an int or float in the file); None only when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise ReaderError(path, f"{fmt}: {where} is {_shown(value)}, not a finite number")
    return float(value)


def numbers(path, fmt: str, where: str, value) -> list[float]:
    """A non-empty list of finite numbers."""
    if not isinstance(value, list) or not value:
        raise ReaderError(path, f"{fmt}: {where} is not a non-empty list of numbers")
    return [number(path, fmt, f"{where}[{i}]", v) for i, v in enumerate(value)]


def mapping(path, fmt: str, where: str, value, *, required: bool = True) -> dict:
    """An object (``{}`` when absent and not required)."""
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise ReaderError(path, f"{fmt}: {where} is not an object")
    return value


def text(path, fmt: str, where: str, value) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise ReaderError(path, f"{fmt}: {where} is {_shown(value)}, not a name")
    return value


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
