"""The report and its notebook machinery: builds from stored results, self-contained, escaped.

The report is rebuilt once per test run (fixtures of tests/conftest.py) from a synthetic result set
(tests/browser/reportdata.py, whose host name is ``<script>alert(1)</script>``) and from data/reference/.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402
from scipy import stats as sps  # noqa: E402

from browser import reportdata  # noqa: E402
from twelveways import derived as derived_module  # noqa: E402
from twelveways import plots, results, stats  # noqa: E402
from twelveways.prk import analysis as prkanalysis  # noqa: E402
from twelveways.cliargs import UsageError  # noqa: E402
from twelveways.errors import ResultsError  # noqa: E402
from twelveways.report import checklistview, commands, notebooks, render, tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"


@pytest.fixture(scope="module")
def soup(synthetic_report) -> BeautifulSoup:
    return BeautifulSoup(synthetic_report.read_text(), "html.parser")


# --------------------------------------------------------------------------- the built report

@pytest.mark.slow
def test_report_has_checklist_summary_first_then_each_section(synthetic_report, soup):
    ids = [section["id"] for section in soup.select("section.tw-section")]
    assert ids == ["section-headline", "section-summary", "section-environment", "section-prk", "section-checklist"]
    summary = soup.find("section", id="section-summary").get_text(" ")
    assert "VALID" in summary
    audited = json.loads((synthetic_report.parent / "checklist.json").read_text())  # the rebuild re-audits
    for check in audited["checks"]:
        assert check["id"] in summary and check["title"] in summary
    assert (synthetic_report.parent / "notebooks" / "prk.ipynb").is_file()
    assert (synthetic_report.parent / "figures" / "prk" / "roofline.png").is_file()


@pytest.mark.slow
def test_code_is_hidden_and_figures_are_embedded(soup):
    assert not soup.select(".input_area, .jp-InputArea, .input")
    assert "import matplotlib" not in soup.get_text()
    images = soup.find_all("img")
    assert len(images) >= 7  # distributions, CIs, Q-Q, strong, weak, roofline, status counts
    assert all(image["src"].startswith("data:image/png;base64,") for image in images)


@pytest.mark.slow
def test_no_script_style_link_or_font_loads_from_a_url(synthetic_report, soup):
    for tag in soup.find_all(["script", "link", "style", "font"]):
        for attribute in ("src", "href"):
            value = str(tag.get(attribute, ""))
            assert "http://" not in value and "https://" not in value, tag
    assert not soup.find_all("script")
    assert render.external_references(synthetic_report.read_text()) == []
    assert soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"].startswith("default-src 'none'")


@pytest.mark.slow
def test_machine_and_config_strings_are_escaped(synthetic_report, soup):
    text = synthetic_report.read_text()
    assert reportdata.HOSTILE not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<b>report</b>" not in text and "Synthetic &lt;b&gt;report&lt;/b&gt;" in text
    assert "<i>9000</i>" not in text
    assert not [tag for tag in soup.find_all(True) if any(a.lower().startswith("on") for a in tag.attrs)]
    assert not soup.find_all("img", src="x")
    assert "c-mpi beats numpy <script>" not in text  # a claim from config
    assert ("The environment CHANGED during the run (1 field(s) of the hash): hardware.frequency.governor: "
            "unavailable (no cpufreq in this VM) -&gt; &lt;changed&gt;") in text


@pytest.mark.slow
def test_invalid_runs_and_warmup_never_reach_the_summary(synthetic_report, tmp_path):
    import nbformat

    executed = nbformat.read(synthetic_report.parent / "notebooks" / "prk.ipynb", as_version=4)
    html_outputs = " ".join(out.get("data", {}).get("text/html", "") for cell in executed.cells
                            for out in cell.get("outputs", []))
    # the invalid run's 1 µs iterations would drag the c-serial median far below 0.0039 s
    assert "invalid runs (excluded)" in html_outputs
    ds = results.open(reportdata.write_result_set(tmp_path / "again") / "results" / "prk.nc")
    times = prkanalysis.iteration_times(results.to_frame(ds))
    assert times["time_s"].min() > 1e-4 and not (times["iteration"] == 0).any()


@pytest.mark.slow
def test_reference_set_rebuilds_within_the_size_budget(reference_report):
    """`make reader-report`'s command on data/reference (the fixture runs it once per test run)."""
    size = sum(path.stat().st_size for path in REFERENCE.rglob("*") if path.is_file())
    assert size < 4 * 2**20
    page = reference_report.read_text()
    assert "section-summary" in page and render.external_references(page) == []
    assert "without running any benchmark" in page
    assert "Black encountered an error" not in (reference_report.parent.parent / "rebuild.log").read_text()


