"""SC15 rules against crafted results: stated numbers recomputed, R5's whole truth, tests by any spelling."""

from __future__ import annotations

import json

import numpy as np
import pytest

from twelveways import results
from twelveways.checklist import Status, audit, evidence
from twelveways.checklist.rules import canonical_test

TIMES = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9]


def rows(values=TIMES, metric="time", unit="s", **extra) -> list[dict]:
    return [{"benchmark": "mine", "workload": "k", "implementation": "c", "ranks": 1, "threads": 1, "size": 10,
             "precision": "fp64", "seed": 1, "run_id": f"r{i}", "iteration": -1, "rank": -1, "metric": metric,
             "value": float(v), "unit": unit, "valid": True, **extra} for i, v in enumerate(values)]


def write(tmp_path, records, name="mine.nc", **attrs):
    ds = results.from_records(records, "mine", attrs={k: json.dumps(v) if isinstance(v, (list, dict)) else v
                                                     for k, v in attrs.items()})
    return results.write(ds, tmp_path / name)


def check(paths, check_id):
    report = audit.run(evidence.load([str(p) for p in paths]))
    return next(c for c in report.checks if c.id == check_id)


def text(result) -> str:
    return json.dumps([e.to_dict() for e in result.evidence])


@pytest.mark.parametrize("statistic, stated, recomputed", [
    ("olympic_mean", 1.2, np.mean(sorted(TIMES)[1:-1])),   # below every run but the fastest
    ("median", 1.3, np.median(TIMES)),
    ("p90", 1.5, np.percentile(TIMES, 90)),
])
def test_a_stated_summary_the_rows_contradict_fails_r3_with_both_numbers(tmp_path, statistic, stated, recomputed):
    path = write(tmp_path, rows(), summaries=[{"metric": "time", "statistic": statistic, "value": stated,
                                               "filters": {"workload": "k"}}])
    r3 = check([path], "R3")
    assert r3.status is Status.FAIL
    assert f"stated {stated:.6g}" in text(r3) and f"{recomputed:.6g}" in text(r3)


def test_a_stated_summary_the_rows_reproduce_passes(tmp_path):
    path = write(tmp_path, rows(), summaries=[
        {"metric": "time", "statistic": "olympic_mean", "value": float(np.mean(sorted(TIMES)[1:-1])), "filters": {}},
        {"metric": "time", "statistic": "median", "value": float(np.median(TIMES)), "filters": {"workload": "k"}}])
    r3 = check([path], "R3")
    assert r3.status is Status.PASS and '"agrees": 2' in text(r3)


def test_an_unrecomputable_summary_warns_and_says_why(tmp_path):
    path = write(tmp_path, rows(), summaries=[{"metric": "time", "statistic": "median", "value": 1.0,
                                               "filters": {"workload": "missing"}}])
    r3 = check([path], "R3")
    assert r3.status is Status.WARN and "no valid rows match" in text(r3)


def test_a_derived_summary_is_recomputed_on_the_raw_rows_max_over_ranks(tmp_path):
    per_rank = [{**r, "run_id": "run", "iteration": i + 1, "rank": rank, "value": v + rank}
                for rank in (0, 1) for i, (r, v) in enumerate(zip(rows(), TIMES))]
    raw = write(tmp_path, per_rank)
    stated = float(np.median(np.array(TIMES) + 1))  # rank 1 is the slower one every iteration
    derived = write(tmp_path, rows([2.0], metric="speedup", unit="1", base_case="one process", base_value=1.0),
                    name="derived.nc", derived=1, summaries=[{"metric": "time", "statistic": "median", "value": stated,
                                                              "filters": {"workload": "k"},
                                                              "rank_reduction": "max over ranks per iteration"}])
    r3 = check([raw, derived], "R3")
    assert r3.status is Status.PASS and '"agrees": 1' in text(r3)


def test_r5_warns_with_counts_for_too_few_samples_and_n1_is_not_deterministic(tmp_path):
    single = rows([1.0], workload="k1")
    equal = [dict(r, workload="k2") for r in rows([2.0] * 5)]
    five = [dict(r, workload="k3") for r in rows([1.0, 1.2, 1.1, 1.3, 1.05])]
    path = write(tmp_path, single + equal + five, factors=["workload"])
    r5 = check([path], "R5")
    counts = next(e.value for e in r5.evidence if str(e.what).startswith("configurations"))
    assert r5.status is Status.WARN
    assert counts["deterministic"] == 1 and counts["too_few_unnoted"] == 2  # n=1 is not deterministic; n=5 has no CI
    assert "needs n >= 6" in text(r5)


