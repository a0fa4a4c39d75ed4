"""What a number is: its metric kind from its unit, and who stated it.

A rate is an operation rate (op/s: flop/s, op/s, instructions/s) only when its unit counts
operations; bytes/s, and items per second (samples, queries, tokens, images, items, requests)
are rates of other things.  F5 (unstated bitwidth) is about operation rates alone.  Who stated
a summary decides whether it can be restated (R3): only a publisher's statement is restated; a
reader's or our analysis' own computation is not "stated" by the source file.
"""

from __future__ import annotations

import re
from enum import Enum


class MetricKind(str, Enum):
    """The kinds of numbers the checks tell apart."""

    TIME = "time"
    LATENCY = "latency"
    OP_RATE = "op/s"
    BYTE_RATE = "bytes/s"
    ITEM_RATE = "items/s"
    ACCURACY = "accuracy"
    ENERGY = "energy"
    COUNT = "count"
    OTHER = "other"


class StatedBy(str, Enum):
    """Who stated a number: the publisher of the file, the reader that imported it, or our analysis."""

    PUBLISHER = "publisher"
    READER = "reader"
    ANALYSIS = "analysis"


PER_SECOND = re.compile(r"^\s*(?P<thing>.+?)\s*(/\s*s|/\s*sec|\s+per\s+second|_per_second|_per_sec)\s*$",
                        re.IGNORECASE)
OP_THINGS = re.compile(r"^(?:[kmgtpe]|ki|mi|gi|ti)?(?:flop|flops|op|ops|operations|instructions|insts?|macs?)$",
                       re.IGNORECASE)
BYTE_THINGS = re.compile(r"^(?:[kmgtpe]|ki|mi|gi|ti)?(?:b|byte|bytes|bit|bits)$", re.IGNORECASE)
ITEM_UNITS = {"qps", "fps", "hz"}
TIME_UNITS = {"s", "ms", "us", "µs", "ns", "min", "h"}
ENERGY_UNITS = {"j", "kj", "wh", "kwh"}


def _per_second_thing(unit: str) -> str | None:
    """The thing counted per second by a rate unit ('MFlop' of 'MFlop/s'), None when it is no rate."""
    text = str(unit or "").strip()
    if text.lower() in ("flops", "gflops", "mflops", "tflops"):
        return text[:-1]
    match = PER_SECOND.match(text)
    return match.group("thing").strip().replace(" ", "_") if match else None


def rate_kind(unit: str) -> MetricKind | None:
    """op/s, bytes/s or items/s for a rate unit; None when the unit is no rate."""
    if str(unit or "").strip().lower() in ITEM_UNITS:
        return MetricKind.ITEM_RATE
    thing = _per_second_thing(unit)
    if thing is None:
        return None
    if OP_THINGS.match(thing):
        return MetricKind.OP_RATE
    if BYTE_THINGS.match(thing):
        return MetricKind.BYTE_RATE
    return MetricKind.ITEM_RATE


def kind_of(metric: str, unit: str) -> MetricKind:
    """The metric kind of a column value from its unit (and name where the unit is a time or a fraction)."""
    rate = rate_kind(unit)
    if rate is not None:
        return rate
    text, name = str(unit or "").strip().lower(), str(metric or "").lower()
    if text in TIME_UNITS:
        return MetricKind.LATENCY if "latency" in name else MetricKind.TIME
    if text in ENERGY_UNITS:
        return MetricKind.ENERGY
    if "accuracy" in name or "quality" in name:
        return MetricKind.ACCURACY
    return MetricKind.COUNT if text in ("count", "epochs", "iterations") else MetricKind.OTHER
