"""The checklist's summary and what its checks read (issue 39).

* One renderer per record: each claim side is shown from its own fields (summary or median, runs and
  values, CI, method), on every claim of data/reference and on a crafted claim of every design.
* Summary first: the verdict and one line per check open checklist.md; excluded runs are one line per
  reason with counts, listed one by one further down, in md, html and json alike.
* Unknown is unknown: F8 without hardware facts needs a human, F7 counts no SUT name as a model, and an
  excluded run changes no check's result (LoadGen logs written from LoadGen's documentation, and real
  public LoadGen runs of tests/corpus).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_checklist_fallacies import audit_rows, check_of, row

from twelveways import resultset, results
from twelveways.checklist import Status, audit, render
from twelveways.checklist.model import AuditReport
from twelveways.claim_record import ClaimResult
from twelveways.claims import check_all, load_claims, parse_claims

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"
CORPUS = ROOT / "tests" / "corpus" / "mlperf_inference"


# --------------------------------------------------------------------------- one renderer per record

def assert_sides_show_their_fields(claim: dict) -> None:
    """Every side-table cell whose record holds a value shows it: "—" only where the record has none of the
    fields the column reads, and no "none" coverage beside an interval."""
    numbers = claim.get("numbers") or {}
    records = [numbers[k] for k in ("a", "b", "pairs") if isinstance(numbers.get(k), dict)]
    rows = render.claim_sides(ClaimResult.from_dict(claim))
    assert len(rows) == len(records), claim["id"]
    for record, cells in zip(records, rows):
        for column, fields in render.SIDE_FIELDS.items():
            if any(record.get(f) is not None for f in fields):
                assert cells[column] != "—", (claim["id"], column, record)
        for key in ("summary", "median"):
            if record.get(key) is not None:
                assert render._num(record[key]) in cells["value"], (claim["id"], cells)
        if record.get("ci"):
            assert cells["interval"].startswith("[") and not cells["coverage"].startswith("none"), (claim["id"], cells)
        if record.get("runs") is not None:
            assert f"{record['runs']} run" in cells["n"]


def rendered_everywhere(claims: list[dict]) -> list[str]:
    """The claims as checklist.md, checklist.html and the notebook's claims table show them."""
    from twelveways.report.checklistview import claims_frame

    report = {"inputs": [], "checks": [], "claims": claims}
    table = claims_frame(report)
    typed = AuditReport.from_dict(report)
    return [render.to_markdown(typed), render.to_html(typed), table.to_csv(index=False)]


def test_every_reference_claim_shows_its_side_records():
    """The stored checklist of data/reference: a replicate-design side shows its summary, runs and values and a
    nominal coverage beside its interval, never "—" and "none: n too small" beside n = 10 and an interval."""
    claims = json.loads((REFERENCE / "checklist.json").read_text())["claims"]
    assert claims
    for claim in claims:
        assert_sides_show_their_fields(claim)
    md = rendered_everywhere(claims)[0]
    assert "none: n too small" not in md and "runs holding" in md


@pytest.mark.slow  # the reference results re-read and every claim of config/claims.yaml re-checked
def test_every_claim_of_the_reference_results_rechecked_shows_its_side_records():
    data = resultset.load([REFERENCE / "results"])
    claims = [r.to_dict() for r in check_all(load_claims(ROOT / "config" / "claims.yaml"), data.frame)]
    for claim in claims:
        assert_sides_show_their_fields(claim)
    for text in rendered_everywhere(claims):
        assert "none: n too small" not in text


def _rows(groups: dict, *, iterations: int = 1, seeds: bool = False) -> list[dict]:
    """{(implementation, metric, unit): values per run} -> rows (one run per value, ``iterations`` rows each)."""
    rows = []
    for (impl, metric, unit), values in groups.items():
        for run, value in enumerate(values):
            for iteration in range(1, iterations + 1):
                rows.append({"benchmark": "prk", "workload": "transpose", "implementation": impl, "ranks": 2,
                             "threads": 1, "size": 1000, "precision": "fp64", "seed": run if seeds else -1,
                             "run_id": f"{impl}-{run}", "iteration": iteration if iterations > 1 else -1,
                             "rank": -1, "metric": metric, "value": float(value) * (1 + 0.001 * iteration),
                             "unit": unit, "valid": True})
    return rows