# --------------------------------------------------------------------------- render and sanitize

def test_sanitize_strips_active_content_and_remote_resources():
    dirty = ("<p onclick='x()'>a</p><script>alert(1)</script><img src='https://example.org/x.png'>"
             "<a href='javascript:alert(1)'>j</a><a href='https://example.org'>ok link</a>"
             "<link rel='stylesheet' href='http://cdn.example/x.css'><iframe src='//evil'></iframe>")
    clean = render.sanitize(dirty)
    assert "<script" not in clean and "onclick" not in clean and "javascript:" not in clean
    assert "example.org/x.png" not in clean and "cdn.example" not in clean and "<iframe" not in clean
    assert "https://example.org" in clean  # a plain hyperlink loads nothing
    assert render.external_references(clean) == []


def test_external_references_finds_every_kind_of_remote_load():
    page = ("<script src='https://cdn/x.js'></script><link href='http://cdn/x.css'><style>@import 'https://f/x.css';"
            "body{background:url(//cdn/y.png)}</style><font src='https://fonts/x.woff'></font>"
            "<img src='data:image/png;base64,AA'><a href='https://fine.example'>x</a>")
    found = render.external_references(page)
    assert len(found) == 5, found


def test_render_refuses_to_write_a_page_with_a_remote_resource(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "CSS", "@import url(https://fonts.example/x.css);")
    with pytest.raises(render.RenderError, match="remote resource"):
        render.render([], tmp_path / "report.html")
    assert not (tmp_path / "report.html").exists()


def test_render_without_checklist_says_so(tmp_path):
    out = render.render([], tmp_path / "r.html", checklist_json=tmp_path / "missing.json", title="T <x>")
    page = out.read_text()
    assert "No checklist was produced" in page and "<title>T &lt;x&gt;</title>" in page


def test_checklist_summary_is_the_checklists_own_lines_escaped(tmp_path):
    data = json.loads(json.dumps(reportdata.CHECKLIST))
    data["checks"][0]["title"] = "<b>t</b> <script>alert(1)</script>"
    path = tmp_path / "checklist.json"
    path.write_text(json.dumps(data))
    fragment = render.checklist_summary(path)
    assert "<b>t</b>" not in fragment and "&lt;b&gt;t&lt;/b&gt;" in fragment and "<script>" not in fragment
    assert all(c["id"] in fragment for c in data["checks"])
    path.write_text(json.dumps({"verdict": "VALID", "checks": "not a list"}))
    with pytest.raises(render.RenderError, match="not a twelveways checklist"):
        render.checklist_summary(path)


def test_checklist_evidence_items_become_readable_text():
    verdict, frame = checklistview.normalize(reportdata.CHECKLIST)
    assert verdict == "VALID" and list(frame["id"]) == ["R1", "R5", "R9", "F7"]
    assert frame.loc[0, "evidence"] == "1 item from results/prk.nc"
    assert frame.loc[0, "why"] == "base case: c-serial 0.004 s."
    assert "satisfied" not in frame.columns


def test_tables_escape_cells_and_fold_long_tables():
    frame = pd.DataFrame({"name": ["<script>alert(1)</script>"] * 30, "value": np.arange(30.0) * 12345.678})
    text = tables.table_html(frame, "caption <i>")
    assert "<script>" not in text and "&lt;script&gt;" in text and "caption &lt;i&gt;" in text
    assert text.startswith("<details>") and "358,025" in text
    assert tables.flatten({"a": {"unavailable": "no sysfs"}}) == [("a", "unavailable: no sysfs")]


# --------------------------------------------------------------------------- notebooks machinery

