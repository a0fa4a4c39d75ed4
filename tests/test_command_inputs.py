"""The newer commands under the input contract: every bad argument is one ``error:`` line and a non-zero exit.

``plan``, ``compare``, ``noise-floor``, ``reproduce``, ``run`` and ``report``: out-of-domain numbers (negative,
NaN, infinity, 400 digits, words), outputs onto an input or inside an input folder (refused before anything is
read, the input unchanged), files that are folders or FIFOs, an owner record that is not a small regular file.
Everything runs ``cli.main`` in this process on files built in ``tmp_path``: no workflow, no kernel, no benchmark.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from twelveways import cli, cliargs, feasibility, inputs, plan, results, run_owner, workflow_run
from twelveways.errors import AuditInputError, ConfigError, WorkflowLockError

HUGE = "9" * 400


def one_error(capsys, argv: list, code: int = 2) -> str:
    """Run the command line; exactly one ``error:`` line on stderr, no traceback, exit ``code``; the line."""
    got = cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert got == code, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def prk_rows(size: int = 1000, runs: int = 3, iterations: int = 4) -> list[dict]:
    """A tiny PRK sweep: one nstream configuration, ``runs`` invocations of ``iterations`` timed iterations."""
    return [{"benchmark": "prk", "workload": "nstream", "implementation": "numpy", "ranks": 1, "threads": 1,
             "size": size, "precision": "fp64", "seed": 1, "run_id": f"r{r}", "iteration": i, "rank": 0,
             "metric": "time", "value": 0.01 + 0.001 * ((7 * r + 3 * i) % 5), "unit": "s", "valid": True,
             "scaling": "strong", "stop_reason": "min_samples"} for r in range(runs) for i in range(iterations)]


def write_results(path, rows: list[dict], family: str = "prk", **attrs):
    path.parent.mkdir(parents=True, exist_ok=True)
    results.write(results.from_records(rows, family, attrs), path)
    return path


# ---------------------------------------------------------------- plan: --effect, --power, what it can plan

@pytest.mark.parametrize("option", ["--effect", "--power", "--confidence"])
@pytest.mark.parametrize("value", ["-1", "0", "1", "1.5", "nan", "inf", "100%", "abc", HUGE])
def test_plan_refuses_probabilities_outside_zero_to_one(capsys, option, value):
    """--power 1.5 used to print "at 150% power"; --effect -1 a math domain error; nan and inf were planned."""
    line = one_error(capsys, ["plan", option, value])
    shown = re.escape(value if len(value) < 40 else value[:39] + "…")
    assert re.fullmatch(rf"error: twelveways plan: argument {option}: '{shown}' is not (a fraction 0 < f < 1 nor a "
                        r"percentage strictly between 0% and 100%.*|a number .*)", line), line


def test_plan_reads_a_fraction_or_a_percentage():
    assert cliargs.proportion("0.1") == cliargs.proportion("10%") == pytest.approx(0.1)
    assert cliargs.proportion(" 99.5% ") == pytest.approx(0.995)


def test_plan_of_results_without_prk_configurations_is_one_line(tmp_path, capsys):
    """A results file of another family as prk.nc (no scaling column) was a KeyError traceback."""
    rows = [{k: v for k, v in row.items() if k != "scaling"} for row in prk_rows()]
    write_results(tmp_path / "run" / "prk.nc", rows, family="bounds")
    line = one_error(capsys, ["plan", "--results", tmp_path / "run"])
    assert re.fullmatch(r"error: .*prk\.nc: no PRK configuration to plan from \(family bounds: no column scaling; .*",
                        line), line
    line = one_error(capsys, ["plan", "--results", tmp_path / "nothing-here"])
    assert re.fullmatch(r"error: .*nothing-here: no prk\.nc \(a finished run's results folder is needed\)", line)


@pytest.mark.parametrize("attrs, words", [({"prk_run_seconds": {"r0": "abc"}}, "attr prk_run_seconds['r0']: 'abc'"),
                                          ({"prk_run_seconds": {"r0": -1.0}}, "attr prk_run_seconds['r0']: '-1.0'"),
                                          ({"prk_sweep_seconds": "inf"}, "attr prk_sweep_seconds: 'inf'")])
def test_plan_refuses_recorded_times_that_are_not_seconds(tmp_path, capsys, attrs, words):
    write_results(tmp_path / "prk.nc", prk_rows(), **{k: json.dumps(v) if isinstance(v, dict) else v
                                                       for k, v in attrs.items()})
    line = one_error(capsys, ["plan", "--results", tmp_path])
    assert words in line and line.endswith("is not a finite, non-negative number of seconds"), line


def test_plans_work_model_never_takes_the_log_of_no_work():
    assert plan.log_work("nstream", -1) is None and plan.log_work("dgemm", 0) is None
    assert plan.log_work("sparse", 10 ** 6) == pytest.approx(10 ** 6 * 1.3862943611)  # 4^lsize without overflow


def test_plan_output_onto_what_it_reads_is_refused_and_the_input_kept(tmp_path, capsys):
    source = write_results(tmp_path / "run" / "prk.nc", prk_rows())
    before = source.read_bytes()
    line = one_error(capsys, ["plan", "--results", tmp_path / "run", "--output", source])
    assert re.fullmatch(r"error: twelveways plan: output .*prk\.nc is the input .*prk\.nc: writing it would destroy "
                        r"what it is computed from \(choose another --output\)", line), line
    line = one_error(capsys, ["plan", "--results", tmp_path / "run", "--output", tmp_path / "run" / "plan.json"])
    assert re.fullmatch(r"error: twelveways plan: output .*plan\.json lies inside the input folder .*run: .*", line)
    line = one_error(capsys, ["plan", "--results", source, "--output", plan.PROFILES["full"]])
    assert "is the input" in line and "full.yaml" in line
    assert source.read_bytes() == before and not (tmp_path / "run" / "plan.json").exists()


# ---------------------------------------------------------------- compare, noise-floor, reproduce: --output

@pytest.fixture
def run_folder(tmp_path):
    """A results folder as the workflow leaves it: prk.nc with environment.json and noise_floor.json beside it
    (contents are never read: every refusal comes before loading)."""
    folder = tmp_path / "run"
    folder.mkdir()
    for name in ("prk.nc", "environment.json", "noise_floor.json"):
        (folder / name).write_text(f"{name} as recorded\n")
    return folder


def _unchanged(folder):
    return {p.name: p.read_text() for p in folder.iterdir()}


@pytest.mark.parametrize("argv, words", [
    (["compare", "{run}/prk.nc", "{run}/prk.nc", "--output", "{run}/environment.json"], "is the input"),
    (["compare", "{run}/prk.nc", "{tmp}/other.nc", "--output", "{run}/noise_floor.json"], "is the input"),
    (["compare", "{run}", "{tmp}/other.nc", "--output", "{run}/comparison.md"], "lies inside the input folder"),
    (["noise-floor", "{run}/prk.nc", "{tmp}/other.nc", "--output", "{run}/environment.json"], "is the input"),
    (["noise-floor", "{run}", "{tmp}/other.nc", "--output", "{run}/nf.json"], "lies inside the input folder"),
    (["reproduce", "--reference", "{run}", "--results", "{tmp}/other.nc", "--output", "{run}/environment"],
     "lies inside the input folder"),
    (["reproduce", "--reference", "{tmp}/other.nc", "--results", "{run}/prk.nc", "--output", "{run}/noise_floor"],
     "noise_floor.json is the input"),
    (["reproduce", "--reference", "{tmp}/other.nc", "--results", "{run}/prk.nc", "--claims", "{tmp}/c.json",
      "--output", "{tmp}/c"], "c.json is the input"),
])
def test_outputs_onto_inputs_are_refused_before_anything_is_read(tmp_path, capsys, run_folder, argv, words):
    (tmp_path / "c.json").write_text("[]\n")
    before = _unchanged(run_folder)
    command = argv[0]
    line = one_error(capsys, [a.format(run=run_folder, tmp=tmp_path) for a in argv])
    assert line.startswith(f"error: twelveways {command}: output ") and words in line, line
    assert line.endswith("(choose another --output)")
    assert _unchanged(run_folder) == before and (tmp_path / "c.json").read_text() == "[]\n"


def test_the_workflows_own_outputs_are_not_refused(tmp_path):
    """noise_floor rule: results/prk.nc and results/placebo/prk.nc -> results/noise_floor.json (files, not folders);
    a notebook's executed copy under results/ while it reads results/environment.json."""
    (tmp_path / "results" / "placebo").mkdir(parents=True)
    first, second = tmp_path / "results" / "prk.nc", tmp_path / "results" / "placebo" / "prk.nc"
    cliargs.refuse_output_over_input([tmp_path / "results" / "noise_floor.json"], [first, second])
    cliargs.refuse_output_over_input([tmp_path / "results" / "notebooks" / "prk.ipynb"],
                                     [tmp_path / "results" / "environment.json"])