def crafted_claims() -> list[dict]:
    """A claim of every design the claims module has: independent (with and without an interval), paired by
    seed (deterministic per-seed estimate), one sample, replicates (several runs, one run), a counted test
    set with and without per-item outcomes (paired items, independent), and a side without samples; checked
    and Holm-adjusted as the audit does."""
    rng = np.random.default_rng(3)
    rows = _rows({("c-mpi", "time", "s"): 1 + rng.normal(0, 0.01, 20), ("mpi4py", "time", "s"): 2.5 + rng.normal(0, 0.02, 20),
                  ("few-a", "time", "s"): [1.0, 1.1, 1.05], ("few-b", "time", "s"): [2.0, 2.1, 2.2]})
    rows += _rows({("bf16", "test_accuracy", "1"): [0.95] * 5, ("fp32", "test_accuracy", "1"): [0.95] * 5}, seeds=True)
    rows += _rows({("iter-a", "iteration_time", "s"): [1.0, 1.01, 0.99, 1.0], ("iter-b", "iteration_time", "s"):
                   [2.5, 2.52, 2.49, 2.5], ("one-a", "iteration_time", "s"): [1.0], ("one-b", "iteration_time", "s"): [2.0]},
                  iterations=6)
    for impl, correct in (("int8", 340), ("fp32", 342), ("int8-items", 340), ("fp32-items", 342)):
        for metric, value in (("accuracy", correct / 360), ("accuracy_samples", 360), ("accuracy_correct", correct)):
            rows += _rows({(impl, metric, "1"): [value]})
        if impl.endswith("-items"):  # per-item outcomes of the same run: the claim pairs the two item by item
            item = {**rows[-1], "metric": "item_correct"}
            rows += [{**item, "value": float(i < correct), "sample_index": i} for i in range(360)]
    frame = results.to_frame(results.from_records(rows, "prk"))
    speed = {"kind": "speedup", "metric": "time", "at_least": 2.0, "statement": "s"}
    claims = parse_claims([
        {**speed, "id": "independent", "a": {"implementation": "c-mpi"}, "b": {"implementation": "mpi4py"}},
        {**speed, "id": "too-few", "a": {"implementation": "few-a"}, "b": {"implementation": "few-b"}},
        {**speed, "id": "no-samples", "a": {"implementation": "absent"}, "b": {"implementation": "mpi4py"}},
        {**speed, "id": "replicates", "metric": "iteration_time", "a": {"implementation": "iter-a"},
         "b": {"implementation": "iter-b"}},
        {**speed, "id": "one-run", "metric": "iteration_time", "a": {"implementation": "one-a"},
         "b": {"implementation": "one-b"}},
        {"id": "value", "statement": "s", "kind": "value", "metric": "time", "a": {"implementation": "c-mpi"},
         "at_most": 1.5},
        {"id": "paired", "statement": "s", "kind": "accuracy_relative", "metric": "test_accuracy",
         "relative_accuracy": "relative", "a": {"implementation": "bf16"}, "b": {"implementation": "fp32"},
         "at_least": 0.98},
        {"id": "test-set", "statement": "s", "kind": "accuracy_relative", "metric": "accuracy",
         "relative_accuracy": "relative", "a": {"implementation": "int8"}, "b": {"implementation": "fp32"},
         "at_least": 0.95},
        {"id": "paired-items", "statement": "s", "kind": "accuracy_relative", "metric": "accuracy",
         "relative_accuracy": "relative", "a": {"implementation": "int8-items"}, "b": {"implementation": "fp32-items"},
         "at_least": 0.95},
    ], "crafted")
    return [r.to_dict() for r in check_all(claims, frame)]


