"""Family declarations (twelveways.families): stated once, read by the rules, the report and R2.

The declarations repeat names that live in modules importing torch or LoadGen; the first tests hold
them equal.  The toy-family tests register a new family and follow it through the schema, the
report's notebook index, the checklist's R2 and the Snakemake rules (a dry run in a copy of the
workflow), which is what "adding a family is one declaration plus its own code" means.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lazy_modules import TORCH
from twelveways import config, families, results
from twelveways import resultset
from twelveways.checklist import Status, audit
from twelveways.evidence.summary import StatedSummary
from twelveways.families import Family
from twelveways.report import commands
from twelveways.report import notebooks as nb

ROOT = Path(__file__).resolve().parents[1]
TOY = Family(name="toy", stage="toy", notebook="toy", results=("toy.nc",),
             levels={"workload": ("alpha", "beta")}, suite=True)


@TORCH
def test_declared_names_equal_the_modules_that_run_them():
    from twelveways.infer import scenarios, variants
    from twelveways.prk import build, run
    from twelveways.train import data, models, settings

    assert families.infer.SCENARIOS == tuple(scenarios.SCENARIOS)
    assert families.infer.VARIANTS == tuple(variants.VARIANTS)
    assert families.train.MODELS == tuple(models.MODELS)
    assert families.train.DATASETS == tuple(d for d in data.DATASETS if d != settings.UPSAMPLED_DIGITS)
    assert build.KERNELS == run.KERNELS == families.prk.KERNELS
    assert set(families.prk.MPI_KERNELS) <= set(families.prk.KERNELS)


def test_schema_stage_switches_are_the_declared_families():
    switches = config.load_schema()["properties"]["stages"]["properties"]
    assert set(switches) == {family.stage for family in families.staged()}


@pytest.fixture
def toy(monkeypatch):
    """The toy family registered after the others, as one new module would be."""
    monkeypatch.setitem(families.FAMILIES, "toy", TOY)
    return TOY


def test_a_registered_family_reaches_schema_and_report_index(toy):
    assert config.validate({})["stages"]["toy"] is True  # on, like every family
    off = config.validate({"stages": {"toy": False}, "subset_reasons": {"toy": "no toys today"}})
    assert off["stages"]["toy"] is False
    assert list(nb.NOTEBOOKS)[-2:] == ["toy", "checklist"]
    assert nb.NOTEBOOKS["toy"] == ("toy.py", "toy")
    assert nb.needs("toy") == ("results_dir", "toy.nc")
    assert nb.derived_file("toy") == "derived/toy.nc"
    assert commands.stage_file("toy") == "toy.nc"


def _toy_results(path: Path) -> Path:
    """A toy results file that ran one of its two declared workloads and states no levels (someone else's)."""
    rows = [{"benchmark": "toy", "workload": "alpha", "implementation": "c", "ranks": 1, "threads": 1, "size": 10,
             "precision": "fp64", "seed": 1, "run_id": f"r{i}", "iteration": -1, "rank": -1, "metric": "time",
             "value": 1.0 + 0.01 * i, "unit": "s", "valid": True} for i in range(12)]
    return results.write(results.from_records(rows, "toy"), path)


def test_r2_judges_a_suite_family_against_its_declared_workloads(toy, tmp_path):
    report = audit.run(resultset.load([str(_toy_results(tmp_path / "toy.nc"))]))
    r2 = next(item for item in report.checks if item.id == "R2")
    assert r2.status is Status.FAIL  # a declared workload not run, no reason given
    text = json.dumps([e.to_dict() for e in r2.evidence])
    assert "beta" in text and "toy suite" in text


def _workflow_copy(tmp: Path) -> Path:
    """The workflow (rules, schemas, config, notebooks) in a scratch folder, plus the toy's own code."""
    for name in ("workflow", "config", "notebooks", "report"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tmp / name)
    (tmp / "Snakefile").write_text((ROOT / "Snakefile").read_text() + '\ninclude: "workflow/rules/toy.smk"\n')
    (tmp / "notebooks" / "toy.py").write_text("# %% tags=['parameters']\nresults_dir = 'results'\n")
    (tmp / "workflow" / "rules" / "toy.smk").write_text(
        'rule toy:\n    output:\n        "results/toy.nc",\n    shell:\n        "touch {output}"\n')
    (tmp / "toy.yaml").write_text((ROOT / "config" / "config.yaml").read_text() + "\n")
    return tmp


REGISTER_AND_RUN = """
import sys
from twelveways import families
from twelveways.families import Family
families.FAMILIES["toy"] = Family(name="toy", stage="toy", notebook="toy", results=("toy.nc",),
                                  levels={"workload": ("alpha", "beta")})
from snakemake.cli import main
sys.argv = ["snakemake"] + sys.argv[1:]
main()
"""


@pytest.mark.slow
def test_a_registered_family_flows_through_the_rules(tmp_path):
    folder = _workflow_copy(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-c", REGISTER_AND_RUN, "-n", "--cores", "1",
                           "reports/checklist.json"], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "rule notebook_toy:" in output and "rule toy:" in output
    assert "results/derived/toy.nc" in output and "results/notebooks/toy.ipynb" in output
    checklist = output[output.index("rule checklist:"):]
    assert "results/toy.nc" in checklist.split("output:")[0]


def test_a_family_brings_its_own_headline_rows(monkeypatch, tmp_path):
    """A new family's declaration is all the report's first screen needs: its rows are grouped, named and shown
    as it declares (issue 40: the report never branches on a family's name)."""
    from twelveways import key_results
    from twelveways.families.model import Headline, by_filters
    from twelveways.report import headline

    toy = Family(name="toy", stage="toy", notebook="toy", results=("toy.nc",), levels={"workload": ("alpha", "beta")},
                 headline=Headline(title="Toy", statistics=("median",), metric="time", unit="ms", figure="toy-fig",
                                   group=by_filters("workload"), describe=lambda f: f"toy {f.get('workload')}"))
    monkeypatch.setitem(families.FAMILIES, "toy", toy)
    summaries = [("toy", StatedSummary(statistic="median", metric="time", unit="s", value=v, ci=(v * 0.9, v * 1.1),
                                       confidence=0.95, n=5, filters={"workload": w}))
                 for w, v in (("alpha", 2.0), ("alpha", 1.0), ("beta", 3.0))]
    assert [(f, s.filters["workload"], s.value) for f, s in key_results.key_rows(summaries)] == [
        ("toy", "alpha", 1.0), ("toy", "beta", 3.0)]  # the best value per declared group
    html = headline.table_html(summaries, [], tmp_path, {"toy/toy-fig": "fig-toy-toy-fig"})
    assert "<td>Toy</td><td>toy alpha</td>" in html and "1,000 ms" in html.replace("1000", "1,000")
    assert "href='#fig-toy-toy-fig'" in html and ">toy.nc<" in html and "no bound defined" in html


def test_report_and_reproduction_never_name_a_family():
    """No module of the report, nor the reproduction, holds a benchmark family's or its notebook's name as a literal:
    what differs between families comes from their declarations (a new family takes one place).  The environment
    capture is left out: "environment" is also a rule's name and a record's key."""
    import ast

    names = {name for family in families.staged() for name in (family.name, family.notebook)}
    package = ROOT / "src" / "twelveways"
    found = []
    for path in [*sorted((package / "report").glob("*.py")), package / "compare" / "reproduce.py",
                 package / "key_results.py"]:
        found += [f"{path.relative_to(package)}:{node.lineno} {node.value!r}" for node in ast.walk(ast.parse(path.read_text()))
                  if isinstance(node, ast.Constant) and node.value in names]
    assert not found, found
