"""twelveways compare of result sets that carry only their publisher's stated summaries.

Real public files: two asv runs of one machine (MetPy's benchmark machine ``Docker_Container``:
tests/data/formats/asv/metpy and tests/data/compare/asv-metpy, README there), django-asv's two
machines (one run with samples, one with asv's statistics only), an MLPerf Inference compliance
run (TEST01) against its reference run (tests/corpus/mlperf_inference, ASUSTeK resnet50 Offline),
pytest-benchmark statistics without data, criterion's bootstrap estimates, and the environment
facts JMH, pyperf and asv files state.  The numbers checked are the publishers' own.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from twelveways import resultset
from twelveways import stats as tw_stats
from twelveways.compare import build, record, render, sides, stated, table, verdicts

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
METPY_BASE = DATA / "formats" / "asv" / "metpy" / "results" / "Docker_Container" / "c8379a14-virtualenv-py3.12.json"
METPY_NEW = DATA / "compare" / "asv-metpy" / "results" / "Docker_Container" / "71b9b41a-virtualenv-py3.12.json"
DJANGO = DATA / "formats" / "asv" / "results"
DJANGO_UBUNTU = DJANGO / "ubuntu-22.04" / "00370342-conda-py3.10.json"
DJANGO_WINDOWS = DJANGO / "windows-2022" / "fde6fb28-virtualenv-py3.10.json"
ASUS = ROOT / "tests" / "corpus" / "mlperf_inference" / "v4.1" / "closed" / "ASUSTeK"
LOADGEN_REFERENCE = ASUS / "results" / "ESC4000A_E12_4XH100_TRT" / "resnet50" / "Offline" / "performance" / "run_1"
COMPLIANCE = ASUS / "compliance" / "ESC4000A_E12_4XH100_TRT" / "resnet50" / "Offline"
PYTEST_STATS_ONLY = DATA / "formats" / "pytest-benchmark" / "github-action-benchmark-pytest_output.json"
CRITERION = DATA / "formats" / "criterion" / "regtail" / "big_file_tail" / "new"
PYPERF = ROOT / "tests" / "corpus" / "pyperf"
DECIDED = ("faster", "slower", "higher", "lower", "same")


def compared(base, new, **options) -> record.Comparison:
    return build.build(sides.load([str(p) for p in base], "base"), sides.load([str(p) for p in new], "new"),
                       **options)


def asv_results(path: Path) -> dict[str, list]:
    """asv's own columns per benchmark that has a result (version 2: result, params, ..., ci_a, ci_b, ...)."""
    data = json.loads(path.read_text())
    return {name: values for name, values in data["results"].items() if values[0] and values[0][0] is not None}


@pytest.fixture(scope="module")
def metpy() -> record.Comparison:
    return compared([METPY_BASE], [METPY_NEW])


# --- two asv runs of one machine ------------------------------------------------------------------

def test_two_asv_runs_of_one_machine_list_every_shared_benchmark_with_a_verdict_or_reason(metpy):
    base, new = asv_results(METPY_BASE), asv_results(METPY_NEW)
    shared = set(base) & set(new)
    assert len(shared) == 114
    rows = {row.key["workload"]: row for row in metpy.rows}
    assert set(rows) == shared and len(metpy.rows) == len(shared)
    assert metpy.only_base == () and list(metpy.only_new) == [
        "moist_thermo_benchmarks.TimeSuite.time_virtual_temperature_from_dewpoint: time_median [s]"]  # null in base
    for name in shared:
        row = rows[name]
        assert row.verdict in verdicts.VERDICTS and row.reason
        (b_value,), (n_value,) = base[name][0], new[name][0]
        assert row.summary_base == b_value and row.summary_new == n_value  # asv's own medians
        b_low, b_high, n_low, n_high = base[name][5][0], base[name][6][0], new[name][5][0], new[name][6][0]
        assert row.ci == pytest.approx([n_low / b_high, n_high / b_low], rel=1e-12)  # asv's 99% CIs, corners
        assert row.n_base == row.n_new == 1 and row.iterations_base == base[name][10][0]
        assert row.p_value is None and "coverage at least 99% x 99% = 98%" in row.ci_method
        if row.verdict != "inconclusive":
            assert row.ci[0] > 1.02 or row.ci[1] < 1 / 1.02 or (1 / 1.02 <= row.ci[0] and row.ci[1] <= 1.02)
            assert "missing for a full verdict: the variance between runs" in row.reason