def test_missing_kernelspec_names_the_fix():
    with pytest.raises(notebooks.NotebookError, match=r"ipykernel install --sys-prefix --name twelveways"):
        notebooks.check_kernelspec("no-such-kernel-twelveways")


def test_a_failing_cell_is_one_line_with_the_cause(tmp_path):
    reportdata.ensure_kernelspec()
    source = tmp_path / "bad.py"
    source.write_text('# %% tags=["parameters"]\nx = 1\n\n# %%\nraise ValueError(f"boom {x}")\n')
    with pytest.raises(notebooks.NotebookError, match=r"bad.py failed in cell \d+: ValueError: boom 2") as info:
        notebooks.execute(source, tmp_path / "out.ipynb", {"x": 2})
    assert "\n" not in info.value.one_line()
    assert (tmp_path / "out.ipynb").is_file()  # the executed copy with the traceback is kept


def test_notebook_without_parameters_cell_is_refused(tmp_path):
    source = tmp_path / "np.py"
    source.write_text("# %%\nx = 1\n")
    with pytest.raises(notebooks.NotebookError, match="no cell tagged 'parameters'"):
        notebooks.to_ipynb(source, tmp_path / "np.ipynb")


def test_project_root_is_found_from_the_notebooks_folder_and_paths_resolve_to_it():
    assert notebooks.project_root(ROOT / "notebooks") == ROOT
    assert notebooks.project_root(ROOT) == ROOT
    assert notebooks.resolve("results", ROOT / "notebooks") == ROOT / "results"
    assert notebooks.resolve("/abs/x") == Path("/abs/x")