def test_a_crafted_claim_of_every_design_shows_its_side_records():
    claims = crafted_claims()
    designs = {c["numbers"].get("design") for c in claims}
    assert {"independent", "paired", "one sample", "replicates", "test set", "paired items"} <= designs, designs
    for claim in claims:
        assert_sides_show_their_fields(claim)
    md, page, table = rendered_everywhere(claims)
    replicate = md[md.index("### Claim replicates"):md.index("### Claim one-run")]
    assert "4 runs holding 24 values" in replicate and "(summary over runs)" in replicate and "nominal 95%" in replicate
    assert "runs as replicates" in replicate and "- *design:* —" not in md[:md.index("### Claim no-samples")]
    assert "none (one run)" in md[md.index("### Claim one-run"):]
    paired = md[md.index("### Claim paired-items"):]
    assert "*paired items:* 360 items: 0 only a right and 2 only b right (discordant), 340 both right" in paired
    assert "*pairing:* items not paired: per-item outcomes not recorded" in md[md.index("### Claim test-set"):]
    assert "— (" not in table and "nan" not in table


# --------------------------------------------------------------------------- summary first

LOADGEN_SUMMARY = """================================================
MLPerf Results Summary
================================================
SUT name : {sut}
Scenario : {scenario}
Mode     : PerformanceOnly
90th percentile latency (ns) : 2000000
Result is : {result}
  Min duration satisfied : {ok}
  Min queries satisfied : Yes
  Early stopping satisfied: {ok}
================================================
Additional Stats
================================================
QPS w/ loadgen overhead         : 500.00
QPS w/o loadgen overhead        : 510.00

Min latency (ns)                : 1000000
Max latency (ns)                : 3000000
Mean latency (ns)               : 1900000
50.00 percentile latency (ns)   : 1800000
90.00 percentile latency (ns)   : 2000000
99.00 percentile latency (ns)   : 2500000

================================================
Test Parameters Used
================================================
samples_per_query : 1
target_qps : 500
min_duration (ms): 600000
min_query_count : 1024

No warnings encountered during test.

No errors encountered during test.
"""


