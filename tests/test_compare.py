"""twelveways compare / noise-floor / reproduce: verdicts on simulated and real result sets."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from twelveways import config as config_module
from twelveways import results
from twelveways.compare import build, noise, noise_record, render, reproduce, sides, table, verdicts
from twelveways.compare import record as record_mod
from twelveways.prk import build as prk_build
from twelveways.prk import run, sweep

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"


def samples(values, *, runs=None, kind="cost") -> table.Samples:
    """Samples of ``runs`` invocations of equal length (default: every value its own invocation)."""
    values = np.asarray(values, dtype=float)
    runs = runs or values.size
    return table.Samples((("family", "sim"),), kind, values, runs, tuple(np.array_split(values, runs)))


def key(i: int) -> tuple:
    return (("family", "sim"), ("workload", f"k{i}"), ("metric", "time"), ("unit", "s"))


def invocations(rng, n: int, between: float, within: float = 0.01, iterations: int = 10, scale: float = 1.0):
    """n invocations whose own effect has sd ``between`` (log scale), each of ``iterations`` values."""
    effects = rng.normal(0.0, between, (n, 1))
    values = scale * np.exp(effects + rng.normal(0.0, within, (n, iterations)))
    return table.Samples((("family", "sim"),), "cost", values.ravel(), n, tuple(values))


def margin(relative: float) -> verdicts.Noise:
    return noise.choose([], None, margin=relative)


# --- statistics of the verdicts ------------------------------------------------------------------

@pytest.mark.slow
def test_identical_code_stays_within_the_false_discovery_rate():
    """40 configurations x 20 seeded studies of identical distributions (each sample its own run):
    BH keeps the chance of any false 'different' near alpha, so at most a few studies have one."""
    studies_with_a_false_call = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        base = {key(i): samples(rng.lognormal(0, 0.1, 12)) for i in range(40)}
        new = {key(i): samples(rng.lognormal(0, 0.1, 12)) for i in range(40)}
        rows = verdicts.compare_tables(base, new, margin(0.02))
        studies_with_a_false_call += any(r.differs for r in rows)
    assert studies_with_a_false_call <= 3  # binomial(20, 0.05): P(X > 3) < 2%


def test_an_injected_slowdown_is_found_with_a_ci_covering_it():
    rng = np.random.default_rng(7)
    base = {key(i): invocations(rng, 5, 0.01) for i in range(5)}
    new = {key(i): invocations(rng, 5, 0.01) for i in range(5)}
    new[key(2)] = invocations(rng, 5, 0.01, scale=1.2)
    rows = {r.key["workload"]: r for r in verdicts.compare_tables(base, new, margin(0.02))}
    assert rows["k2"].verdict == "slower" and "beyond the ±2.0% margin" in rows["k2"].reason
    assert rows["k2"].ci[0] <= 1.2 <= rows["k2"].ci[1]
    assert (rows["k2"].n_base, rows["k2"].n_new, rows["k2"].iterations_base) == (5, 5, 10)
    assert not any(r.differs for name, r in rows.items() if name != "k2")


def test_a_difference_within_the_margin_is_same_never_faster_or_slower():
    rng = np.random.default_rng(3)
    base = {key(0): invocations(rng, 10, 0.002)}
    new = {key(0): invocations(rng, 10, 0.002, scale=1.03)}  # 3% slower, very significant
    row = verdicts.compare_tables(base, new, noise.choose([], 0.10))[0]
    assert row.p_adjusted < 1e-6
    assert row.verdict == "same" and "within the ±10.0% margin" in row.reason
    assert "given with --noise-floor" in noise.choose([], 0.10).margin_text
    assert verdicts.compare_tables(base, new, margin(0.01))[0].verdict == "slower"


def test_a_ci_across_the_margin_is_inconclusive_and_says_how_many_invocations_would_decide():
    rng = np.random.default_rng(1)
    base = {key(0): invocations(rng, 3, 0.04)}
    new = {key(0): invocations(rng, 3, 0.04, scale=1.06)}
    row = verdicts.compare_tables(base, new, margin(0.02))[0]
    assert row.ci[0] < 1.02 < row.ci[1]
    assert row.verdict == "inconclusive" and "reaches across the ±2.0% margin" in row.reason
    assert row.invocations_to_decide > 3 and f"about {row.invocations_to_decide} invocations per side" in row.reason


def test_iterations_never_multiply_n():
    """Two invocations per side whose own effects are 40% apart (cache-conflict modes): 20 iterations
    each would make a 20% shift look certain; counted as the 2 replicates they are, it is undecided."""
    rng = np.random.default_rng(12)
    first, second = rng.lognormal(0, 0.005, 20), rng.lognormal(np.log(1.4), 0.005, 20)
    base = {key(0): table.Samples(key(0), "cost", np.concatenate([first, second]), 2, (first, second))}
    new = {key(0): table.Samples(key(0), "cost", np.concatenate([first, second]) * 1.2, 2,
                                 (first * 1.2, second * 1.2))}
    row = verdicts.compare_tables(base, new, margin(0.02))[0]
    assert (row.n_base, row.n_new) == (2, 2) and row.iterations_base == 20
    assert row.verdict == "inconclusive" and row.ci[0] < 1.0


def test_rates_and_one_invocation_per_side():
    rng = np.random.default_rng(5)
    base = {key(0): samples(rng.lognormal(3, 0.01, 20), kind="rate"), key(1): samples([1.0, 1.1], runs=1)}
    new = {key(0): samples(base[key(0)].values * 0.7, kind="rate"), key(1): samples([2.0, 2.1], runs=1)}
    rows = {r.key["workload"]: r for r in verdicts.compare_tables(base, new, margin(0.02))}
    assert rows["k0"].verdict == "slower"  # a lower rate is slower
    assert rows["k1"].verdict == "inconclusive" and rows["k1"].reason.startswith("one invocation per side")
    assert "at least 3 invocations per side" in rows["k1"].reason


# --- whole result sets ---------------------------------------------------------------------------

def _scaled_copy(src: Path, out: Path, workload: str, factor: float) -> Path:
    """A copy of a results file with one kernel's times multiplied (its rates divided) by ``factor``."""
    ds = results.open(src).load()
    mine = ds["workload"] == workload
    ds["value"] = ds["value"].where(~(mine & (ds["metric"] == "time")), ds["value"] * factor)
    ds["value"] = ds["value"].where(~(mine & (ds["metric"] == "rate")), ds["value"] / factor)
    return results.write(ds, out)


