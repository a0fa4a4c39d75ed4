"""Checklist engine: each crafted violation fails its own check and no other; the clean set passes.

The crafted results come from tests/data/good_results/make_results.py (written into tmp_path),
so every seeded violation is visible as code next to the clean set it modifies.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from twelveways import resultset
from twelveways.checklist import Status, audit
from twelveways.checklist import model
from twelveways.checklist.model import REGISTRY, ev, ordered_ids

sys.path.insert(0, str(Path(__file__).parent / "data" / "good_results"))
import make_results  # noqa: E402

ALL_CHECKS = [f"R{i}" for i in range(1, 13)] + [f"F{i}" for i in range(1, 13)]


def run_audit(paths: dict, claims=None):
    data = resultset.load(paths["results"], environment=paths["environment"], config=paths["config"])
    return audit.run(data, claims)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    paths = make_results.build(tmp_path_factory.mktemp("clean"))
    return paths, run_audit(paths)


def test_every_check_is_registered_once():
    """Whatever ran before (alone, first, or on any xdist worker): asking for the checks registers them."""
    assert audit.registered_checks() == ALL_CHECKS
    assert sorted(REGISTRY) == sorted(ALL_CHECKS) and ordered_ids() == ALL_CHECKS


def test_a_25th_check_is_one_function_and_its_registry_entry(clean):
    """Registering a check is all it takes: the audit runs it, in order, and reports it."""
    paths, _ = clean

    @model.check("F13", "a check added by a test")
    def f13_extra(audit):
        return Status.PASS, [ev("rows seen", int(len(audit.results.frame)), "", "rows")], ""

    try:
        report = run_audit(paths)
        assert [c.id for c in report.checks][-1] == "F13" and len(report.checks) == 25
        assert report.checks[-1].status is Status.PASS
    finally:
        REGISTRY.pop("F13")


def test_clean_set_passes_every_applicable_check(clean):
    _, report = clean
    statuses = {c.id: c.status for c in report.checks}
    assert {k: v for k, v in statuses.items() if v not in (Status.PASS, Status.NOT_APPLICABLE)} == {}
    # every check a violation is seeded for is applicable (and passes) on the clean set
    assert all(statuses[check] is Status.PASS for check in make_results.VIOLATIONS.values())
    assert {k for k, v in statuses.items() if v is Status.NOT_APPLICABLE} == {"F6", "F8"}
    assert report.verdict == "VALID"


def test_every_check_names_its_evidence(clean):
    _, report = clean
    for check in report.checks:
        assert check.evidence, check.id
        assert all(e.what and e.source.fields for e in check.evidence), check.id


@pytest.mark.parametrize("violation, check_id", sorted(make_results.VIOLATIONS.items()))
def test_seeded_violation_fails_its_check_and_no_other(tmp_path, violation, check_id):
    report = run_audit(make_results.build(tmp_path, violation))
    failed = sorted(c.id for c in report.checks if c.status is Status.FAIL)
    assert failed == [check_id]
    assert report.verdict == "INVALID"


def test_r3_recomputes_the_arithmetic_mean_of_a_rate(tmp_path):
    report = run_audit(make_results.build(tmp_path, "rate_arithmetic_mean"))
    r3 = next(c for c in report.checks if c.id == "R3")
    assert r3.status is Status.FAIL
    assert any(e.value == "arithmetic_mean" and "rate" in e.what for e in r3.evidence)  # wrong statistic for a rate
    # the stated value is still recomputed from the rows (it is their arithmetic mean: no contradiction)
    tally = next(e.value for e in r3.evidence if e.what == "stated numbers recomputed from the rows")
    assert tally["contradicts"] == 0 and tally["agrees"] >= 1


def test_r6_reports_the_shapiro_p_value_of_the_skewed_data(tmp_path):
    report = run_audit(make_results.build(tmp_path, "normality_assumed_on_skewed_data"))
    r6 = next(c for c in report.checks if c.id == "R6")
    shapiro = [e.value for e in r6.evidence if "Shapiro" in e.what]
    assert shapiro and shapiro[0]["p_value"] < 0.05 and shapiro[0]["skewness"] > 0


def test_prk_only_results_make_training_fallacies_not_applicable(tmp_path):
    paths = make_results.build(tmp_path)
    data = resultset.load(paths["results"][:1])
    report = audit.run(data)
    statuses = {c.id: c.status for c in report.checks}
    for check_id in ("F1", "F2", "F3", "F4", "F6", "F7", "F9", "F10", "F11", "F12"):
        assert statuses[check_id] is Status.NOT_APPLICABLE, check_id
    assert statuses["F5"] is Status.PASS  # PRK rates state their dtype
    assert statuses["R9"] is Status.WARN  # no environment.json given to match the hash


def test_metric_kinds_follow_units_and_names():
    kind = resultset.metric_kind
    assert kind("time", "s") == "cost" and kind("latency", "ns") == "cost"
    assert kind("rate", "MB/s") == "rate" and kind("throughput", "samples/s") == "rate"
    assert kind("speedup", "1") == "ratio" and kind("parallel_efficiency", "1") == "ratio"
    assert kind("test_accuracy", "1") == "quality"
    assert kind("wall_time", "s", {"wall_time": "curve"}) == "curve"


def test_stage_switched_off_without_reason_fails_r2(tmp_path):
    paths = make_results.build(tmp_path)
    Path(paths["config"]).write_text('{"stages": {"prk": true, "train": true, "infer": false}, "subset_reasons": {}}')
    report = run_audit(paths)
    assert next(c for c in report.checks if c.id == "R2").status is Status.FAIL


def rewrite(path: str, change) -> None:
    """Open a results file, let ``change(ds)`` edit it, write it back."""
    from twelveways import results

    ds = results.open(path)
    change(ds)
    results.write(ds, path)


def status_of(paths: dict, check_id: str) -> Status:
    return next(c.status for c in run_audit(paths).checks if c.id == check_id)


def test_r10_fails_when_the_whole_run_time_is_not_the_max_over_ranks(tmp_path):
    paths = make_results.build(tmp_path)

    def halve_whole_run_times(ds):
        mask = ((ds["rank"] == -1) & (ds["ranks"] == 2) & (ds["metric"] == "time")).values
        ds["value"].values[mask] /= 2

    rewrite(paths["results"][0], halve_whole_run_times)
    assert status_of(paths, "R10") is Status.FAIL


def test_r10_warns_without_synchronization_statement(tmp_path):
    """A missing statement is weak evidence, not a violation the data prove."""
    paths = make_results.build(tmp_path)
    rewrite(paths["results"][0], lambda ds: ds.attrs.pop("synchronization"))
    assert status_of(paths, "R10") is Status.WARN


@pytest.mark.parametrize("text, status", [
    ("relative to errors: variant error rate / fp32 error rate, must be <= 1 + tolerance", Status.PASS),
    ("absolute_points", Status.PASS),
    ("99% of the baseline", Status.FAIL),
])
def test_f12_reads_the_definition_key_or_its_text(tmp_path, text, status):
    paths = make_results.build(tmp_path)
    rewrite(paths["results"][2], lambda ds: ds.attrs.update(relative_accuracy_definition=text))
    assert status_of(paths, "F12") is status


def test_r5_accepts_a_recorded_stop_reason_for_a_wide_ci(tmp_path):
    paths = make_results.build(tmp_path, "ci_wider_than_target")

    def note(ds):
        ds["stop_reason"] = ("sample", ["max_seconds"] * ds.sizes["sample"])

    rewrite(paths["results"][1], note)
    assert status_of(paths, "R5") is Status.WARN  # wide but explained: a warning with counts, not a pass


def training_like(tmp_path, *, drop_topk_time=False, declared_trials=2):
    """Rows in the training benchmark's own vocabulary: time_to_train, time_per_step, sparsification, lr_search."""
    from twelveways import results

    rows = []

    def add(run_id, role, sparsification, metric, value, unit, **extra):
        rows.append({"benchmark": "train", "workload": "mlp-small", "implementation": "torch", "ranks": 1, "threads": 1,
                     "size": 8, "precision": "fp32", "seed": 0, "run_id": run_id, "iteration": -1, "rank": -1,
                     "metric": metric, "value": value, "unit": unit, "valid": True, "role": role,
                     "sparsification": sparsification, **extra})

    for sparsification, ttt, step in (("none", 10.0, 0.010), ("topk+ef", 9.0, 0.008)):
        for seed in range(6):
            run = f"{sparsification}/s{seed}"
            if not (drop_topk_time and sparsification != "none"):
                add(run, "final", sparsification, "time_to_train", ttt * (1 + 0.001 * seed), "s")
            add(run, "final", sparsification, "time_per_step", step * (1 + 0.001 * seed), "s")
            add(run, "final", sparsification, "train_accuracy", 0.99, "1")
            add(run, "final", sparsification, "test_accuracy", 0.96, "1")
    for trial in range(2):
        add(f"lr{trial}", "tuning", "none", "run_wall_time", 12.0, "s")
    attrs = {"lr_search": {"n_trials": declared_trials, "chosen_lr": 0.05, "total_cost_s": 24.0}}
    path = results.write(results.from_records(rows, "train", attrs=attrs), tmp_path / "train.nc")
    return audit.run(resultset.load([path]))