def write_loadgen(folder: Path, *, valid: bool = True, sut: str = "PySUT", version: str = "4.1.0",
                  scenario: str = "SingleStream") -> Path:
    """One LoadGen run directory as LoadGen's documentation describes it: mlperf_log_summary.txt and
    mlperf_log_detail.txt (``:::MLLOG`` JSON lines); LoadGen writes no hardware facts into either."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mlperf_log_summary.txt").write_text(LOADGEN_SUMMARY.format(
        sut=sut, scenario=scenario, result="VALID" if valid else "INVALID", ok="Yes" if valid else "NO"))
    keys = (("loadgen_version", version), ("effective_scenario", scenario), ("effective_min_duration_ms", 600000),
            ("effective_min_query_count", 1024), ("result_validity", "VALID" if valid else "INVALID"))
    (folder / "mlperf_log_detail.txt").write_text("".join(
        ":::MLLOG " + json.dumps({"key": k, "value": v, "time_ms": 0, "namespace": "mlperf::logging",
                                  "event_type": "POINT_IN_TIME", "metadata": {"is_error": False}}) + "\n"
        for k, v in keys))
    return folder


def _search_runs_file(tmp_path: Path) -> Path:
    """Our LoadGen stage's vocabulary: one valid performance run, three invalid server-QPS search runs and two
    invalid pilots (role column), and PRK-like times."""
    rows = []
    for run, role, valid in (("perf", "performance", True), ("qps-1", "search", False), ("qps-2", "search", False),
                             ("qps-3", "search", False), ("pilot-a", "pilot", False), ("pilot-b", "pilot", False)):
        rows += [row(benchmark="infer", workload="mlp", metric="latency", unit="ns", value=1e6 * (1 + q / 100),
                     run_id=run, role=role, valid=valid, iteration=q, status="" if valid else "LoadGen says INVALID")
                 for q in range(1, 30)]
    path = results.write(results.from_records(rows, "infer", attrs={}), tmp_path / "inference.nc")
    return path


def test_checklist_md_opens_with_the_verdict_and_every_check_in_its_first_15_lines(tmp_path):
    typed = audit.run(resultset.load([_search_runs_file(tmp_path)]))
    report = typed.to_dict()
    lines = render.to_markdown(typed).splitlines()
    head = "\n".join(lines[:15])
    assert lines[2].startswith("**Result is: ")
    for check in report["checks"]:  # every check's status is on the first screen, by id
        shown = render.STATUS_WORDS[check["status"]]
        assert check["id"] in head, check["id"]
        if check["status"] in ("warn", "fail", "needs_human"):  # its own line, with its title (six at most)
            assert f"  {check['id']} {check['title']}: {shown}" in lines[:15] or "more not passing" in head
    families = [line for line in lines[:15] if line.startswith(("SC15 rules R1-R12: ", "Fallacies F1-F12: "))]
    assert len(families) == 2
    summary = "Excluded from every check: 5 LoadGen runs invalid by design: 3 server-QPS search runs, 2 pilots"
    assert [line for line in lines[:15] if line.startswith("Excluded")] == [summary + ' (each listed under "Excluded runs")']
    table = [line for line in lines if line.startswith("| R1 ")]  # one line per check, with why and what to do
    assert len(table) == 1 and sum(line.startswith(("| R", "| F")) for line in lines) >= len(report["checks"])
    listed = lines.index("## Excluded runs")
    assert sum("(search run)" in line for line in lines[listed:]) == 3
    assert not any("(search run)" in line or "(pilot run)" in line for line in lines[:listed])


def test_excluded_runs_are_summarized_alike_in_json_and_html(tmp_path):
    typed = audit.run(resultset.load([_search_runs_file(tmp_path)]))
    report = typed.to_dict()
    assert report["excluded_summary"] == [{
        "line": "5 LoadGen runs invalid by design: 3 server-QPS search runs, 2 pilots", "count": 5, "what": "runs",
        "reason": "invalid by design (probes and pilots, never reported)", "by_design": True,
        "parts": {"server-QPS search runs": 3, "pilots": 2}}]
    assert len(report["excluded"]) == 5 and json.loads(render.to_json(typed))["excluded_summary"]
    page = render.to_html(typed)
    assert page.index("5 LoadGen runs invalid by design") < page.index("<h3>Checks")
    assert page.index("Excluded runs (5)") > page.index("<h3>Checks") and page.count("(search run)") == 3


def test_reference_inference_runs_invalid_by_design_are_one_counted_line():
    data = resultset.load([REFERENCE / "results" / "inference.nc"])
    summary = resultset.exclusion_summary(data.exclusions)
    by_design = [s for s in summary if s["by_design"]]
    assert len(by_design) == 1 and by_design[0]["count"] == len(resultset.excluded_runs(data))
    assert sum(by_design[0]["parts"].values()) == by_design[0]["count"]
    assert by_design[0]["line"].startswith(f"{by_design[0]['count']} LoadGen runs invalid by design: ")


def test_other_reasons_are_one_line_each_and_configurations_are_counted_apart():
    entries = [resultset.Exclusion("a.nc", f"run r{i}", "HPL FAILED residual") for i in range(3)]
    entries += [resultset.Exclusion("b.json", f"n={i}", "failed", configuration=True) for i in range(2)]
    entries += [resultset.Exclusion("c", "run x", "INVALID: Min duration satisfied not satisfied")]
    lines = [s["line"] for s in resultset.exclusion_summary(entries)]
    assert lines == ["3 runs excluded: HPL FAILED residual", "2 configurations not measured: failed",
                     "1 run excluded: INVALID: Min duration satisfied not satisfied"]
    many = [resultset.Exclusion("d", f"run {i}", f"reason {i}") for i in range(9)]
    summary = resultset.exclusion_summary(many)
    assert len(summary) == resultset.SUMMARY_REASONS and summary[-1]["count"] == 9 - (resultset.SUMMARY_REASONS - 1)


# --------------------------------------------------------------------------- unknown is unknown

def test_f8_on_two_loadgen_systems_without_hardware_facts_needs_a_human(tmp_path):
    """A 1-GPU workstation and an 8-GPU server: their logs differ in LoadGen's build only; that is no "same
    hardware"."""
    write_loadgen(tmp_path / "workstation", version="4.1.0")
    write_loadgen(tmp_path / "server", version="5.0.2")
    f8 = check_of(audit.run(resultset.load([tmp_path])), "F8")
    assert f8.status is Status.NEEDS_HUMAN
    text = json.dumps([e.to_dict() for e in f8.evidence])
    assert "hardware unknown for 2 of 2 systems" in text and "same hardware" not in text
    assert "system description" in f8.recommendation or "system description" in text


