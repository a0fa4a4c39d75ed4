"""Scaling (R1, R11): speedup and efficiency with a stated base case, Amdahl fit, ideal lines.

Import from :mod:`twelveways.stats`.  Speedups are ratios of summaries of times (never averages of
per-run ratios, R4) and always carry the base case's label, absolute value and unit (R1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
from scipy import optimize
from scipy import stats as sps

from ..errors import StatisticsError
from .core import Record, as_values, check_confidence
from .summary import Summary, ratio_of_summaries, summarize

BASE_CASES = ("best serial", "one process")
SCALINGS = ("strong", "weak")


@dataclasses.dataclass(frozen=True)
class ScalingPoint(Record):
    """One process count: its time summary (at the stated confidence), speedup and efficiency.

    The speedup/efficiency CIs are conservative (see :func:`ratio_of_summaries`); ``ci_method`` says
    how they were formed or why they are missing.
    """

    p: int
    time: Summary
    speedup: float
    speedup_ci: tuple[float, float] | None
    efficiency: float
    efficiency_ci: tuple[float, float] | None
    ci_method: str


@dataclasses.dataclass(frozen=True)
class Speedup(Record):
    """Speedups of several process counts over one stated, absolute base case."""

    base_case: str
    base: Summary
    scaling: str
    statistic: str
    confidence: float
    points: list
    ci_method: str

    @property
    def label(self) -> str:
        """Axis/legend text that states the base case and its absolute value (R1)."""
        unit = f" {self.base.unit}" if self.base.unit else ""
        name = "scaled speedup" if self.scaling == "weak" else "speedup"
        return f"{name} over {self.base_case} ({self.statistic} {self.base.value:.4g}{unit})"

    @property
    def p(self) -> np.ndarray:
        return np.array([pt.p for pt in self.points])

    @property
    def speedups(self) -> np.ndarray:
        return np.array([pt.speedup for pt in self.points])

    @property
    def efficiencies(self) -> np.ndarray:
        return np.array([pt.efficiency for pt in self.points])

    def rows(self) -> list[dict]:
        """One flat row per p (for a DataFrame), each carrying the base case and its absolute value."""
        return [{"p": pt.p, "time": pt.time.value, "time_ci": pt.time.ci, "speedup": pt.speedup,
                 "speedup_ci": pt.speedup_ci, "efficiency": pt.efficiency, "efficiency_ci": pt.efficiency_ci,
                 "base_case": self.base_case, "base_value": self.base.value, "base_unit": self.base.unit,
                 "statistic": self.statistic, "scaling": self.scaling} for pt in self.points]


def _check_p(p) -> int:
    if isinstance(p, bool) or not float(p).is_integer() or int(p) < 1:
        raise StatisticsError(f"process counts must be positive integers, got {p!r}")
    return int(p)


def speedup(base_times, times_by_p: Mapping, base_case: str, *, statistic: str = "median",
            unit: str | None = "s", scaling: str = "strong", confidence: float) -> Speedup:
    """Speedup and efficiency per process count as ratios of time summaries over a stated base case.

    base_case: "best serial" (the best serial code, the honest baseline) or "one process" (the
    parallel code on one process, which flatters scaling) — no default, it must be stated (R1).
    strong scaling: speedup = T_base/T_p, efficiency = speedup/p.  weak scaling (work grows with p):
    efficiency = T_base/T_p, scaled speedup = p·efficiency.  CIs divide the √confidence CIs of
    the two summaries (conservative; None when a summary has no CI).
    """
    if base_case not in BASE_CASES:
        raise StatisticsError(f"base_case must be one of {BASE_CASES} (R1: say what speedup is relative to), "
                              f"got {base_case!r}")
    if scaling not in SCALINGS:
        raise StatisticsError(f"scaling must be 'strong' or 'weak', got {scaling!r}")
    confidence = check_confidence(confidence)
    if not isinstance(times_by_p, Mapping) or not times_by_p:
        raise StatisticsError("times_by_p must be a non-empty mapping process count -> times")
    base = summarize(base_times, "cost", statistic=statistic, confidence=confidence, unit=unit)
    points = []
    for p in sorted(times_by_p, key=_check_p):
        p_int = _check_p(p)
        r = ratio_of_summaries(base_times, times_by_p[p], "cost", statistic=statistic,
                               confidence=confidence, unit=unit)
        time = summarize(times_by_p[p], "cost", statistic=statistic, confidence=confidence, unit=unit)
        factor = 1.0 / p_int if scaling == "strong" else float(p_int)
        other = r.value * factor
        other_ci = None if r.ci is None else (r.ci[0] * factor, r.ci[1] * factor)
        if scaling == "strong":  # the ratio is the speedup; efficiency = speedup / p
            points.append(ScalingPoint(p_int, time, r.value, r.ci, other, other_ci, r.ci_method))
        else:  # the ratio is the efficiency; scaled speedup = p · efficiency
            points.append(ScalingPoint(p_int, time, other, other_ci, r.value, r.ci, r.ci_method))
    method = "ratio of summaries; CI: " + points[0].ci_method
    return Speedup(base_case, base, scaling, base.statistic, confidence, points, method)


def amdahl_speedup(p, serial_fraction: float) -> np.ndarray:
    """Amdahl's law: 1 / (f + (1 − f)/p), the bound a fixed serial fraction f puts on speedup."""
    p = np.asarray(p, dtype=float)
    return 1.0 / (serial_fraction + (1.0 - serial_fraction) / p)


