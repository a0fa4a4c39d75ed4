"""Replicate-level statistics (stats.replicates): coverage and power checked by simulation with known
variance components; every simulation is seeded and vectorised (tens of thousands of studies in seconds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from twelveways import stats
from twelveways.errors import StatisticsError
from twelveways.stats import replicates

STUDIES = 20000  # binomial sd of a 95 % coverage estimate: 0.15 %, so a 2 % tolerance is 13 sd wide


def _studies(rng, n: int, shift: float, between: float, within: float, iterations: int = 10,
             run_sd: float = 0.0) -> np.ndarray:
    """Log invocation summaries of STUDIES simulated sides: a run effect (one per side), an effect per
    invocation, then lognormal iterations; each invocation summarized by its arithmetic mean."""
    run = rng.normal(0.0, run_sd, (STUDIES, 1, 1)) if run_sd else 0.0
    invocation = rng.normal(0.0, between, (STUDIES, n, 1))
    values = np.exp(shift + run + invocation + rng.normal(0.0, within, (STUDIES, n, iterations)))
    return np.log(values.mean(axis=-1))


@pytest.mark.parametrize("invocations", [3, 5, 10])
@pytest.mark.parametrize(("between", "within"), [(0.05, 0.03), (0.01, 0.10), (0.10, 0.005)])
def test_the_ratio_ci_covers_the_true_ratio_95_percent_of_the_time(invocations, between, within):
    rng = np.random.default_rng(invocations * 1000 + int(between * 1000))
    true = math.log(1.1)
    base = _studies(rng, invocations, 0.0, between, within)
    new = _studies(rng, invocations, true, between, within)
    _, low, high, _, _ = replicates.log_ratio_interval(new, base, 0.95)
    coverage = float(np.mean((low <= true) & (true <= high)))
    assert 0.93 <= coverage <= 0.97, coverage


def test_counting_iterations_as_replicates_would_not_cover():
    """The same data with the 3 x 10 iterations tested as 30 independent samples: the interval ignores
    the invocation level and misses the true ratio far more often than 5 % (why n counts invocations)."""
    rng = np.random.default_rng(5)
    invocation = rng.normal(0.0, 0.05, (STUDIES, 2, 3, 1))
    values = np.log(np.exp(invocation + rng.normal(0.0, 0.02, (STUDIES, 2, 3, 10)))).reshape(STUDIES, 2, 30)
    ci = scipy_stats.ttest_ind(values[:, 1], values[:, 0], axis=-1, equal_var=False).confidence_interval(0.95)
    assert float(np.mean((ci.low <= 0) & (0 <= ci.high))) < 0.6


def test_a_between_run_variance_from_an_a_a_run_restores_coverage():
    """Each side is one run of a sweep with its own run effect: without the run level the interval is
    too narrow; with the known run variance added it covers again."""
    rng = np.random.default_rng(11)
    base = _studies(rng, 5, 0.0, 0.03, 0.02, run_sd=0.03)
    new = _studies(rng, 5, 0.0, 0.03, 0.02, run_sd=0.03)
    _, low, high, _, _ = replicates.log_ratio_interval(new, base, 0.95)
    assert float(np.mean((low <= 0) & (0 <= high))) < 0.85
    _, low, high, _, _ = replicates.log_ratio_interval(new, base, 0.95, run_variance=0.03 ** 2)
    assert 0.93 <= float(np.mean((low <= 0) & (0 <= high))) <= 0.985


def test_the_interval_is_welchs_t_on_invocation_summaries():
    rng = np.random.default_rng(2)
    new, base = rng.normal(0.1, 0.05, 4), rng.normal(0.0, 0.02, 6)
    est, low, high, p, _ = replicates.log_ratio_interval(new, base, 0.9)
    reference = scipy_stats.ttest_ind(new, base, equal_var=False)
    ci = reference.confidence_interval(0.9)
    assert (low, high, p) == pytest.approx((ci.low, ci.high, reference.pvalue))
    assert est == pytest.approx(new.mean() - base.mean())


def test_invocations_needed_gives_the_stated_power():
    """The planned number of invocations per side finds a 5 % difference in about 80 % of studies."""
    between, within, iterations = 0.04, 0.02, 10
    variance = between ** 2 + within ** 2 / iterations
    n = replicates.invocations_needed(variance, math.log(1.05), alpha=0.05, power=0.8)
    assert n is not None and 3 <= n <= 20
    rng = np.random.default_rng(3)
    found = []
    for size in (n - 1, n):
        base = _studies(rng, size, 0.0, between, within, iterations)
        new = _studies(rng, size, math.log(1.05), between, within, iterations)
        found.append(float(np.mean(replicates.log_ratio_interval(new, base, confidence=0.95)[3] < 0.05)))
    assert found[0] < 0.8 <= found[1] + 0.01, (n, found)
    assert replicates.invocations_needed(variance, math.log(1.05), run_variance=0.05 ** 2) is None


def test_components_and_ratio_of_real_shaped_groups():
    """Two invocations 40 % apart (a transpose in two cache-conflict modes): the between-invocation
    variance dominates, n is 2 invocations, not 20 iterations."""
    rng = np.random.default_rng(4)
    groups = [rng.lognormal(0.0, 0.01, 10), rng.lognormal(math.log(1.4), 0.01, 10)]
    parts = replicates.components(groups)
    assert parts.invocations == 2 and parts.iterations == 10
    assert parts.between > 50 * parts.within
    ratio = replicates.ratio_ci([g * 1.1 for g in groups], groups, confidence=0.95)
    assert ratio.value == pytest.approx(1.1) and ratio.invocations == (2, 2)
    assert ratio.ci[0] < 0.5 and ratio.ci[1] > 2.0  # two replicates with a 40 % spread decide little
    one = replicates.ratio_ci([groups[0]], [groups[1]], confidence=0.95)
    assert one.ci is None and one.p is None
    with pytest.raises(StatisticsError, match="not positive"):
        replicates.ratio_ci([[0.0, 0.0]], groups, confidence=0.95)
    assert stats.ratio_ci is replicates.ratio_ci


def test_a_family_prior_narrows_three_invocation_intervals_and_keeps_coverage():
    """Configurations of one kernel, implementation and resources share their noise: their pooled
    variance (df capped at PRIOR_DF_CAP) steadies a 3-invocation variance; the interval narrows and
    still covers where the family is homogeneous."""
    rng = np.random.default_rng(8)
    base, new = _studies(rng, 3, 0.0, 0.03, 0.01), _studies(rng, 3, 0.0, 0.03, 0.01)
    prior = replicates.family_prior([(0.03 ** 2 + 0.01 ** 2 / 10, 2)] * 6)
    assert prior[1] == replicates.PRIOR_DF_CAP
    _, low, high, _, _ = replicates.log_ratio_interval(new, base, prior=prior, confidence=0.95)
    _, low0, high0, _, _ = replicates.log_ratio_interval(new, base, confidence=0.95)
    assert 0.93 <= float(np.mean((low <= 0) & (0 <= high))) <= 0.975
    assert float(np.median(high - low)) < 0.8 * float(np.median(high0 - low0))
    assert replicates.family_prior([(0.1, 0)]) is None


def test_a_configuration_interval_over_its_invocations():
    """R5's interval: t over the invocation means; equal means with a wide spread inside each invocation
    still give a wide interval (the summary variance is never below within / iterations)."""
    rng = np.random.default_rng(6)
    groups = [rng.lognormal(0.0, 0.01, 10) * f for f in (1.0, 1.02, 0.99)]
    centre, low, high = replicates.summary_interval(groups, "cost", 0.95)
    logs = np.log([g.mean() for g in groups])
    ci = scipy_stats.ttest_1samp(logs, 0.0).confidence_interval(0.95)
    assert (low, high) == pytest.approx((math.exp(ci.low), math.exp(ci.high)))
    assert low < centre < high
    same = [np.array([1.0, 1.5, 2.0])] * 2
    centre, low, high = replicates.summary_interval(same, "cost", 0.95)
    assert high / low > 2.0
    assert replicates.summary_interval([groups[0]], "cost", 0.95) is None


def test_many_configuration_intervals_at_once_are_each_ones_own():
    """summary_intervals (R5 over a round of files) gives what summary_interval gives per configuration, rows shuffled,
    costs and rates, 1 to 14 iterations per invocation; configurations it cannot judge are left (NaN) to the latter."""
    rng = np.random.default_rng(20261127)
    checked = left = 0
    for _ in range(200):
        rows = [(c, 3 * inv + 1, v) for c in range(int(rng.integers(1, 8))) for inv in range(int(rng.integers(1, 6)))
                for v in rng.lognormal(0.0, 0.2, size=int(rng.integers(1, 15))) * (1 + c)]
        rows = [rows[i] for i in rng.permutation(len(rows))]
        configuration, invocation, values = (np.array(column) for column in zip(*rows))
        rate = rng.random(configuration.max() + 1) < 0.5
        batch = replicates.summary_intervals(values, configuration, invocation, rate, 0.95)
        for c in range(rate.size):
            mine, codes = values[configuration == c], invocation[configuration == c]
            alone = replicates.summary_interval([mine[codes == k] for k in np.unique(codes)],
                                                "rate" if rate[c] else "cost", 0.95)
            if alone is None:
                assert np.isnan(batch[c]).all()
                left += 1
            else:
                np.testing.assert_allclose(batch[c], alone, rtol=1e-12)
                checked += 1
    assert checked > 300 and left > 50
    with_zero = replicates.summary_intervals([1.0, 2.0, 0.0, 3.0], [0, 0, 0, 0], [0, 0, 1, 1], [False], 0.95)
    assert np.isnan(with_zero).all()  # a value summary_interval would refuse is left to it
