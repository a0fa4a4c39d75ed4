"""Claims: parsed strictly; sides must be replicates of one configuration; CIs of medians with exact
coverage, one-sided Mann–Whitney or Wilcoxon signed-rank (paired by seed), Holm over the family."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from twelveways import results
from twelveways.claims import ClaimVerdict, check_claim, load_claims, parse_claims, parse_lenient
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
    assert result.numbers.estimate == pytest.approx(2.5, rel=0.03)
    low, high = result.numbers.interval
    assert low <= result.numbers.estimate <= high and low >= 2.0
    assert result.numbers.test.p_value < 1e-6
    assert result.numbers.test.effect_size.cliffs_delta == pytest.approx(-1.0)  # every c-mpi time is smaller


def test_speedup_of_a_rate_uses_a_over_b():
    result = check_claim(claim(metric="rate"), TIMES)
    assert result.verdict is ClaimVerdict.SUPPORTED
    assert result.numbers.estimate == pytest.approx(2.5, rel=0.03)


def test_speedup_not_supported_when_the_interval_misses():
    result = check_claim(claim(at_least=3.0), TIMES)
    assert result.verdict is ClaimVerdict.NOT_SUPPORTED
    assert result.numbers.interval[1] < 3.0


def test_close_call_is_inconclusive():
    result = check_claim(claim(b={"implementation": "numpy"}, at_least=1.05), TIMES)
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    low, high = result.numbers.interval
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
    assert result.numbers.estimate == pytest.approx(estimate)
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
    assert result.numbers.matched == {"size": 200}
    assert result.verdict is ClaimVerdict.SUPPORTED and result.numbers.estimate == pytest.approx(3.0, rel=0.01)


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


# --------------------------------------------------------------------------- replicates, exact confidence, Holm

from fractions import Fraction  # noqa: E402

from twelveways import resultset  # noqa: E402
from twelveways.checklist import audit, render  # noqa: E402
from twelveways.claims import below, centre, check_all  # noqa: E402


def runs_frame(runs: list[dict]) -> "pd.DataFrame":  # noqa: F821
    """One test_accuracy row per run: each dict gives the run's columns (precision, seed, value, extras)."""
    rows = []
    for i, run in enumerate(runs):
        row = {"benchmark": "train", "workload": "mlp-small", "implementation": "torch", "ranks": 1, "threads": 1,
               "size": 8, "precision": "fp32", "seed": -1, "run_id": f"run-{i}", "iteration": -1, "rank": -1,
               "metric": "test_accuracy", "unit": "1", "valid": True}
        row.update(run)
        rows.append(row)
    return results.to_frame(results.from_records(rows, "train"))


def accuracy_claim(**fields):
    return claim(kind="accuracy_relative", metric="test_accuracy", relative_accuracy="relative",
                 a={"precision": "bf16"}, b={"precision": "fp32"}, at_least=0.98, **fields)


def test_three_vs_three_is_not_supported_at_95_percent():
    frame = frame_of({("c-mpi", "time", "s"): [1.00, 1.01, 1.02], ("mpi4py", "time", "s"): [3.00, 3.01, 3.02]})
    result = check_claim(claim(at_least=1.0), frame)
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    assert result.numbers.interval is None and result.numbers.n_needed == {"a": 7, "b": 7}
    assert result.numbers.a.ci is None and result.numbers.a.range_coverage == pytest.approx(0.75)
    # all-equal sides (deterministic intervals): the exact one-sided Mann-Whitney p is exactly 1/20, not < 0.05
    flat = frame_of({("c-mpi", "time", "s"): [1.0] * 3, ("mpi4py", "time", "s"): [3.0] * 3})
    result = check_claim(claim(at_least=1.0), flat)
    assert result.numbers.test.p_value == pytest.approx(0.05)
    assert result.numbers.test.significant is False
    assert result.verdict is ClaimVerdict.INCONCLUSIVE and "not below α=0.05" in result.message


def test_p_values_compare_exactly_at_the_boundary():
    alpha = 1 - Fraction(repr(0.95))
    assert alpha == Fraction(1, 20) and (1.0 - 0.95) > 0.05  # the float trap this avoids
    assert not below(0.05, alpha) and not below(0.05 - 1e-17, alpha)
    assert below(0.0499, alpha) and not below(float("nan"), alpha)