def ideal_scaling(p, base_time: float | None = None) -> dict:
    """Ideal lines for plots: speedup = p, efficiency = 1, and time = base_time/p if given (R11)."""
    p = np.asarray(p, dtype=float)
    if np.any(p <= 0):
        raise StatisticsError("process counts must be positive")
    out = {"p": p, "speedup": p.copy(), "efficiency": np.ones_like(p)}
    if base_time is not None:
        out["time"] = float(base_time) / p
    return out


@dataclasses.dataclass(frozen=True)
class AmdahlFit(Record):
    """Serial fraction f of Amdahl's law fitted to measured speedups, with its CI."""

    serial_fraction: float
    ci: tuple[float, float]
    stderr: float
    confidence: float
    n: int
    dof: int
    max_speedup: float
    residual_rms: float
    method: str

    def predict(self, p) -> np.ndarray:
        """The fitted Amdahl curve at p (for plots)."""
        return amdahl_speedup(p, self.serial_fraction)


def amdahl_fit(p, speedup_values, *, confidence: float) -> AmdahlFit:
    """Least-squares fit of Amdahl's serial fraction (scipy.optimize.curve_fit, f bounded to [0, 1]).

    Gives the measured bound on strong scaling (max speedup 1/f, R11).  Residuals are weighted as
    relative errors (timing noise scales with the time).  The CI is f ± t·stderr from the fit's
    covariance (n − 1 degrees of freedom), clipped to [0, 1].  Pass every run (repeated p values),
    not only per-p summaries, so the CI reflects the run-to-run spread.  Needs at least three
    points and two distinct process counts.
    """
    ps, ss = as_values(p, "p", min_n=3), as_values(speedup_values, "speedup", min_n=3)
    confidence = check_confidence(confidence)
    if ps.size != ss.size:
        raise StatisticsError(f"p and speedup differ in length ({ps.size} vs {ss.size})")
    if np.any(ps < 1) or np.any(ss <= 0):
        raise StatisticsError("process counts must be >= 1 and speedups positive")
    if np.unique(ps).size < 2:
        raise StatisticsError("Amdahl fit needs at least two distinct process counts")
    try:
        # sigma ∝ speedup: timing noise is relative, and unweighted fits give CIs that undercover
        params, cov = optimize.curve_fit(amdahl_speedup, ps, ss, p0=[0.1], bounds=(0.0, 1.0), sigma=ss)
    except (RuntimeError, ValueError) as exc:
        raise StatisticsError("Amdahl fit did not converge", cause=exc) from exc
    f, se = float(params[0]), float(np.sqrt(cov[0, 0]))
    if not np.isfinite(se):
        raise StatisticsError("Amdahl fit is degenerate: the serial fraction's standard error is undefined")
    dof = ps.size - 1
    half = float(sps.t.isf((1 - confidence) / 2, dof)) * se
    resid = ss - amdahl_speedup(ps, f)
    return AmdahlFit(f, (max(0.0, f - half), min(1.0, f + half)), se, confidence, int(ps.size), dof,
                     float("inf") if f == 0 else 1.0 / f, float(np.sqrt(np.mean(resid ** 2))),
                     "scipy.optimize.curve_fit (relative least squares, f in [0, 1]); CI f ± t·stderr")
