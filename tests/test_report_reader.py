"""The report as a reader meets it: headline first, checks in words, figures that do not lie.

The built report (the synthetic set of tests/browser/reportdata.py, built once per test run and
shared with tests/test_report.py) must hold no raw JSON, no Python reprs and no default alt text,
and every figure must have the CSV behind it beside its PNG, linked from the page.  The headline,
the checklist lines and the figure helpers are checked on crafted inputs in tmp_path.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402

from browser import reportdata  # noqa: E402
from twelveways import derived, plots  # noqa: E402
from twelveways.checklist import render as checklist_render  # noqa: E402
from twelveways.checklist.model import AuditReport, CheckResult, Status  # noqa: E402
from twelveways.report import checklistview, headline, render  # noqa: E402

#: What a reader must never see: reprs, JSON, missing-value words, nbconvert's default alt text.
FORBIDDEN = ("PosixPath(", '{"', "None =", "No description has been provided", "FigurePath(")
_MISSING_WORD = re.compile(r"\b(?:nan|NaN|None)\b")

#: A check whose evidence carries what the rules write today: a dict value, unset factors, ``CI None``.
RAW_CHECK = {"id": "R5", "title": "deterministic or CIs", "status": "warn", "satisfied": "Partly (warning)",
             "evidence": [{"what": "time unit=s variant=a target_qps=nan role=pilot: n=1, CI None",
                           "value": {"relative_half_width": None, "stored": 0.5, "unit": "s"},
                           "source": {"file": "results/inference.nc", "fields": ["attr summaries"]}},
                          {"what": "datasets", "value": "digits, {'digits': {'file': 'digits.npz'}}", "source": {}}],
             "recommendation": "run longer"}


def _typed(report: dict) -> AuditReport:
    """A checklist dict as the renderers take it; its counts recomputed (the test changed its checks)."""
    return AuditReport.from_dict({k: v for k, v in report.items() if k != "counts"})


def _visible_text(document: str) -> str:
    soup = BeautifulSoup(document, "html.parser")
    for tag in soup.find_all(["style", "script"]):
        tag.decompose()
    return soup.get_text(" ")


# --------------------------------------------------------------------------- the built report

@pytest.mark.slow  # the synthetic report built through its executed notebooks
def test_built_report_shows_no_raw_structures_or_default_alt_text(synthetic_report):
    document = synthetic_report.read_text()
    for forbidden in FORBIDDEN:
        assert forbidden not in document, forbidden
    assert not _MISSING_WORD.findall(_visible_text(document))
    images = BeautifulSoup(document, "html.parser").find_all("img")
    assert images and all(len(image.get("alt", "")) > 20 for image in images)


@pytest.mark.slow  # the synthetic report built through its executed notebooks
def test_every_figure_has_its_csv_beside_it_and_linked(synthetic_report):
    soup = BeautifulSoup(synthetic_report.read_text(), "html.parser")
    figures = soup.select("figure.tw-figure")
    assert len(figures) == len(soup.find_all("img"))
    for figure in figures:
        link = figure.select_one("a.tw-csv")
        assert link is not None, figure.get("id")
        csv = (synthetic_report.parent / link["href"]).resolve()
        assert csv.is_file() and csv.with_suffix(".png").is_file()
        assert list(pd.read_csv(csv).columns) == ["panel", "series", "kind", "x", "y"]
    for png in (synthetic_report.parent / "figures").rglob("*.png"):
        assert png.with_suffix(".csv").is_file(), png


@pytest.mark.slow  # the synthetic report built through its executed notebooks
def test_headline_comes_first_with_profile_and_verdict_counts(synthetic_report):
    soup = BeautifulSoup(synthetic_report.read_text(), "html.parser")
    first = soup.select("section.tw-section")[0]
    assert first["id"] == "section-headline"
    text = first.get_text(" ")
    assert "Profile test" in text and "runtime" in text
    audit = json.loads((synthetic_report.parent / "checklist.json").read_text())  # the rebuild re-audits
    for status, word in (("pass", "pass"), ("warn", "warn"), ("fail", "fail"), ("needs_human", "needs human")):
        assert f"{audit['counts'][status]} {word}" in text, (status, audit["counts"])
    for claim in audit["claims"]:  # every claim with its outcome
        assert claim["id"] in text and claim["verdict"].replace("_", " ") in text, claim["id"]


# --------------------------------------------------------------------------- checklist in words

@pytest.mark.parametrize("form", ["html", "md"])
def test_checklist_renders_evidence_as_words_not_json(form):
    report = {**reportdata.CHECKLIST, "checks": [*reportdata.CHECKLIST["checks"], RAW_CHECK], "counts": None}
    text = html.unescape(checklist_render.RENDERERS[form](_typed(report)))
    for forbidden in FORBIDDEN + ("{'", "target_qps", "CI None"):
        assert forbidden not in text, forbidden
    assert not _MISSING_WORD.findall(text)
    assert "satisfied" not in text.lower()
    assert "relative half width" in text and "run longer" in text


def test_each_check_is_one_line_with_why_and_what_to_do():
    page = checklist_render.to_html(_typed({**reportdata.CHECKLIST, "checks": [RAW_CHECK]}))
    line = BeautifulSoup(page, "html.parser").select_one("ul.tw-checklist > li")
    assert "R5" in line.get_text() and "Do: run longer" in line.get_text()
    rows = line.select("details table tbody tr")
    assert [td.get_text() for td in rows[0].find_all("td")] == [
        "time unit=s variant=a role=pilot", "n=1, no CI relative half width", "—", "s",
        "results/inference.nc: attr summaries"]
    assert checklist_render.why(CheckResult("R1", "t", Status.PASS)) == "Nothing contradicts the rule."


def test_checklist_view_frame_has_status_once():
    _, frame = checklistview.normalize({"checks": [RAW_CHECK]})
    assert list(frame.columns) == list(checklistview.COLUMNS)
    assert frame.loc[0, "evidence"] == "3 items from results/inference.nc"


# --------------------------------------------------------------------------- headline numbers

def _derived_set(tmp_path: Path) -> Path:
    folder = reportdata.write_result_set(tmp_path / "set")
    raw = folder / "results" / "prk.nc"
    filters = {"benchmark": "prk", "workload": "nstream", "implementation": "c-mpi", "ranks": 2, "threads": 1,
               "size": 1_000_000}
    invocations = np.split(np.linspace(0.0020, 0.0026, 24), 4)  # four invocations of six iterations
    summary = derived.replicate_summary(invocations, metric="time", unit="s", filters=filters, confidence=0.95)
    rate = derived.mean_summary([9000.0, 9100.0], metric="rate", unit="MB/s", filters=filters,
                                statistic="harmonic_mean", kind="rate")
    bundle = derived.Derived("prk", [raw], rows=[derived.row({**filters, "precision": "fp64"}, "speedup", 1.7, "1")],
                             summaries=[summary, rate])
    derived.write(folder / "derived" / "prk.nc", bundle)
    return folder


def test_headline_row_has_value_ci_method_n_coverage_and_bound(tmp_path):
    folder = _derived_set(tmp_path)
    page = headline.headline_html({"profile": "quick"}, reportdata.CHECKLIST, derived_dir=folder / "derived",
                                  results_dir=folder / "results", bench_dir=None, figures={"prk/time-ci": "fig-prk-time-ci"})
    row = BeautifulSoup(page, "html.parser").select_one("table.tw-headline tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[1] == "nstream · c-mpi · 2×1 PE · size 1000000"
    assert re.match(r"2\.29\d* ms \[1\.99\d*, 2\.6\d*\]", cells[3])  # the invocations differ: a wide interval
    assert cells[2] == "time per iteration: geometric mean of the invocation means"
    assert cells[4] == "95% t interval over invocations, n=4 invocations (24 iterations)"
    assert cells[5].endswith("% of measured bandwidth")
    assert row.find("a")["href"] == "#fig-prk-time-ci" and "prk.nc" in cells[7]
    assert "smoke test" in page and "unknown" in page


def test_runtime_comes_from_snakemake_benchmark_files(tmp_path):
    (tmp_path / "a.tsv").write_text("s\th:m:s\tmax_rss\n60.0\t0:01:00\t10\n")
    (tmp_path / "b.tsv").write_text("s\th:m:s\tmax_rss\n90.0\t0:01:30\t10\n")
    assert headline.bench_runtime(tmp_path) == (150.0, 2)
    assert "2 min 30 s (sum of 2 Snakemake benchmark files" in headline.profile_caveat({"profile": "full"}, tmp_path)
    assert headline.bench_runtime(tmp_path / "none") == (None, 0)


# --------------------------------------------------------------------------- figures that do not lie

def test_amdahl_needs_three_processor_counts():
    summary = pd.DataFrame({"pe": [1, 2], "value": [1.0, 1.8], "implementation": ["c", "c"]})
    fig, ax = plt.subplots()
    plots.scaling(summary, "pe", "value", hue="implementation", amdahl_fits={"c": (0.1, 1.0)}, ax=ax)
    assert not [line for line in ax.get_lines() if "Amdahl" in line.get_label()]
    plt.close(fig)


def test_quantile_lines_are_fitted_on_log_latency_within_the_data():
    rng = np.random.default_rng(1)
    load = np.repeat([1000.0, 4000.0, 8000.0, 12000.0], 200)
    latency = rng.lognormal(0.0, 0.4, load.size) * np.exp(load / 6000)
    fig, ax = plt.subplots()
    fits = plots.quantile_lines(ax, load, latency, quantiles=(0.5, 0.9))
    assert set(fits) == {0.5, 0.9} and ax.get_yscale() == "log"
    for line in ax.get_lines():
        assert np.all(line.get_ydata() > 0)
        assert line.get_xdata().min() >= 1000.0 and line.get_xdata().max() <= 12000.0
    plt.close(fig)


def test_saved_figure_gets_csv_alt_text_readable_ticks_and_no_repr(tmp_path):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot(np.arange(10000, 16001, 500), np.arange(13), "o", label="measured")
    ax.set_xticks(np.arange(10000, 16001, 500))
    ax.legend()
    ax.set(xlabel="target QPS", ylabel="latency (ms)", title="load")
    path = plots.save(fig, tmp_path, "load", declaration=dict(shows="samples", lines="none", x="target QPS",
                                                                 x_kind="continuous"))
    assert "PosixPath" not in repr(path) and path.with_suffix(".csv").is_file()
    data = pd.read_csv(path.with_suffix(".csv"))
    assert len(data) == 13 and set(data["series"]) == {"measured"}
    assert plots.alt_text(fig, "load").startswith("Figure load shows samples. load: latency (ms) against target QPS")
    assert plots.tick_label_collisions(fig) == []
    assert ax.get_legend().get_bbox_to_anchor().bounds != ax.bbox.bounds  # moved out of the data


def test_render_turns_figure_outputs_into_figures_and_drops_path_reprs(tmp_path):
    import nbformat

    (tmp_path / "f.csv").write_text("panel,series,kind,x,y\n")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Latency against load"),
        nbformat.v4.new_code_cell(outputs=[
            nbformat.v4.new_output("execute_result", {"text/plain": "PosixPath('/x/f.png')"}, execution_count=1),
            nbformat.v4.new_output("display_data", {"image/png": "iVBORw0KGgo="},
                                   metadata={"twelveways": {"figure": "f", "alt": "Figure f shows samples.",
                                                            "csv": str(tmp_path / "f.csv")}}),
            nbformat.v4.new_output("display_data", {"image/png": "iVBORw0KGgo="})])])
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    body = render.notebook_body(path, "inference", tmp_path)
    soup = BeautifulSoup(body, "html.parser")
    assert "PosixPath" not in body
    assert soup.select_one("figure#fig-inference-f a.tw-csv")["href"] == "f.csv"
    assert [img["alt"] for img in soup.find_all("img")] == ["Figure f shows samples.",
                                                            "Figure in “Latency against load” (inference)"]


def test_long_tables_fold_and_numbers_do_not_wrap():
    rows = "".join(f"<tr><td>config {i}</td><td>{i * 12345.678:,.1f}</td><td>None</td></tr>" for i in range(20))
    body = render.fold_long_tables(f"<p class='tw-caption'>sweep</p><table><tr><th>a</th></tr>{rows}</table>")
    soup = BeautifulSoup(body, "html.parser")
    assert soup.select_one("details.tw-fold > summary").get_text() == "sweep (20 rows)"
    assert all("tw-num" in row.find_all("td")[1]["class"] for row in soup.find_all("tr")[1:])
    assert "None" not in soup.get_text()
    assert json.dumps({"a": 1}) not in body