@pytest.mark.parametrize("name", list(notebooks.NOTEBOOKS))
def test_notebooks_are_paired_percent_files_on_the_project_kernel(name):
    """The contract every stage's notebook keeps, so the workflow's rules can run it."""
    import jupytext

    source = notebooks.notebook_source(name)
    if not source.is_file():
        pytest.skip(f"{source.name} not written yet")
    nb = jupytext.read(source)
    assert nb.metadata["kernelspec"]["name"] == "twelveways"
    tagged = [cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1
    for parameter in notebooks.PARAMETERS:
        assert f"{parameter} = " in tagged[0].source
    assert "subprocess" not in source.read_text() and "mpiexec" not in source.read_text()  # never runs benchmarks


def test_jupytext_pairs_ipynb_with_percent_py():
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file

    path = find_jupytext_configuration_file(str(ROOT / "notebooks"))
    assert path and Path(path).parent == ROOT / "notebooks"
    formats = load_jupytext_configuration_file(path).formats
    assert "ipynb,py:percent" in (formats if isinstance(formats, list) else [formats])


@pytest.mark.slow  # a whole reference set re-read or re-audited: make test, not the unit tier
def test_cli_errors_are_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "twelveways.report", "rebuild", "--from", str(tmp_path / "nope"),
                           "--output", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("error: result set not found")


def test_rebuild_plan_leaves_out_stages_without_results(tmp_path):
    folder = reportdata.write_result_set(tmp_path / "set")
    (folder / "checklist.json").unlink()
    layout, chosen, notes = commands.plan(folder)
    assert chosen == ["environment", "prk", "checklist"]  # the rebuild re-audits: no stored checklist needed
    assert any("stage 'train' was off" in note for note in notes)
    (folder / "environment.json").unlink()
    with pytest.raises(Exception, match="no environment.json"):
        commands.plan(folder)


# --------------------------------------------------------------------------- PRK analysis

def _two_rank_run(times_rank0, times_rank1, valid=True, run_id="r"):
    rows = []
    for rank, times in enumerate((times_rank0, times_rank1)):
        for iteration, value in enumerate(times):
            rows.append(dict(benchmark="prk", workload="nstream", implementation="c-mpi", ranks=2, threads=1,
                             size=1000, precision="fp64", seed=-1, run_id=run_id, iteration=iteration, rank=rank,
                             metric="time", value=value, unit="s", valid=valid, bytes_per_iteration=32000.0,
                             flops_per_iteration=2000.0))
    return rows


def test_iteration_time_is_the_max_over_ranks_without_warmup_or_invalid_runs():
    rows = _two_rank_run([9.0, 1.0, 2.0, 3.0], [9.0, 1.5, 1.0, 3.5])
    rows += _two_rank_run([0.0, 1e-9, 1e-9, 1e-9], [0.0, 1e-9, 1e-9, 1e-9], valid=False, run_id="bad")
    frame = results.to_frame(results.from_records(rows, "prk"))
    times = prkanalysis.iteration_times(frame)
    assert sorted(times["time_s"]) == [1.5, 2.0, 3.5]
    assert set(times["rate_unit"]) == {"MB/s"}
    np.testing.assert_allclose(sorted(times["rate"]), sorted(32000.0 / np.array([1.5, 2.0, 3.5]) / 1e6))


def test_summary_is_over_invocations_with_the_iterations_beside_it_and_prk_rate():
    rng = np.random.default_rng(1)
    runs = [rng.lognormal(0, 0.2, 20) * level for level in (1.0, 1.1, 0.95, 1.05)]
    rows = []
    for number, values in enumerate(runs):
        rows += _two_rank_run([1.0, *values], [0.5, *(values * 0.5)], run_id=f"r{number}")
    summary = prkanalysis.summarize(prkanalysis.iteration_times(results.to_frame(results.from_records(rows, "prk"))))
    row = summary.iloc[0]
    means = np.array([v.mean() for v in runs])
    assert row["n"] == 4 and row["iterations"] == 80  # invocations are the replicates, iterations beside them
    assert row["time_s"] == pytest.approx(np.exp(np.log(means).mean()))
    low, high = stats.replicates.summary_interval(runs, "cost", 0.95)[1:]
    assert (row["ci_low_s"], row["ci_high_s"]) == pytest.approx((low, high))
    # the same interval as the t interval of the log invocation means (their spread is above the iterations')
    half = sps.t.ppf(0.975, 3) * np.log(means).std(ddof=1) / 2
    assert (row["ci_low_s"], row["ci_high_s"]) == pytest.approx(np.exp(np.log(means).mean() + np.array([-half, half])))
    everything = np.concatenate(runs)
    assert row["rate"] == pytest.approx(32000.0 / everything.mean() / 1e6)  # = harmonic mean of per-iteration rates


def test_invocation_means_that_are_not_log_normal_get_a_distribution_free_interval():
    rng = np.random.default_rng(4)
    levels = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 3.0]  # one invocation three times slower
    rows = []
    for number, level in enumerate(levels):
        rows += _two_rank_run([1.0, *(level * rng.lognormal(0, 0.01, 6))], [0.5] * 7, run_id=f"r{number}")
    times = prkanalysis.iteration_times(results.to_frame(results.from_records(rows, "prk")))
    record = prkanalysis.configuration_summaries(times, 0.95)[0]
    means = np.array([g.mean() for g in prkanalysis.invocations(times)])
    assert record["statistic"] == "median" and record["ci_method"] == "median_binomial" and record["n"] == 10
    assert record["value"] == pytest.approx(np.median(means))
    assert tuple(record["ci"]) == pytest.approx(stats.median_ci(means, 0.95))
    assert "Shapiro–Wilk rejects normal log invocation means" in record["note"]
    assert prkanalysis.summarize(times).iloc[0]["statistic"] == "median"


def test_one_invocation_has_no_interval_over_invocations():
    values = np.random.default_rng(2).lognormal(0, 0.2, 20)
    rows = _two_rank_run([1.0, *values], [0.5, *(values * 0.5)])
    row = prkanalysis.summarize(prkanalysis.iteration_times(results.to_frame(results.from_records(rows, "prk")))).iloc[0]
    assert row["n"] == 1 and row["iterations"] == 20 and row["time_s"] == pytest.approx(values.mean())
    assert np.isnan(row["ci_low_s"]) and np.isnan(row["ci_high_s"]) and np.isnan(row["ci_halfwidth_pct"])