@pytest.mark.slow
def test_reference_against_a_copy_with_one_kernel_slower(tmp_path):
    new_dir = tmp_path / "new"
    new_dir.mkdir()
    _scaled_copy(REFERENCE / "results" / "prk.nc", new_dir / "prk.nc", "stencil", 1.5)
    base = sides.load([str(REFERENCE / "results" / "prk.nc")], "base")
    new = sides.load([str(new_dir / "prk.nc")], "new")
    record = build.build(base, new, floor_given=0.05)
    tested = [r for r in record.rows if r.ratio is not None and "cannot reach" not in r.reason]
    stencil = [r for r in tested if r.key["workload"] == "stencil" and r.key["metric"] == "time"]
    # slower, unless that configuration's own two reference runs already differ by about as much
    # (c-mpi stencil: 46% between its invocations), when a 1.5x change cannot be told from them
    slower = [r for r in stencil if r.verdict == "slower"]
    assert len(slower) >= 0.75 * len(stencil)
    assert all(r.verdict == "inconclusive" and "own run-to-run spread" in r.reason
               for r in stencil if r not in slower)
    assert all(r.ci[0] <= 1.5 + 1e-9 and 1.5 - 1e-9 <= r.ci[1] for r in stencil if r.ci)
    assert not [r for r in tested if r.key["workload"] != "stencil" and r.verdict not in ("same", "inconclusive")]
    assert record.only_base == () and record.only_new == ()


