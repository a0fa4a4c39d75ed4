"""`twelveways run` and the Snakefile's config entry: nested --config overrides, one-line errors."""

import subprocess
import sys
from pathlib import Path

import pytest

from twelveways import config, workflow_run
from twelveways.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_dotted_keys_become_nested_typed_values():
    got = workflow_run.parse_overrides(["measurement.max_samples=10", "measurement.ci_target=0.1",
                                        "seed=3", "prk.kernels=[nstream, dgemm]", "report.claims="])
    assert got == {"measurement": {"max_samples": 10, "ci_target": 0.1}, "seed": 3,
                   "prk": {"kernels": ["nstream", "dgemm"]}, "report": {"claims": None}}


def test_json_form_is_typed_too():
    assert workflow_run.parse_overrides(['measurement={"max_samples": 10, "adaptive": true}']) == {
        "measurement": {"max_samples": 10, "adaptive": True}}


@pytest.mark.parametrize("entry", ["seed", "=3", "a..b=1", "a.b c=1"])
def test_malformed_entries_are_one_line(entry):
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        workflow_run.parse_overrides([entry])


def test_merged_config_is_validated(tmp_path):
    merged = workflow_run.merged_config([], ["measurement.max_samples=10"])
    assert merged["measurement"]["max_samples"] == 10
    with pytest.raises(ConfigError, match="measurement.max_samples"):
        workflow_run.merged_config([], ["measurement.max_samples=abc"])
    with pytest.raises(ConfigError, match="is a directory"):
        workflow_run.merged_config([str(tmp_path)], [])


def test_split_keeps_other_snakemake_arguments():
    files, entries, rest = workflow_run._split(["--cores", "all", "--config", "a.b=1", "c=2", "-n",
                                                "--configfile", "x.yaml"])
    assert (files, entries, rest) == (["x.yaml"], ["a.b=1", "c=2"], ["--cores", "all", "-n"])


def test_snakemakes_own_nested_config_text_is_typed(tmp_path, monkeypatch):
    """`snakemake --config 'measurement={"max_samples": 10}'` hands the Snakefile '10': it is typed again."""
    snake_config = {"measurement": {"max_samples": "10"}}
    got = config.for_workflow(dict(snake_config), [], overrides=snake_config)
    assert got["measurement"]["max_samples"] == 10


def _run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "twelveways", "run", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_run_dry_run_with_nested_override():
    done = _run("-n", "--cores", "1", "--config", "measurement.max_samples=10")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args,message", [
    (["--config", "seed"], "error: --config 'seed': expected KEY=VALUE"),
    (["--config", "measurement.max_samples=abc"], "error: config key 'measurement.max_samples': expected integer"),
    (["--configfile", "/"], "is a directory, not a file"),
])
def test_run_bad_arguments_are_one_line(args, message):
    done = _run("-n", *args)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