def test_r5_fails_an_unnoted_wide_ci_only_against_a_stated_target(tmp_path):
    wide = rows([1.0, 3.0, 1.5, 2.5, 1.2, 2.8, 1.1, 2.9, 1.4, 2.2])
    path = write(tmp_path, wide, ci_target=0.05)
    assert check([path], "R5").status is Status.FAIL
    unstated = write(tmp_path, wide, name="u.nc")
    assert check([unstated], "R5").status is Status.WARN  # no target was set: the default proves nothing


@pytest.mark.parametrize("spelling, name", [
    ("Mann–Whitney U", "mann_whitney"), ("mannwhitneyu", "mann_whitney"), ("Wilcoxon rank-sum", "mann_whitney"),
    ("Welch's t", "welch_t"), ("ttest_ind", "t_test"), ("Kruskal-Wallis", "kruskal_wallis"),
    ("brunner-munzel", "brunner_munzel"), ("coin flip", ""),
])
def test_r7_reads_the_usual_spellings_of_each_test(spelling, name):
    assert canonical_test(spelling) == name


def test_r7_calls_an_unknown_test_unknown_not_missing(tmp_path):
    a = rows(TIMES)
    b = [dict(r, workload="j") for r in rows([t * 2 for t in TIMES])]
    base = {"metric": "time", "a": {"workload": "k"}, "b": {"workload": "j"}, "effect_size": 0.9}
    unknown = write(tmp_path, a + b, factors=["workload"], comparisons=[{**base, "method": "coin flip"}])
    r7 = check([unknown], "R7")
    assert r7.status is Status.WARN and "unknown test" in text(r7)
    missing = write(tmp_path, a + b, name="m.nc", factors=["workload"], comparisons=[{**base, "method": ""}])
    assert check([missing], "R7").status is Status.FAIL
    spelled = write(tmp_path, a + b, name="s.nc", factors=["workload"], comparisons=[{**base, "method": "mannwhitneyu"}])
    assert check([spelled], "R7").status is Status.PASS


def test_r8_ignores_boolean_latency_flags_and_recomputes_per_configuration(tmp_path):
    flags = [dict(r, metric="latency_bound_satisfied", unit="1", value=1.0) for r in rows(TIMES)]
    path = write(tmp_path, flags)
    assert check([path], "R8").status is Status.NOT_APPLICABLE
    latencies = rows([t * 1e6 for t in TIMES], metric="latency", unit="ns")
    other = [dict(r, workload="j", value=r["value"] * 10) for r in latencies]
    path = write(tmp_path, latencies + other, name="lat.nc", factors=["workload"])
    r8 = check([path], "R8")
    assert r8.status is Status.WARN and "no stored percentile" in text(r8)
    assert "configurations with percentiles recomputed per configuration" in text(r8) and " ns" in text(r8)


def test_r8_stored_percentile_rows_with_a_centre_only_summary_warn(tmp_path):
    """Decision: percentile rows exist but the summary a reader sees states only the centre -> warn."""
    latencies = rows([t * 1e6 for t in TIMES], metric="latency", unit="ns")
    p90 = rows([1.8e6], metric="latency_p90", unit="ns")
    centre = [{"metric": "latency", "statistic": "median", "value": float(np.median(TIMES)) * 1e6, "filters": {}}]
    path = write(tmp_path, latencies + p90, summaries=centre)
    assert check([path], "R8").status is Status.WARN
    tails = centre + [{"metric": "latency", "statistic": "p90", "value": float(np.percentile(TIMES, 90)) * 1e6,
                       "filters": {}}]
    path = write(tmp_path, latencies + p90, name="t.nc", summaries=tails)
    assert check([path], "R8").status is Status.PASS
    no_rows = write(tmp_path, latencies, name="c.nc", summaries=centre)
    assert check([no_rows], "R8").status is Status.FAIL
