"""twelveways plan: invocations needed from variance components, and profile runtimes from invocation costs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from twelveways import config as config_module
from twelveways import plan, plan_cli, plan_rounds, plan_stages, results
from twelveways.compare import ab_analysis
from twelveways.errors import AuditInputError

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"


def test_the_runs_own_profile_is_predicted_as_the_sum_of_its_invocations(tmp_path):
    """The reference's own PRK settings as a profile: every configuration's invocations times its cost
    add up to the sweep's measured seconds (the costs share the sweep's time out)."""
    ds = results.open(REFERENCE / "results" / "prk.nc").load()
    own = config_module.validate({"seed": 12, "prk": results.attr_json(ds, "prk_config"),
                                  "measurement": {"min_samples": 5}})
    path = tmp_path / "own.yaml"
    path.write_text(json.dumps(own))
    del ds.attrs["prk_run_seconds"]  # a file written before each run's seconds were recorded
    results.write(ds, tmp_path / "run" / "results" / "prk.nc")
    record = plan.plan(tmp_path / "run", profiles={"own": path, "full": plan.PROFILES["full"]})
    predicted = record["profiles"]["own"]
    assert predicted["seconds"] == pytest.approx(float(ds.attrs["prk_sweep_seconds"]), rel=0.05)
    assert predicted["range"][0] <= predicted["seconds"] <= predicted["range"][1]
    # the full sizes do 4x to 16x the work per invocation, at 5 invocations where this run made up to 13
    assert record["profiles"]["full"]["seconds"] > 2 * predicted["seconds"]
    assert "equal share" in record["cost_source"]


def test_invocations_needed_follow_each_configurations_variance():
    record = plan.plan(REFERENCE, profiles={})
    rows = record["configurations"]
    assert len(rows) == 55 and all(r["invocations"] >= 1 for r in rows)
    noisy = max((r for r in rows if r["needed"]), key=lambda r: r["variance"])
    quiet = min((r for r in rows if r["needed"]), key=lambda r: r["variance"])
    assert noisy["needed"] > quiet["needed"] >= 2
    assert "Invocations per side to detect a 5% difference at 80% power" in plan.text(record)


@pytest.mark.slow  # a command started in its own interpreter: make test, not the unit tier
def test_a_folder_without_results_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "twelveways", "plan", "--results", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1


# ------------------------------------------------------------------------------------------ the whole profile


def _bench(folder: Path, seconds: dict[str, list[float]]) -> Path:
    """Snakemake benchmark files as the workflow writes them (a header, one row per repeat)."""
    folder.mkdir(parents=True, exist_ok=True)
    for rule, values in seconds.items():
        rows = "".join(f"{v}\t0:00:00\t100.0\n" for v in values)
        (folder / f"{rule}.tsv").write_text(f"s\th:m:s\tmax_rss\n{rows}")
    return folder


CRAFTED = {"environment": [10.0], "prk_build": [5.0], "prk_run": [60.0], "prk_placebo": [20.0], "train_data": [5.0],
           "train_sweeps": [30.0], "infer": [90.0], "notebook_prk": [14.0, 16.0], "checklist": [10.0],
           "report": [12.0]}


@pytest.fixture(scope="module")
def quick_profile():
    return config_module.load(plan.PROFILES["quick"])


def test_benchmark_files_are_read_per_rule_with_their_repeats(tmp_path):
    costs = plan_stages.rule_costs(_bench(tmp_path, CRAFTED))
    assert set(costs) == set(CRAFTED) and list(costs["notebook_prk"]) == [14.0, 16.0]
    (tmp_path / "broken.tsv").write_text("no seconds here\n")
    assert "broken" not in plan_stages.rule_costs(tmp_path)
    assert plan_stages.stage_of("notebook_prk") == "notebooks" and plan_stages.stage_of("new_rule") == "other"


def test_stages_without_results_are_carried_over_with_the_stated_allowance(tmp_path, quick_profile):
    """No results beside the benchmark files: every rule is a fixed cost, ±20 % (the repeats' spread if larger)."""
    run = plan_stages.Recorded(tmp_path, plan_stages.rule_costs(_bench(tmp_path / "bench", CRAFTED)),
                               quick_profile, None)
    predicted = plan_stages.predict_profile(run, quick_profile, None)
    by_stage = {row.stage: row for row in predicted.stages}
    assert predicted.seconds == pytest.approx(257.0)
    notebooks = 15.0 + max(0.2 * 15.0, 1.96 * float(np.std([14.0, 16.0], ddof=1)))  # the repeats' spread is larger
    assert by_stage["notebooks"].range == pytest.approx((30.0 - notebooks, notebooks))
    assert by_stage["infer"].range == pytest.approx((72.0, 108.0))
    half = 0.2 * (257.0 - 15.0) + (notebooks - 15.0)  # half-widths add over stages
    assert predicted.range == pytest.approx((257.0 - half, 257.0 + half))
    off = config_module.validate({**quick_profile, "stages": {"prk": True, "train": True, "infer": False},
                                  "subset_reasons": {"infer": "a test"}})
    without = plan_stages.predict_profile(run, off, None)
    assert without.seconds == pytest.approx(167.0)
    assert "not run by this profile: infer" in {r.stage: r for r in without.stages}["infer"].how


def test_prk_and_placebo_scale_the_sweep_by_the_profiles_counts(quick_profile):
    """The sweep's own prediction plus the rule's start-up; bounds by repeats; the A/A by configurations."""
    full = config_module.load(plan.PROFILES["full"])
    costs = {"prk_run": np.array([60.0]), "prk_bounds": np.array([3.0]), "prk_placebo": np.array([20.0])}
    sweep = {"seconds": 120.0, "range": [110.0, 130.0], "configurations": 60}
    prk = plan_stages.prk_estimate(costs, quick_profile, full, sweep, 55.0)
    # 120 s sweep + (60 - 55) s start-up + 3 s x 5/2 repeats of the bounds
    assert prk.seconds == pytest.approx(132.5)
    assert prk.half == pytest.approx(10.0 + 0.2 * 120.0 + 0.2 * 5.0 + 0.2 * 7.5)
    placebo = plan_stages.placebo_estimate(costs, quick_profile, full, sweep, (55.0, 55))
    # the sweep's start-up (60 - 55 s) carried over; the rest for all 60 configurations (full: 0 = all) where the
    # run repeated the quick profile's chosen few, at 2 s per configuration where it took 1 s
    repeated = quick_profile["measurement"]["placebo_configurations"]
    assert 0 < repeated < 60 and placebo.seconds == pytest.approx(5.0 + 15.0 * 60 / repeated * 2.0)


@pytest.fixture(scope="module")
def reference_record():
    return plan.plan(REFERENCE, profiles={})


@pytest.mark.slow  # reads the whole reference set (inference samples included)
def test_the_runs_own_profile_predicts_what_the_run_recorded():
    """From the reference, the quick profile (its own) is predicted near the sum of its recorded rules; the
    inference stage, with identical counts, exactly."""
    predicted = plan.whole(plan.plan(REFERENCE))
    recorded = sum(float(v.mean()) for v in plan_stages.rule_costs(REFERENCE / "logs" / "bench").values())
    quick = predicted["quick"]
    assert quick.seconds == pytest.approx(recorded, rel=0.05)
    assert quick.range[0] < recorded < quick.range[1]
    infer = {r.stage: r for r in quick.stages}["infer"]
    assert infer.seconds == pytest.approx(infer.recorded_s, rel=1e-9)
    full = {r.stage: r for r in predicted["full"].stages}
    # the full profile: 4 models x 3 variants x 18 LoadGen runs of at least 60 s each
    assert full["infer"].seconds > 4 * 3 * 18 * 60.0
    assert full["train"].seconds > infer.seconds / 10 and "238 training runs" in full["train"].how


@pytest.mark.slow  # reads the whole reference set (inference samples included)
def test_the_appendix_states_the_full_profiles_total_with_its_range_per_stage(tmp_path):
    from twelveways.report import appendix

    sources = appendix.Sources(None, tmp_path / "checklist.json", REFERENCE / "results" / "derived", None, None,
                               REFERENCE / "logs" / "bench", None, tmp_path)
    text = "\n".join(appendix.prediction_section(sources))
    assert re.search(r"\*\*Profile `full` \(predicted by `twelveways plan` from this run's recorded costs\): "
                     r"\d+ h \d+ min in total, 95% range \d+ h \d+ min to \d+ h \d+ min\*\*", text)
    for title in ("environment capture", "PRK sweep and bounds", "placebo (A/A) sweep", "training",
                  "inference (LoadGen)", "analysis notebooks", "checklist", "report and appendix"):
        assert f"| {title} |" in text
    assert "nan" not in text and "{" not in text
    gone = appendix.Sources(None, tmp_path / "c.json", tmp_path / "derived", None, None, None, None, tmp_path)
    assert appendix.prediction_section(gone) == []
    rebuilt = appendix.Sources.for_rebuild(REFERENCE, tmp_path / "reports")  # make reader-report's appendix
    assert appendix.prediction_section(rebuilt)[0] == text.splitlines()[0]


# ------------------------------------------------------------------------------------------ ab rounds


def test_ab_rounds_are_what_abs_own_plan_fixes_for_the_same_spread():
    rng = np.random.default_rng(4)
    for sd in (0.01, 0.03, 0.08):
        pilot = rng.normal(0.0, sd, ab_analysis.PILOT_ROUNDS)
        own = ab_analysis.Plan(confidence=0.95, effect=0.05).planned(pilot)
        spread = [{"configuration": "c", "sd": ab_analysis.spread(pilot), "cost_s": 0.5, "source": "test"}]
        found = plan_rounds.rounds(spread, [0.05], confidence=0.95, margin=0.02, pilot=ab_analysis.PILOT_ROUNDS,
                                   build_s=4.0)["answers"][0]
        assert found["configurations"][0]["rounds"] == own
        assert found["rounds_seconds"] == pytest.approx(2 * own * 0.5) and found["build_s"] == 8.0


def _ab_record(rows: list[dict], invocations: dict[str, list[dict]], seconds: float, program_runs: int) -> dict:
    """An ab record as ``twelveways ab`` writes it (what ``plan --ab-record`` reads back), with these rows and rounds."""
    shown = [{"kind": "cost", "n_base": 4, "n_new": 4, "verdict": "inconclusive", "reason": "few rounds", **row}
             for row in rows]
    return {"format": "twelveways-ab/1", "confidence": 0.95, "alpha": 0.05, "base": "a", "new": "b",
            "environment": {"compared": True}, "method": "paired", "counts": {"inconclusive": len(rows)},
            "noise_floor": {"margin": 0.02, "margin_text": "±2%", "measured": False, "text": "paired"},
            "rows": shown, "stability": {}, "only_base": [], "only_new": [],
            "ab": {"order_seed": 1, "rounds": 4, "program_runs": program_runs, "seconds": seconds, "stop": "fixed",
                   "stop_reasons": {}, "planned_rounds": {}, "stopping_rule": "fixed", "model": "paired",
                   "busy_rounds": 0, "paired_rounds": 4, "placement": {}, "placement_rule": "none",
                   "invocations": invocations}}


def test_ab_rounds_read_a_previous_ab_records_paired_rounds():
    base = [1.0, 1.1, 0.9, 1.05]
    new = [1.02, 1.15, 0.95, 1.04]
    invocations = [{"round": r + 1, "side": side, "position": p + 1, "mean_s": value} for r in range(4)
                   for p, (side, value) in enumerate((("base", base[r]), ("new", new[r])))]
    record = _ab_record([{"configuration": "stencil", "key": {"workload": "stencil", "implementation": "c-serial",
                                                              "ranks": 1, "threads": 1, "scaling": "single",
                                                              "size": 1000}},
                         {"configuration": "nstream", "key": {"workload": "nstream"}}],
                        {"stencil": invocations, "nstream": []}, 80.0, 40)
    found = plan_rounds.spreads_from_ab(record, {"workload": {"stencil"}}, "ab.json")
    assert len(found) == 1 and found[0]["cost_s"] == 2.0
    assert found[0]["sd"] == pytest.approx(ab_analysis.spread(np.log(np.array(new) / np.array(base))))
    with pytest.raises(AuditInputError, match="not a twelveways ab record"):
        plan_rounds.spreads_from_ab({k: v for k, v in record.items() if k != "ab"}, {}, "x.json")
    with pytest.raises(AuditInputError, match=r"^ab.json: comparison record: ab.invocations.stencil\[0\].mean_s is"):
        plan_rounds.spreads_from_ab(_ab_record([], {"stencil": [{**invocations[0], "mean_s": "1 s"}]}, 1.0, 1), {},
                                    "ab.json")


def test_ab_rounds_from_the_run_use_twice_the_invocation_variance(reference_record):
    record = reference_record
    spreads = plan_rounds.spreads_from_run(record["configurations"], {"workload": {"stencil"}})
    rows = [r for r in record["configurations"] if r["workload"] == "stencil"]
    assert len(spreads) == len(rows) > 0
    assert spreads[0]["sd"] == pytest.approx(np.sqrt(2 * rows[0]["variance"]))


@pytest.mark.parametrize("argv, message", [
    (["--ab-effect", "0"], "--ab-effect: '0' is not a fraction"),
    (["--ab-effect", "0.02"], "--ab-effect 0.02 is not beyond the ±0.02 margin"),
    (["--ab-effect", "0.05", "--only", "colour=red"], "--only 'colour=red'"),
    (["--only", "workload=stencil"], "give --ab-effect with them"),
    (["--bench", "{tmp}/none"], "no Snakemake benchmark files"),
])
def test_bad_plan_input_is_one_line_and_exit_two(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert plan_cli.main(["--results", str(REFERENCE), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and message in err


def test_results_without_per_run_times_leave_their_stage_carried_over(tmp_path, quick_profile):
    """A train.nc or inference.nc that records no run's wall time (another producer's, an old one): the stage's
    rules are carried over as recorded, and the line says why."""
    row = {"implementation": "torch", "ranks": 1, "threads": 1, "size": 8, "precision": "fp32", "seed": 1,
           "run_id": "a", "iteration": -1, "rank": -1, "metric": "test_accuracy", "value": 0.9, "unit": "1",
           "valid": True}
    results.write(results.from_records([{**row, "benchmark": "train", "workload": "mlp-small"}], "train", {}),
                  tmp_path / "train.nc")
    results.write(results.from_records([{**row, "benchmark": "infer", "workload": "reference"}], "infer", {}),
                  tmp_path / "inference.nc")
    costs = {"train_sweeps": np.array([30.0]), "infer": np.array([90.0])}
    train = plan_stages.train_estimate(tmp_path, costs, quick_profile, quick_profile)
    infer = plan_stages.infer_estimate(tmp_path, costs, quick_profile, quick_profile)
    assert (train.seconds, infer.seconds) == (30.0, 90.0)
    assert "no training run with a recorded wall time" in train.how
    assert "no LoadGen run with a recorded wall time" in infer.how
