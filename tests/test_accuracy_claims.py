"""Accuracy claims decided from the test set: one deterministic evaluation per side has a binomial CI
from its test-set size (statsmodels), never "needs n >= 7 repetitions"; sides with seeds keep the
seed-level design.  Counts are those of data/reference (digits test split, 360 items: mlp-large
int8 343 correct, fp32 342)."""

from __future__ import annotations

import json
import re

import pytest
from scipy import stats as scipy_stats

from twelveways import results
from twelveways.claims import ClaimVerdict, check_claim, p_text, parse_claims
from twelveways.stats import proportion


def accuracy_frame(counts: dict, items: int = 360, seeds: int = 1):
    """{precision: correct (or a list per seed)} -> the rows an AccuracyOnly run writes (accuracy, items, correct)."""
    rows = []
    for precision, correct in counts.items():
        per_seed = correct if isinstance(correct, list) else [correct] * seeds
        for seed, right in enumerate(per_seed):
            common = {"benchmark": "infer", "workload": "mlp-large", "implementation": "torch", "ranks": 1, "threads": 1,
                      "size": 1, "precision": precision, "seed": seed if seeds > 1 else -1,
                      "run_id": f"{precision}-accuracy-{seed}", "iteration": -1, "rank": -1, "valid": True}
            for metric, value, unit in (("accuracy", right / items, "1"), ("accuracy_samples", items, "samples"),
                                        ("accuracy_correct", right, "samples")):
                rows.append({**common, "metric": metric, "value": float(value), "unit": unit})
    return results.to_frame(results.from_records(rows, "infer"))


def claim(at_least: float, definition: str = "relative"):
    return parse_claims([{"id": "int8-accuracy", "statement": "int8 keeps the accuracy", "kind": "accuracy_relative",
                          "relative_accuracy": definition, "metric": "accuracy", "a": {"precision": "int8"},
                          "b": {"precision": "fp32"}, "at_least": at_least}], "test")[0]


def test_accuracy_ci_is_the_exact_binomial_interval():
    accuracy = proportion.accuracy_ci(342, 360, 0.95)
    exact = scipy_stats.binomtest(342, 360).proportion_ci(0.95, method="exact")
    assert accuracy.accuracy == pytest.approx(0.95)
    assert accuracy.ci == pytest.approx((exact.low, exact.high))


def test_one_evaluation_per_side_is_decided_from_the_test_set():
    result = check_claim(claim(0.95), accuracy_frame({"int8": 343, "fp32": 342}))
    assert result.verdict is ClaimVerdict.SUPPORTED, result.message
    numbers = result.to_dict()["numbers"]
    assert numbers["design"] == "test set"
    assert numbers["a"]["test_set_items"] == 360 and numbers["a"]["correct"] == 343
    low, high = numbers["interval"]
    assert low < numbers["estimate"] < high and low > 0.95
    assert "343/360" in result.message and "342/360" in result.message
    assert "n_needed" not in numbers and "needs n" not in result.message


def test_a_margin_the_test_set_cannot_resolve_is_inconclusive_with_its_reason():
    result = check_claim(claim(0.99), accuracy_frame({"int8": 343, "fp32": 342}))
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    assert "straddles the threshold" in result.message and "360" in result.message


def test_a_clear_loss_is_not_supported():
    result = check_claim(claim(0.95), accuracy_frame({"int8": 300, "fp32": 342}))
    assert result.verdict is ClaimVerdict.NOT_SUPPORTED, result.message
    assert result.numbers.interval[1] < 0.95


@pytest.mark.parametrize("definition, threshold", [("absolute_points", -3.0), ("relative_to_errors", 0.5)])
def test_every_relative_accuracy_definition_has_a_test_set_interval(definition, threshold):
    result = check_claim(claim(threshold, definition), accuracy_frame({"int8": 343, "fp32": 342}))
    assert result.numbers.design == "test set"
    low, high = result.numbers.interval
    assert low <= result.numbers.estimate <= high
    assert result.message


def test_sides_with_seeds_keep_the_seed_level_interval():
    frame = accuracy_frame({"int8": [343, 341, 344, 342, 343], "fp32": [342, 342, 341, 343, 342]}, seeds=5)
    result = check_claim(claim(0.95), frame)
    assert result.numbers.design == "paired"


def test_numbers_hold_no_thousand_digit_fraction_and_no_p_of_zero():
    import numpy as np

    rng = np.random.default_rng(3)
    rows = [{"benchmark": "infer", "workload": "w", "implementation": impl, "ranks": 1, "threads": 1, "size": 1,
             "precision": "fp32", "seed": -1, "run_id": f"{impl}{i // 1000}", "iteration": i % 1000, "rank": -1,
             "metric": "latency", "value": float(v), "unit": "ns", "valid": True}  # 4 runs a side: the replicates
            for impl, centre in (("fast", 1e5), ("slow", 2e5)) for i, v in enumerate(rng.normal(centre, 100, 4000))]
    frame = results.to_frame(results.from_records(rows, "infer"))
    speedup = parse_claims([{"id": "s", "statement": "fast is faster", "kind": "speedup", "metric": "latency",
                             "a": {"implementation": "fast"}, "b": {"implementation": "slow"}, "at_least": 1.5}],
                           "test")[0]
    result = check_claim(speedup, frame)
    assert result.verdict is ClaimVerdict.SUPPORTED
    assert not re.search(r"\d{33,}", json.dumps(result.to_dict()["numbers"]))  # no exact fraction of a thousand digits
    assert "p=0 " not in result.message + " " and p_text(0.0) == "p<1e-300" and p_text(1.3e-9) == "p=1.3e-09"