def test_one_sample_is_never_deterministic():
    one = centre(np.array([0.95]), 0.95)
    assert one.deterministic is False and one.ci is None and one.coverage is None
    several = centre(np.array([0.95, 0.95]), 0.95)
    assert several.deterministic is True and several.ci == [0.95, 0.95]
    result = check_claim(accuracy_claim(), runs_frame([{"precision": "bf16", "value": 0.95},
                                                       {"precision": "fp32", "value": 0.95}]))
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    assert result.numbers.a.n == 1 and "a needs n >= 7, b needs n >= 7" in result.message


@pytest.mark.parametrize("column, levels, text", [
    ("lr", (0.05, 0.01), "side b spans lr=0.01, 0.05"),
    ("learning_rate", (0.05, 0.01), "side b spans learning_rate=0.01, 0.05"),
    ("workload", ("mlp-small", "cnn-small"), "side b spans workload=cnn-small, mlp-small"),
])
def test_a_side_spanning_two_configurations_is_inconclusive(column, levels, text):
    runs = [{"precision": "bf16", "seed": s, "value": 0.95, column: levels[0]} for s in range(8)]
    runs += [{"precision": "fp32", "seed": s, "value": 0.95, column: levels[s % 2]} for s in range(8)]
    result = check_claim(accuracy_claim(), runs_frame(runs))
    assert result.verdict is ClaimVerdict.INCONCLUSIVE
    assert text in result.message and "name them in the claim" in result.message
    assert "side a" not in result.message and list(result.numbers.spans) == ["b"]


def test_role_and_lr_are_named_together_and_replicates_are_not():
    runs = [{"precision": "fp32", "seed": s, "value": 0.95, "lr": 0.05, "role": "final", "stop_reason": "x" * s}
            for s in range(6)]
    runs += [{"precision": "fp32", "seed": 99, "value": 0.94, "lr": lr, "role": "tuning"} for lr in (0.005, 0.2)]
    result = check_claim(claim(kind="value", metric="test_accuracy", a={"precision": "fp32"}, b=None, at_least=0.9),
                         runs_frame(runs))
    assert "side a spans lr=0.005, 0.05, 0.2 and role=final, tuning" in result.message
    named = check_claim(claim(kind="value", metric="test_accuracy", a={"precision": "fp32", "role": "final"}, b=None,
                              at_least=0.9), runs_frame(runs))
    assert named.numbers.spans is None  # seeds, run ids and stop reasons are replicates/outcomes, not factors


def test_sides_sharing_seeds_are_paired_by_seed():
    rng = np.random.default_rng(3)
    base = 0.9 + 0.05 * rng.random(8)
    runs = [{"precision": "fp32", "seed": 100 + s, "value": v} for s, v in enumerate(base)]
    runs += [{"precision": "bf16", "seed": 100 + s, "value": v * 0.995} for s, v in enumerate(base)]
    result = check_claim(accuracy_claim(), runs_frame(runs))
    assert result.numbers.design == "paired" and result.numbers.pairs.n == 8
    assert result.numbers.estimate == pytest.approx(0.995)
    assert result.numbers.interval == pytest.approx([0.995, 0.995])  # every per-seed ratio is 0.995
    assert result.numbers.test.name.startswith("Wilcoxon signed-rank")
    assert result.numbers.test.p_value == pytest.approx(1 / 256)
    assert result.verdict is ClaimVerdict.SUPPORTED
    # five pairs that differ: too few for a 95% CI of the median ratio -> inconclusive, six pairs needed
    noisy = [dict(r, value=r["value"] * (1 + 0.01 * (i % 3))) for i, r in enumerate(runs) if r["seed"] < 105]
    result = check_claim(accuracy_claim(), runs_frame(noisy))
    assert result.verdict is ClaimVerdict.INCONCLUSIVE and result.numbers.n_needed == {"pairs": 6}


def test_holm_over_the_family_turns_a_lone_support_inconclusive():
    runs = [{"precision": p, "seed": s, "value": 0.95} for p in ("fp32", "bf16") for s in range(5)]
    frame = runs_frame(runs)
    alone = check_all([accuracy_claim()], frame)[0]
    assert alone.verdict is ClaimVerdict.SUPPORTED and alone.numbers.holm.p_adjusted == pytest.approx(1 / 32)
    family = check_all([accuracy_claim(id="one"), accuracy_claim(id="two")], frame)
    for result in family:
        assert result.numbers.test.p_value == pytest.approx(1 / 32)
        assert result.numbers.holm.to_dict() == {"family_size": 2, "p_adjusted": pytest.approx(1 / 16), "significant": False}
        assert result.numbers.per_claim_verdict == "supported"
        assert result.verdict is ClaimVerdict.INCONCLUSIVE and "not after Holm over 2 claims" in result.message


