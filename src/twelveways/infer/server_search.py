"""Find the highest Server target QPS that LoadGen calls VALID (the latency-bounded throughput).

LoadGen has a peak-finding mode of its own, but it needs many long runs; here every probe is an
ordinary Server run whose verdict comes from LoadGen unchanged, so the result is "the highest
target QPS we tried that LoadGen called VALID", with every probe kept for the report (and for
the latency-against-load regression).

The search brackets by doubling or halving from a start value, then bisects geometrically until
the bracket is within ``rel_tolerance`` or the run budget is spent.  Two bounds keep it short:

* ``ceiling_qps``, the Offline throughput of the same variant: a Server run cannot sustain more
  than the Offline run of the same SUT, so no probe goes above it and it closes the bracket
  from above when no probe was INVALID (stop reason ``ceiling_bracket``);
* ``floor_qps``, the lowest target QPS whose probe fits the probe time cap (its minimum query
  count at that rate would take longer): nothing is probed below it.

Noise can make a higher load VALID after a lower one failed; the answer is the highest VALID
probe either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ConfigError

#: Why a search ended.
STOP_REASONS = ("tolerance_met", "ceiling_bracket", "ceiling_reached", "floor_reached", "max_runs")


@dataclass
class Probe:
    target_qps: float
    valid: bool  # for the search: LoadGen's verdict, and INVALID when the probe ran over its cap
    info: dict = field(default_factory=dict)


@dataclass
class SearchResult:
    probes: list[Probe]
    best_qps: float | None  # highest VALID target QPS, None when no probe was VALID
    bracket: tuple[float | None, float | None]  # (highest VALID, lowest INVALID above it or the ceiling)
    stop_reason: str  # one of STOP_REASONS
    ceiling_qps: float | None = None
    floor_qps: float = 1.0


def bracket(probes: list[Probe], ceiling_qps: float | None = None) -> tuple[float | None, float | None]:
    """(highest VALID target, lowest INVALID target above it); the ceiling closes an open top."""
    valid = [p.target_qps for p in probes if p.valid]
    low = max(valid) if valid else None
    invalid = [p.target_qps for p in probes if not p.valid and (low is None or p.target_qps > low)]
    high = min(invalid) if invalid else None
    if ceiling_qps and low is not None and (high is None or high > ceiling_qps) and low < ceiling_qps:
        high = ceiling_qps
    return low, high


def is_tight(low: float, high: float, rel_tolerance: float) -> bool:
    """Whether the bracket [low, high] is narrow enough to stop: high / low - 1 <= rel_tolerance."""
    return high / low - 1 <= rel_tolerance


def next_target(probes: list[Probe], *, rel_tolerance: float, floor_qps: float,
                ceiling_qps: float | None, decimals: int = 1) -> tuple[float | None, str | None]:
    """The next target QPS to probe, or (None, stop reason) when the search is done."""
    ceiling = round(ceiling_qps, decimals) if ceiling_qps else None
    low, high = bracket(probes)
    if low is None:  # nothing VALID yet: halve, down to the floor
        if high <= floor_qps * (1 + 1e-9):
            return None, "floor_reached"
        return max(high / 2, floor_qps), None
    if ceiling is not None and low >= ceiling:
        return None, "ceiling_reached"
    if high is None:  # nothing INVALID above: double, at most to the ceiling
        if ceiling is not None and is_tight(low, ceiling, rel_tolerance):
            return None, "ceiling_bracket"
        return (min(low * 2, ceiling) if ceiling is not None else low * 2), None
    if is_tight(low, high, rel_tolerance):
        return None, "tolerance_met"
    return math.sqrt(low * high), None


def search(run_at: Callable[[float], Probe | bool], start_qps: float, *, max_runs: int = 7,
           rel_tolerance: float = 0.1, floor_qps: float = 1.0, ceiling_qps: float | None = None,
           decimals: int = 1) -> SearchResult:
    """Probe ``run_at(qps)`` (returns a :class:`Probe` or LoadGen's validity) to find the best VALID QPS.

    Targets stay within [``floor_qps``, ``ceiling_qps``]; a VALID probe at the ceiling ends the search.
    """
    if start_qps <= 0 or max_runs < 1 or rel_tolerance <= 0 or floor_qps <= 0:
        raise ConfigError(f"bad Server search settings: start={start_qps}, max_runs={max_runs}, "
                          f"rel_tolerance={rel_tolerance}, floor={floor_qps}")
    probes: list[Probe] = []
    if ceiling_qps is not None and ceiling_qps < floor_qps:
        return SearchResult(probes, None, (None, None), "floor_reached", ceiling_qps, floor_qps)
    qps, stop = min(max(start_qps, floor_qps), ceiling_qps or math.inf), "max_runs"
    while len(probes) < max_runs:
        qps = round(qps, decimals)
        outcome = run_at(qps)
        probes.append(outcome if isinstance(outcome, Probe) else Probe(qps, bool(outcome)))
        qps, reason = next_target(probes, rel_tolerance=rel_tolerance, floor_qps=floor_qps,
                                  ceiling_qps=ceiling_qps, decimals=decimals)
        if reason:
            stop = reason
            break
    low, high = bracket(probes, ceiling_qps)
    return SearchResult(probes, low, (low, high), stop, ceiling_qps, floor_qps)
