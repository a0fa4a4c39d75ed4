"""``twelveways ab``: the paired analysis on simulated rounds, its stopping rule, its load rule, its arguments, and
one small real A/B run of the working tree against itself.

The simulations draw rounds as the machine produces them: a drift shared by both invocations of a round (a
random walk, far larger than the effects) plus each invocation's own noise; they run through the same
:class:`~twelveways.compare.ab_analysis.Progress` and :func:`~twelveways.compare.ab_analysis.analyse` as a real
run.  Seeded, a few hundred replications, bounds that a correct procedure cannot miss by chance.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as sps

from twelveways import cli, results
from twelveways.compare import ab, ab_analysis, ab_options, ab_placement, ab_run, verdicts
from twelveways.compare import record as compare_record
from twelveways.prk import run, sweep

from test_ci_formats import parse_junit
from test_command_inputs import one_error

PLAN = ab_analysis.Plan(confidence=0.95)


def simulated(rng, ratio: float, plan: ab_analysis.Plan = PLAN, *, noise: float = 0.03, drift: float = 0.05,
              busy_new: float = 0.0, label: str = "c", disturbed: float = 0.0) -> ab_analysis.PairedRounds:
    """One configuration's rounds until its plan stops it; ``busy_new`` slows NEW by that share in half the rounds,
    marked busy (a neighbour that fell on one side); ``disturbed``: the share of invocations (either side) that meet
    a disturbance costing 10 to 40 % more (heavy tails, as single invocations on this machine show)."""
    progress, base, new, busy, level = ab_analysis.Progress(), [], [], [], 0.0

    def own_noise() -> float:
        hit = rng.random() < disturbed
        return rng.normal(0.0, noise) + (math.log1p(rng.uniform(0.1, 0.4)) if hit else 0.0)

    while True:
        level += rng.normal(0.0, drift)
        loaded = busy_new > 0 and rng.random() < 0.5
        b = math.exp(-4.0 + level + own_noise())
        n = math.exp(-4.0 + level + math.log(ratio) + own_noise()) * (1 + busy_new * loaded)
        base.append(b), new.append(n), busy.append(loaded)
        progress.log_ratios.append(math.log(n) - math.log(b))
        if progress.stop(plan, out_of_time=False):
            break
    return ab_analysis.PairedRounds(label, {"workload": label}, np.array(base), np.array(new), np.array(busy),
                                    np.array(busy),
                                    pilot_sd=progress.pilot_sd, busy_text="simulated neighbour" if busy_new else "",
                                    look=progress.look)


@pytest.mark.parametrize("ratio, noise, disturbed", [(1.0, 0.03, 0.0), (1.05, 0.03, 0.0), (1.0, 0.005, 0.0),
                                                     (1.3, 0.03, 0.0), (1.0, 0.03, 0.15), (1.05, 0.03, 0.15)])
def test_the_two_stage_interval_covers_the_true_ratio(ratio, noise, disturbed):
    """The reported interval, at whichever look the rounds stopped (the pilot's end: mostly for 1.3, and for 1.0 with
    little noise; else the plan's end), covers the true ratio about 95 % of the time despite drift, with normal noise
    and with heavy-tailed noise on both sides (coverage is simulated, not exact: the bound 0.92 leaves room for
    chance, binomial sd 0.013 at 300 replications)."""
    rng = np.random.default_rng(41)
    runs = [simulated(rng, ratio, noise=noise, disturbed=disturbed) for _ in range(300)]
    rows = ab_analysis.analyse(runs, PLAN) if ratio == 1.0 else [ab_analysis.analyse([r], PLAN)[0] for r in runs]
    covered = sum(row.ci[0] <= ratio <= row.ci[1] for row in rows) / len(rows)
    assert covered >= 0.92, covered
    at_pilot = sum(r.look == ab_analysis.PILOT_LOOK for r in runs) / len(runs)
    assert (at_pilot > 0.5) == (ratio == 1.3 or noise < 0.01), at_pilot


@pytest.mark.parametrize("rounds", [12, 13, 40])
def test_a_plain_interval_is_the_tukey_mclaughlin_trimmed_t(rounds):
    """Against statsmodels' own trimmed t test, and against the formula written out (Wilcox 2012, 3.6): g = int(0.2 n)
    values winsorized at each end, se = s_w sqrt(n) / h with h = n - 2g, t quantile on h - 1 df."""
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.03, rounds)
    found = ab_analysis.interval(d, 0.95)
    low, high, p = ab_analysis.trimmed_check(d, 0.95)
    assert (found.low, found.high, found.p) == pytest.approx((low, high, p))
    g = int(0.2 * rounds)
    h = rounds - 2 * g
    ordered = np.sort(d)
    winsorized = np.clip(ordered, ordered[g], ordered[rounds - g - 1])
    se = winsorized.std(ddof=1) * math.sqrt(rounds) / h
    half = sps.t.ppf(0.975, h - 1) * se
    assert found.estimate == pytest.approx(ordered[g:rounds - g].mean())
    assert (found.low, found.high) == pytest.approx((found.estimate - half, found.estimate + half))
    assert found.df == h - 1 == ab_analysis.trimmed_df(rounds) and found.rounds == rounds


def test_one_disturbed_round_does_not_hide_a_clear_difference():
    """Why the mean is trimmed: 30 rounds 5 % apart with 1 % noise, and two rounds whose BASE invocation met a pause
    (NEW 40 % faster in them); the plain paired t interval reaches across the ±2 % margin, the trimmed one does not."""
    rng = np.random.default_rng(9)
    d = np.log(1.05) + rng.normal(0.0, 0.01, 30)
    d[[4, 17]] = np.log(0.6)
    plain = sps.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert plain.low < np.log(1.02)
    found = ab_analysis.interval(d, 0.95)
    assert found.low > np.log(1.02) and found.estimate == pytest.approx(np.log(1.05), abs=0.01)


def test_a_fixed_number_of_rounds_covers_as_stated():
    plan = ab_analysis.Plan(confidence=0.9, rounds=6)
    rng = np.random.default_rng(5)
    rows = [ab_analysis.analyse([simulated(rng, 1.02, plan)], plan)[0] for _ in range(300)]
    assert all(row.n_base == 6 for row in rows)
    covered = sum(row.ci[0] <= 1.02 <= row.ci[1] for row in rows) / len(rows)
    assert 0.84 <= covered <= 0.96, covered


def test_identical_sides_are_almost_never_called_different():
    """A/A over 12 configurations judged together (BH): the Done-when bound is 5 %; the procedure's own rate is
    far below it, since a verdict needs the whole CI beyond the ±2 % margin."""
    rng = np.random.default_rng(7)
    called = total = 0
    for _ in range(40):
        rows = ab_analysis.analyse([simulated(rng, 1.0, label=f"c{i}") for i in range(12)], PLAN)
        called += sum(row.differs for row in rows)
        total += len(rows)
        assert all(row.verdict in ("same", "inconclusive") or row.differs for row in rows)
    assert called / total <= 0.02, (called, total)


def test_a_known_five_percent_slowdown_is_found_and_never_called_faster():
    """The plan is sized for 90 % power at +5 %: found slower in most configurations, faster in none."""
    rng = np.random.default_rng(11)
    rows = ab_analysis.analyse([simulated(rng, 1.05, label=f"c{i}") for i in range(200)], PLAN)
    found = sum(row.verdict == "slower" for row in rows) / len(rows)
    assert found >= 0.75, found
    assert not any(row.verdict == "faster" for row in rows)
    assert all(row.verdict in ("slower", "inconclusive") for row in rows)


def test_the_plan_grows_with_the_pilots_noise_and_stops_at_its_cap():
    quiet, noisy = [0.01, -0.01, 0.02, 0.0, 0.01, -0.02, 0.0, 0.01], [0.1, -0.1, 0.2, 0.0, 0.1, -0.2, 0.0, 0.1]
    assert PLAN.pilot <= PLAN.planned(quiet) < PLAN.planned(noisy) == PLAN.most
    assert ab_analysis.Plan(confidence=0.95, rounds=7).planned(noisy) == 7


def test_progress_stops_at_the_pilot_when_decided_else_on_its_plan_or_the_time_budget():
    quiet = ab_analysis.Progress(log_ratios=[0.01, -0.01, 0.02])
    assert quiet.stop(PLAN, out_of_time=False) == ""
    assert quiet.stop(PLAN, out_of_time=True) == ab_analysis.STOP_TIME and quiet.look == ab_analysis.NO_LOOK
    quiet.log_ratios += [0.0] * (PLAN.pilot - 3)  # the pilot's 99 % interval lies within ±2 %: decided there
    assert quiet.stop(PLAN, out_of_time=False) == ab_analysis.STOP_PILOT and quiet.look == ab_analysis.PILOT_LOOK
    noisy = ab_analysis.Progress(log_ratios=[0.05, -0.04, 0.03, 0.0, -0.05, 0.04, 0.02, -0.03, 0.01, -0.02, 0.04, -0.01])
    assert noisy.stop(PLAN, out_of_time=False) == "" and noisy.look == ab_analysis.FINAL_LOOK
    assert noisy.planned == PLAN.planned(noisy.log_ratios) > PLAN.pilot
    noisy.log_ratios += [0.0] * (noisy.planned - PLAN.pilot)
    assert noisy.stop(PLAN, out_of_time=False) == ab_analysis.STOP_PLANNED


def test_the_two_looks_split_alpha():
    """The pilot's look and the final one spend alpha / 5 and 4 alpha / 5: the union bound keeps alpha."""
    (pilot, p_pilot), (final, p_final) = PLAN.level(ab_analysis.PILOT_LOOK), PLAN.level(ab_analysis.FINAL_LOOK)
    assert (1 - pilot) + (1 - final) == pytest.approx(0.05)
    assert p_pilot == pytest.approx(5) and p_final == pytest.approx(1.25)
    assert PLAN.level(ab_analysis.NO_LOOK) == (0.95, 1.0)


def test_too_few_rounds_are_inconclusive_and_say_what_would_decide():
    one = ab_analysis.PairedRounds("c", {}, np.array([1.0]), np.array([1.1]), np.array([False]))
    row = ab_analysis.analyse([one], PLAN)[0]
    assert row.verdict == "inconclusive" and row.ci is None and "fewer than two rounds" in row.reason


def test_an_undecided_configuration_names_the_rounds_that_would_decide():
    rng = np.random.default_rng(2)
    plan = ab_analysis.Plan(confidence=0.95, rounds=4)
    row = ab_analysis.analyse([simulated(rng, 1.06, plan, noise=0.04)], plan)[0]
    assert row.verdict == "inconclusive"
    assert row.invocations_to_decide and row.invocations_to_decide > 4
    assert f"about {row.invocations_to_decide} rounds in all would decide" in row.reason


def test_a_neighbour_on_one_side_is_not_a_finding():
    """NEW is slowed 30 % in its busy rounds only: measured slower overall, but the quiet rounds say otherwise, so
    the verdict is withdrawn and the load named; a real slowdown with a few busy rounds keeps its verdict."""
    rng = np.random.default_rng(13)
    plan = ab_analysis.Plan(confidence=0.95, rounds=30)
    loaded = simulated(rng, 1.0, plan, noise=0.01, busy_new=0.3)
    raw = ab_analysis.judge(ab_analysis.interval(loaded.log_ratios, 0.95), 0.001, plan)[0]
    row = ab_analysis.analyse([loaded], plan)[0]
    assert raw == "slower" and row.verdict == "inconclusive"
    assert row.reason.startswith("not decidable: ") and "simulated neighbour" in row.reason
    real = simulated(rng, 1.3, plan, noise=0.01, busy_new=0.05)
    kept = ab_analysis.analyse([real], plan)[0]
    assert kept.verdict == "slower" and "round(s) of even load alone agree" in kept.reason


def test_contention_that_hides_a_difference_is_not_called_same():
    """Both sides slowed alike by a neighbour in 9 of 10 rounds (the same seconds added to each): the ratio shrinks
    toward 1 and reads 'same'; the quiet rounds alone show +5 %, so 'same' is withdrawn, naming the load."""
    rng = np.random.default_rng(17)
    busy = np.arange(40) % 10 != 0
    base = np.exp(rng.normal(0.0, 0.005, 40))
    new = 1.05 * np.exp(rng.normal(0.0, 0.005, 40))
    base, new = base + 20 * busy, new + 20 * busy
    plan = ab_analysis.Plan(confidence=0.95, rounds=40)
    rounds = ab_analysis.PairedRounds("c", {}, base, new, busy, np.zeros(40, dtype=bool), busy_text="a neighbour")
    raw = ab_analysis.judge(ab_analysis.interval(rounds.log_ratios, 0.95), 0.5, plan)[0]
    row = ab_analysis.analyse([rounds], plan)[0]
    assert raw == "same" and row.verdict == "inconclusive"
    assert row.reason.startswith("not decidable: 36 of 40 rounds ran on a busy machine (a neighbour); its 4 quiet")


def test_selection_keys_values_and_pairing():
    points = [sweep.Point("nstream", "c-serial", 1, 1, 100, 100, "single"),
              sweep.Point("stencil", "numpy", 1, 1, 50, 50, "single"),
              sweep.Point("p2p", "c-openmp", 1, 2, (20, 10), 10, "weak")]
    only = ab_run.parse_only(["workload=stencil,p2p", "threads=2"])
    assert ab_run.select(points, only) == [points[2]]
    assert ab_run.select(points, ab_run.parse_only(["size=20x10"])) == [points[2]]
    pairs, only_base, only_new = ab_run.pair_points(points[:2], points[1:])
    assert [b.key() for b, _ in pairs] == [points[1].key()]
    assert only_base == [points[0].key()] and only_new == [points[2].key()]


@pytest.mark.parametrize("argv, words", [
    (["ab", "--effect", "0.01"], "--effect 0.01 is not beyond the ±0.02 margin"),
    (["ab", "--effect", "nan"], "argument --effect"),
    (["ab", "--rounds", "1"], "argument --rounds: 1 is not between 2 and 200"),
    (["ab", "--pilot", "2"], "argument --pilot: 2 is not between 3 and 50"),
    (["ab", "--max-seconds", "-5"], "argument --max-seconds: '-5' is not a positive, finite number of seconds"),
    (["ab", "--max-seconds", "inf"], "is not a positive, finite number of seconds"),
    (["ab", "--only", "colour=red"], "--only 'colour=red': write KEY=VALUE"),
    (["ab", "--only", "workload"], "--only 'workload': write KEY=VALUE"),
    (["ab", "--base", "no-such-ref-anywhere"], "git ref 'no-such-ref-anywhere' names no commit"),
    (["ab", "--base", "--help"], "argument --base: expected one argument"),
    (["ab", "--seed", "x"], "argument --seed: 'x' is not a whole number"),
    (["ab", "--invocation-seconds", "-1"], "argument --invocation-seconds: '-1' is not a positive, finite number"),
    (["ab", "--invocation-seconds", "90"], "argument --invocation-seconds: 90 s is over a minute per invocation"),
])
def test_bad_arguments_are_one_line(capsys, argv, words):
    line = one_error(capsys, argv)
    assert words in line, line


def test_a_missing_config_and_an_empty_selection_are_one_line(tmp_path, capsys):
    line = one_error(capsys, ["ab", "--base-config", tmp_path / "none.yaml", "--output", tmp_path / "ab"])
    assert "base config not found" in line, line
    line = one_error(capsys, ["ab", "--only", "workload=nstream", "--only", "implementation=no-such",
                              "--output", tmp_path / "ab"])
    assert "no PRK configuration chosen by --only workload=nstream implementation=no-such on both sides (0 on base" in line
    assert not list(tmp_path.iterdir())


def test_an_output_over_a_config_is_refused(tmp_path, capsys):
    config = tmp_path / "c.md"
    config.write_text("seed: 1\n")
    line = one_error(capsys, ["ab", "--base-config", config, "--output", tmp_path / "c"])
    assert "is the input" in line and config.read_text() == "seed: 1\n"


TINY = """seed: 5
stages: {prk: true, train: false, infer: false}
subset_reasons: {train: "an ab test", infer: "an ab test", kernels: "an ab test", resources: "one core"}
prk:
  kernels: [nstream, stencil]
  implementations: [c-serial, numpy]
  threads: [1]
  ranks: [1]
  sizes: {nstream: [20000], stencil: [40]}
  iterations: {nstream: 3, stencil: 3}
  scaling: strong
"""


@pytest.mark.slow
def test_ab_of_the_working_tree_against_itself(tmp_path, capsys):
    """A real A/A run on two tiny configurations, 3 fixed rounds: every output written, each round's order and
    every invocation's load recorded, every sample kept in the results schema, verdicts in compare's words."""
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    argv = ["ab", "--base-config", config, "--new-config", config, "--rounds", "3", "--seed", "9",
            "--only", "workload=nstream", "--only", "implementation=c-serial", "--only", "workload=stencil",
            "--output", tmp_path / "out" / "ab", "--format", "junit", "--format", "github"]
    assert cli.main([str(a) for a in argv]) == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "out" / "ab.json").read_text())
    junit = parse_junit((tmp_path / "out" / "ab.junit.xml").read_text())  # valid JUnit XML
    assert len(list(junit.iter("testcase"))) == len(record["rows"])
    assert (tmp_path / "out" / "ab.github.md").read_text().startswith("## twelveways ab: is NEW faster than BASE?")
    assert record["format"] == ab.FORMAT and len(record["rows"]) == 2
    assert isinstance(compare_record.from_dict(record, "ab.json"), compare_record.AbRecord)  # it reads back typed
    assert record["ab"]["order_seed"] == 9 and record["ab"]["rounds"] == 3
    assert set(record["ab"]["stop_reasons"].values()) == {ab_analysis.STOP_FIXED}
    for row in record["rows"]:
        assert row["verdict"] in verdicts.VERDICTS and row["n_base"] == row["n_new"] == 3 and row["reason"]
    for runs in record["ab"]["invocations"].values():
        assert sorted((i["round"], i["side"]) for i in runs) == [(r, s) for r in (1, 2, 3) for s in ("base", "new")]
        assert {i["position"] for i in runs} == {1, 2} and all("others_share" in i for i in runs)
    for label in ("base", "new"):
        frame = results.to_frame(results.open(tmp_path / "out" / f"ab.{label}.nc"))
        assert frame["run_id"].nunique() == 6 and set(frame["workload"]) == {"nstream", "stencil"}
    md, page = (tmp_path / "out" / "ab.md").read_text(), (tmp_path / "out" / "ab.html").read_text()
    for text in (md, page):
        assert "nan" not in text.lower().replace("nanosecond", "") and "{'" not in text
        assert "end of the pilot" not in text and "fixed number of rounds (3, --rounds)" in text
    assert "# A/B comparison" in md and "No field differs" in md
    for text in record["ab"]["iterations"].values():  # calibrated: tiny kernels reach the cap, on both sides
        assert text.startswith(f"{ab_options.MOST_ITERATIONS} on both sides (config 3;"), text
    for label in ("base", "new"):
        frame = results.to_frame(results.open(tmp_path / "out" / f"ab.{label}.nc"))
        assert set(frame.groupby("run_id")["iteration"].max()) == {ab_options.MOST_ITERATIONS}  # iteration 0 is the warm-up
    assert "Iterations per invocation: 2 of 2 configuration(s) calibrated" in md
    assert "one uncounted calibration run of BASE per configuration" in record["method"]
    last = str(ab_placement.usable_cpus()[-1])
    assert set(record["ab"]["placement"].values()) == {f"bound to CPU {last}"} and "Placement: 2 of 2" in md


