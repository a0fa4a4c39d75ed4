"""twelveways.stats against scipy/statsmodels, textbook values, refusals and coverage simulations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from twelveways import stats
from twelveways.errors import StatisticsError


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


# ---------------------------------------------------------------------------------------------
# exact order-statistic CIs


def test_median_ci_ranks_textbook_n20():
    # binomial rank table: n=20 at 95% -> ranks 6 and 15, coverage 1 - 2·P(B <= 5) = 0.9586
    j, k, coverage = stats.median_ci_ranks(20, 0.95)
    assert (j, k) == (6, 15)
    assert coverage == pytest.approx(0.9586, abs=1e-4)
    assert coverage == pytest.approx(1 - 2 * sps.binom.cdf(5, 20, 0.5))


def test_median_ci_ranks_smallest_n():
    assert stats.median_ci_ranks(5, 0.95) is None
    assert stats.median_ci_ranks(6, 0.95)[:2] == (1, 6)
    assert stats.min_samples_for_ci(0.5, 0.95) == 6
    assert stats.min_samples_for_ci(0.99, 0.95) == 368  # 0.99**n <= 0.025
    assert stats.percentile_ci_ranks(367, 0.99, 0.95) is None
    assert stats.percentile_ci_ranks(368, 0.99, 0.95) is not None


@pytest.mark.parametrize("q", [0.1, 0.25, 0.5, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_ranks_agree_with_scipy_quantile_test(q, confidence):
    rng = np.random.default_rng(1)
    for n in (6, 11, 20, 37, 100, 400):
        x = np.sort(rng.exponential(size=n))
        ref = sps.quantile_test(x, q=0, p=q).confidence_interval(confidence)
        ranks = stats.percentile_ci_ranks(n, q, confidence)
        if ranks is None:
            assert math.isnan(ref.low) or math.isnan(ref.high)
            with pytest.raises(StatisticsError, match="too few"):
                stats.percentile_ci(x, q, confidence)
            continue
        j, k, coverage = ranks
        assert (x[j - 1], x[k - 1]) == (ref.low, ref.high)
        assert stats.percentile_ci(x, q, confidence) == (ref.low, ref.high)
        assert coverage >= confidence


def test_median_ci_values_and_batch(rng):
    x = rng.lognormal(size=20)
    s = np.sort(x)
    assert stats.median_ci(x, confidence=0.95) == (s[5], s[14])
    trials = rng.lognormal(size=(7, 20))
    low, high = stats.median_ci(trials, axis=1, confidence=0.95)
    assert low.shape == (7,)
    for row, lo, hi in zip(trials, low, high):
        assert stats.median_ci(row, confidence=0.95) == (lo, hi)
    low_t, high_t = stats.median_ci(trials.T, axis=0, confidence=0.95)
    assert np.array_equal(low, low_t) and np.array_equal(high, high_t)


def test_median_ci_too_few_samples_says_how_many():
    with pytest.raises(StatisticsError, match=r"5 samples are too few .* need at least 6"):
        stats.median_ci([1.0, 2.0, 3.0, 4.0, 5.0], confidence=0.95)


# ---------------------------------------------------------------------------------------------
# summaries by kind (R3, R4)


def test_harmonic_mean_of_rates_textbook():
    s = stats.summarize([1.0, 2.0, 4.0], "rate", confidence=0.95)
    assert s.statistic == "hmean"
    assert s.value == pytest.approx(12 / 7)
    assert s.n == 3


def test_averaging_ratios_is_refused():
    with pytest.raises(StatisticsError, match="ratio_of_summaries"):
        stats.summarize([1.1, 0.9, 1.3], "ratio", confidence=0.95)
    with pytest.raises(StatisticsError, match="ratio_of_summaries"):
        stats.ci([1.1, 0.9, 1.3, 1.0], kind="ratio", confidence=0.95)
    with pytest.raises(StatisticsError, match="ratio_of_summaries"):
        stats.ratio_of_summaries([1, 2, 3], [1, 2, 3], "ratio", confidence=0.95)


def test_wrong_statistic_for_kind_is_refused():
    with pytest.raises(StatisticsError, match="rate is summarized by hmean or median"):
        stats.summarize([1.0, 2.0], "rate", statistic="mean", confidence=0.95)
    with pytest.raises(StatisticsError, match="geometric_mean_fallback"):
        stats.summarize([1.0, 2.0], "cost", statistic="geomean", confidence=0.95)
    with pytest.raises(StatisticsError, match="kind must be one of"):
        stats.summarize([1.0, 2.0], "speed", confidence=0.95)


def test_cost_mean_on_normal_data_has_t_ci(rng):
    x = rng.normal(10.0, 1.0, 50)
    s = stats.summarize(x, "cost", unit="s", confidence=0.95)
    assert (s.statistic, s.unit, s.n) == ("mean", "s", 50)
    assert s.value == pytest.approx(np.mean(x))
    ref = sps.t.interval(0.95, 49, loc=np.mean(x), scale=sps.sem(x))
    assert s.ci == pytest.approx(ref)
    assert s.normality["rejected"] is False


def test_cost_mean_on_skewed_data_has_no_parametric_ci(rng):
    s = stats.summarize(rng.lognormal(0, 1, 200), "cost", confidence=0.95)
    assert s.ci is None
    assert "normality rejected" in s.ci_method


def test_median_summary_exact_ci(rng):
    x = rng.lognormal(size=20)
    s = stats.summarize(x, "cost", statistic="median", confidence=0.95)
    assert s.value == np.median(x)
    assert s.ci == stats.median_ci(x, confidence=0.95)
    assert "ranks 6 and 15" in s.ci_method
    few = stats.summarize([1.0, 2.0, 3.0], "cost", statistic="median", confidence=0.95)
    assert few.ci is None and "need 6" in few.ci_method


def test_rate_hmean_ci_is_inverted_t_ci_of_reciprocals(rng):
    times = rng.normal(2.0, 0.05, 40)
    rates = 100.0 / times
    s = stats.summarize(rates, "rate", confidence=0.95)
    assert s.value == pytest.approx(sps.hmean(rates))
    lo, hi = sps.ttest_1samp(1 / rates, 0).confidence_interval(0.95)
    assert s.ci == pytest.approx((1 / hi, 1 / lo))
    assert s.ci[0] < s.value < s.ci[1]


def test_negative_costs_and_nonpositive_rates_refused():
    with pytest.raises(StatisticsError, match="negative"):
        stats.summarize([1.0, -1.0], "cost", confidence=0.95)
    with pytest.raises(StatisticsError, match="positive"):
        stats.summarize([1.0, 0.0], "rate", confidence=0.95)


def test_non_finite_values_refused_not_dropped():
    with pytest.raises(StatisticsError, match="1 non-finite"):
        stats.summarize([1.0, 2.0, float("nan")], "cost", confidence=0.95)
    with pytest.raises(StatisticsError, match="non-finite"):
        stats.median_ci([1.0] * 10 + [float("inf")], confidence=0.95)
    with pytest.raises(StatisticsError, match="one-dimensional"):
        stats.median_ci(np.ones((3, 4)), confidence=0.95)


def test_confidence_and_quantile_must_be_fractions():
    with pytest.raises(StatisticsError, match=r"\(0, 1\)"):
        stats.median_ci(np.arange(20.0), 95)
    with pytest.raises(StatisticsError, match="99th percentile"):
        stats.percentile_ci(np.arange(20.0), 99, confidence=0.95)


def test_ratio_of_summaries(rng):
    a, b = rng.lognormal(1.0, 0.2, 60), rng.lognormal(0.0, 0.2, 60)
    r = stats.ratio_of_summaries(a, b, "cost", statistic="median", confidence=0.95)
    assert r.value == pytest.approx(np.median(a) / np.median(b))
    each = math.sqrt(0.95)
    la, ha = stats.median_ci(a, each)
    lb, hb = stats.median_ci(b, each)
    assert r.ci == pytest.approx((la / hb, ha / lb))
    assert r.ci[0] < r.value < r.ci[1]
    assert r.numerator.n == 60 and r.denominator.value == np.median(b)
    with pytest.raises(StatisticsError, match="zero"):
        stats.ratio_of_summaries([1.0, 2.0], [0.0, 0.0], "cost", statistic="median", confidence=0.95)


def test_geometric_mean_only_as_labelled_fallback():
    g = stats.geometric_mean_fallback([1.0, 2.0, 4.0], reason="normalized scores of unrelated kernels")
    assert g["value"] == pytest.approx(2.0)
    assert g["value"] == pytest.approx(sps.gmean([1.0, 2.0, 4.0]))
    assert g["fallback"] is True and "fallback" in g["label"]
    with pytest.raises(StatisticsError, match="reason"):
        stats.geometric_mean_fallback([1.0, 2.0], reason=" ")
    with pytest.raises(StatisticsError, match="positive"):
        stats.geometric_mean_fallback([1.0, 0.0], reason="x")


# ---------------------------------------------------------------------------------------------
# normality and the self-choosing CI (R5, R6)


def test_shapiro_rejects_lognormal_not_normal():
    lognormal = np.random.default_rng(7).lognormal(0, 1, 500)
    normal = np.random.default_rng(7).normal(0, 1, 500)
    bad, good = stats.normality(lognormal), stats.normality(normal)
    assert bad.rejected and bad.p < 1e-6
    assert not good.rejected and good.p > 0.05
    W, p = sps.shapiro(normal)
    assert (good.W, good.p, good.n_used) == (pytest.approx(W), pytest.approx(p), 500)
    (osm, osr), (slope, intercept, r) = sps.probplot(normal, dist="norm")
    assert np.array_equal(good.qq["theoretical"], osm) and np.array_equal(good.qq["ordered"], osr)
    assert good.qq["r"] == pytest.approx(r)


def test_normality_subsamples_above_5000_reproducibly():
    x = np.random.default_rng(3).normal(size=6000)
    a, b = stats.normality(x, seed=11), stats.normality(x, seed=11)
    assert a.subsampled and a.n_used == 5000 and a.n == 6000
    assert a.p == b.p
    assert len(a.qq["ordered"]) == 6000  # the Q-Q plot still shows every point
    assert "subsample" in a.note


def test_normality_needs_three_points():
    with pytest.raises(StatisticsError, match="at least 3"):
        stats.normality([1.0, 2.0])


def test_mean_ci_refuses_non_normal_data(rng):
    x = rng.lognormal(0, 1, 300)
    with pytest.raises(StatisticsError, match="normality rejected"):
        stats.mean_ci(x, confidence=0.95)
    forced = stats.mean_ci(x, assume_normal=True, confidence=0.95)
    assert forced == pytest.approx(sps.t.interval(0.95, 299, loc=x.mean(), scale=sps.sem(x)))


def test_ci_picks_procedure(rng):
    normal = stats.ci(rng.normal(5.0, 0.1, 60), confidence=0.95)
    assert normal.statistic == "mean" and normal.ci_method.startswith("parametric")
    skewed = stats.ci(rng.lognormal(0, 1, 200), confidence=0.95)
    assert skewed.statistic == "median" and skewed.ci_method.startswith("nonparametric")
    assert skewed.normality["rejected"] is True
    rate = stats.ci(1.0 / rng.normal(2.0, 0.05, 60), kind="rate", confidence=0.95)
    assert rate.statistic == "hmean"
    deterministic = stats.ci([3.0] * 10, confidence=0.95)
    assert deterministic.ci == (3.0, 3.0)
    with pytest.raises(StatisticsError, match="at least 3"):
        stats.ci([1.0, 2.0], confidence=0.95)


# ---------------------------------------------------------------------------------------------
# samples needed


def _perfect_pilot(ppf, n=200_000):
    """A pilot whose empirical quantiles are the distribution's own (no pilot noise)."""
    return ppf((np.arange(n) + 0.5) / n)


