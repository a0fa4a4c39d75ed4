"""The reader's path : notebook parameters are honoured, a fresh clone's
notebooks read data/reference and say so, `make lab` answers on localhost, the reference set is current."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
import reportdata  # noqa: E402

from twelveways import results  # noqa: E402
from twelveways.prk import analysis as prkanalysis  # noqa: E402
from twelveways.report import commands, notebooks  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"


def _outputs_text(path: Path) -> str:
    """Every text and HTML output of an executed notebook, joined."""
    cells = json.loads(path.read_text())["cells"]
    parts = []
    for cell in cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts.append("".join(data.get("text/html", "")) + "".join(data.get("text/plain", "")))
            parts.append("".join(output.get("text", "")))
    return "\n".join(parts)


def _one_kernel_set(tmp_path: Path) -> Path:
    """The reference PRK results cut to one kernel (stencil) so that the notebook runs in seconds."""
    folder = tmp_path / "results"
    folder.mkdir()
    frame = results.to_frame(results.open(REFERENCE / "results" / "prk.nc"))
    ds = results.open(REFERENCE / "results" / "prk.nc")
    keep = frame["workload"].astype(str) == "stencil"
    results.write(ds.isel({ds["value"].dims[0]: keep.to_numpy()}), folder / "prk.nc")
    shutil.copy(REFERENCE / "results" / "bounds.nc", folder / "bounds.nc")
    return folder


@pytest.mark.slow
def test_confidence_parameter_changes_what_the_prk_notebook_says_and_computes(tmp_path):
    reportdata.ensure_kernelspec()
    folder = _one_kernel_set(tmp_path)
    params = {"results_dir": str(folder), "figures_dir": str(tmp_path / "fig"), "derived_path": "",
              "environment_json": str(REFERENCE / "environment.json"), "config_json": str(REFERENCE / "config.json"),
              "confidence": 0.8}
    executed = notebooks.execute(notebooks.notebook_source("prk"), tmp_path / "prk.ipynb", params)
    text = _outputs_text(executed)
    assert "Confidence of every interval: 80% (notebook parameter confidence)" in text
    assert "80% CI over invocations" in text and "95% CI" not in text
    times = prkanalysis.iteration_times(prkanalysis.load(folder)[0])
    at_95, at_80 = prkanalysis.summarize(times, 0.95), prkanalysis.summarize(times, 0.8)
    narrower = (at_80["ci_high_s"] - at_80["ci_low_s"]) < (at_95["ci_high_s"] - at_95["ci_low_s"])
    assert narrower.any() and not (at_80["ci_low_s"] == at_95["ci_low_s"]).all()
    shown = [f"{v:.4g}" for v in at_80["ci_low_s"].dropna()]
    assert all(value in text for value in shown)  # the notebook's table holds the 80% bounds


def test_settings_parameters_win_over_the_config_which_wins_over_the_schema(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"measurement": {"confidence": 0.9, "ci_target": 0.1}}))
    assert notebooks.settings(config, 0.8, None).confidence == 0.8
    chosen = notebooks.settings(config)
    assert (chosen.confidence, chosen.ci_target) == (0.9, 0.1) and "config" in chosen.origin["confidence"]
    assert notebooks.settings(tmp_path / "absent.json").confidence == 0.95  # the schema default
    assert notebooks.percent(0.975) == "97.5%"
    with pytest.raises(notebooks.NotebookError, match="confidence must lie between 0 and 1"):
        notebooks.settings(config, 1.5)


def test_no_hard_coded_confidence_in_notebooks():
    for path in (ROOT / "notebooks").glob("*.py"):
        code = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
        assert not [line for line in code if re.search(r"0\.95\b|95 ?%", line) and "targets.get" not in line], path


def test_a_fresh_clone_reads_the_reference_set_and_says_so(tmp_path):
    shutil.copy(ROOT / "Snakefile", tmp_path / "Snakefile")
    (tmp_path / "data").mkdir()
    shutil.copytree(REFERENCE, tmp_path / "data" / "reference")
    for name in notebooks.NOTEBOOKS:
        found = notebooks.inputs(name, **notebooks.workflow_paths(name), root=tmp_path)
        assert found.results_dir == "data/reference/results" and found.config_json == "data/reference/config.json"
        assert "reads the stored reference set data/reference/" in found.note
        assert found.figures_dir.startswith("reports/figures/")
    given = {**notebooks.workflow_paths("prk"), "results_dir": str(tmp_path / "elsewhere")}
    assert notebooks.inputs("prk", **given, root=tmp_path).note == ""  # paths a caller set are never replaced
    (tmp_path / "results").mkdir()
    shutil.copy(REFERENCE / "results" / "prk.nc", tmp_path / "results" / "prk.nc")
    assert notebooks.inputs("prk", **notebooks.workflow_paths("prk"), root=tmp_path).results_dir == "results"


def test_reference_set_is_current_for_this_code():
    """Fails when the results schema or the analysis changed since data/reference was made: refresh it with
    `make report` then `python -m twelveways.report snapshot` (data/reference/README.md)."""
    problems = commands.reference_problems(REFERENCE)
    assert not problems, "data/reference is stale: " + "; ".join(problems)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _lab_command(port: int) -> list[str]:
    """The command `make lab` runs (make -n), with the test's port; -o: the venv taken as built, never remade
    (make runs the rules that remake a makefile even with -n)."""
    done = subprocess.run(["make", "-n", "-s", "-o", ".venv/.twelveways-installed", "lab", f"LAB_PORT={port}"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    line = [ln for ln in done.stdout.splitlines() if "jupyter lab" in ln][-1]
    return line.split()


def test_make_lab_binds_localhost_without_a_browser_and_allows_root():
    command = _lab_command(8123)
    assert "--no-browser" in command and "--ip=127.0.0.1" in command and "--port=8123" in command
    assert ("--allow-root" in command) == (os.getuid() == 0)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lab_answers_on_localhost(tmp_path):
    port = _free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"), "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    server = subprocess.Popen([*_lab_command(port), "--IdentityProvider.token=", "--ServerApp.password="], cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, answer = time.monotonic() + 40, None
        while time.monotonic() < deadline and answer is None and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2) as response:
                    answer = json.loads(response.read())
            except OSError:
                time.sleep(0.5)
        assert answer is not None and "version" in answer, server.stderr.read() if server.poll() is not None else "no answer"
    finally:
        server.terminate()
        server.wait(timeout=20)