def test_f8_on_loadgen_runs_of_one_build_without_hardware_facts_needs_a_human(tmp_path):
    """Two LoadGen runs of one LoadGen build share the only environment their logs describe: that says nothing
    about the machines (real public runs of two systems, tests/corpus/mlperf_inference/bare, likewise)."""
    write_loadgen(tmp_path / "workstation")
    write_loadgen(tmp_path / "server")
    bare = CORPUS / "bare"
    for paths in ([tmp_path], [bare] if bare.is_dir() else []):
        if not paths:
            continue
        f8 = check_of(audit.run(resultset.load(paths)), "F8")
        assert f8.status is Status.NEEDS_HUMAN, paths
        assert "hardware unknown for 2 of 2 files" in json.dumps(f8.evidence[0].value)
    one = check_of(audit.run(resultset.load([tmp_path / "server"])), "F8")
    assert one.status is Status.NOT_APPLICABLE  # one run: nothing compared


def test_f7_counts_no_sut_name_as_a_model(tmp_path):
    """Outside a submission tree LoadGen names only its SUT ("PySUT"): no model; in MLPerf's tree the folder
    names it (resnet50), and the real INVALID run of MLPerf issue 1666 (SUT "PySUT") is excluded."""
    write_loadgen(tmp_path / "run")
    f7 = check_of(audit.run(resultset.load([tmp_path / "run"])), "F7")
    models = next(e.value for e in f7.evidence if e.what == "models")
    assert "PySUT" not in json.dumps(models) and f7.status is Status.WARN
    real = [CORPUS / "issue1666", CORPUS / "v4.1/closed/ASUSTeK/results/ESC4000A_E12_4XH100_TRT/resnet50/Offline"]
    f7 = check_of(audit.run(resultset.load(real)), "F7")
    assert next(e.value for e in f7.evidence if e.what == "models") == ["resnet50"]
    assert "PySUT" not in json.dumps([e.to_dict() for e in f7.evidence])


#: Evidence that counts what a check left out (R5: "runs their source judged invalid, left out"): not read.
LEFT_OUT = "runs their source judged invalid"


def _status_and_evidence(report, check_id: str) -> tuple:
    check = check_of(report, check_id)
    return check.status, [(e.what, json.dumps(e.value, sort_keys=True, default=str)) for e in check.evidence
                          if not e.what.startswith(LEFT_OUT)]


def _excluded(rows: list[dict]) -> list[dict]:
    """The same rows as one run that every check leaves out (all rows invalid, a pilot)."""
    return [{**r, "valid": False, "run_id": "pilot", "role": "pilot", "status": "INVALID"} for r in rows]


def _f7_rows():
    base = [row(workload="mlp", dataset=d, run_id=f"mlp-{d}") for d in ("digits", "digits32")]
    return base, _excluded([row(workload="cnn", dataset="digits")])


def _f9_rows():
    base = [row(workload="mlp", run_id=f"t{s}", seed=s) for s in range(3)]
    latency = [row(benchmark="infer", workload="mlp", metric="latency", unit="ns", value=1e6, iteration=q)
               for q in range(1, 10)]
    return base, _excluded(latency)


def _r5_rows():
    base = [row(benchmark="prk", workload="nstream", metric="time", unit="s", value=1.0, run_id=f"r{r}",
                iteration=i) for r in range(4) for i in range(1, 8)]
    wide = [row(benchmark="prk", workload="stream", metric="time", unit="s", value=float(v), iteration=i)
            for i, v in enumerate([1, 9, 2, 8, 3, 7], start=1)]
    return base, _excluded(wide)


def _r8_rows():
    base = [row(benchmark="infer", workload="mlp", metric="latency", unit="ns", value=1e6 * (1 + q / 50), iteration=q)
            for q in range(1, 40)]
    other = [row(benchmark="infer", workload="mlp", metric="request_latency", unit="ns", value=1e6, iteration=q)
             for q in range(1, 40)]
    return base, _excluded(other)


