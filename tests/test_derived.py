"""Derived results: the analysis stage writes what the report shows, and the checklist judges it.

A small crafted PRK result set (tests/browser/reportdata.py: per-rank, per-iteration times with
a warm-up and one failed run) goes through the PRK analysis; the derived file it writes must carry
every speedup's base case and absolute value, the summaries with n and coverage, the fits with
their number of points and the figure declarations, and make R1, R4 and R6 applicable.
"""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from browser import reportdata  # noqa: E402
from twelveways import derived, plots, results, stats  # noqa: E402
from twelveways import resultset  # noqa: E402
from twelveways.checklist import Status, audit  # noqa: E402
from twelveways.errors import ResultsError  # noqa: E402
from twelveways.prk import analysis as pa  # noqa: E402


def _rate_rows(rows: list[dict]) -> list[dict]:
    """PRK's own rate per valid run (iteration -1, rank -1): work over the mean of the per-iteration maxima."""
    out = []
    for run_id in sorted({r["run_id"] for r in rows if r["valid"]}):
        mine = [r for r in rows if r["run_id"] == run_id and r["iteration"] > 0]
        per_iteration = {}
        for r in mine:
            per_iteration[r["iteration"]] = max(per_iteration.get(r["iteration"], 0.0), r["value"])
        first = mine[0]
        out.append({**first, "iteration": -1, "rank": -1, "metric": "rate", "unit": "MB/s",
                    "value": first["bytes_per_iteration"] / np.mean(list(per_iteration.values())) / 1e6})
    return out


@pytest.fixture()
def crafted(tmp_path):
    """(raw prk.nc, derived prk.nc) written the way notebooks/prk.py writes them."""
    rows = reportdata.records(runs=4)
    rows += _rate_rows(rows)
    attrs = results.provenance(reportdata.ENVIRONMENT, reportdata.CONFIG)
    raw = results.write(results.from_records(rows, "prk", attrs={**attrs, "rank_summary": "max over ranks"}),
                        tmp_path / "prk.nc")
    samples = results.to_frame(results.open(raw))
    times = pa.iteration_times(samples)
    summary = pa.summarize(times)
    tables, fits = {}, []
    for kind in ("strong", "weak"):
        table, _ = pa.scaling_table(summary, kind)
        tables[kind] = table
        for _, part in table.groupby("group") if kind == "strong" else []:
            found = pa.amdahl_fits(part, times)
            fits += pa.fit_records(part, found, found)
    plots.forget_declarations()
    plots.declare("distributions", shows="distribution", lines="none", x="configuration", x_kind="categorical")
    written = pa.write_derived(tmp_path / "derived" / "prk.nc", raw, samples, times, summary, tables, fits, {})
    return raw, written


def _audit(*paths):
    return {c.id: c for c in audit.run(resultset.load([str(p) for p in paths], config=None)).checks}


def test_speedup_rows_state_their_base_case_and_its_absolute_value(crafted):
    raw, path = crafted
    ds = results.open(path)  # validates against the documented schema
    frame = results.to_frame(ds)
    speedups = frame[frame["metric"] == "speedup"]
    assert len(speedups) and set(frame["metric"]) == {"speedup", "efficiency"}
    assert speedups["base_case"].str.startswith("best serial run of size").all()
    assert (speedups["base_value"] > 0).all() and set(speedups["base_unit"]) == {"s"}
    assert (speedups["ci_low"] <= speedups["value"]).all() and (speedups["value"] <= speedups["ci_high"]).all()
    efficiency = frame[frame["metric"] == "efficiency"]
    assert efficiency["base_case"].str.startswith("one process of").all()
    assert set(frame["run_id"]) == {"derived"} and set(frame["iteration"]) == {-1} and set(frame["rank"]) == {-1}
    assert int(ds.attrs["derived"]) == 1 and ds.attrs["analysis_version"] == derived.ANALYSIS_VERSION
    origin = json.loads(ds.attrs["derived_from"])
    assert origin[0]["file"] == "prk.nc" and origin[0]["sha256"] == derived.sha256(raw)
    assert ds.attrs["environment_hash"] == results.open(raw).attrs["environment_hash"]


def test_summaries_fits_and_figures_are_recorded(crafted):
    _, path = crafted
    ds = results.open(path)
    summaries = json.loads(ds.attrs["summaries"])
    times = [s for s in summaries if s["metric"] == "time"]
    # one number per configuration, over its 4 invocations (12 timed iterations each), as the claims count them
    assert times and all(s["statistic"] == "geometric_mean" and s["n"] == 4 and s["values"] == 48 for s in times)
    assert all(s["ci_method"] == "t_log_invocations" and s["ci_level"] == "run_id" and len(s["ci"]) == 2
               and s["normality_checked"] for s in times)
    assert all(s["filters"]["benchmark"] == "prk" and "scaling" in s["filters"] for s in summaries)
    two_ranks = [s for s in times if s["filters"]["ranks"] == 2]
    assert two_ranks and all(s["rank_reduction"].startswith("max over ranks") for s in two_ranks)
    rates = [s for s in summaries if s["metric"] == "rate"]
    assert rates and all(s["statistic"] == "harmonic_mean" and s["n"] == 4 for s in rates)
    fits = json.loads(ds.attrs["fits"])
    pe_levels = {s["filters"]["ranks"] * s["filters"]["threads"] for s in times}
    if len(pe_levels) < 3:  # two process counts fit any one-parameter curve: no model is recorded
        assert fits == []
    else:
        assert fits and all(f["model"] == "amdahl" and f["n_points"] >= 3 and len(f["ci"]) == 2 for f in fits)
    assert json.loads(ds.attrs["figures"]) == [{"name": "distributions", "shows": "distribution", "lines": "none",
                                                "x": "configuration", "x_kind": "categorical"}]