def test_environment_diff_lists_exactly_the_changed_fields(tmp_path):
    env = json.loads((REFERENCE / "environment.json").read_text())
    changed = copy.deepcopy(env)
    changed["compilers"]["used"]["cflags"] = "-O2 -march=x86-64-v3"
    name = sorted(changed["python"]["packages"])[0]
    changed["python"]["packages"][name] = "0.0.1"
    (tmp_path / "base").mkdir()
    (tmp_path / "new").mkdir()
    for folder, description in (("base", env), ("new", changed)):
        (tmp_path / folder / "environment.json").write_text(json.dumps(description))
        (tmp_path / folder / "prk.nc").write_bytes((REFERENCE / "results" / "prk.nc").read_bytes())
    record = build.build(sides.load([str(tmp_path / "base")], "base"), sides.load([str(tmp_path / "new")], "new"))
    found = {(d.field, d.class_) for d in record.environment.differences}
    assert found == {("compilers.used.cflags", "toolchain"), (f"python.packages.{name}", "libraries")}


@pytest.mark.slow
def test_cli_writes_every_format_and_refuses_bad_input(tmp_path):
    ref = str(REFERENCE / "results" / "prk.nc")
    out = tmp_path / "cmp"
    done = subprocess.run([sys.executable, "-m", "twelveways", "compare", ref, ref, "--output", f"{out}.md",
                           "--output", f"{out}.html", "--output", f"{out}.json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "cmp.md").read_text()
    assert text.index("## Environment differences") < text.index("## Noise floor") < text.index("## Configurations")
    assert "nan" not in text.split() and "None" not in text
    assert record_mod.from_dict(json.loads((tmp_path / "cmp.json").read_text()), "cmp.json").format == build.FORMAT
    assert "<table>" in (tmp_path / "cmp.html").read_text()
    bad = subprocess.run([sys.executable, "-m", "twelveways", "compare", ref, str(tmp_path / "missing")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    bad = subprocess.run([sys.executable, "-m", "twelveways", "compare", ref, str(junk)], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_reproduce_writes_a_verdict_per_claim_with_the_noise_floor(tmp_path):
    results_dir = tmp_path / "results"
    (results_dir / "results").mkdir(parents=True)
    for nc in (REFERENCE / "results").glob("*.nc"):
        (results_dir / "results" / nc.name).write_bytes(nc.read_bytes())
    (results_dir / "environment.json").write_bytes((REFERENCE / "environment.json").read_bytes())
    out = tmp_path / "reports" / "reproduction"
    done = subprocess.run([sys.executable, "-m", "twelveways", "reproduce", "--reference", str(REFERENCE),
                           "--results", str(results_dir), "--claims", str(ROOT / "config" / "claims.yaml"),
                           "--output", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    record = record_mod.from_dict(json.loads(out.with_suffix(".json").read_text()), "reproduction.json")
    assert isinstance(record, record_mod.Reproduction)
    assert record.claims and all(c.outcome in ("Reproduced", "Inconclusive") for c in record.claims)
    assert {c.reference for c in record.claims} == {c.new for c in record.claims}
    text = out.with_suffix(".md").read_text()
    assert text.splitlines()[2].startswith(f"- {sum(c.outcome == 'Reproduced' for c in record.claims)} of "
                                           f"{len(record.claims)} claims reproduced")
    assert "- Noise:" in text and "## Claims" in text and "## Headline numbers" in text
    assert all(c.reason and c.line.startswith(c.id + ": ") for c in record.claims)
    assert "<h1>Reproduction report</h1>" in out.with_suffix(".html").read_text()
    from twelveways.report import render as report_render

    page = report_render.render([], tmp_path / "report.html", reproduction_json=out.with_suffix(".json"),
                                config_json=None).read_text()
    section = page[page.index("id='section-reproduction'"):]
    assert "Reproduction against the reference" in page and "<h3>Claims</h3>" in section
    assert "Noise floor:" in section and "Reproduced" in section
    section = section.split("</section>")[0]
    assert "{'" not in section and '{"' not in section and "nan" not in section.lower().split()  # no reprs or JSON


@pytest.mark.slow  # a whole reference set re-read or re-audited: make test, not the unit tier
def test_reproduce_on_another_cpu_judges_claims_and_calls_absolute_values_not_comparable(tmp_path):
    """The reference against itself on 'another CPU': claims keep their verdicts with reasons, no
    absolute time is Reproduced, and the environment diff appears once, grouped by class."""
    results_dir = tmp_path / "results"
    (results_dir / "results").mkdir(parents=True)
    for nc in (REFERENCE / "results").glob("*.nc"):
        (results_dir / "results" / nc.name).write_bytes(nc.read_bytes())
    env = json.loads((REFERENCE / "environment.json").read_text())
    env["hardware"]["cpu"]["model"] = env["hardware"]["cpu"]["cpuinfo"]["brand_raw"] = "Intel Xeon"
    (results_dir / "environment.json").write_text(json.dumps(env))
    record = reproduce.reproduction(REFERENCE, results_dir, claims_file=ROOT / "config" / "claims.yaml")
    assert record.machines.relation == "different hardware" and "Intel Xeon" in record.machines.why
    assert record.claims and all(c.outcome in ("Reproduced", "Inconclusive") and c.reason for c in record.claims)
    absolute = [r for r in record.rows if r.kind in ("cost", "rate")]
    assert absolute and all(r.verdict == "not comparable" for r in absolute)
    assert record.counts["not comparable"] == len(absolute) and sum(record.counts.values()) == len(record.rows)
    text = render.reproduction_markdown(record)
    assert text.count("Environment differences") == 1 and "- hardware (2): " in text.replace("\\", "")


# --- a real A/A: three invocations of the same C kernels ------------------------------------------

@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kernels")
    prk_build.build_kernels(out)
    return out


def _aa_config() -> dict:
    return config_module.validate({
        "seed": 11,
        "measurement": {"confidence": 0.95, "ci_target": 0.02, "min_samples": 20, "max_samples": 30, "max_seconds": 2},
        "prk": {"kernels": ["nstream", "stencil", "transpose", "dgemm"], "implementations": ["c-serial"],
                "threads": [1], "ranks": [1],
                "sizes": {"nstream": [200000], "transpose": [256], "stencil": [200], "p2p": [30], "dgemm": [96],
                          "sparse": [3]},
                "iterations": {k: 10 for k in run.KERNELS}, "min_invocations": 2, "max_seconds": 2},
    })


@pytest.mark.slow
def test_real_aa_runs_call_no_more_configurations_different_than_the_stated_rate_allows(tmp_path, kernels):
    """Three real sweeps of identical code: the between-run level from the first and the last (A/A),
    then the first against the middle one. Every configuration is a true null, so each is called different
    with a probability of at most alpha.
    The test fails when more are called than Binomial(n, alpha) allows at the 0.1% level."""
    cfg = _aa_config()
    env = tmp_path / "environment.json"
    env.write_text(json.dumps({"hash": "0123456789abcdef"}))
    # the placebo runs last, as in the workflow (after the main sweep): the A/A pair spans the time in
    # which "c" runs, so a machine-wide shift during it (a neighbour VM going quiet) is in the floor
    paths = {name: sweep.sweep(cfg, kernels_dir=kernels, output=tmp_path / name / "prk.nc", environment=env,
                               progress=False) for name in ("a", "c", "placebo")}
    floor_record = noise.measure(sides.load([str(paths["a"])], "a"), sides.load([str(paths["placebo"])], "placebo"))
    assert floor_record["configurations"] == 4 and floor_record["run_levels"]
    assert floor_record["run_levels"][-1]["name"].endswith("(last resort)")  # one configuration per kernel: pooled
    (tmp_path / "c" / "noise_floor.json").write_text(sides.dumps(floor_record))
    record = build.build(sides.load([str(tmp_path / "a")], "a"), sides.load([str(tmp_path / "c")], "c"))
    # measured where some moment estimate was positive; four pairs can all come out negative (then said so)
    typed = noise_record.from_dict(floor_record, "the A/A record")
    assert record.noise_floor.measured == any(level.is_measured for level in typed.run_levels)
    tested = [r for r in record.rows if r.p_adjusted is not None]
    called = [(r.configuration, r.ratio, r.reason) for r in tested if r.verdict not in ("same", "inconclusive")]
    alpha = 1 - cfg["measurement"]["confidence"]
    allowed = next(k for k in range(len(tested) + 1) if scipy_stats.binom.sf(k, len(tested), alpha) < 1e-3)
    assert len(tested) == 4 and len(called) <= allowed, (called, allowed, floor_record["run_levels"])


def test_a_run_level_of_few_aa_pairs_is_moderated_towards_the_group_above():
    """Two A/A pairs of one kernel (2 df, here both zero) borrow strength from the family's pooled level:
    Smyth's (d0·s0² + d·s²)/(d0 + d) on d0 + d df, d0 capped; the family itself stays as measured."""
    from twelveways.compare import noise
    from twelveways.stats import replicates

    def key(kernel, impl, size):
        return (("family", "prk"), ("workload", kernel), ("implementation", impl), ("size", size))

    terms = {key("nstream", "c-serial", 1): 0.0, key("nstream", "c-serial", 2): 0.0,
             **{key("stencil", "numpy", n): 0.004 for n in range(6)}}
    levels = {tuple(level["group"]): level for level in noise.pooled_levels(terms)}
    family = levels[("prk",)]
    assert family["df"] == 8 and family["variance"] == pytest.approx(6 * 0.004 / 8)
    kernel = levels[("prk", "nstream")]
    d0 = min(8, replicates.PRIOR_DF_CAP)
    assert kernel["raw_variance"] == 0.0 and kernel["df"] == d0 + 2
    assert kernel["variance"] == pytest.approx(d0 * family["variance"] / (d0 + 2))
    assert kernel["moderated_by"] == family["name"]
    inner = levels[("prk", "nstream", "c-serial")]
    assert inner["variance"] == pytest.approx(d0 * kernel["variance"] / (d0 + 2))


def test_an_aa_run_that_measured_no_between_run_variance_says_so_and_compare_falls_back_by_name():
    """Every moment estimate negative (the within-run spread explains the runs' difference): no level is a
    measured ±0.0 %; the record says "not measured" and compare uses no run level, named so."""
    from twelveways.compare import noise, verdicts

    terms = {(("family", "prk"), ("workload", "nstream"), ("implementation", "c-serial"), ("size", n)): -0.002
             for n in range(4)}
    levels = noise.pooled_levels(terms)
    assert levels and not any(level["measured"] for level in levels)
    assert all(level["why"].startswith("not measured: each configuration's own invocations explain") for level in levels)
    record = noise_record.from_dict({"format": noise.FORMAT, "configurations": 4, "run_levels": levels}, "A/A")
    text = noise.floor_text(record)
    assert "±0.0%" not in text and "not measured" in text
    chosen = noise.choose([record], None)
    assert not chosen.measured and chosen.run_level({"family": "prk", "workload": "nstream",
                                                     "implementation": "c-serial"}) is None
    # a measured family level still serves a kernel the A/A run could not measure on its own
    terms.update({(("family", "prk"), ("workload", "stencil"), ("implementation", "numpy"), ("size", n)): 0.004
                  for n in range(6)})
    chosen = noise.choose([noise_record.from_dict({"format": noise.FORMAT, "configurations": 10,
                                                   "run_levels": noise.pooled_levels(terms)}, "A/A")], None)
    level = chosen.run_level({"family": "prk", "workload": "transpose", "implementation": "c-mpi"})
    assert isinstance(level, verdicts.RunLevel) and level.variance > 0 and "last resort" in level.source