@pytest.mark.parametrize("command", [["compare", "a.nc", "b.nc"], ["noise-floor", "a.nc", "b.nc", "--output", "o"],
                                     ["reproduce"]])
@pytest.mark.parametrize("value", ["nan", "-1", "1.5", HUGE, "x"])
def test_comparisons_refuse_a_confidence_outside_zero_to_one_naming_it(capsys, command, value):
    line = one_error(capsys, [*command, "--confidence", value])
    assert line.startswith(f"error: twelveways {command[0]}: argument --confidence: '{value[:20]}"), line


# ---------------------------------------------------------------- run: the owner record

def _owner_path(workdir):
    path = workdir / run_owner.OWNER
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("kind, words", [
    ("fifo", "owner record is a FIFO (named pipe), not a regular file"),
    ("huge", "is 1,610,612,736 bytes, more than the 65,536 accepted"),
    ("folder", "is a directory, not a file"),
])
def test_an_owner_record_that_is_not_a_small_regular_file_is_not_read(tmp_path, kind, words):
    """A FIFO would block the run forever and a 1.5 GB file would be read whole: one line asking for it to go."""
    path = _owner_path(tmp_path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(1536 * 2 ** 20)  # sparse: no disk used
    else:
        path.mkdir()
    with pytest.raises(WorkflowLockError, match=re.escape(words) + ".*delete .*owner.json and run again"):
        run_owner.claim(["--cores", "1"], tmp_path)


def test_run_with_a_fifo_owner_record_is_one_line_and_never_becomes_snakemake(tmp_path, capsys, monkeypatch):
    os.mkfifo(_owner_path(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("became Snakemake"))
    line = one_error(capsys, ["run", "--cores", "1"], code=1)
    assert re.fullmatch(r"error: \.snakemake/twelveways/owner\.json: owner record is a FIFO .* run again", line)


def test_run_in_a_directory_that_is_a_file_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "plain").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("became Snakemake"))
    line = one_error(capsys, ["run", "--cores", "1", "-d", tmp_path / "plain"], code=1)
    assert re.fullmatch(r"error: cannot write the owner record .*plain/\.snakemake/twelveways/owner\.json: .*", line)