def test_samples_needed_median_matches_asymptotic_theory():
    # normal(100, 10): the median's CI half-width ≈ z·σ·sqrt(π/2)/sqrt(n)  ->  n ≈ 603 for ±1%
    plan = stats.samples_needed(_perfect_pilot(lambda u: 100 + 10 * sps.norm.ppf(u)), target=0.01, confidence=0.95)
    theory = (sps.norm.isf(0.025) * 10 * math.sqrt(math.pi / 2) / (0.01 * 100)) ** 2
    assert plan.n == pytest.approx(theory, rel=0.05)
    assert plan.expected_relative_half_width <= 0.01


def test_samples_needed_median_meets_target_in_simulation():
    plan = stats.samples_needed(_perfect_pilot(lambda u: np.exp(sps.norm.ppf(u))), target=0.05, confidence=0.95)
    trials = np.random.default_rng(9).lognormal(0, 1, size=(200, plan.n))
    low, high = stats.median_ci(trials, axis=1, confidence=0.95)
    med = np.median(trials, axis=1)
    realized = np.maximum(med - low, high - med) / med
    assert np.median(realized) == pytest.approx(0.05, rel=0.1)  # expected, not guaranteed, width


def test_samples_needed_mean_is_iterated_t_formula(rng):
    pilot = rng.normal(100.0, 10.0, 30)
    plan = stats.samples_needed(pilot, target=0.02, statistic="mean", confidence=0.95)
    s, m = pilot.std(ddof=1), pilot.mean()
    half = lambda n: sps.t.isf(0.025, n - 1) * s / math.sqrt(n) / m  # noqa: E731
    assert half(plan.n) <= 0.02 < half(plan.n - 1)


