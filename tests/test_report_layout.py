"""Tables that fit the page (issue 39): training configurations shortened with their words on hover, long words
breakable at their joints, configuration cells in a two-line box, wide and long tables and diagnostic figures
folded, a capture's parts side by side.  What a browser makes of it: tests/test_browser.py."""

from __future__ import annotations

import pandas as pd
from bs4 import BeautifulSoup

from twelveways.report import render, tables
from twelveways.train.planning import RunConfig

IDS = ["mlp-large/digits8/b64/lr0.1-linear/fp32/io/r2-strong/topk:0.01+ef/final",
       "mlp-large/digits8/b128/lr0.2-linear/fp32/io/r2-weak/none/final",
       "mlp-large/digits8/b64/lr0.1-linear/fp32/io/r1-base/none/final"]


def test_training_configurations_show_what_sets_them_apart_with_every_factor_on_hover():
    frame = pd.DataFrame({"config_id": IDS, "base_case": [f"1 rank, {IDS[2]}"] * 3, "speedup": [0.49, 0.91, 1.0]})
    soup = BeautifulSoup(tables.table_html(frame, "speedups"), "html.parser")
    assert soup.select_one("p.tw-shared").get_text() == "Every configuration below: mlp-large, digits 8×8, fp32, I/O timed."
    first = soup.select("tbody tr")[0].find_all("td")
    assert first[0].get_text() == "batch 64, lr 0.1 linear, 2 ranks strong, topk:0.01+ef"
    assert first[0]["title"] == RunConfig.from_id(IDS[0]).describe()
    assert first[0].find("div", class_="tw-clamp") is not None
    assert first[1].get_text() == "1 rank, batch 64, lr 0.1 linear, 1 rank"  # an id inside a sentence, shortened too
    assert first[1]["title"] == "1 rank, " + RunConfig.from_id(IDS[2]).describe()
    assert "title" not in first[2].attrs and [th.get_text() for th in soup.select("th")][0] == "configuration"


def test_a_single_configuration_keeps_its_factors_and_other_text_is_left_alone():
    soup = BeautifulSoup(tables.table_html(pd.DataFrame({"config_id": IDS[:1], "note": ["a/b c"]})), "html.parser")
    assert soup.select_one("p.tw-shared") is None  # nothing is shared with nobody
    cells = soup.select("tbody td")
    assert cells[0].get_text() == ", ".join(RunConfig.from_id(IDS[0]).short_factors())
    assert cells[1].get_text() == "a/b c" and "title" not in cells[1].attrs


def test_long_words_break_at_their_joints_never_inside_a_number():
    html = render.box_tables("<table><tr><th>per_iteration_speedup</th><th>SingleStream p90</th><th>n</th></tr>"
                             "<tr><td>/work/data/reference/results/prk.nc: rows</td><td>1,234,567,890</td>"
                             "<td>short_one</td></tr></table>")
    soup = BeautifulSoup(html, "html.parser")
    assert [str(c) for c in soup.find("th").contents] == ["per_", "<wbr/>", "iteration_", "<wbr/>", "speedup"]
    assert "Single<wbr/>Stream" in html and "1,234,567,890" in html and "short_one" in html
    assert soup.find("td").get_text() == "/work/data/reference/results/prk.nc: rows"
    assert render.box_tables(html) == html  # twice is once


def test_configuration_columns_get_a_two_line_box_with_their_text_on_hover():
    words = "model cnn-large, data digits 8×8, batch 32, lr 0.05 (linear rule), precision fp32, 1 rank"
    html = render.box_tables(f"<table><tr><th>benchmark</th><th>key configuration</th></tr>"
                             f"<tr><td>Training</td><td>{words}</td></tr></table>")
    cell = BeautifulSoup(html, "html.parser").find_all("td")[1]
    assert cell["title"] == words and cell.find("div", class_="tw-clamp").get_text() == words
    assert BeautifulSoup(html, "html.parser").find("td").find("div") is None  # other columns stay as they are


def _table(rows: int, columns: int, caption: str) -> str:
    head = "".join(f"<th>c{i}</th>" for i in range(columns))
    body = "".join("<tr>" + "".join(f"<td>{r}</td>" for _ in range(columns)) + "</tr>" for r in range(rows))
    return f"<p class='tw-caption'>{caption}</p><table><tr>{head}</tr>{body}</table>"


def test_tables_of_many_rows_or_columns_fold_under_their_caption():
    soup = BeautifulSoup(render.fold_long_tables(_table(3, 4, "small") + _table(3, 12, "wide") + _table(9, 3, "long")),
                         "html.parser")
    assert [s.get_text() for s in soup.select("details.tw-fold > summary")] == ["wide (3 rows)", "long (9 rows)"]
    assert soup.select_one("p.tw-caption").get_text() == "small"  # short and narrow: open, under its caption


def test_a_folded_figure_sits_in_details_under_its_summary(tmp_path):
    output = render._figure_output({"figure": "qq", "alt": "Figure qq shows samples.", "fold": "Q–Q plots"},
                                   "iVBORw0KGgo=", "prk", tmp_path)
    soup = BeautifulSoup(output["data"]["text/html"], "html.parser")
    assert soup.select_one("details.tw-fold > summary").get_text() == "Q–Q plots (figure qq)"
    assert soup.select_one("details figure#fig-prk-qq img")["alt"] == "Figure qq shows samples."
    plain = render._figure_output({"figure": "qq", "alt": "a"}, "iVBORw0KGgo=", "prk", tmp_path)
    assert "<details" not in plain["data"]["text/html"]


def test_parts_of_a_capture_fold_one_by_one_inside_one_block():
    html = tables.parts_html([("host", pd.DataFrame({"field": ["name"], "value": ["x"]})),
                              ("empty", pd.DataFrame())])
    soup = BeautifulSoup(html, "html.parser")
    assert [s.get_text() for s in soup.select("div.tw-parts > details > summary")] == ["host (1 rows)"]
    assert soup.select_one("div.tw-parts > p.tw-note").get_text() == "empty: nothing recorded."
    assert "div.tw-parts > details:not([open])" in render.CSS



def test_missing_text_cells_render_as_missing_without_a_title():
    """A checks table whose text cells are empty (NaN, None) beside a training configuration: no traceback, the
    configuration is still shortened, the missing cells get no hover text."""
    frame = pd.DataFrame({"id": ["R1", "R2", "R3"], "title": [IDS[0], float("nan"), None],
                          "configuration": [float("nan"), "b=1", IDS[1]]})
    soup = BeautifulSoup(tables.table_html(frame, "checks"), "html.parser")
    rows = soup.select("tbody tr")
    assert len(rows) == 3 and rows[1].find_all("td")[0].get_text(strip=True) == "R2"
    assert len(soup.select("[title]")) == 2  # the two configuration ids, nothing for the missing cells