def test_every_format_shows_n_coverage_and_holm_per_claim(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "data" / "good_results"))
    import make_results

    paths = make_results.build(tmp_path / "set")
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text("claims:\n- {id: bf16-iterations, statement: bf16 iterations are faster, kind: speedup, "
                           "metric: iteration_time, a: {precision: bf16, role: final}, b: {precision: fp32, "
                           "approximation: none, workload: mlp-small, batch_size: 32, size: 8, role: final}, "
                           "at_least: 1.05}\n")
    data = resultset.load(paths["results"], environment=paths["environment"], config=paths["config"])
    typed = audit.run(data, claims_file)
    report = typed.to_dict()
    ours = next(c for c in report["claims"] if c["id"] == "bf16-iterations")
    numbers = ours["numbers"]
    assert numbers["design"] == "paired" and numbers["a"]["n"] == 6 and numbers["b"]["n"] == 6
    assert numbers["coverage"] >= 0.95 and numbers["holm"]["family_size"] == 2  # with the embedded topk claim
    assert numbers["holm"]["p_adjusted"] == pytest.approx(min(1.0, 2 * numbers["test"]["p_value"]))
    assert '"p_adjusted"' in render.to_json(typed) and '"coverage"' in render.to_json(typed)
    md, page = render.to_markdown(typed), render.to_html(typed)
    claims_md = md[md.index("## Claims"):md.index("## Checks")]
    claims_html = page[page.index("<h3>Claims"):page.index("</details>", page.index("bf16-iterations: "))]
    for text in (claims_md, claims_html):
        assert "Holm-adjusted p" in text and "adjusted p = " in text and "per claim: supported" in text
        assert "a (claimed better)" in text and "b (base case)" in text and "per-seed estimate" in text
        assert "(target 95%)" in text and "achieved coverage" in text
        assert "{'" not in text and '{"' not in text  # no raw dicts


def runs_of_iterations(effects: dict, iterations: int = 10, noise: float = 0.005, seed: int = 4):
    """{implementation: [per-run factor, ...]} -> a frame of runs with ``iterations`` time rows each."""
    rng = np.random.default_rng(seed)
    rows = []
    for impl, (base, factors) in effects.items():
        for run, factor in enumerate(factors):
            for iteration in range(1, iterations + 1):
                rows.append({"benchmark": "prk", "workload": "transpose", "implementation": impl, "ranks": 2,
                             "threads": 1, "size": 1000, "precision": "fp64", "seed": 12, "run_id": f"{impl}#{run}",
                             "iteration": iteration, "rank": -1, "metric": "time", "unit": "s", "valid": True,
                             "value": float(base * factor * np.exp(rng.normal(0, noise)))})
    return results.to_frame(results.from_records(rows, "prk"))


def test_time_claims_count_runs_not_iterations():
    """Two runs per side whose own levels differ by 40%: 20 iterations per side would make a 2.2x
    speedup look certain; counted as the 2 runs they are, it is not established (issue 28)."""
    frame = runs_of_iterations({"c-mpi": (1.0, [1.0, 1.4]), "mpi4py": (2.5, [1.0, 1.4])})
    result = check_claim(claim(), frame)
    assert result.numbers.design == "replicates" and result.numbers.a.runs == 2
    assert result.numbers.a.values == 20
    assert result.verdict is ClaimVerdict.INCONCLUSIVE and "from 2 and 2 runs (the replicates)" in result.message
    steady = runs_of_iterations({"c-mpi": (1.0, [1.0, 1.01, 0.99]), "mpi4py": (2.5, [1.0, 0.99, 1.01])})
    result = check_claim(claim(), steady)
    assert result.verdict is ClaimVerdict.SUPPORTED and result.numbers.estimate == pytest.approx(2.5, rel=0.02)
    one = runs_of_iterations({"c-mpi": (1.0, [1.0]), "mpi4py": (2.5, [1.0])})
    result = check_claim(claim(), one)
    assert result.verdict is ClaimVerdict.INCONCLUSIVE and result.message.startswith("one run per side")