def test_rate_summary_is_the_harmonic_mean_of_the_raw_rate_rows(crafted):
    raw, path = crafted
    frame = results.to_frame(results.open(raw))
    rate = next(s for s in json.loads(results.open(path).attrs["summaries"]) if s["metric"] == "rate")
    rows = resultset.select(frame, "rate", rate["filters"])
    assert len(rows) == rate["n"]
    assert rate["value"] == pytest.approx(len(rows) / np.sum(1.0 / rows["value"]), rel=1e-12)


def test_a_time_over_invocations_is_the_claims_number_and_the_checklist_recomputes_it(crafted):
    raw, path = crafted
    frame = results.to_frame(results.open(raw))
    time = next(s for s in json.loads(results.open(path).attrs["summaries"]) if s["metric"] == "time"
                and s["filters"]["ranks"] == 1)
    rows = resultset.select(frame, "time", time["filters"])
    rows = rows[rows["iteration"] > 0]
    groups = [part["value"].to_numpy() for _, part in rows.groupby("run_id")]
    means = np.array([g.mean() for g in groups])
    assert time["value"] == pytest.approx(float(np.exp(np.log(means).mean())), rel=1e-12)
    assert tuple(time["ci"]) == pytest.approx(stats.replicates.summary_interval(groups, "cost", 0.95)[1:], rel=1e-12)
    checks = _audit(raw, path)
    r3 = [e for e in checks["R3"].evidence if e.what == "stated numbers recomputed from the rows"]
    assert checks["R3"].status is Status.PASS and r3 and r3[-1].value["contradicts"] == 0
    assert r3[-1].value["agrees"] >= 2 * len([s for s in json.loads(results.open(path).attrs["summaries"])
                                              if s["metric"] == "time"])  # value and CI of each


def test_one_invocation_has_no_interval_and_says_so():
    summary = derived.replicate_summary([np.array([1.0, 1.1, 0.9])], metric="time", unit="s",
                                        filters={"benchmark": "x"}, confidence=0.95)
    assert summary["ci"] is None and summary["n"] == 1 and summary["values"] == 3
    assert summary["value"] == pytest.approx(1.0) and "one invocation: no interval over invocations" in summary["note"]


def test_a_median_summary_of_five_samples_has_no_ci_and_says_why():
    summary = derived.median_summary([1.0, 2.0, 3.0, 4.0, 5.0], metric="time", unit="s", filters={"benchmark": "x"},
                                     confidence=0.95)
    assert summary["ci"] is None and summary["coverage"] is None and summary["n"] == 5
    assert "needs at least 6" in summary["note"]


def test_audit_of_raw_and_derived_makes_r1_r4_r6_applicable(crafted):
    raw, path = crafted
    only_raw = _audit(raw)
    assert only_raw["R1"].status is Status.NOT_APPLICABLE
    checks = _audit(raw, path)
    assert checks["R1"].status is Status.PASS
    assert checks["R4"].status is Status.PASS and checks["R6"].status is Status.PASS
    assert any(str(path) == e.source.file for e in checks["R1"].evidence)


def test_a_speedup_without_base_case_in_a_derived_file_fails_r1(tmp_path, crafted):
    raw, _ = crafted
    bare = derived.row({"benchmark": "prk", "workload": "nstream", "implementation": "c-mpi", "ranks": 2,
                        "threads": 1, "size": 1000, "precision": "fp64"}, "speedup", 1.8, "1")
    path = derived.write(tmp_path / "bare.nc", derived.Derived("prk", [raw], rows=[bare]))
    assert _audit(raw, path)["R1"].status is Status.FAIL


def test_a_figure_declaration_outside_the_vocabulary_is_refused():
    with pytest.raises(ResultsError, match="lines must be one of"):
        plots.declare("bad", shows="samples", lines="spline", x="ranks", x_kind="categorical")


@pytest.mark.slow
def test_rebuild_writes_the_derived_results_of_each_family_notebook(synthetic_report):
    report = synthetic_report  # shared with tests/test_report.py in one test run
    path = report.parent / "derived" / "prk.nc"
    ds = results.open(path)
    figures = {f["name"] for f in json.loads(ds.attrs["figures"])}
    assert {"distributions", "time-ci", "qq", "scaling-strong", "roofline"} <= figures
    assert (results.to_frame(ds)["metric"] == "speedup").any()

