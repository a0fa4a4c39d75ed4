"""Claims: parsed strictly, checked with CIs of medians and Mann-Whitney, labelled with numbers."""

from __future__ import annotations

import numpy as np
import pytest

from twelveways import results
from twelveways.checklist import ClaimVerdict
from twelveways.checklist.claims import check_claim, load_claims, parse_claims, parse_lenient
from twelveways.errors import ClaimError


def frame_of(groups: dict) -> "pd.DataFrame":  # noqa: F821
    """{(implementation, metric, unit): values} -> a results frame (one run per value)."""
    rows = []
    for (impl, metric, unit), values in groups.items():
        for i, value in enumerate(values):
            rows.append({"benchmark": "prk", "workload": "transpose", "implementation": impl, "ranks": 2, "threads": 1,
                         "size": 1000, "precision": "fp64", "seed": -1, "run_id": f"{impl}-{i}", "iteration": -1,
                         "rank": -1, "metric": metric, "value": float(value), "unit": unit, "valid": True})
    return results.to_frame(results.from_records(rows, "prk"))


RNG = np.random.default_rng(7)
TIMES = frame_of({("c-mpi", "time", "s"): 1.0 + RNG.normal(0, 0.01, 20),
                  ("mpi4py", "time", "s"): 2.5 + RNG.normal(0, 0.02, 20),
                  ("numpy", "time", "s"): 1.05 + RNG.normal(0, 0.01, 20),
                  ("c-mpi", "rate", "MB/s"): 1000 + RNG.normal(0, 5, 20),
                  ("mpi4py", "rate", "MB/s"): 400 + RNG.normal(0, 3, 20),
                  ("fp32", "test_accuracy", "1"): [0.960] * 6,
                  ("bf16", "test_accuracy", "1"): [0.955] * 6})


def claim(**fields):
    base = {"id": "c", "statement": "s", "kind": "speedup", "metric": "time", "a": {"implementation": "c-mpi"},
            "b": {"implementation": "mpi4py"}, "at_least": 2.0}
    base.update(fields)
    return parse_claims([base], "test")[0]


def test_speedup_supported_with_numbers():
    result = check_claim(claim(), TIMES)
    assert result.verdict is ClaimVerdict.SUPPORTED
    assert result.numbers["estimate"] == pytest.approx(2.5, rel=0.03)
    low, high = result.numbers["interval"]
    assert low <= result.numbers["estimate"] <= high and low >= 2.0
    assert result.numbers["mann_whitney"]["p_value"] < 1e-6
    assert result.numbers["mann_whitney"]["rank_biserial"] == pytest.approx(-1.0)  # every c-mpi time is smaller


def test_speedup_of_a_rate_uses_a_over_b():
    result = check_claim(claim(metric="rate"), TIMES)
    assert result.verdict is ClaimVerdict.SUPPORTED
    assert result.numbers["estimate"] == pytest.approx(2.5, rel=0.03)


def test_speedup_not_supported_when_the_interval_misses():
    result = check_claim(claim(at_least=3.0), TIMES)
    assert result.verdict is ClaimVerdict.NOT_SUPPORTED
    assert result.numbers["interval"][1] < 3.0


def test_close_call_is_inconclusive():
    result = check_claim(claim(b={"implementation": "numpy"}, at_least=1.05), TIMES)
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    low, high = result.numbers["interval"]
    assert low < 1.05 < high


def test_claim_without_data_is_not_supported():
    result = check_claim(claim(a={"implementation": "c-openmp"}), TIMES)
    assert result.verdict is ClaimVerdict.NOT_SUPPORTED and "no valid samples" in result.message


@pytest.mark.parametrize("definition, threshold, estimate, verdict", [
    ("relative", 0.99, 0.955 / 0.960, ClaimVerdict.SUPPORTED),
    ("absolute_points", -0.4, -0.5, ClaimVerdict.NOT_SUPPORTED),
    ("relative_to_errors", 0.9, 0.040 / 0.045, ClaimVerdict.NOT_SUPPORTED),
])
def test_relative_accuracy_under_each_definition(definition, threshold, estimate, verdict):
    result = check_claim(claim(kind="accuracy_relative", metric="test_accuracy", a={"implementation": "bf16"},
                               b={"implementation": "fp32"}, at_least=threshold, relative_accuracy=definition), TIMES)
    assert result.numbers["estimate"] == pytest.approx(estimate)
    assert result.verdict is verdict


def test_relative_accuracy_without_definition_is_rejected():
    with pytest.raises(ClaimError, match=r"relative_accuracy: absolute_points \| relative \| relative_to_errors"):
        claim(kind="accuracy_relative", metric="test_accuracy", at_least=0.99)
    with pytest.raises(ClaimError, match="got 'percent'"):
        claim(kind="accuracy_relative", metric="test_accuracy", at_least=0.99, relative_accuracy="percent")


@pytest.mark.parametrize("fields, message", [
    ({"kind": "faster"}, "kind 'faster' is not one of"),
    ({"metric": ""}, "metric is missing"),
    ({"b": None}, "'b' .* must be a mapping"),
    ({"at_least": None}, "give at_least and/or at_most"),
    ({"at_least": "two"}, "at_least must be a number"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_malformed_claims_raise_one_line(fields, message):
    with pytest.raises(ClaimError, match=message):
        claim(**fields)


def test_embedded_claims_are_parsed_leniently():
    claims, problems = parse_lenient([{"id": "ok", "kind": "value", "metric": "time", "a": {}, "at_most": 3},
                                      {"id": "bad", "kind": "accuracy_relative", "metric": "acc", "a": {}, "b": {},
                                       "at_least": 0.9}], "file.nc")
    assert [c.id for c in claims] == ["ok"]
    assert problems[0][1] == "bad" and problems[0][3] == "accuracy_relative"


def test_match_picks_the_largest_common_level():
    rows = []
    for impl, size, t in (("a", 100, 1.0), ("a", 200, 1.0), ("b", 100, 1.5), ("b", 200, 3.0), ("b", 300, 9.0)):
        for i in range(8):
            rows.append({"benchmark": "prk", "workload": "w", "implementation": impl, "ranks": 1, "threads": 1,
                         "size": size, "precision": "fp64", "seed": -1, "run_id": f"{impl}{size}{i}", "iteration": -1,
                         "rank": -1, "metric": "time", "value": t * (1 + 0.001 * i), "unit": "s", "valid": True})
    frame = results.to_frame(results.from_records(rows, "prk"))
    result = check_claim(claim(a={"implementation": "a"}, b={"implementation": "b"}, match=["size"]), frame)
    assert result.numbers["matched"] == {"size": 200}
    assert result.verdict is ClaimVerdict.SUPPORTED and result.numbers["estimate"] == pytest.approx(3.0, rel=0.01)


def test_claims_file_and_its_errors(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("claims:\n  - {id: x, kind: speedup, metric: time, a: {implementation: c-mpi}, "
                    "b: {implementation: mpi4py}, at_least: 2}\n")
    assert [c.id for c in load_claims(path)] == ["x"]
    path.write_text("claims: [unclosed\n")
    with pytest.raises(ClaimError, match="malformed YAML"):
        load_claims(path)
    with pytest.raises(ClaimError, match="not found"):
        load_claims(tmp_path / "missing.yaml")


def test_project_claims_file_parses():
    from pathlib import Path

    claims = load_claims(Path(__file__).resolve().parents[1] / "config" / "claims.yaml")
    assert claims and all(c.statement for c in claims)