def test_the_slower_cape_cin_of_the_newer_metpy_commit_is_found_from_asvs_intervals(metpy):
    rows = {row.key["workload"]: row for row in metpy.rows}
    cape = rows["soundings_benchmarks.TimeSuite.time_cape_cin"]
    assert cape.verdict == "slower" and cape.ratio == pytest.approx(0.006395373260602355 / 0.004765756971513232)
    assert cape.ci == pytest.approx([0.0062847 / 0.0051408, 0.0066901 / 0.004665])
    assert "asv's stated intervals of the median (base 99% [0.004665, 0.005141] of 10 values" in cape.reason
    assert metpy.counts == {"slower": 4, "inconclusive": 110}
    assert {r.key["workload"].rsplit(".", 1)[1] for r in metpy.rows if r.verdict == "slower"} == {
        "time_cape_cin", "time_mixed_layer_cape_cin", "time_most_unstable_cape_cin", "time_surface_based_cape_cin"}


def test_asvs_machine_json_enters_the_environment_diff(metpy):
    environment = metpy.environment
    assert environment.compared and environment.missing == ()
    assert environment.differences == ()  # one machine.json, one Python environment
    assert environment.sources == {side: "stated in the results files (asv: 1 file(s))" for side in ("base", "new")}
    text = render.markdown(metpy)
    assert "Not compared" not in text and "no shared configuration" not in text and "nan" not in text.lower()
    assert "Stated summaries: a configuration only stated" in text and "Verdicts: 4 slower, 110 inconclusive" in text
    assert "Stated summaries: a configuration only stated" in render.html_page(metpy)


def test_asv_samples_on_one_machine_and_asvs_statistics_on_another():
    """django-asv: ubuntu-22.04 recorded samples, windows-2022 only asv's statistics; the three benchmarks both
    ran are compared from what asv stated on both sides, the fourth is only on the base side once."""
    record = compared([DJANGO_UBUNTU], [DJANGO_WINDOWS])
    assert [r.key["workload"].rsplit(".", 1)[1] for r in record.rows] == [
        "time_form_clean", "time_form_create", "time_large_form_render"]
    assert list(record.only_base) == [
        "data_struct_benchmarks.multi_value_dict.benchmark.MultiValueDictBench.time_multi_value_dict: time [s]"]
    assert record.only_new == ()
    render_row = record.rows[2]
    assert render_row.summary_base == 0.045587484499947095 and render_row.summary_new == 0.02255895000007513
    assert render_row.ci == pytest.approx([0.022372 / 0.049257, 0.024471 / 0.043462])
    assert render_row.verdict == "faster"
    fields = {d.field: (d.a, d.b) for d in record.environment.differences}
    assert fields["machine"] == ("ubuntu-22.04", "windows-2022") and fields["env_name"] == ("conda-py3.10",
                                                                                              "virtualenv-py3.10")
    assert list(render_row.candidates) == ["another machine (by the name its results state): machine (other)"]


# --- LoadGen: a compliance run against its reference run ------------------------------------------

LOADGEN_STATED = {"samples_per_second": (270891, 271036), "latency_p50": (365081440488, 364829018445),
                  "latency_p99": (723613898831, None)}