@pytest.mark.parametrize("implementation, ranks, threads, usable, cpus, env, launcher", [
    ("c-serial", 1, 1, (0, 1), (1,), {}, ()),
    ("c-openmp", 1, 2, (0, 1, 2, 3), (2, 3), {"OMP_PLACES": "{2},{3}", "OMP_PROC_BIND": "close"}, ()),
    ("numpy", 1, 2, (4, 5), (4, 5), {}, ()),
    ("c-mpi", 2, 1, (0, 1, 2), (1, 2), {}, ("-bind-to", "user:1,2")),
    ("mpi4py", 1, 1, (0, 1), (1,), {}, ("-bind-to", "user:1")),
])
def test_placement_binds_threads_and_ranks_one_per_cpu_on_the_last_cpus(implementation, ranks, threads, usable, cpus,
                                                                        env, launcher):
    placed = ab_placement.placement(implementation, ranks, threads, bind="cores", usable=usable)
    assert placed.cpus == cpus and dict(placed.env) == env and placed.launcher_args == launcher
    assert placed.text().startswith("bound to CPU")


@pytest.mark.parametrize("kwargs, because", [
    ({"bind": "none", "usable": (0, 1)}, "--bind none"),
    ({"bind": "cores", "usable": ()}, "no CPU affinity"),
    ({"bind": "cores", "usable": (0,)}, "needs 2 CPUs, 1 usable"),
    ({"bind": "cores", "usable": (0, 1), "launchers": (["srun"], None)}, "only with MPICH's mpiexec"),
])
def test_placement_says_why_a_configuration_runs_unbound(kwargs, because):
    placed = ab_placement.placement("c-mpi", 2, 1, **kwargs)
    assert placed.cpus == () and placed.launcher_args == () and because in placed.text()


