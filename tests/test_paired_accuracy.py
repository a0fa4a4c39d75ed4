"""Two accuracies on the same test items are paired: McNemar's exact test at no difference, Tang's / Tango's
score test of a margin and their score intervals (twelveways.stats.paired_proportion), checked against
published values, by simulation (coverage, size at the null boundary, power against the independent test),
and as the claims see them (design "paired items", the discordant counts in the evidence and its rendering)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats import proportion as sm_proportion

from twelveways import results
from twelveways.checklist.render import claim_facts
from twelveways.claims import ClaimVerdict, check_claim, parse_claims
from twelveways.errors import StatisticsError
from twelveways.stats import proportion
from twelveways.stats.paired_proportion import (MCNEMAR_NAME, TEST_NAMES, PairedItems, mcnemar_exact,
                                                paired_interval, paired_test)

#: Complete response before and after consolidation therapy (Cavo et al. 2012), the worked example of
#: Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), ch. 8.
CAVO = PairedItems(both=59, only_a=6, only_b=16, neither=80)
#: Airway hyper-responsiveness before and after stem cell transplantation (Bentur et al. 2009), the example
#: of Fagerland, Lydersen & Laake (2013), BMC Medical Research Methodology 13:91.
BENTUR = PairedItems(both=1, only_a=1, only_b=7, neither=12)


# --------------------------------------------------------------------------- published values

def test_mcnemar_exact_p_is_the_published_one():
    assert mcnemar_exact(CAVO) == pytest.approx(0.052479, abs=5e-7)
    assert mcnemar_exact(BENTUR) == pytest.approx(0.070, abs=5e-4)  # 18/256
    statistic, p, name = paired_test("a/b", CAVO, 1.0, "smaller")  # one-sided: half the symmetric two-sided p
    assert name == MCNEMAR_NAME and statistic == 6 and p == pytest.approx(0.052479 / 2, abs=5e-7)


def test_score_intervals_are_the_published_ones():
    estimate, (low, high) = paired_interval("a/b", CAVO, 0.95)  # Tang: 0.8667 (0.7476 to 0.9876)
    assert (estimate, low, high) == pytest.approx((0.8667, 0.7476, 0.9876), abs=5e-5)
    estimate, (low, high) = paired_interval("points", CAVO, 0.95)  # Tango: -0.0621 (-0.1240 to -0.0054)
    assert (estimate, low, high) == pytest.approx((-6.21, -12.40, -0.54), abs=5e-3)


def test_score_test_is_mcnemars_z_at_no_difference():
    for estimand in ("a/b", "points"):  # published asymptotic McNemar: Z = -2.132, two-sided P = 0.033006
        statistic, p, name = paired_test(estimand, CAVO, 0.999999 if estimand == "a/b" else -1e-6, "smaller")
        assert name == TEST_NAMES[estimand]
        assert statistic == pytest.approx(-2.132, abs=1e-3) and 2 * p == pytest.approx(0.033006, abs=1e-4)


def test_ratio_interval_agrees_with_statsmodels_nam_interval():
    nam = getattr(sm_proportion, "_confint_riskratio_paired_nam", None)
    if nam is None:
        pytest.skip("this statsmodels has no (private) Nam interval to compare with")
    rng = np.random.default_rng(11)
    for cells in rng.integers(1, 60, size=(20, 4)):
        items = PairedItems(*map(int, cells))
        ours = paired_interval("a/b", items, 0.95)[1]
        assert ours == pytest.approx(tuple(nam(cells.reshape(2, 2), alpha=0.05).confint), rel=1e-6)


def test_errors_ratio_swaps_the_roles_of_right_and_wrong():
    estimate, _ = paired_interval("errors", CAVO, 0.95)
    assert estimate == pytest.approx((6 + 80) / (16 + 80))  # (1 - acc_b) / (1 - acc_a)


def test_edge_tables_give_bounded_intervals_or_refuse():
    _, (low, high) = paired_interval("a/b", PairedItems(340, 0, 0, 20), 0.95)  # every item concordant
    assert low < 1.0 < high and high - low < 0.05
    assert paired_test("a/b", PairedItems(340, 0, 0, 20), 1.0, "larger")[1] == 1.0
    assert paired_interval("a/b", PairedItems(0, 0, 5, 20), 0.95)[1][0] == 0.0  # a never right
    assert paired_interval("points", PairedItems(0, 25, 0, 0), 0.95)[1][1] == 100.0
    with pytest.raises(StatisticsError, match="base of the ratio"):
        paired_interval("a/b", PairedItems(0, 5, 0, 20), 0.95)
    with pytest.raises(StatisticsError, match="equally long"):
        PairedItems.from_outcomes([True, False], [True])


# --------------------------------------------------------------------------- simulation

REPS = 2000
ITEMS = 360


def _tables(cells: tuple[float, float, float, float], seed: int) -> list[PairedItems]:
    """REPS seeded 2×2 tables of ITEMS correlated paired outcomes (cell probabilities: both, only a, only b,
    neither)."""
    counts = np.random.default_rng(seed).multinomial(ITEMS, cells, size=REPS)
    return [PairedItems(*map(int, row)) for row in counts]


def _truth(estimand: str, cells) -> float:
    both, only_a, only_b, neither = cells
    return {"a/b": (both + only_a) / (both + only_b), "points": 100 * (only_a - only_b),
            "errors": (only_a + neither) / (only_b + neither)}[estimand]


#: Two variants of one model: 93% and 95% accurate, erring mostly on the same items (strongly correlated).
CORRELATED = (0.92, 0.01, 0.03, 0.04)


@pytest.mark.parametrize("estimand", ["a/b", "points", "errors"])
def test_score_interval_covers_at_its_level(estimand):
    truth = _truth(estimand, CORRELATED)
    covered = [low <= truth <= high for _, (low, high) in
               (paired_interval(estimand, table, 0.95) for table in _tables(CORRELATED, seed=1))]
    assert 0.93 <= np.mean(covered) <= 0.97


@pytest.mark.parametrize("estimand, threshold, cells", [
    ("a/b", 0.95, (0.90, 0.012, 0.06, 0.028)),      # acc_a = 0.912 = 0.95 · acc_b (0.96)
    ("points", -3.0, (0.90, 0.01, 0.04, 0.05)),     # acc_a − acc_b = −3 points
    ("a/b", 1.0, (0.90, 0.03, 0.03, 0.04)),         # equal accuracies: McNemar's exact test
])
def test_test_keeps_its_size_at_the_null_boundary(estimand, threshold, cells):
    assert _truth(estimand, cells) == pytest.approx(threshold)
    p = [paired_test(estimand, table, threshold, "larger")[1] for table in _tables(cells, seed=2)]
    assert 0.02 <= np.mean(np.array(p) < 0.05) <= 0.075


def test_paired_test_has_more_power_than_the_independent_one_on_correlated_items():
    cells = (0.945, 0.005, 0.005, 0.045)  # equal accuracies (95%), the variants disagree on 1% of the items
    paired, independent = [], []
    for table in _tables(cells, seed=3)[:500]:
        paired.append(paired_test("a/b", table, 0.98, "larger")[1] < 0.05)
        counts = [(c, table.items) for c in table.correct]
        independent.append(proportion.relative_test("a/b", counts[0], counts[1], 0.98, "larger")[1] < 0.05)
    assert np.mean(paired) > 0.8 and np.mean(independent) < 0.5


# --------------------------------------------------------------------------- as claims see it

def _frame(outcomes: dict, items: bool | dict = True):
    """AccuracyOnly rows per precision (accuracy, items, correct) and, where ``items``, its item_correct rows
    (``items`` may map a precision to the sample indices it was scored on)."""
    rows = []
    for precision, right in outcomes.items():
        right = np.asarray(right, dtype=bool)
        common = {"benchmark": "infer", "workload": "mlp-large", "implementation": "torch", "ranks": 1, "threads": 1,
                  "size": 1, "precision": precision, "seed": -1, "run_id": f"{precision}/accuracy", "iteration": -1,
                  "rank": -1, "valid": True, "sample_index": -1}
        for metric, value, unit in (("accuracy", right.mean(), "1"), ("accuracy_samples", right.size, "samples"),
                                    ("accuracy_correct", right.sum(), "samples")):
            rows.append({**common, "metric": metric, "value": float(value), "unit": unit})
        if items is True or (isinstance(items, dict) and precision in items):
            indices = items[precision] if isinstance(items, dict) else range(right.size)
            rows += [{**common, "metric": "item_correct", "value": float(flag), "unit": "1", "sample_index": int(i)}
                     for i, flag in zip(indices, right)]
    return results.to_frame(results.from_records(rows, "infer"))


def _claim(at_least: float, definition: str = "relative"):
    return parse_claims([{"id": "int8-accuracy", "statement": "int8 keeps the accuracy", "kind": "accuracy_relative",
                          "relative_accuracy": definition, "metric": "accuracy", "a": {"precision": "int8"},
                          "b": {"precision": "fp32"}, "at_least": at_least}], "test")[0]


def _outcomes(only_a: int = 1, only_b: int = 4):
    """fp32 right on 342 of 360 items; int8 the same except ``only_a`` items it alone gets right and
    ``only_b`` it alone misses (the discordant items)."""
    fp32 = np.arange(360) < 342
    int8 = fp32.copy()
    int8[:only_b] = False
    int8[342:342 + only_a] = True
    return {"int8": int8, "fp32": fp32}


def test_same_items_make_a_paired_claim_with_discordant_counts_in_evidence_and_rendering():
    result = check_claim(_claim(0.97), _frame(_outcomes()))
    numbers = result.to_dict()["numbers"]
    assert numbers["design"] == "paired items"
    assert {k: numbers["items"][k] for k in ("both", "only_a", "only_b", "neither", "items")} == \
        {"both": 338, "only_a": 1, "only_b": 4, "neither": 17, "items": 360}
    assert numbers["test"]["name"] == TEST_NAMES["a/b"] + ", one-sided"
    assert numbers["method"].startswith("Tang's asymptotic score interval")
    assert result.verdict is ClaimVerdict.SUPPORTED, result.message  # 339 vs 342 of 360: paired [0.973, 1.006]
    assert "1 only a right, 4 only b right" in result.message
    facts = dict(claim_facts(result))
    assert "1 only a right and 4 only b right (discordant), 338 both right, 17 neither" in facts["paired items"]
    assert "McNemar's exact test" in facts["paired items"] and "Tang's" in facts["method"]
    unpaired = check_claim(_claim(0.97), _frame(_outcomes(), items=False))
    assert unpaired.verdict is ClaimVerdict.INCONCLUSIVE  # the same counts, independent: [0.957, 1.026]


def test_a_no_difference_threshold_uses_mcnemars_exact_test():
    result = check_claim(_claim(0.0, "absolute_points"), _frame(_outcomes(only_a=9, only_b=1)))
    assert result.numbers.test.name == MCNEMAR_NAME + ", one-sided"
    assert result.numbers.test.p_value == pytest.approx(11 / 1024)  # P(X >= 9), X ~ Bin(10, 1/2)


@pytest.mark.parametrize("items, why", [
    (False, "per-item outcomes not recorded (side a and b)"),
    ({"fp32": range(360)}, "per-item outcomes not recorded (side a)"),
    ({"fp32": range(360), "int8": range(1, 361)}, "scored on different items"),
])
def test_without_pairable_items_the_independent_test_says_so(items, why):
    result = check_claim(_claim(0.95), _frame(_outcomes(), items=items))
    assert result.numbers.design == "test set" and why in result.numbers.pairing
    assert "test_proportions_2indep" in result.numbers.test.name and why in result.message
    assert why in dict(claim_facts(result))["pairing"]


def test_item_rows_that_disagree_with_the_count_are_not_paired():
    frame = _frame(_outcomes())
    frame.loc[(frame["metric"] == "accuracy_correct") & (frame["precision"] == "int8"), "value"] = 300.0
    result = check_claim(_claim(0.95), frame)
    assert result.numbers.design == "test set" and "do not match its count" in result.numbers.pairing


def test_a_ratio_without_a_base_is_inconclusive_not_an_error():
    perfect = {"int8": np.ones(360, dtype=bool), "fp32": np.arange(360) < 342}  # int8 makes no error
    result = check_claim(_claim(2.0, "relative_to_errors"), _frame(perfect))
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    assert "base of the ratio has no counts" in result.message and "360 of 360 (a)" in result.message