def test_loadgen_compliance_run_against_its_reference_run_lists_every_statistic_with_the_reason():
    record = compared([LOADGEN_REFERENCE], [COMPLIANCE / "TEST01" / "performance" / "run_1"])
    rows = {row.key["metric"]: row for row in record.rows}
    assert set(rows) == {"latency_max", "latency_mean", "latency_min", "latency_p50", "latency_p90", "latency_p95",
                         "latency_p97", "latency_p99", "latency_p99.9", "samples_per_second"}
    assert record.only_base == record.only_new == ()
    for metric, (base, new) in LOADGEN_STATED.items():
        assert rows[metric].summary_base == base and (new is None or rows[metric].summary_new == new)
    assert "271036" in (COMPLIANCE / "TEST01" / "verify_performance.txt").read_text()  # the publisher's own score
    assert rows["samples_per_second"].kind == "rate"
    for row in record.rows:
        assert row.verdict == "inconclusive" and row.ci is None
        assert row.reason.startswith("LoadGen states no spread for this benchmark (both sides; ratio of the "
                                        "stated values")
        assert "several LoadGen runs per side" in row.reason
    assert record.environment.compared and record.environment.differences == ()  # one LoadGen build
    assert "mlperf-loadgen" in record.environment.sources["new"]


def test_several_loadgen_runs_per_side_are_compared_as_replicates():
    """Mechanics of the replicate path on real runs of one system (the reference and TEST05 runs against
    TEST01 and TEST04): each run's stated number is one replicate, n counts runs."""
    base = [LOADGEN_REFERENCE, COMPLIANCE / "TEST05" / "performance" / "run_1"]
    new = [COMPLIANCE / test / "performance" / "run_1" for test in ("TEST01", "TEST04")]
    record = compared(base, new)
    qps = next(r for r in record.rows if r.key["metric"] == "samples_per_second")
    assert (qps.n_base, qps.n_new) == (2, 2) and qps.ci is not None
    assert qps.summary_base == pytest.approx(np.sqrt(270891 * 270868))  # the runs' geometric mean (log model)
    assert qps.reason.endswith("(each run's stated samples_per_second one replicate)")
    uneven = compared([LOADGEN_REFERENCE], new)
    assert all(r.reason.startswith("stated values of 1 / 2 runs") for r in uneven.rows)


# --- A/A: a stated-summary file against itself is never faster or slower --------------------------

@pytest.mark.parametrize("path", [METPY_BASE, DJANGO_WINDOWS, LOADGEN_REFERENCE, PYTEST_STATS_ONLY],
                         ids=["asv-metpy", "asv-django", "loadgen", "pytest-benchmark"])
def test_a_stated_summary_file_against_itself_is_same_or_inconclusive_only(path):
    record = compared([path], [path])
    assert record.rows and record.only_base == record.only_new == ()
    assert {row.verdict for row in record.rows} <= {"same", "inconclusive"}
    for row in record.rows:
        assert row.ratio == 1.0
        if row.ci is not None:
            assert row.ci[0] <= 1.0 <= row.ci[1]


def test_pytest_benchmark_without_data_says_it_states_only_a_spread_and_what_would_decide():
    record = compared([PYTEST_STATS_ONLY], [PYTEST_STATS_ONLY])
    mean = next(r for r in record.rows if r.configuration == "bench.py::test_fib_10: time_mean [s]")
    assert mean.summary_base == 2.408868133322941e-05 and mean.iterations_base == 38523
    assert mean.reason.startswith("pytest-benchmark states only a spread of one run (iqr, stddev), no interval")
    assert "--benchmark-save-data" in mean.reason
    assert {r.configuration.rsplit(": ", 1)[1] for r in record.rows} == {
        "time_mean [s]", "time_median [s]", "time_min [s]", "time_max [s]"}  # spreads are no configuration


# --- the conservative interval: levels, coverage ---------------------------------------------------

def criterion_mean() -> stated.Stated:
    data = resultset.load([str(CRITERION)])
    columns = table.family_columns(data)
    found = stated.table(data, columns, {})
    return next(items[0] for key, items in found.items() if dict(key)["metric"] == "time_mean")


