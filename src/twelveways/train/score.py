"""MLPerf Training's score: the olympic mean of the runs' times to train.

MLPerf Training rules: run the benchmark several times with different seeds, drop the fastest
and the slowest run, and report the arithmetic mean of the rest (times are costs, so the
arithmetic mean is the right summary, SC15 R3).  A run that did not reach the target counts as
the slowest (so it is the one dropped); more than one such run makes the result invalid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ..errors import StatisticsError

MIN_RUNS = 3


@dataclass
class OlympicScore:
    """The score, and which runs it kept and dropped, so the number can be re-derived."""

    score_s: float
    valid: bool
    reason: str
    n_runs: int
    n_converged: int
    kept: list = field(default_factory=list)
    dropped: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def olympic_mean(times: Sequence[float], converged: Sequence[bool], run_ids: Sequence[str] | None = None) -> OlympicScore:
    """Drop fastest and slowest (a non-converged run is the slowest), mean of the rest."""
    n = len(times)
    if n != len(converged):
        raise StatisticsError(f"{n} times but {len(converged)} convergence flags")
    run_ids = list(run_ids) if run_ids is not None else [str(i) for i in range(n)]
    if n < MIN_RUNS:
        raise StatisticsError(f"the olympic mean needs at least {MIN_RUNS} runs, got {n}")
    failures = [i for i in range(n) if not converged[i]]
    n_converged = n - len(failures)
    if len(failures) > 1:
        return OlympicScore(math.nan, False, f"{len(failures)} of {n} runs did not reach the target (at most 1 allowed)",
                            n, n_converged, [], [run_ids[i] for i in range(n)])
    # a non-converged run sorts last (slowest); ties keep the run order
    order = sorted(range(n), key=lambda i: (0 if converged[i] else 1, times[i] if converged[i] else math.inf, i))
    kept = order[1:-1]
    score = math.fsum(times[i] for i in kept) / len(kept)
    reason = "one run did not converge and counts as the slowest" if failures else "all runs converged"
    return OlympicScore(score, True, reason, n, n_converged, [run_ids[i] for i in kept],
                        [run_ids[order[0]], run_ids[order[-1]]])