TAIL = {"summaries": [{"metric": "latency", "statistic": "p99", "value": 1.7e6, "unit": "ns"}]}


@pytest.mark.parametrize("check_id, rows, attrs", [
    ("F7", _f7_rows, {}), ("F9", _f9_rows, {}), ("R5", _r5_rows, {}), ("R8", _r8_rows, TAIL)])
def test_an_excluded_run_changes_no_check(tmp_path, check_id, rows, attrs):
    """Each excluded run would change its check's result if read (a second model for F7, an inference
    measurement for F9, a configuration far wider than the CI target for R5, a latency metric without
    percentiles for R8); beside the rows it leaves status and evidence as they were."""
    base, excluded = rows()
    alone = audit_rows(tmp_path / "alone", {"results": (base, attrs)})
    with_it = audit_rows(tmp_path / "with", {"results": (base, attrs), "excluded": (excluded, {})})
    assert any(line.endswith("(pilot run): INVALID") for line in with_it.excluded)
    assert _status_and_evidence(with_it, check_id) == _status_and_evidence(alone, check_id)
    read = audit_rows(tmp_path / "read", {"results": (base, attrs),
                                          "counted": ([{**r, "valid": True} for r in excluded], {})})
    assert _status_and_evidence(read, check_id) != _status_and_evidence(alone, check_id)  # it would change it


def test_an_excluded_loadgen_run_of_another_system_changes_no_f8_and_no_r5(tmp_path):
    """A valid LoadGen run beside an INVALID one of another LoadGen build: the invalid run's machine is not
    compared (F8 stays not applicable) and it makes no R5 warning; the real INVALID run of MLPerf issue 1666
    beside a real VALID ASUSTeK run likewise."""
    write_loadgen(tmp_path / "valid" / "run")
    write_loadgen(tmp_path / "invalid" / "run", valid=False, version="5.0.2")
    alone = audit.run(resultset.load([tmp_path / "valid"]))
    both = audit.run(resultset.load([tmp_path / "valid", tmp_path / "invalid"]))
    assert both.excluded and not alone.excluded
    for check_id in ("F8", "R5", "R8", "F7"):
        assert _status_and_evidence(both, check_id) == _status_and_evidence(alone, check_id), check_id
    offline = CORPUS / "v4.1/closed/ASUSTeK/results/ESC4000A_E12_4XH100_TRT/resnet50/Offline/performance/run_1"
    alone = audit.run(resultset.load([offline]))
    both = audit.run(resultset.load([offline, CORPUS / "issue1666"]))
    for check_id in ("F7", "F8", "R5", "R8"):
        assert _status_and_evidence(both, check_id)[0] == _status_and_evidence(alone, check_id)[0], check_id


def test_an_excluded_file_of_every_kind_changes_no_check_at_all(tmp_path):
    """Beside PRK-like times, one file whose every run is excluded (training, inference, a wide parallel
    configuration, latencies without percentiles): every check's status stays as it was, domains included."""
    base = _r5_rows()[0]
    excluded = []
    for rows in (_f7_rows, _f9_rows, _r5_rows, _r8_rows):
        excluded += rows()[1]
    excluded += _excluded([row(benchmark="prk", workload="nstream", metric="rate", unit="MB/s", value=v, ranks=4,
                               iteration=i) for i, v in enumerate([100, 900, 200], start=1)])
    alone = audit_rows(tmp_path / "alone", {"results": (base, {})})
    with_it = audit_rows(tmp_path / "with", {"results": (base, {}), "excluded": (excluded, {})})
    assert with_it.excluded
    assert {c.id: c.status for c in with_it.checks} == {c.id: c.status for c in alone.checks}
    counted = audit_rows(tmp_path / "read", {"results": (base, {}),
                                             "counted": ([{**r, "valid": True} for r in excluded], {})})
    changed = {c.id for c, a in zip(counted.checks, alone.checks) if c.status is not a.status}
    assert {"F7", "F9", "R5", "R8", "R10"} <= changed, changed  # what the file would change if it were read