def test_a_record_with_numbers_beyond_a_float_names_nobody(tmp_path):
    path = _owner_path(tmp_path)
    path.write_text(json.dumps({"pid": 1, "process_start": int(HUGE), "boot_time": 0, "host": "h", "command": "c",
                                "started_utc": "now"}))
    assert run_owner.read_owner(path) is None


@pytest.mark.parametrize("entry, words", [(f"seed={HUGE}", "config key 'seed': an integer of 1329 bits is beyond the 64-bit"),
                                          ("seed=" + "9" * 5000, "--config seed: a value cannot be read: Exceeds "
                                                                 "the limit (4300 digits)")])
def test_run_refuses_integers_no_results_file_could_hold(entry, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        feasibility.check_finite(workflow_run.parse_overrides([entry]))


def test_json_with_a_number_too_long_to_read_is_one_line(tmp_path):
    path = tmp_path / "big.json"
    path.write_text('{"a": ' + "9" * 5000 + "}")
    with pytest.raises(AuditInputError, match=r"big\.json: a value cannot be read \(capture\): Exceeds the limit"):
        inputs.read_json(path, "capture", AuditInputError)


# ---------------------------------------------------------------- report: checked before a kernel starts

@pytest.fixture
def no_kernel(monkeypatch):
    """Fail the test if a notebook would be executed (a Jupyter kernel started)."""
    from twelveways.report import notebooks

    monkeypatch.setattr(notebooks, "execute", lambda *a, **k: pytest.fail("a kernel was started"))
    monkeypatch.setattr(notebooks, "check_kernelspec", lambda *a, **k: pytest.fail("a kernel was looked up"))


@pytest.mark.parametrize("option, value", [("--confidence", "abc"), ("--confidence", "1.5"), ("--confidence", "nan"),
                                           ("--confidence", "0"), ("--ci-target", "-1"), ("--ci-target", "inf"),
                                           ("--ci-target", HUGE)])
def test_report_execute_refuses_bad_settings_in_one_line(tmp_path, capsys, no_kernel, option, value):
    """Was argparse's nine-line usage block (abc), or a failing cell after the kernel started (1.5)."""
    line = one_error(capsys, ["report", "execute", "prk", "--output", tmp_path / "x.ipynb", option, value])
    assert line.startswith(f"error: twelveways report execute: argument {option}: '{value[:20]}"), line


@pytest.mark.parametrize("notebook, output, words", [
    ("nosuch", "x.ipynb", "unknown notebook 'nosuch' (known: "),
    ("{tmp}/missing.py", "x.ipynb", "notebook source not found: "),
    ("{tmp}/fifo.py", "x.ipynb", "notebook source is a FIFO (named pipe)"),
    ("{tmp}/nb.py", "{tmp}", "is a folder; name the executed .ipynb to write"),
    ("{tmp}/nb.py", "{tmp}/nb.py", "nb.py is the input"),
])
def test_report_execute_refuses_bad_paths_before_a_kernel(tmp_path, capsys, no_kernel, notebook, output, words):
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "nb.py").write_text("# %% tags=['parameters']\n")
    argv = ["report", "execute", notebook.format(tmp=tmp_path), "--output", output.format(tmp=tmp_path)]
    line = one_error(capsys, argv)
    assert words in line, line
    assert (tmp_path / "nb.py").read_text() == "# %% tags=['parameters']\n"


@pytest.mark.parametrize("argv, words", [
    (["report", "rebuild", "--jobs", HUGE], "argument --jobs: '999"),
    (["report", "rebuild", "--jobs", "0"], "argument --jobs: '0' is not between 1 and 256"),
    (["report", "render"], "twelveways report render: the following arguments are required: --output"),
    (["report", "bogus"], "twelveways report: argument command: invalid choice: 'bogus'"),
    (["check-config", "a", "b"], "twelveways check-config: unrecognized arguments: b"),
    (["results"], "twelveways results: the following arguments are required: files"),
    (["config-docs", "--bogus"], "twelveways config-docs: unrecognized arguments: --bogus"),
    (["env", "--bogus"], "twelveways env: unrecognized arguments: --bogus"),
    (["plan", "--bogus"], "twelveways plan: unrecognized arguments: --bogus"),
])
def test_usage_problems_are_one_line_never_a_usage_block(capsys, no_kernel, argv, words):
    assert words in one_error(capsys, argv)
