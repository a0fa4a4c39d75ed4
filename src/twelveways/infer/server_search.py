"""Find the highest Server target QPS that LoadGen calls VALID (the latency-bounded throughput).

LoadGen has a peak-finding mode of its own, but it needs many long runs; here every probe is an
ordinary Server run whose verdict comes from LoadGen unchanged, so the result is "the highest
target QPS we tried that LoadGen called VALID", with every probe kept for the report (and for
the latency-against-load regression).  The search brackets by doubling or halving from a
start value, then bisects geometrically until the bracket is within ``rel_tolerance`` or the run
budget is spent.  Noise can make a higher load VALID after a lower one failed; the answer is
the highest VALID probe either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ConfigError


@dataclass
class Probe:
    target_qps: float
    valid: bool
    info: dict = field(default_factory=dict)


@dataclass
class SearchResult:
    probes: list[Probe]
    best_qps: float | None  # highest VALID target QPS, None when no probe was VALID
    bracket: tuple[float | None, float | None]  # (highest VALID, lowest INVALID above it)
    stop_reason: str  # "tolerance_met", "max_runs", "floor_reached", "ceiling_reached"


def _bracket(probes: list[Probe]) -> tuple[float | None, float | None]:
    valid = [p.target_qps for p in probes if p.valid]
    low = max(valid) if valid else None
    invalid = [p.target_qps for p in probes if not p.valid and (low is None or p.target_qps > low)]
    high = min(invalid) if invalid else None
    return low, high


def search(run_at: Callable[[float], Probe | bool], start_qps: float, *, max_runs: int = 7,
           rel_tolerance: float = 0.1, floor_qps: float = 1.0, ceiling_qps: float | None = None,
           decimals: int = 1) -> SearchResult:
    """Probe ``run_at(qps)`` (returns a :class:`Probe` or LoadGen's validity) to find the best VALID QPS.

    ``ceiling_qps`` (the Offline throughput: no latency bound can do better) caps the doubling;
    a VALID probe at the ceiling ends the search.
    """
    if start_qps <= 0 or max_runs < 1 or rel_tolerance <= 0:
        raise ConfigError(f"bad Server search settings: start={start_qps}, max_runs={max_runs}, "
                          f"rel_tolerance={rel_tolerance}")
    probes: list[Probe] = []

    def probe(qps: float) -> None:
        qps = round(qps, decimals)
        outcome = run_at(qps)
        probes.append(outcome if isinstance(outcome, Probe) else Probe(qps, bool(outcome)))

    qps = min(start_qps, ceiling_qps) if ceiling_qps else start_qps
    stop = "max_runs"
    while len(probes) < max_runs:
        probe(qps)
        low, high = _bracket(probes)
        if low is None:  # nothing VALID yet: halve
            qps = high / 2
            if qps < floor_qps:
                stop = "floor_reached"
                break
        elif high is None:  # nothing INVALID above: double, up to the ceiling
            if ceiling_qps and low >= round(ceiling_qps, decimals):
                stop = "ceiling_reached"
                break
            qps = min(low * 2, ceiling_qps) if ceiling_qps else low * 2
        else:
            if high / low - 1 <= rel_tolerance:
                stop = "tolerance_met"
                break
            qps = math.sqrt(low * high)
    low, high = _bracket(probes)
    return SearchResult(probes, low, (low, high), stop)
