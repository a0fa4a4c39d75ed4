"""The rules' code= inputs follow the import graph (twelveways.codegraph), so reruns follow the code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twelveways.codegraph import code_files

ROOT = Path(__file__).resolve().parents[1]
#: What the workflow's benchmark rules leave out of their code inputs (workflow/rules/common.smk).
BENCHMARK_EXCLUDE = ["twelveways.stats", "twelveways.checklist", "twelveways.families"]


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # Snakemake's working directory: paths come out relative to it


def test_analysis_and_checklist_depend_on_every_statistics_module():
    stats_files = {f"src/twelveways/stats/{p.name}" for p in (ROOT / "src/twelveways/stats").glob("*.py")}
    notebook = set(code_files("notebooks/prk.py", "twelveways.report.__main__"))
    checklist = set(code_files("twelveways.checklist.__main__"))
    assert "notebooks/prk.py" in notebook and "src/twelveways/prk/analysis.py" in notebook
    assert stats_files <= checklist, sorted(stats_files - checklist)
    assert {"src/twelveways/stats/__init__.py", "src/twelveways/stats/core.py"} <= notebook
    assert {f"src/twelveways/checklist/{p.name}" for p in (ROOT / "src/twelveways/checklist").glob("*.py")} <= checklist


def test_benchmark_runs_do_not_rerun_for_statistics_or_checklist_changes():
    sweep = code_files("twelveways.prk.sweep", exclude=BENCHMARK_EXCLUDE)
    assert {"src/twelveways/prk/sweep.py", "src/twelveways/prk/run.py", "src/twelveways/prk/records.py"} <= set(sweep)
    assert not [f for f in sweep if f.startswith(("src/twelveways/stats/", "src/twelveways/checklist/",
                                                  "src/twelveways/families/"))]


def test_lazy_imports_inside_functions_count():
    infer = code_files("twelveways.infer.run")
    assert "src/twelveways/infer/runs.py" in infer and "src/twelveways/infer/sut.py" in infer  # imported in functions
    with pytest.raises(FileNotFoundError, match="no_such"):
        code_files("twelveways.no_such")
    assert all(not os.path.isabs(f) for f in infer)