def test_samples_needed_refusals(rng):
    with pytest.raises(StatisticsError, match="max_n"):
        stats.samples_needed(rng.lognormal(0, 2, 50), target=0.001, max_n=1000, confidence=0.95)
    with pytest.raises(StatisticsError, match="at least 5"):
        stats.samples_needed([1.0, 2.0], target=0.05, confidence=0.95)


# ---------------------------------------------------------------------------------------------
# comparisons (R7)


def test_compare_matches_scipy_and_pairwise_definition(rng):
    a, b = rng.lognormal(0.3, 0.3, 30), rng.lognormal(0.0, 0.3, 25)
    c = stats.compare(a, b, confidence=0.95)
    ref = sps.mannwhitneyu(a, b, alternative="two-sided")
    assert c.u == pytest.approx(ref.statistic) and c.p == pytest.approx(ref.pvalue)
    greater = (a[:, None] > b[None, :]).mean()
    ties = (a[:, None] == b[None, :]).mean()
    assert c.a12 == pytest.approx(greater + 0.5 * ties)
    assert c.cliffs_delta == pytest.approx(greater - (a[:, None] < b[None, :]).mean())
    assert c.direction == "a > b" and c.significant


def test_compare_verdicts(rng):
    slow, fast = rng.normal(12.0, 0.3, 40), rng.normal(10.0, 0.3, 40)
    c = stats.compare(slow, fast, confidence=0.95)
    assert c.ci_overlap is False and c.verdict.startswith("different") and c.magnitude == "large"
    same = stats.compare(rng.normal(10, 1, 40), rng.normal(10, 1, 40), confidence=0.95)
    assert same.verdict.startswith("no significant difference")
    tiny = stats.compare([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], confidence=0.95)
    assert tiny.verdict.startswith("inconclusive") and tiny.min_possible_p == pytest.approx(0.1)
    assert stats.a12_magnitude(0.5) == "negligible" and stats.a12_magnitude(0.25) == "large"


