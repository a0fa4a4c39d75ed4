"""The package as a user installs it: the built wheel, alone in a fresh venv with only its core dependencies, audits
and compares the corpus (issue 42).  Offline: uv installs from its cache, which `make venv` filled with the lock's
wheels, and the lock's versions are the constraints, so nothing is fetched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: Parts of the artifact a light install must not have pulled in.
ARTIFACT_ONLY = ("torch", "snakemake", "jupyterlab", "papermill", "matplotlib", "mpi4py")


def _uv(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip("uv is not in the venv (make venv installed the lock with pip): the offline install needs uv's cache")
    proc = subprocess.run([str(uv), *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"uv {' '.join(args)} failed (offline, from uv's cache):\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def light_venv(root, tmp_path_factory) -> Path:
    """A fresh venv holding the wheel built from this checkout and the core dependencies at the lock's versions."""
    work = tmp_path_factory.mktemp("wheel")
    _uv("build", "--offline", "--quiet", "--out-dir", str(work / "dist"), cwd=root)
    wheels, sdists = list((work / "dist").glob("twelveways-*.whl")), list((work / "dist").glob("twelveways-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in (work / "dist").iterdir())
    _uv("venv", "--offline", "--quiet", "--python", sys.executable, str(work / "venv"), cwd=root)
    python = work / "venv" / "bin" / "python"
    _uv("pip", "install", "--offline", "--quiet", "--python", str(python), "--link-mode", "hardlink",
        "--constraint", str(root / "envs" / "requirements.lock"), str(wheels[0]), cwd=root)
    return work / "venv"


def _twelveways(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "twelveways"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_the_light_install_has_none_of_the_artifact_and_checks_clean(light_venv, root):
    probe = "import importlib.util, json, sys; print(json.dumps([m for m in sys.argv[1:] if importlib.util.find_spec(m)]))"
    found = subprocess.run([str(light_venv / "bin" / "python"), "-c", probe, *ARTIFACT_ONLY, "twelveways", "numpy"],
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(found) == ["twelveways", "numpy"]
    assert "All installed packages are compatible" in _uv("pip", "check", "--python", str(light_venv / "bin" / "python"),
                                                          cwd=root).stderr


def test_the_wheel_audits_the_corpus(light_venv, root, tmp_path):
    corpus = root / "tests" / "corpus"
    proc = _twelveways(light_venv, "audit", str(corpus / "pyperf" / "telco.json"), "--output", "audit.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "audit.md").read_text().splitlines()[2].startswith("**Result is: VALID**")
    missing = _twelveways(light_venv, "audit", "no-such-results.json", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and missing.stderr.count("\n") == 1


def test_the_wheel_compares_two_corpus_runs(light_venv, root, tmp_path):
    pyperf = root / "tests" / "corpus" / "pyperf"
    proc = _twelveways(light_venv, "compare", str(pyperf / "mult_list_py37.json"), str(pyperf / "mult_list_py38.json"),
                       cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Comparison") and "- Verdicts: 2 faster, 1 inconclusive" in proc.stdout


def test_the_workflow_names_the_extra_it_needs(light_venv, tmp_path):
    proc = _twelveways(light_venv, "run", "--cores", "1", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("error: twelveways run needs the artifact extra (snakemake not installed): "
                           "pip install 'twelveways[artifact]'\n")