def test_strong_scaling_uses_the_best_serial_base_case_and_ratios_of_the_times():
    summary = pd.DataFrame([
        dict(workload="k", implementation="slow", size=1, pe=1, n=3, time_s=4.0, ci_low_s=3.9, ci_high_s=4.1,
             rate=1.0, rate_unit="MB/s"),
        dict(workload="k", implementation="fast", size=1, pe=1, n=3, time_s=2.0, ci_low_s=1.9, ci_high_s=2.1,
             rate=2.0, rate_unit="MB/s"),
        dict(workload="k", implementation="fast", size=1, pe=2, n=3, time_s=1.25, ci_low_s=1.2, ci_high_s=1.3,
             rate=3.2, rate_unit="MB/s"),
    ])
    table, bases = prkanalysis.scaling_table(summary, "strong")
    assert bases[("k", 1)].startswith("base case: best serial = fast") and "2 s per iteration over 3" in bases[("k", 1)]
    speedups = dict(zip(zip(table["implementation"], table["pe"]), table["value"]))
    assert speedups == {("slow", 1): 0.5, ("fast", 1): 1.0, ("fast", 2): 1.6}
    assert prkanalysis.scaling_table(summary, "weak")[0].empty


def test_a_speedup_interval_is_the_replicate_level_ci_of_the_ratio():
    rng = np.random.default_rng(5)
    rows = []
    for pe, base in ((1, 2.0), (2, 1.1)):
        for run in range(5):
            level = base * rng.lognormal(0, 0.03)
            for iteration in range(9):
                rows.append(dict(benchmark="prk", workload="nstream", implementation="c-openmp", ranks=1, threads=pe,
                                 size=1000, precision="fp64", seed=-1, run_id=f"{pe}-{run}", iteration=iteration,
                                 rank=-1, metric="time", value=level * rng.lognormal(0, 0.01), unit="s", valid=True,
                                 bytes_per_iteration=32000.0, flops_per_iteration=2000.0))
    times = prkanalysis.iteration_times(results.to_frame(results.from_records(rows, "prk")))
    summary = prkanalysis.summarize(times)
    table, _ = prkanalysis.scaling_table(summary, "strong", times)
    two = table[table["pe"] == 2].iloc[0]
    groups = {pe: prkanalysis.invocations(times[times["pe"] == pe]) for pe in (1, 2)}
    ratio = stats.ratio_ci(groups[1], groups[2], "cost", confidence=0.95)
    assert two["value"] == pytest.approx(ratio.value) and (two["low"], two["high"]) == pytest.approx(ratio.ci)
    # narrower than dividing the bounds of both CIs, which treats them as if at their extremes together
    conservative, _ = prkanalysis.scaling_table(summary, "strong")
    wide = conservative[conservative["pe"] == 2].iloc[0]
    assert wide["low"] < two["low"] < two["high"] < wide["high"]


def test_weak_scaling_is_over_each_implementations_own_one_process_run():
    rows = []
    for impl, t1 in (("a", 1.0), ("b", 2.0)):
        rows.append(dict(workload="k", implementation=impl, size=10, base_size=10, scaling="single", pe=1, n=3,
                         time_s=t1, ci_low_s=t1 * 0.9, ci_high_s=t1 * 1.1, rate=1.0, rate_unit="MB/s"))
        rows.append(dict(workload="k", implementation=impl, size=20, base_size=10, scaling="weak", pe=2, n=3,
                         time_s=t1 * 1.25, ci_low_s=t1 * 1.2, ci_high_s=t1 * 1.3, rate=1.0, rate_unit="MB/s"))
    table, bases = prkanalysis.scaling_table(pd.DataFrame(rows), "weak")
    assert sorted(table[table["pe"] == 2]["value"]) == [0.8, 0.8]
    assert "one process = a" in bases[("k", 10)] and "one process = b" in bases[("k", 10)]


def test_amdahl_fits_use_one_self_relative_speedup_per_run():
    times = pd.DataFrame({"workload": "k", "size": 1, "implementation": "c",
                          "pe": [1, 1, 2, 2, 4, 4], "run_id": ["a", "b", "c", "d", "e", "f"],
                          "time_s": 1.0 / plots.amdahl([1, 1, 2, 2, 4, 4], 0.2)})
    table = pd.DataFrame({"workload": "k", "size": 1, "implementation": "c", "pe": [1, 2, 4],
                          "time_s": 1.0 / plots.amdahl([1, 2, 4], 0.2), "value": [0.5, 0.8, 1.0]})
    fit, scale = prkanalysis.amdahl_fits(table, times)["c"]
    assert fit.serial_fraction == pytest.approx(0.2, abs=1e-6) and scale == 0.5
    assert prkanalysis.amdahl_fits(table[table["pe"] == 1], times) == {}


