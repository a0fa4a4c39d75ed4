"""Bad configuration stops everything before any job, with one line naming the key."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from twelveways import config
from twelveways.errors import ConfigError

BAD = Path(__file__).parent / "bad_configs"

#: bad file -> words the one-line message must contain (the key and the problem)
EXPECTED = {
    "unknown_key.yaml": ["'unknown_key'", "unknown key"],
    "wrong_type.yaml": ["'seed'", "expected integer"],
    "negative_size.yaml": ["'measurement.max_samples'", "at least 1"],
    "unknown_kernel.yaml": ["'prk.kernels[1]'", "'warpdrive' is not one of"],
    "malformed.yaml": ["malformed YAML", "line"],
    "subset_without_reason.yaml": ["'subset_reasons.train'", "say why"],
}


def test_every_bad_file_has_an_expectation():
    assert {p.name for p in BAD.glob("*.yaml")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_load_rejects_with_one_line(name):
    with pytest.raises(ConfigError) as info:
        config.load(BAD / name)
    message = info.value.one_line()
    assert "\n" not in message
    for word in EXPECTED[name]:
        assert word in message


def test_defaults_filled_and_shipped_profiles_valid(root):
    for rel in ("config/config.yaml", "config/full.yaml", ".test/config.yaml"):
        loaded = config.load(root / rel)
        assert loaded["measurement"]["confidence"] == pytest.approx(0.95)
        assert isinstance(loaded["seed"], int)
    assert config.validate({})["stages"] == {"prk": True, "train": True, "infer": True}


def test_schema_forbids_unknown_keys_everywhere():
    """additionalProperties: false on every object of the schema (no key slips through)."""

    def walk(node, where):
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node.get("additionalProperties") is False, f"{where} accepts unknown keys"
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    walk(config.load_schema(), "schema")


def _snakemake(args, cwd, env):
    return subprocess.run([str(Path(sys.executable).parent / "snakemake"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"malformed.yaml"}))
def test_workflow_stops_before_any_job(name, root, tmp_path, venv_env):
    proc = _snakemake(["-s", str(root / "Snakefile"), "--directory", str(tmp_path), "--cores", "1",
                       "--configfile", str(BAD / name)], root, venv_env)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    for word in EXPECTED[name]:
        assert word in errors[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_malformed_default_config_stops_workflow(root, tmp_path, venv_env):
    """Snakemake parses --configfile itself; our loader owns config/config.yaml: test that path."""
    copy = tmp_path / "project"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".venv", ".git", "results", "build", "logs",
                                                             ".snakemake", "reports", "data"))
    shutil.copy(BAD / "malformed.yaml", copy / "config" / "config.yaml")
    env = dict(venv_env, PYTHONPATH=str(copy / "src"))
    proc = _snakemake(["--cores", "1"], copy, env)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "malformed YAML" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (copy / "results").exists()


@pytest.mark.slow
def test_check_config_cli(tmp_path, venv_env):
    cli = str(Path(sys.executable).parent / "twelveways")
    ok = subprocess.run([cli, "check-config", "config/config.yaml"], capture_output=True, text=True, env=venv_env,
                        cwd=Path(__file__).parents[1])
    assert ok.returncode == 0 and "valid" in ok.stdout
    bad = subprocess.run([cli, "check-config", str(BAD / "malformed.yaml")], capture_output=True, text=True, env=venv_env)
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr
