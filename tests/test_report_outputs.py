"""What a report shows and writes is its own run's: the workflow's report never reads a folder an
earlier `make reader-report` left beside it; a notebook re-run by hand writes beside its executed
copy, never into results/; configuration keys read as named factors."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from twelveways.evidence.summary import StatedSummary
from twelveways.report import commands, render
from twelveways.train.planning import RunConfig, describe_config_id

ROOT = Path(__file__).resolve().parents[1]


def test_locate_reads_the_runs_own_derived_folder_not_one_left_beside_the_report(tmp_path):
    run = tmp_path / "results"
    (run / "derived").mkdir(parents=True)
    (run / "config.json").write_text("{}")
    leftover = tmp_path / "reports" / "derived"  # what `make reader-report` leaves behind
    leftover.mkdir(parents=True)
    assert render.locate(run / "config.json")["derived"] == run / "derived"
    rebuilt = tmp_path / "rebuilt" / "derived"
    rebuilt.mkdir(parents=True)
    assert render.locate(ROOT / "data" / "reference" / "config.json", rebuilt)["derived"] == rebuilt


def _args(output: Path, **given) -> argparse.Namespace:
    return argparse.Namespace(output=str(output), figures_dir=given.get("figures_dir"),
                              derived_path=given.get("derived_path"))


def test_a_notebook_run_by_hand_writes_beside_its_executed_copy(tmp_path):
    own = commands.own_outputs("prk", _args(tmp_path / "prk-80.ipynb"))
    assert own == {"figures_dir": str(tmp_path / "prk-80-outputs" / "figures"),
                   "derived_path": str(tmp_path / "prk-80-outputs" / "derived" / "prk.nc")}
    assert commands.own_outputs("environment", _args(tmp_path / "env.ipynb")) == {
        "figures_dir": str(tmp_path / "env-outputs" / "figures")}
    # the workflow names its folders: they are used as given
    assert commands.own_outputs("prk", _args(tmp_path / "x.ipynb", figures_dir="results/figures/prk")) == {}


def test_execute_by_hand_leaves_results_untouched(tmp_path, capsys):
    from browser import reportdata

    reportdata.ensure_kernelspec()
    reference = ROOT / "data" / "reference"
    before = {p: p.stat().st_mtime_ns for p in (ROOT / "results").rglob("*")} if (ROOT / "results").is_dir() else {}
    out = tmp_path / "environment.ipynb"
    code = commands.main(["execute", "environment", "--output", str(out), "--environment",
                          str(reference / "environment.json"), "--config", str(reference / "config.json")])
    assert code == 0 and out.is_file()
    assert (tmp_path / "environment-outputs" / "figures").is_dir()
    assert "environment-outputs" in capsys.readouterr().err
    after = {p: p.stat().st_mtime_ns for p in (ROOT / "results").rglob("*")} if (ROOT / "results").is_dir() else {}
    assert after == before
    shutil.rmtree(tmp_path / "environment-outputs")


def test_configuration_ids_read_as_named_factors():
    config = RunConfig("cnn-large", "digits", 8, 32, 0.05, "linear", "fp32", "io")
    assert config.config_id == "cnn-large/digits8/b32/lr0.05-linear/fp32/io/r1-none/none/final"
    assert RunConfig.from_id(config.config_id) == config
    text = describe_config_id(config.config_id)
    assert text.startswith("model cnn-large, data digits 8×8, batch 32, lr 0.05") and "/" not in text
    assert describe_config_id("not/an/id") == "not/an/id"


def test_jupyterlab_opens_paired_py_notebooks_as_notebooks(venv_env):
    """make lab puts envs/jupyter on JUPYTER_CONFIG_PATH; its overrides name jupytext's viewer for .py files."""
    import json
    import subprocess
    import sys

    # make's database holds the lab target's exported variable; -o: the venv taken as built, never remade
    database = subprocess.run(["make", "-p", "-n", "-o", ".venv/.twelveways-installed", "lab"], cwd=ROOT,
                              capture_output=True, text=True, env=venv_env).stdout
    assert f"JUPYTER_CONFIG_PATH := {ROOT}/envs/jupyter" in database
    # jupyter_server validates its events with jsonschema: imported without the IRI grammars (twelveways.quickimport)
    probe = ("import json; from twelveways import quickimport; quickimport.jsonschema(); "
             "from jupyterlab_server.settings_utils import _get_overrides; "
             "print(json.dumps(_get_overrides('/nonexistent')[0]))")
    env = {**venv_env, "JUPYTER_CONFIG_PATH": str(ROOT / "envs" / "jupyter")}
    overrides = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                          check=True).stdout)
    viewer = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["python"]
    extension = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-jupytext"
    assert any(viewer in path.read_text(errors="ignore") for path in extension.rglob("*.js")), viewer


def test_roofline_rings_points_above_the_measured_roof():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from twelveways import plots

    points = pd.DataFrame({"intensity": [0.1, 0.1, 10.0], "gflops": [0.5, 3.0, 40.0], "workload": ["a", "b", "c"]})
    fig, ax = plt.subplots()
    plots.roofline(points, "intensity", "gflops", bandwidth=10.0, peak=50.0, hue="workload", ax=ax)
    labels = ax.get_legend_handles_labels()[1]
    assert "above the measured roof: data held in cache" in labels
    assert plots._above_the_roof(ax, points, "intensity", "gflops", 10.0, 50.0) == 1  # only 3.0 > 0.1 × 10
    plt.close(fig)


