"""Machine load during a stage (twelveways.contention) and how comparisons name a busy machine."""

from __future__ import annotations

import json
from pathlib import Path

from twelveways import contention, results
from twelveways.compare import build, sides

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "results" / "prk.nc"


def record(load: float, others: float | None = 0.0, steal: float | None = 0.0, cpus: int = 2) -> dict:
    return {"stage": "PRK stage", "cpus": cpus, "load_mean": load, "load_max": load, "others_share": others,
            "steal_share": steal, "seconds": 30.0, "samples": 30}


def test_busy_reason_names_each_cause_with_its_number():
    assert contention.busy_reason(record(4.9)) == "load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"
    assert "other processes used 35% of the CPU time" in contention.busy_reason(record(1.0, others=0.35))
    assert "the hypervisor stole 8% of the CPU time" in contention.busy_reason(record(1.0, steal=0.08))
    assert contention.busy_reason(record(2.1)) is None  # the stage itself fills 2 cores
    assert contention.busy_reason(record(2.0, others=None, steal=None)) is None
    assert contention.describe(None) == contention.UNKNOWN
    assert contention.describe(record(1.2)).startswith("quiet: load 1.2 on 2 cores")


def test_the_sampler_records_every_field_it_promises():
    with contention.Sampler("test stage", interval=0.01) as sampler:
        sum(i * i for i in range(200000))
    summary = sampler.summary
    assert summary["stage"] == "test stage" and summary["samples"] >= 2 and summary["cpus"] >= 1
    assert summary["load_max"] >= summary["load_mean"] >= 0
    assert summary["others_share"] is None or 0.0 <= summary["others_share"] <= 1.0


def test_a_comparison_names_a_busy_side_and_says_when_the_load_is_unknown(tmp_path):
    ds = results.open(REFERENCE).load()
    ds.attrs["contention"] = json.dumps(record(4.9))
    busy = results.write(ds, tmp_path / "busy" / "prk.nc")
    del ds.attrs["contention"]  # a file written before the load was recorded
    older = results.write(ds, tmp_path / "older" / "prk.nc")
    compared = build.build(sides.load([str(older)], "reference"), sides.load([str(busy)], "this run"))
    assert compared.machine_load["reference"] == (contention.UNKNOWN,)
    assert compared.machine_load["this run"] == ("load 4.9 on 2 cores during the PRK stage: rerun on an idle machine",)
    cause = "busy machine on the this run side: load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"
    undecided = [r for r in compared.rows if r.verdict == "inconclusive"]
    assert undecided and all(cause in r.candidates for r in undecided)


def _slower(ds, factor: float):
    """The same results with every PRK time multiplied by ``factor`` (a slower run of the same code)."""
    out = ds.copy(deep=True)
    times = (out["metric"] == "time").values
    out["value"].values[times] = out["value"].values[times] * factor
    return out


def test_a_busy_side_measured_slower_is_not_decidable_and_names_the_load(tmp_path):
    ds = results.open(REFERENCE).load()
    base = results.write(ds, tmp_path / "base" / "prk.nc")
    slow = _slower(ds, 1.5)
    quiet = results.write(slow, tmp_path / "quiet" / "prk.nc")
    slow.attrs["contention"] = json.dumps(record(4.9))
    busy = results.write(slow, tmp_path / "busy" / "prk.nc")
    on_quiet = build.build(sides.load([str(base)], "reference"), sides.load([str(quiet)], "this run"))
    assert on_quiet.counts.get("slower", 0) > 10  # 1.5x slower is found where the machine was quiet
    on_busy = build.build(sides.load([str(base)], "reference"), sides.load([str(busy)], "this run"))
    assert "slower" not in on_busy.counts and "same" not in on_busy.counts
    withdrawn = [r for r in on_busy.rows if r.reason.startswith("not decidable: busy machine on the this run "
                                                                "side: load 4.9 on 2 cores")]
    assert len(withdrawn) >= on_quiet.counts["slower"] and all("measured slower" in r.reason or
                                                               "measured same" in r.reason for r in withdrawn)
    assert on_busy.load_rule == build.LOAD_RULE
    # the busy side measured FASTER stands: load cannot explain a speedup
    reference_busy = ds.copy()
    reference_busy.attrs["contention"] = json.dumps(record(4.9))
    busy_new = results.write(reference_busy, tmp_path / "busy-new" / "prk.nc")
    faster = build.build(sides.load([str(quiet)], "reference"), sides.load([str(busy_new)], "this run"))
    assert faster.counts.get("faster", 0) == on_quiet.counts["slower"]


def test_r9_and_r5_name_a_busy_machine(tmp_path):
    from twelveways import resultset
    from twelveways.checklist import audit
    from twelveways.checklist.model import Status

    ds = results.open(REFERENCE).load()
    ds.attrs["contention"] = json.dumps(record(4.9))
    busy = results.write(ds, tmp_path / "prk.nc")
    checks = {c.id: c for c in audit.run(resultset.load([str(busy)])).checks}
    why = "load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"
    assert checks["R9"].status in (Status.WARN, Status.FAIL)
    assert any(e.value == why for e in checks["R9"].evidence)
    assert checks["R5"].status is Status.PASS or any(e.value == why for e in checks["R5"].evidence)


def test_the_report_headline_names_a_busy_machine(tmp_path):
    from twelveways.report import headline

    ds = results.open(REFERENCE).load()
    ds.attrs["contention"] = json.dumps(record(4.9))
    results.write(ds, tmp_path / "prk.nc")
    assert "Busy machine: load 4.9 on 2 cores during the PRK stage: rerun on an idle machine." in \
        headline.busy_html(tmp_path)
    assert headline.busy_html(REFERENCE.parent) == "" and headline.busy_html(None) == ""


def test_a_claim_the_data_do_not_support_names_the_busy_machine_that_measured_it(tmp_path):
    from twelveways import claims, resultset

    ds = results.open(REFERENCE).load()
    ds.attrs["contention"] = json.dumps(record(4.9))
    busy = results.write(ds, tmp_path / "busy" / "prk.nc")
    del ds.attrs["contention"]
    quiet = results.write(ds, tmp_path / "quiet" / "prk.nc")
    sides = {"a": {"workload": "dgemm", "implementation": "c-openmp", "threads": 2, "scaling": "strong"},
             "b": {"workload": "dgemm", "implementation": "c-serial", "threads": 1, "scaling": "single"}}
    asked = [claims.parse_claim({"id": "too-much", "statement": "s", "kind": "speedup", "metric": "time", **sides,
                                 "match": ["size"], "at_least": 50}, "test", 0),
             claims.parse_claim({"id": "any", "statement": "s", "kind": "speedup", "metric": "time", **sides,
                                 "match": ["size"], "at_least": 0.01}, "test", 1)]
    why = "load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"
    data = resultset.load([str(busy)])
    missed, met = claims.check_all(asked, data.frame, data.busy_machine())
    assert missed.verdict is claims.ClaimVerdict.NOT_SUPPORTED and missed.message.endswith(
        f"; a busy machine can explain this: {why}") and missed.numbers.busy_machine == [why]
    assert met.verdict is claims.ClaimVerdict.SUPPORTED and "busy" not in met.message  # nothing to explain
    data = resultset.load([str(quiet)])
    assert data.busy_machine() == {}
    assert "busy" not in claims.check_all(asked, data.frame, data.busy_machine())[0].message
