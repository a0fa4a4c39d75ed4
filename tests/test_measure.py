"""The measurement core: every sample kept, seeded order, adaptive stop with its reason."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from twelveways import measure
from twelveways.errors import MeasurementError


def test_seeded_order_is_reproducible_and_a_permutation():
    items = list(range(20))
    a = measure.seeded_order(items, 3)
    assert a == measure.seeded_order(items, 3)
    assert sorted(a) == items and a != items
    assert a != measure.seeded_order(items, 4)


def test_stops_when_ci_target_met_and_keeps_every_sample():
    values = itertools.cycle([1.0, 1.01, 0.99, 1.005, 0.995])
    rep = measure.repeat_until_stable(lambda: next(values), target=0.05, min_samples=5, max_samples=100, max_seconds=30)
    assert rep.stop_reason == measure.STOP_CI_MET
    assert len(rep.samples) == rep.invocations >= 6  # 95% median CI needs n >= 6
    assert rep.ci[0] >= rep.median * 0.95 and rep.ci[1] <= rep.median * 1.05


def test_stops_on_sample_budget_with_noisy_data():
    rng = np.random.default_rng(1)
    rep = measure.repeat_until_stable(lambda: float(rng.lognormal(0, 1.0)), target=0.01, max_samples=30, max_seconds=30)
    assert rep.stop_reason == measure.STOP_MAX_SAMPLES and len(rep.samples) == 30


def test_stops_on_time_budget():
    rng = np.random.default_rng(2)
    rep = measure.repeat_until_stable(lambda: list(rng.lognormal(0, 1.0, 3)), target=0.001,
                                      max_samples=10**9, max_seconds=0.05)
    assert rep.stop_reason == measure.STOP_MAX_SECONDS
    assert len(rep.samples) == 3 * rep.invocations  # several samples per invocation, all kept


def test_the_target_is_judged_over_invocations_not_pooled_iterations():
    """Tight iterations inside invocations whose means differ by 8%: the pooled median CI is narrow, the
    invocations' is not, so the target is not met (R5 judges the invocations too) and the budget ends it."""
    means = itertools.cycle([1.0, 1.0, 1.08])
    rng = np.random.default_rng(3)
    rep = measure.repeat_until_stable(lambda: list(next(means) * rng.normal(1, 0.001, 50)), target=0.05,
                                      min_samples=5, max_samples=150, max_seconds=30, min_invocations=3)
    assert measure.ci_within_target(rep.samples, 0.05, 0.95)[0]  # the pooled iterations alone would stop it
    assert rep.stop_reason == measure.STOP_MAX_SAMPLES and rep.invocations == 3, rep
    steady = itertools.cycle([1.0, 1.002, 0.998])
    rep = measure.repeat_until_stable(lambda: list(next(steady) * rng.normal(1, 0.001, 50)), target=0.05,
                                      min_samples=5, max_samples=300, max_seconds=30, min_invocations=3)
    assert rep.stop_reason == measure.STOP_CI_MET and rep.invocations == 3


def test_bad_settings_rejected():
    with pytest.raises(MeasurementError):
        measure.repeat_until_stable(lambda: 1.0, target=0)


def test_timer_properties_and_flags():
    props = measure.timer_properties(trials=2000)
    assert props["monotonic"] and props["resolution_ns"] > 0 and props["overhead_ns"] > 0
    assert measure.interval_flags(1e-3, 100, 50) == []
    assert any("shorter than" in f for f in measure.interval_flags(500e-9, 100, 10))
    assert any("overhead" in f for f in measure.interval_flags(1e-6, 1, 100))
