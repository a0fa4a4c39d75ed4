"""SC15 rules against crafted results: stated numbers recomputed, R5's whole truth, tests by any spelling."""

from __future__ import annotations

import json

import numpy as np
import pytest

from twelveways import results
from twelveways import resultset
from twelveways.checklist import Status, audit
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
    report = audit.run(resultset.load([str(p) for p in paths]))
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


def runs(factors_by_run: dict, **extra) -> list[dict]:
    """Per-iteration rows: {run_id: values of iterations 1..N} (iteration 0, the warm-up, comes first)."""
    return [dict(r, run_id=run, iteration=i, **extra) for run, values in factors_by_run.items()
            for i, r in enumerate(rows([values[0] * 3, *values]))]


def steady(seed: int, n: int = 40) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(0.0, 0.02, n)


def test_r5_counts_steady_runs_and_passes(tmp_path):
    path = write(tmp_path, runs({f"run{i}": steady(i) for i in range(3)}), ci_target=0.05)
    r5 = check([path], "R5")
    assert r5.status is Status.PASS
    stable = next(e.value for e in r5.evidence if str(e.what).startswith("stable:"))
    assert "stable: 3 of 3 per-iteration series" in text(r5) and stable["too short to judge"] == 0


def test_r5_warns_on_a_mid_run_shift_naming_the_run_iteration_and_size(tmp_path):
    shifted = steady(9)
    shifted[20:] *= 1.5  # iterations 21..40 run on a shared core
    path = write(tmp_path, runs({"run0": steady(0), "run1": steady(1), "hogged": shifted}), ci_target=0.05)
    r5 = check([path], "R5")
    # a third of the replicates (invocations) is hogged: the CI over the three invocations is far wider
    # than ±5% and nothing explains it; pooling 120 iterations as if independent had hidden that
    assert r5.status is Status.FAIL
    line = next(e for e in r5.evidence if "mid-run shift" in str(e.what))
    assert "run hogged" in line.what and "1.005 s -> 1.493 s (+48.6%) at iteration 21;" in line.what
    assert line.value["change_points_at_iteration"] == [21] and line.value["largest_shift"] == pytest.approx(0.5, abs=0.05)
    assert "stable: 2 of 3 per-iteration series" in text(r5)


def test_r5_warns_on_a_warmup_past_iteration_0_because_the_summaries_keep_it(tmp_path):
    slow_start = steady(4)
    slow_start[:6] *= 1.4  # iterations 1..6 still warming up
    path = write(tmp_path, runs({"run0": steady(0), "cold": slow_start}), ci_target=0.05)
    r5 = check([path], "R5")
    # two invocations whose means differ by the warm-up: a CI over two replicates cannot be within ±5%
    assert r5.status is Status.FAIL
    line = next(e for e in r5.evidence if "warm-up" in str(e.what))
    assert "run cold" in line.what and "steady from iteration 7" in line.what and "iterations 1..6 are summarized" in line.what


def test_r5_judges_the_max_over_ranks_and_calls_short_runs_too_short(tmp_path):
    fast, slow = steady(0), steady(1)
    slow[20:] *= 1.5  # only the slower rank shifts: the max over ranks shifts with it
    per_rank = [dict(r, rank=rank) for rank, values in ((0, fast), (1, slow)) for r in runs({"run0": values})]
    path = write(tmp_path, per_rank, rank_summary="max over ranks per iteration")
    assert "at iteration 21" in text(check([path], "R5"))
    short = write(tmp_path, runs({f"run{i}": steady(i, n=8) for i in range(3)}), name="short.nc")
    r5 = check([short], "R5")
    stable = next(e.value for e in r5.evidence if str(e.what).startswith("stable:"))
    assert stable["too short to judge"] == 3 and stable["judged"] == 0 and "fewer than 10 iterations" in text(r5)


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


def _bandwidth_files(tmp_path, bytes_per_iteration: float):
    """A kernel at 60 GB/s moving ``bytes_per_iteration``, a measured bound of 50 GB/s, a 32 MiB cache."""
    kernel = write(tmp_path, rows([60000.0] * 5, metric="rate", unit="MB/s", bytes_per_iteration=bytes_per_iteration))
    bound = write(tmp_path, [{**r, "benchmark": "bounds", "workload": "memory_bandwidth"}
                             for r in rows([50000.0] * 3, metric="bandwidth", unit="MB/s")], name="bounds.nc")
    env = tmp_path / "environment.json"
    env.write_text(json.dumps({"hardware": {"caches": {"L2": {"size_bytes": 2 ** 20}, "L3": {"size_bytes": 2 ** 25}}}}))
    return [kernel, bound], env