def test_kruskal_matches_scipy_with_epsilon_squared(rng):
    groups = {"a": rng.normal(0, 1, 20), "b": rng.normal(0.5, 1, 25), "c": rng.normal(1, 1, 15)}
    k = stats.kruskal(groups)
    H, p = sps.kruskal(*groups.values())
    assert k.H == pytest.approx(H) and k.p == pytest.approx(p)
    assert k.epsilon_squared == pytest.approx(H / (60 - 1))
    assert (k.k, k.n, k.df, k.groups) == (3, 60, 2, ["a", "b", "c"])
    with pytest.raises(StatisticsError, match="identical"):
        stats.kruskal([[1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(StatisticsError, match="at least 2 groups"):
        stats.kruskal([[1.0, 2.0]])


def test_ranks_poolable(rng):
    same = {r: rng.normal(1.0, 0.05, 30) for r in range(4)}
    assert stats.ranks_poolable(same)["poolable"] is True
    slow = dict(same)
    slow[3] = rng.normal(1.3, 0.05, 30)
    verdict = stats.ranks_poolable(slow)
    assert verdict["poolable"] is False and "ranks differ" in verdict["reason"]
    assert verdict["kruskal"]["p"] < 0.05
    assert stats.ranks_poolable({0: [1.0, 2.0]})["poolable"] is True


# ---------------------------------------------------------------------------------------------
# tails and outliers (R8)


def test_quantile_regression_recovers_heteroscedastic_slopes():
    # statsmodels' own quantile regression, imported here: statsmodels.api costs every test worker a second
    from statsmodels.regression.quantile_regression import QuantReg
    from statsmodels.tools.tools import add_constant

    rng = np.random.default_rng(11)
    x = rng.uniform(0, 10, 3000)
    y = 1.0 + x * rng.exponential(1.0, x.size)  # q-quantile of y|x = 1 + x·(-ln(1-q))
    fits = stats.quantile_regression(x, y, quantiles=(0.5, 0.9), confidence=0.95)
    for q, fit in fits.items():
        truth = -math.log(1 - q)
        half = (fit.slope_ci[1] - fit.slope_ci[0]) / 2
        assert fit.slope_ci[0] < fit.slope < fit.slope_ci[1]
        assert abs(fit.slope - truth) < 1.5 * half  # within ~3 standard errors of the true slope
        ref = QuantReg(y, add_constant(x)).fit(q=q)
        assert fit.slope == pytest.approx(ref.params[1]) and fit.intercept == pytest.approx(ref.params[0])
        assert fit.converged
    assert fits[0.9].slope > 2 * fits[0.5].slope  # the tail grows faster than the centre


def test_quantile_regression_refuses_thin_tails(rng):
    with pytest.raises(StatisticsError, match=r"too few for the 0.99 quantile"):
        stats.quantile_regression(np.arange(100.0), rng.normal(size=100), quantiles=(0.99,), confidence=0.95)
    with pytest.raises(StatisticsError, match="differ in length"):
        stats.quantile_regression([1.0, 2.0], [1.0], confidence=0.95)


def test_percentiles_table(rng):
    x = rng.lognormal(size=40)
    rows = {row["q"]: row for row in stats.percentiles(x, (0.5, 0.9, 0.99), confidence=0.95)}
    assert rows[0.5]["ci"] == stats.median_ci(x, confidence=0.95)
    assert rows[0.9]["ci"] == stats.percentile_ci(x, 0.9, confidence=0.95)
    assert rows[0.99]["ci"] is None and "need 368" in rows[0.99]["note"]
    assert rows[0.99]["value"] == np.quantile(x, 0.99)


# ---------------------------------------------------------------------------------------------
# scaling (R1, R11)


def test_speedup_states_base_case_and_absolute_value(rng):
    base = rng.normal(8.0, 0.1, 30)
    times = {1: rng.normal(8.4, 0.1, 30), 2: rng.normal(4.3, 0.05, 30), 4: rng.normal(2.4, 0.05, 30)}
    sp = stats.speedup(base, times, "best serial", unit="s", confidence=0.95)
    assert sp.base_case == "best serial" and sp.base.value == np.median(base) and sp.base.unit == "s"
    assert "best serial" in sp.label and f"{np.median(base):.4g} s" in sp.label
    assert list(sp.p) == [1, 2, 4]
    assert sp.speedups == pytest.approx([np.median(base) / np.median(times[p]) for p in (1, 2, 4)])
    assert sp.efficiencies == pytest.approx(sp.speedups / sp.p)
    for row in sp.rows():
        assert row["base_case"] == "best serial" and row["base_value"] == sp.base.value and row["base_unit"] == "s"
        assert row["speedup_ci"][0] < row["speedup"] < row["speedup_ci"][1]
    weak = stats.speedup(base, times, "one process", scaling="weak", confidence=0.95)
    assert weak.points[1].efficiency == pytest.approx(np.median(base) / np.median(times[2]))
    assert weak.points[1].speedup == pytest.approx(2 * weak.points[1].efficiency)


def test_speedup_refuses_unstated_base_case():
    with pytest.raises(StatisticsError, match="base_case"):
        stats.speedup([1.0] * 6, {2: [0.5] * 6}, "serial", confidence=0.95)
    with pytest.raises(TypeError):
        stats.speedup([1.0] * 6, {2: [0.5] * 6}, confidence=0.95)  # no default: the base case must be stated
    with pytest.raises(StatisticsError, match="positive integers"):
        stats.speedup([1.0] * 6, {0: [0.5] * 6}, "best serial", confidence=0.95)


def test_amdahl_fit_recovers_serial_fraction():
    rng = np.random.default_rng(2)
    p = np.repeat([1, 2, 4, 8, 16, 32], 5).astype(float)
    measured = stats.amdahl_speedup(p, 0.05) * rng.lognormal(0, 0.02, p.size)
    fit = stats.amdahl_fit(p, measured, confidence=0.95)
    assert fit.serial_fraction == pytest.approx(0.05, abs=0.005)
    assert fit.ci[0] < 0.05 < fit.ci[1]
    assert fit.max_speedup == pytest.approx(1 / fit.serial_fraction)
    assert fit.predict([1.0])[0] == pytest.approx(1.0)
    with pytest.raises(StatisticsError, match="two distinct"):
        stats.amdahl_fit([4, 4, 4], [3.0, 3.1, 2.9], confidence=0.95)


def test_ideal_scaling():
    ideal = stats.ideal_scaling([1, 2, 4], base_time=8.0)
    assert list(ideal["speedup"]) == [1, 2, 4] and list(ideal["time"]) == [8, 4, 2]
    assert list(ideal["efficiency"]) == [1, 1, 1]


def test_results_serialize_to_plain_json(rng):
    import json

    x = rng.lognormal(size=30)
    for obj in (stats.ci(x, confidence=0.95), stats.compare(x, x * 1.1, confidence=0.95), stats.normality(x),
                stats.speedup(x, {2: x / 2}, "best serial", confidence=0.95)):
        json.dumps(obj.to_dict(), allow_nan=False)


# ---------------------------------------------------------------------------------------------
# coverage simulations (the acceptance test)


def test_median_ci_covers_lognormal_median_at_n20():
    trials = np.random.default_rng(12345).lognormal(0.0, 1.0, size=(2000, 20))
    low, high = stats.median_ci(trials, 0.95, axis=1)
    covered = np.mean((low <= 1.0) & (1.0 <= high))  # true median of lognormal(0, 1) is e^0
    assert covered >= 0.94
    exact = stats.median_ci_ranks(20, 0.95)[2]
    assert abs(covered - exact) < 4 * math.sqrt(exact * (1 - exact) / 2000)  # not too wide either


def test_percentile_ci_covers_lognormal_p90_at_n100():
    trials = np.random.default_rng(54321).lognormal(0.0, 1.0, size=(2000, 100))
    truth = math.exp(sps.norm.ppf(0.9))
    low, high = stats.percentile_ci(trials, 0.9, 0.95, axis=1)
    covered = np.mean((low <= truth) & (truth <= high))
    assert covered >= 0.94
    exact = stats.percentile_ci_ranks(100, 0.9, 0.95)[2]
    assert abs(covered - exact) < 4 * math.sqrt(exact * (1 - exact) / 2000)