def test_bounds_and_percent_of_bound():
    values = [1e9, 9000.0, 10000.0, 11000.0]  # iteration 0 is the warm-up: never part of a bound
    rows = [dict(benchmark="bounds", workload="memory_bandwidth", implementation="c-openmp", ranks=1, threads=2,
                 size=1, precision="fp64", seed=-1, run_id="b", iteration=i, rank=-1, metric="bandwidth", value=v,
                 unit="MB/s", valid=True) for i, v in enumerate(values)]
    table = prkanalysis.bounds(results.to_frame(results.from_records(rows, "bounds")))
    assert prkanalysis.best_bound(table, "bandwidth", 2) == pytest.approx(10.0)  # GB/s, median of the samples
    assert prkanalysis.best_bound(table, "flops") is None
    summary = pd.DataFrame([dict(pe=2, rate=5000.0, rate_unit="MB/s", flops_per_iteration=1.0, bytes_per_iteration=8.0)])
    assert prkanalysis.percent_of_bound(summary, table).iloc[0] == pytest.approx(50.0)


# --------------------------------------------------------------------------- plots draw lines only where valid

def _visible_lines(ax):
    return [line for line in ax.get_lines() if line.get_linestyle() not in ("None", "", " ")]


def test_scaling_plot_joins_no_measured_points():
    summary = pd.DataFrame({"pe": [1, 2, 4], "value": [1.0, 1.8, 3.0], "low": [0.9, 1.7, 2.8], "high": [1.1, 1.9, 3.2],
                            "implementation": ["c"] * 3})
    fig, ax = plt.subplots()
    plots.scaling(summary, "pe", "value", "low", "high", hue="implementation", base_label="base: 1 s",
                  amdahl_fits={"c": (0.1, 1.0)}, ax=ax)
    labels = sorted(line.get_label() for line in _visible_lines(ax))
    assert labels == ["c: Amdahl fit to 3 counts, serial fraction 0.100", "ideal (linear)"]
    assert [text.get_text() for text in ax.texts] == ["base: 1 s"]  # printed under the panel (R1)
    assert "base: 1 s" in plots.alt_text(fig, "scaling")
    plt.close(fig)


def test_ci_bars_and_distribution_draw_no_connecting_lines():
    frame = pd.DataFrame({"config": ["a"] * 10 + ["b"] * 10, "time": np.r_[np.ones(10), np.ones(10) * 2]})
    fig, (left, right) = plt.subplots(1, 2)
    plots.ci_bars(pd.DataFrame({"config": ["a", "b"], "m": [1.0, 2.0], "lo": [0.9, 1.9], "hi": [1.1, 2.1]}),
                  "config", "m", "lo", "hi", ax=left)
    plots.distribution(frame, "config", "time", ax=right)
    assert _visible_lines(left) == []
    assert sum(len(c.get_offsets()) for c in right.collections if hasattr(c, "get_offsets")) >= 20  # every point
    plt.close(fig)


def test_figures_are_saved_for_the_workflow_report(tmp_path):
    fig, ax = plt.subplots()
    plots.qq(np.random.default_rng(0).normal(size=50), ax=ax)
    path = plots.save(fig, tmp_path / "figs", "qq")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plots.save(fig, None, "x") is None
    plt.close(fig)


def test_reference_layout_accepts_json_beside_or_inside_results(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "environment.json").write_text(json.dumps({"hash": "h"}))
    layout = commands.reference_layout(tmp_path)
    assert layout["environment_json"] == tmp_path / "results" / "environment.json"
    assert layout["checklist_json"] is None


@pytest.mark.slow
def test_snapshot_copies_a_run_into_a_small_validated_reference_set(tmp_path):
    run = reportdata.write_result_set(tmp_path / "run")
    for name in ("environment.json", "config.json"):
        (run / name).rename(run / "results" / name)
    with pytest.raises(Exception, match="no derived"):  # a run whose analysis did not finish makes no reference set
        commands.snapshot(run / "results", None, tmp_path / "reference", bench_dir=None)
    derived = results.open(run / "results" / "prk.nc")
    derived.attrs.update(derived=1, analysis_version=derived_module.ANALYSIS_VERSION)
    results.write(derived, run / "results" / "derived" / "prk.nc")
    (run / "logs" / "bench").mkdir(parents=True)
    (run / "logs" / "bench" / "prk_run.tsv").write_text("s\th:m:s\n12.5\t0:00:12\n")
    out = commands.snapshot(run / "results", run / "checklist.json", tmp_path / "reference", bench_dir=run / "logs" / "bench")
    names = sorted(str(p.relative_to(tmp_path / "reference")) for p in out)
    assert names == ["checklist.json", "config.json", "environment.json", "logs/bench/prk_run.tsv", "manifest.json",
                     "results/bounds.nc", "results/prk.nc"]
    assert commands.reference_problems(tmp_path / "reference") == []
    assert results.open(tmp_path / "reference" / "results" / "prk.nc").sizes["sample"] == \
        results.open(run / "results" / "prk.nc").sizes["sample"]
    assert commands.plan(tmp_path / "reference")[1] == ["environment", "prk", "checklist"]
    with pytest.raises(Exception, match="over the"):
        commands.snapshot(run / "results", None, tmp_path / "too-big", limit=1000, bench_dir=None)
    assert not (tmp_path / "too-big").exists()
    # a refresh replaces what it writes and deletes nothing else: README, the checklist and benchmark logs it
    # was not given, the reference's A/A record (this run measured none), a note beside the results
    (run / "environment-end.json").rename(run / "results" / "environment-end.json")
    (tmp_path / "reference" / "README.md").write_text("kept")
    (tmp_path / "reference" / "noise_floor.json").write_text('{"floor": 0.02}')
    (tmp_path / "reference" / "results" / "notes.txt").write_text("kept")
    before = (tmp_path / "reference" / "manifest.json").read_text()
    out = commands.snapshot(run / "results", None, tmp_path / "reference", bench_dir=None)
    names = sorted(str(p.relative_to(tmp_path / "reference")) for p in out)
    assert names == ["README.md", "checklist.json", "config.json", "environment-end.json", "environment.json",
                     "logs/bench/prk_run.tsv", "manifest.json", "noise_floor.json", "results/bounds.nc",
                     "results/notes.txt", "results/prk.nc"]
    assert (tmp_path / "reference" / "noise_floor.json").read_text() == '{"floor": 0.02}'
    assert json.loads((tmp_path / "reference" / "manifest.json").read_text())["created"] >= json.loads(before)["created"]
    # an --output that is a file is refused in one line, and the file is left as it was
    (tmp_path / "file").write_text("mine")
    with pytest.raises(ResultsError, match="is a file, not a folder"):
        commands.snapshot(run / "results", None, tmp_path / "file", bench_dir=None)
    assert (tmp_path / "file").read_text() == "mine"


def test_bare_report_command_means_rebuild():
    args = commands.parser().parse_args(["rebuild"])
    assert args.source == "data/reference" and args.output == "reports/"
    with pytest.raises(UsageError, match="twelveways report rebuild: argument --from: expected one argument"):
        commands.main(["--from"])  # `twelveways report --from` without a folder: one line, not a usage block


def test_the_shown_table_puts_the_interval_in_one_cell_and_names_n_as_invocations():
    summary = pd.DataFrame({"workload": ["k", "k"], "size": [1, 2], "n": [4, 1], "iterations": [24, 6],
                            "time_s": [1.0, 2.0], "statistic": ["geometric mean", "geometric mean"],
                            "ci_low_s": [0.95, np.nan], "ci_high_s": [1.05, np.nan]})
    shown = prkanalysis.shown_table(summary)
    assert list(shown["CI (s)"]) == ["[0.95, 1.05]", "none: one invocation"]
    assert "invocations (n)" in shown.columns and "ci_low_s" not in shown.columns