def test_training_vocabulary_synonyms_are_understood(tmp_path):
    statuses = {c.id: c.status for c in training_like(tmp_path).checks}
    assert (statuses["F2"], statuses["F3"], statuses["F4"]) == (Status.PASS, Status.PASS, Status.PASS)
    statuses = {c.id: c.status for c in training_like(tmp_path, drop_topk_time=True, declared_trials=3).checks}
    assert (statuses["F2"], statuses["F4"]) == (Status.FAIL, Status.FAIL)


def test_excluded_runs_name_the_loadgen_criteria_they_failed_and_their_role():
    """A run every check leaves out says why in LoadGen's own words (its criterion rows of value 0), and
    whether it was a server-search probe or a pilot, not just "every row marked invalid"."""
    from twelveways import resultset
    from twelveways.infer.parse import CRITERIA

    data = resultset.load([Path(__file__).resolve().parents[1] / "data" / "reference" / "results" / "inference.nc"])
    lines = resultset.excluded_runs(data)
    assert lines and not any("every row marked invalid" in line for line in lines)
    for line in lines:
        assert "LoadGen's result INVALID (" in line and any(f"{words}: NO" in line for words in CRITERIA), line
    search = [line for line in lines if "/Server/qps-" in line]
    assert search and all("(search run)" in line and "Performance constraints satisfied: NO" in line
                          for line in search)
    assert any("(pilot run)" in line for line in lines)