def test_two_criterion_95_percent_intervals_cover_less_than_95_percent_together():
    mean = criterion_mean()
    assert mean.confidence == 0.95 and mean.ci is not None and mean.fmt == "criterion"
    short = stated.judge_one("cost", mean, mean, 0.02, 0.95)
    assert short["verdict"] == "inconclusive" and "at least 90.2%, less than the 95% asked" in short["reason"]
    enough = stated.judge_one("cost", mean, mean, 0.5, 0.90)
    assert enough["verdict"] == "same" and enough["ci"] == pytest.approx((mean.ci[0] / mean.ci[1],
                                                                          mean.ci[1] / mean.ci[0]))


def simulated(rng, n: int, level: float, shift: float, replications: int) -> tuple[np.ndarray, np.ndarray]:
    """Order-statistic median CIs (as asv states them) of ``replications`` lognormal runs of n values."""
    values = rng.lognormal(shift, 0.3, (replications, n))
    low, high = tw_stats.median_ci(values, level, axis=1)
    return np.median(values, axis=1), np.stack([low, high], axis=1)


@pytest.mark.parametrize("level", [0.99, 0.95])
def test_the_ratio_interval_covers_at_least_the_product_of_the_stated_levels(level):
    """2000 seeded pairs of independent runs, true ratio 1.1: the corner interval covers it at least
    level**2 of the time (a conservative interval: in fact far more often)."""
    rng = np.random.default_rng(41)
    replications = 2000
    b_value, b_ci = simulated(rng, 10 if level == 0.99 else 12, level, 0.0, replications)
    n_value, n_ci = simulated(rng, 10 if level == 0.99 else 12, level, np.log(1.1), replications)
    covered = 0
    for i in range(replications):
        base = stated.Stated((), "cost", b_value[i], "asv", "median", tuple(b_ci[i]), level, 10)
        new = stated.Stated((), "cost", n_value[i], "asv", "median", tuple(n_ci[i]), level, 10)
        judged = stated.judge_one("cost", base, new, 0.02, level ** 2)
        covered += judged["ci"][0] <= 1.1 <= judged["ci"][1]
    assert covered / replications >= level ** 2 - 0.01  # binomial sd at most 0.007


def test_identical_runs_are_rarely_called_different_from_their_stated_intervals():
    rng = np.random.default_rng(7)
    b_value, b_ci = simulated(rng, 10, 0.99, 0.0, 2000)
    n_value, n_ci = simulated(rng, 10, 0.99, 0.0, 2000)
    called = sum(stated.judge_one("cost", stated.Stated((), "cost", b_value[i], "asv", "median", tuple(b_ci[i]), 0.99),
                                  stated.Stated((), "cost", n_value[i], "asv", "median", tuple(n_ci[i]), 0.99),
                                  0.02, 0.95)["verdict"] in ("faster", "slower") for i in range(2000))
    assert called / 2000 <= 1 - 0.99 ** 2  # at most the stated levels' error rate (in fact far below)


# --- environment facts other formats state ---------------------------------------------------------

def test_pyperf_metadata_and_jmh_jvm_enter_the_environment_diff():
    record = compared([PYPERF / "mult_list_py36.json"], [PYPERF / "mult_list_py38.json"])
    fields = {d.field: d for d in record.environment.differences}
    assert {"python_version", "python_cflags", "platform"} <= set(fields)
    assert fields["python_version"].class_ == "libraries"
    differing = [r for r in record.rows if r.verdict in ("faster", "slower")]
    assert differing and all(any(c.startswith("another Python or its build") for c in r.candidates)
                             for r in differing)
    jmh = DATA / "formats" / "jmh"
    base = sides.load([str(jmh / "json-bench-jmh-result.json")], "base")
    new = sides.load([str(jmh / "hollow-all-modes-jmh-result.json")], "new")
    jvm = {d["field"]: (d["a"], d["b"]) for d in build.explain.environment_diff(base.environment, new.environment)}
    assert jvm["jdkVersion"] == ("11", "1.8.0_322") and jvm["vmVersion"] == ("11+28", "25.322-b06")
    assert base.environment_path == "stated in the results files (jmh: 1 file(s))"
