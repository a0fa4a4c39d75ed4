"""The command line starts light: help and usage answer before the analysis stack loads, and a command that needs
the artifact extra says so in one line where it is missing (issue 42).  No timings here (make bench times it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: What `--help` must not import: the analysis stack (seconds and hundreds of MB on a small machine).
HEAVY = ("numpy", "pandas", "scipy", "xarray", "statsmodels", "matplotlib", "torch")

#: Runs the CLI in-process on argv with the named modules blocked (sys.modules[name] = None: `import name` fails
#: and importlib.util.find_spec says it is absent, as in an install without them); prints the exit code and
#: the heavy modules that were loaded.
HARNESS = r"""
import json, sys
blocked, argv = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for name in blocked:
    sys.modules[name] = None
from twelveways.cli import main
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
heavy = [m for m in json.loads(sys.argv[3]) if sys.modules.get(m) is not None]
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def _cli(argv: list[str], blocked: tuple[str, ...] = ()) -> tuple[dict, str, str]:
    proc = subprocess.run([sys.executable, "-c", HARNESS, json.dumps(list(blocked)), json.dumps(argv), json.dumps(HEAVY)],
                          capture_output=True, text=True, timeout=300)
    *lines, last = proc.stderr.rstrip("\n").split("\n")
    return json.loads(last), proc.stdout, "\n".join(lines)


@pytest.mark.parametrize("argv", [["--help"], ["audit", "--help"], ["compare", "--help"], ["noise-floor", "--help"],
                                  ["reproduce", "--help"], ["config-docs", "--help"], ["check-config", "--help"],
                                  ["results", "--help"], ["import", "--help"], ["env", "--help"],
                                  ["plan", "--help"], ["ab", "--help"], ["import-csv", "--help"], ["run", "--help"],
                                  ["report", "--help"], ["report", "appendix", "--help"]])
def test_help_imports_no_analysis_stack(argv):
    outcome, out, _ = _cli(argv)
    assert outcome["code"] == 0 and "usage:" in out
    assert outcome["heavy"] == [], f"twelveways {' '.join(argv)} imported {outcome['heavy']}"


def test_a_usage_problem_answers_before_the_analysis_stack():
    outcome, _, err = _cli(["audit", "--no-such-option", "x.json"])
    assert outcome == {"code": 2, "heavy": []}
    assert err.startswith("error: twelveways audit: unrecognized arguments: --no-such-option") and "\n" not in err


def test_the_harness_sees_an_import_of_the_stack():
    """The property above could not fail if the harness missed a loaded module: `results` really loads them."""
    outcome, _, _ = _cli(["results", "no-such-file.nc"])
    assert outcome["code"] == 2 and {"numpy", "pandas", "xarray"} <= set(outcome["heavy"])


@pytest.mark.parametrize("argv, missing", [
    (["run", "--cores", "1"], "snakemake"),
    (["report", "rebuild", "--from", "data/reference", "--output", "nowhere"], "papermill, nbconvert"),
])
def test_a_command_of_the_artifact_names_the_extra_in_one_line(argv, missing, root):
    blocked = ("snakemake", "papermill", "nbconvert")
    outcome, out, err = _cli(argv, blocked)
    assert outcome["code"] == 1 and out == ""
    assert err == (f"error: twelveways {argv[0]} needs the artifact extra ({missing} not installed): "
                   "pip install 'twelveways[artifact]'")


def test_help_of_an_artifact_command_needs_no_extra():
    outcome, out, _ = _cli(["report", "--help"], ("papermill", "nbconvert"))
    assert outcome["code"] == 0 and "rebuild" in out