def test_a_process_started_inside_runs_on_the_placed_cpus_and_the_harness_is_restored():
    """The mechanism, not the rule: the child inherits the launching thread's affinity; MPICH binds each rank."""
    usable = ab_placement.usable_cpus()
    if not usable:
        pytest.skip("no CPU affinity on this system")
    probe = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    with ab_placement.started_on(usable[-1:]):
        inside = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    assert inside == str([usable[-1]]) and set(ab_placement.usable_cpus()) == set(usable)
    placed = ab_placement.placement("mpi4py", 1, 1, bind="cores", usable=usable)
    ranked = subprocess.run([*run.default_launcher(), *placed.launcher_args, "-n", "1", *probe], capture_output=True,
                            text=True, check=True, timeout=60).stdout.strip()
    assert ranked == str([usable[-1]])


def test_calibrated_iterations_aim_at_the_timed_work_within_the_configs_count_and_the_cap():
    assert ab_run.calibrated_iterations(0.004, 6, 0.1) == 25  # 4 ms per iteration: 25 for 0.1 s
    assert ab_run.calibrated_iterations(0.05, 6, 0.1) == 6  # never fewer than the config states
    assert ab_run.calibrated_iterations(1e-7, 6, 0.1) == ab_options.MOST_ITERATIONS
    assert ab_run.calibrated_iterations(0.004, 6, 0.0) == 6  # --invocation-seconds 0: the config's count


def test_configs_that_state_different_iterations_keep_their_own_and_say_so():
    """Iterations may be what the A/B is about: then no calibration run, and each side keeps its count."""
    point = sweep.Point("nstream", "c-serial", 1, 1, 1000, 1000, "single")
    pair = ab_run.Pair(point)
    sides = {label: SimpleNamespace(prk=SimpleNamespace(iterations={"nstream": n})) for label, n in
             (("base", 6), ("new", 12))}
    ab_run.calibrate(pair, sides, 0.1, overhead_ns=0.0)
    assert pair.iterations is None and "(6 BASE, 12 NEW): the configs differ" in pair.iterations_text
    assert pair.prk_of(sides["new"]) is sides["new"].prk