def test_load_snapshots_read_start_then_end_and_cost_tables_have_no_unnamed_header():
    import pandas as pd

    from twelveways.env.render import in_time_order
    from twelveways.infer import analysis
    from twelveways.report import tables

    load = {"end": {"utc": "2026-01-01T10:05:00Z"}, "start": {"utc": "2026-01-01T10:00:00Z"}}
    assert [label for label, _ in in_time_order(load)] == ["start", "end"]
    frame = pd.DataFrame({"variant": ["a", "a"], "role": ["cost", "cost"], "metric": ["train_s", "infer_s_per_sample"],
                          "value": [10.0, 0.001]})
    html = tables.table_html(analysis.costs(frame))
    assert ">metric<" not in html and ">train_s<" in html


def test_inference_headline_reports_each_scenarios_mlperf_metric_per_variant():
    from bs4 import BeautifulSoup

    from twelveways.report import headline, inference_table

    def summary(scenario, statistic, value):
        return ("infer", StatedSummary.model_validate({
            "statistic": statistic, "metric": "latency", "unit": "ns", "value": value, "ci": [value * 0.99, value * 1.01],
            "confidence": 0.95, "n": 1024, "coverage": 0.96, "ci_method": "order_statistics",
            "filters": {"variant": "mlp-large-int8", "scenario": scenario, "role": "performance"}}))

    summaries = [summary("SingleStream", "p90", 149_400.0), summary("SingleStream", "p99", 999_000.0),
                 summary("MultiStream", "p90", 300_000.0), summary("MultiStream", "p99", 347_500.0)]
    html = inference_table.table_html(summaries, ROOT / "data" / "reference" / "results", {}, 0.95)
    row = [cell.get_text(" ", strip=True) for cell in BeautifulSoup(html, "html.parser").select("tbody tr")[0]("td")]
    assert row[0] == "mlp-large-int8"
    assert row[1].startswith("0.1494 ms") and row[2].startswith("0.3475 ms")  # SingleStream p90, MultiStream p99
    from twelveways.infer import analysis

    stated = analysis.reported(analysis.load(ROOT / "data" / "reference" / "results")[0]).loc["mlp-large-int8"]
    # LoadGen's own Server and Offline numbers of data/reference, as its summaries state them
    assert row[3] == f"{headline.number(stated['latency_bounded_qps'])} queries/s"
    assert row[4].startswith(f"{headline.number(stated['samples_per_second'])} samples/s")
    assert row[5].startswith("0.9528 [0.9255, 0.9723]") and "343/360" in row[5]


def test_inference_headline_names_the_median_and_the_runs_behind_a_repeated_scenario(tmp_path):
    """Several Offline runs: the median of LoadGen's numbers and their count, never one run picked; pooled latency
    summaries say how many runs they pool."""
    import pandas as pd
    from bs4 import BeautifulSoup

    from twelveways import results
    from twelveways.infer import records
    from twelveways.report import inference_table

    class _Model:
        name, parameters = "mlp", 10

    class _Variant:
        name = precision = "int8"

    def rows(role, scenario, run_id, values):
        base = records.base_factors(model=_Model, variant=_Variant, scenario=scenario, mode="PerformanceOnly",
                                    role=role, run_id=run_id, threads=1, seed=1, valid=True, below_minimum=True)
        return records.value_rows(base, values)

    offline = [rows("performance", "Offline", f"mlp-int8/Offline/performance/run_{n}",
                    [("samples_per_second", rate, "samples/s"), ("result_valid", 1.0, "1")])
               for n, rate in ((1, 100.0), (2, 400.0), (3, 250.0))]
    server = rows("summary", "Server", "mlp-int8/Server", [("latency_bounded_qps", 50.0, "queries/s")])
    results.write(results.from_frame(pd.concat([*offline, server], ignore_index=True), "infer"),
                  tmp_path / "inference.nc")
    summary = ("infer", StatedSummary.model_validate({
        "statistic": "p90", "metric": "latency", "unit": "ns", "value": 2e5, "ci": [1.9e5, 2.1e5], "confidence": 0.95,
        "n": 3072, "coverage": 0.96, "ci_method": "order_statistics", "replicate": "query", "runs": 3,
        "note": "queries of 3 LoadGen runs pooled",
        "filters": {"variant": "mlp-int8", "scenario": "SingleStream", "role": "performance"}}))
    html = inference_table.table_html([summary], tmp_path, {}, 0.95)
    soup = BeautifulSoup(html, "html.parser")
    row = [cell.get_text(" ", strip=True) for cell in soup.select("tbody tr")[0]("td")]
    assert row[1].startswith("0.2 ms [0.19, 0.21]") and row[1].endswith("3 runs pooled")
    assert "n=3072 queries of 3 LoadGen runs" in soup.select("tbody tr")[0]("td")[1].span["title"]
    assert row[3] == "50 queries/s"  # Server: its search, not repeated
    assert row[4] == "250 samples/s · median of 3 runs"