@pytest.mark.parametrize("bytes_per_iteration, expected", [(16 * 2 ** 20, Status.PASS), (96 * 2 ** 20, Status.WARN)])
def test_r11_sets_cache_resident_rates_aside_from_the_memory_bound(tmp_path, bytes_per_iteration, expected):
    """16 MiB per iteration fits the 32 MiB last-level cache: 1.2x the DRAM bound is no violation of it;
    96 MiB must stream from memory, so 1.2x the bound warns."""
    paths, env = _bandwidth_files(tmp_path, bytes_per_iteration)
    r11 = next(c for c in audit.run(resultset.load([str(p) for p in paths], environment=env)).checks if c.id == "R11")
    assert r11.status is expected
    assert ("32 MiB last-level cache" in text(r11)) is (expected is Status.PASS)
    without_cache_size = next(c for c in audit.run(resultset.load([str(p) for p in paths])).checks if c.id == "R11")
    assert without_cache_size.status is Status.WARN


def _one_configuration(values: np.ndarray, runs: np.ndarray) -> tuple[bool, bool, int, bool]:
    """R5's questions of one configuration's rows, answered the plain way (what _Configurations answers for all)."""
    distinct = np.unique(runs[runs >= 0]).size
    by_invocation = distinct >= 2 and values.size > distinct
    one_invocation = not by_invocation and values.size > 1 and distinct == 1
    finite = values[np.isfinite(values)]
    if by_invocation:
        keep = (runs >= 0) & np.isfinite(values)
        means = [values[keep & (runs == run)].mean() for run in np.unique(runs[keep])]
        counted = int(np.isfinite(means).sum())
    else:
        counted = finite.size
    return by_invocation, one_invocation, counted, finite.size > 1 and bool(np.all(finite == finite[0]))


def test_r5_answers_every_configuration_at_once_as_one_at_a_time():
    from twelveways.checklist.rules import _Configurations, _R5Arrays

    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 60))
        codes = rng.integers(0, 6, n)
        codes = np.unique(codes, return_inverse=True)[1]  # every code 0..C-1 present
        values = np.where(rng.random(n) < 0.15, np.nan, rng.choice([1.0, 2.0, 2.5], n))
        values[rng.random(n) < 0.05] = np.inf
        runs = rng.integers(-1, 4, n) if rng.random() < 0.8 else None
        arrays = _R5Arrays(values, np.full(n, "time", dtype=object), np.zeros(n, dtype=bool), runs, None, None)
        facts = _Configurations.of(arrays, codes, "")
        for code in range(codes.max() + 1):
            where = codes == code
            expected = _one_configuration(values[where], runs[where] if runs is not None else np.full(where.sum(), -1))
            assert (facts.by_invocation[code], facts.one_invocation[code], facts.values[code],
                    facts.deterministic[code]) == expected


def test_r10_recomputes_the_max_over_ranks_as_a_groupby_and_join_would():
    import pandas as pd

    from twelveways.checklist.rules import _max_over_ranks_mismatches

    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(5, 80))
        frame = pd.DataFrame({"ranks": rng.choice([1, 2, 4], n), "rank": rng.choice([-1, 0, 1], n),
                              "run_id": pd.Categorical(rng.choice(["r1", "r2"], n)),
                              "iteration": rng.choice([1.0, 2.0, np.nan], n), "metric": pd.Categorical(["time"] * n),
                              "value": np.where(rng.random(n) < 0.1, np.nan, rng.choice([1.0, 2.0, 3.0], n))})
        kinds = pd.Series(rng.choice(["cost", "rate"], n, p=[0.8, 0.2]))
        source = resultset.ResultSource("f.nc", {}, frame)
        source.__dict__["kinds"] = kinds  # the cached kinds of each row
        multi = frame[frame["ranks"] > 1]
        keys = ["run_id", "iteration", "metric"]
        costs = multi[(multi["rank"] >= 0) & (kinds[multi.index] == "cost")]
        joined = multi[multi["rank"] == -1].join(costs.groupby(keys, observed=True)["value"].max().rename("m"),
                                                 on=keys, how="inner")
        bad = int((~np.isclose(joined["value"], joined["m"], rtol=1e-9, atol=0)).sum())
        assert _max_over_ranks_mismatches(source) == ((bad, len(joined)) if len(joined) else None)
