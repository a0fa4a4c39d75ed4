"""Assemble ONE self-contained ``reports/report.html`` from the executed notebooks.

What a reader gets, in order: the headline (profile and what it is good for, one row of numbers
with CIs per benchmark and workload, verdict counts, claims; :mod:`.headline`), one line per check,
then a section per notebook (environment, PRK, training, inference, checklist detail folded).
Figures carry an alt text and a link to the CSV beside their PNG; long tables fold; cells never
show ``None``/``nan`` or raw JSON.  Code is
hidden; figures are embedded as ``data:`` URIs; the style sheet is inline; nothing is loaded
from any URL, so the file opens offline and cannot leak that it was opened.  A Content
Security Policy in the page makes the browser itself refuse any script or remote load that
might slip in, and :func:`external_references` checks the result before it is written.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from .. import quickimport
from ..env.capture_model import Capture
from ..env.capture_model import load as load_capture
from ..evidence.machine import dotted
from ..errors import TwelveWaysError
from ..families import FAMILIES
from .headline import headline_html

SECTION_TITLES = {family.notebook: family.section for family in FAMILIES.values()} | {"checklist": "Checklist in detail"}

#: No script at all, images only from data: URIs, inline styles only, nothing from the network.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src 'none'; "
       "script-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")

CSS = """
:root { --fg: #1d2329; --muted: #5b6670; --line: #d9dee3; --bg: #ffffff; --panel: #f5f7f9;
        --pass: #1a7f37; --warn: #9a6700; --fail: #cf222e; --na: #6e7781; --human: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header.tw-head { padding: 1.2rem 2rem 0.8rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.tw-head h1 { margin: 0 0 0.3rem; font-size: 1.6rem; }
header.tw-head p { margin: 0.1rem 0; color: var(--muted); font-size: 0.9rem; }
nav.tw-toc { padding: 0.5rem 2rem; border-bottom: 1px solid var(--line); font-size: 0.92rem; }
nav.tw-toc a { margin-right: 1.2rem; color: var(--human); text-decoration: none; }
main { max-width: 1320px; margin: 0 auto; padding: 0 2rem 3rem; }
section.tw-section { border-bottom: 1px solid var(--line); padding: 1rem 0 1.5rem; }
section.tw-section > h2.tw-section-title { font-size: 1.35rem; margin: 0.6rem 0; }
section.tw-section h1 { font-size: 1.3rem; margin-top: 0.4rem; }
section.tw-section h2 { font-size: 1.15rem; }
section.tw-section h3 { font-size: 1.02rem; }
a.anchor-link { display: none; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.85rem; max-width: 100%; }
div.tw-scroll { max-width: 100%; overflow-x: auto; }
div.tw-scroll > table { margin-top: 0.2rem; }
th, td { border: 1px solid var(--line); padding: 0.2rem 0.3rem; text-align: left; vertical-align: top;
         overflow-wrap: break-word; word-break: normal; max-width: 42rem; }
td[title] { min-width: 8rem; cursor: help; }
.tw-clamp { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; line-clamp: 2; overflow: hidden; }
thead th { background: var(--panel); }
details { margin: 0.25rem 0; }  /* a closed fold is one line; an open one gets its room */
details[open] { margin-bottom: 1rem; }
div.tw-parts > details:not([open]) { display: inline-block; margin: 0.1rem 1.4rem 0.1rem 0; }
details:not([open])::details-content { display: none; }  /* a closed inline <details> keeps its line */
ul.tw-checklist details:not([open]) > summary, ul.tw-claims details:not([open]) > summary { display: inline list-item; }
details > summary { cursor: pointer; color: var(--human); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); padding: 0.5rem;
      font-size: 0.82rem; border-radius: 4px; }
.output_stderr pre { background: #fff8c5; }
.output_error pre { background: #ffebe9; }
.tw-caption { margin: 0.8rem 0 0.2rem; font-weight: 600; }
.tw-note { color: var(--muted); font-style: italic; }
.tw-warning { color: var(--warn); font-weight: 600; }
.tw-verdict { font-size: 1.2rem; margin: 0.4rem 0 0.6rem; }
ul.tw-checks { list-style: none; padding: 0; margin: 0; columns: 2 24rem; }
ul.tw-checks li { margin: 0.15rem 0; break-inside: avoid; }
.tw-badge { display: inline-block; min-width: 6.5rem; padding: 0 0.4rem; border-radius: 3px; color: #fff;
            font-size: 0.78rem; text-align: center; background: var(--na); }
.tw-status-pass { --c: var(--pass); } .tw-status-warn { --c: var(--warn); } .tw-status-fail { --c: var(--fail); }
.tw-status-not-applicable { --c: var(--na); } .tw-status-needs-human { --c: var(--human); } .tw-status-other { --c: var(--na); }
.tw-badge[class*="tw-status-"] { background: var(--c); }
.tw-verdict[class*="tw-status-"] strong { color: var(--c); }
section.checklist h2 { font-size: 1.1rem; }
section.checklist .verdict { font-size: 1.2rem; }
.checklist-valid .verdict strong { color: var(--pass); } .checklist-invalid .verdict strong { color: var(--fail); }
tr.status-pass td:last-child { color: var(--pass); font-weight: 600; }
tr.status-warn td:last-child { color: var(--warn); font-weight: 600; }
tr.status-fail td:last-child { color: var(--fail); font-weight: 600; }
tr.status-needs_human td:last-child { color: var(--human); font-weight: 600; }
tr.status-not_applicable td:last-child { color: var(--na); }
details.status-fail > summary { color: var(--fail); } details.status-warn > summary { color: var(--warn); }
details.status-pass > summary { color: var(--pass); } details.status-not_applicable > summary { color: var(--na); }
.tw-caveat { background: #fff8c5; border-left: 4px solid var(--warn); padding: 0.4rem 0.7rem; margin: 0.6rem 0; }
.tw-caveat.tw-paper { background: #dafbe1; border-color: var(--pass); }
.tw-muted { color: var(--muted); font-size: 0.85rem; }
.tw-small-print { margin: 0 0 0.6rem; font-size: 0.78rem; }
table.tw-headline { font-size: 0.82rem; margin: 0.3rem 0; }
table.tw-headline td { max-width: 24rem; padding: 0.1rem 0.4rem; }
td.tw-num, .tw-num, td.tw-num * { white-space: nowrap; overflow-wrap: normal; font-variant-numeric: tabular-nums; }
td.tw-interval { overflow-wrap: normal; font-variant-numeric: tabular-nums; }
.tw-count { margin-right: 0.2rem; font-weight: 600; color: var(--c, var(--fg)); }
ul.tw-claims, ul.tw-checklist { margin: 0.2rem 0 0.6rem; padding-left: 1.1rem; font-size: 0.88rem; }
ul.tw-checklist { list-style: none; padding: 0; }
ul.tw-checklist li { margin: 0.1rem 0; }
ul.tw-checklist details { display: inline; margin-left: 0.4rem; font-size: 0.82rem; }
ul.tw-checklist details[open] { display: block; margin: 0.1rem 0 0.4rem 7rem; }
.tw-why { color: var(--fg); } .tw-todo { color: var(--warn); }
ul.tw-claims details.tw-why { display: inline; margin: 0 0 0 0.3rem; font-size: 0.82rem; }
ul.tw-claims details.tw-why[open] { display: block; margin: 0.1rem 0 0.3rem 1rem; }
.tw-claim { font-weight: 600; }
.tw-claims-head { margin: 0.4rem 0 0; font-weight: 600; }
table.tw-small { font-size: 0.78rem; }
figure.tw-figure { margin: 0.6rem 0; }
figure.tw-figure img { display: block; max-width: 100%; height: auto; }
figure.tw-figure figcaption { font-size: 0.8rem; color: var(--muted); }
details.tw-fold > summary { font-size: 0.9rem; }
footer { max-width: 1150px; margin: 0 auto; padding: 1rem 2rem 2rem; color: var(--muted); font-size: 0.85rem; }
"""

#: Elements whose src/href must never point at the network.
RESOURCE_TAGS = ("script", "link", "style", "font", "img", "iframe", "source", "embed", "object", "audio", "video")
_URL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


class RenderError(TwelveWaysError):
    """The report could not be assembled (missing notebook, remote resource in the page)."""


def _exporter():
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.remove_cell_tags = {"parameters", "injected-parameters", "remove-cell"}
    config.TagRemovePreprocessor.remove_all_outputs_tags = {"remove-output"}
    exporter = HTMLExporter(config=config, template_name="basic", exclude_input=True,
                            exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.register_preprocessor(TagRemovePreprocessor(config=config), enabled=True)
    return exporter


def _drop_active_outputs(notebook) -> None:
    """Remove outputs that would carry script (javascript, widgets) — the report runs no code."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data:
                for mime in [m for m in data if "javascript" in m or "widget" in m]:
                    del data[mime]


#: Text outputs that are a Python repr of a path (a cell ending in a saved figure's path), never shown.
_PATH_REPR = re.compile(r"^\s*(?:\w*Path\(['\"].*['\"]\)|figure saved: .*)\s*$", re.DOTALL)
#: A table of more rows or columns than these is detail: it folds into <details> under its caption (the
#: figures beside it, the headline and the prose carry the story; the page stays short enough to read through).
FOLD_ROWS = 4
FOLD_COLUMNS = 8
_NUMERIC = re.compile(r"^[-+−]?[\d.,]+(?:[eE][-+]?\d+)?\s*%?$")
#: An interval ``[low, high]``: it may break after its comma, never inside a number.
_INTERVAL = re.compile(r"^[\[(][-+\d.,eE ]+[\])]$")


def _figure_output(meta: Mapping, png: str, section: str, report_dir: Path | None) -> dict:
    """A display output replaced by an HTML <figure>: the PNG with its alt text and a link to its CSV."""
    name = str(meta.get("figure") or "figure")
    alt = str(meta.get("alt") or f"Figure {name}")
    csv = Path(str(meta.get("csv") or ""))
    link = ""
    if meta.get("csv") and csv.is_file():
        href = os.path.relpath(csv, report_dir) if report_dir else csv.as_uri()
        link = f" <a class='tw-csv' href='{html.escape(Path(href).as_posix())}'>data behind it (CSV)</a>"
    block = (f"<figure class='tw-figure' id='fig-{html.escape(section)}-{html.escape(name)}'>"
             f"<img alt=\"{html.escape(alt)}\" src='data:image/png;base64,{''.join(png.split())}'>"
             f"<figcaption>{html.escape(name)}{link}</figcaption></figure>")
    if meta.get("fold"):  # a diagnostic figure: one line until the reader opens it
        block = (f"<details class='tw-fold'><summary>{html.escape(str(meta['fold']))} (figure {html.escape(name)})"
                 f"</summary>{block}</details>")
    return {"output_type": "display_data", "metadata": {}, "data": {"text/html": block}}


def _prepare(notebook, section: str, report_dir: Path | None) -> None:
    """Figures with alt text and CSV links; path reprs dropped; other images get an alt text from their heading."""
    import nbformat

    heading = section
    for cell in notebook.cells:
        if cell.get("cell_type") == "markdown":
            titles = re.findall(r"^#+\s*(.+)$", cell.get("source", ""), re.MULTILINE)
            heading = titles[-1].strip() if titles else heading
            continue
        kept = []
        for output in cell.get("outputs", []):
            data, meta = output.get("data") or {}, output.get("metadata") or {}
            if "image/png" in data and isinstance(meta.get("twelveways"), Mapping):
                output = nbformat.from_dict(_figure_output(meta["twelveways"], data["image/png"], section, report_dir))
            elif "image/png" in data and not (meta.get("image/png") or {}).get("alt"):
                output.setdefault("metadata", {}).setdefault("image/png", {})["alt"] = f"Figure in “{heading}” ({section})"
            elif set(data) <= {"text/plain"} and _PATH_REPR.match(str(data.get("text/plain", ""))):
                continue
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept


_MISSING = {"None", "nan", "NaN", "NaT", "<NA>", "null"}
_MISSING_WORD = re.compile(r"\b(?:None|nan|NaN|NaT)\b")


def _readable_cell(cell) -> None:
    """A cell holding a missing-value word or a JSON/Python structure shows a dash or words instead."""
    from twelveways.checklist.render import readable

    if cell.find(True):
        return
    text = cell.get_text(strip=True)
    if text in _MISSING:
        cell.string = "—"
    elif _MISSING_WORD.search(text):  # "driver None; min None MHz": a missing value is a dash
        cell.string = _MISSING_WORD.sub("—", text)
    elif text.startswith(("{", "[{", "[[")):
        words = readable(text)
        # a structure cut short by the table's cell limit does not parse: its punctuation goes, its words stay
        cell.string = words if words != text else re.sub(r"[{}\[\]\"]", "", text).replace("'", "")


def _box_tables(soup) -> None:
    """Every table in a ``div.tw-scroll`` of its own (a table that cannot shrink to the page scrolls inside it),
    its column names breakable after each ``_`` or ``/`` (``per_iteration_speedup`` need not set a column's width)."""
    for table in soup.find_all("table"):
        if not (table.parent and "tw-scroll" in (table.parent.get("class") or [])):
            table.wrap(soup.new_tag("div", attrs={"class": "tw-scroll"}))
        for cell in table.find_all(["th", "td"]):
            _break_long_words(soup, cell)
        _clamp_configurations(soup, table)


def _clamp_configurations(soup, table) -> None:
    """Cells of a column named ``… configuration`` show at most two lines (``div.tw-clamp``); the whole text is
    their hover text (``title``), unless the cell already has one (a shortened key: :mod:`.tables`)."""
    rows = table.find_all("tr")
    if not rows:
        return
    names = [cell.get_text(" ", strip=True).lower() for cell in rows[0].find_all(["th", "td"])]
    columns = [number for number, name in enumerate(names) if name.endswith("configuration")]
    for row in rows[1:]:
        cells = row.find_all(["td", "th"], recursive=False)
        for number in columns:
            cell = cells[number] if number < len(cells) else None
            if cell is None or cell.find(class_="tw-clamp") or not cell.get_text(strip=True):
                continue
            cell["title"] = cell.get("title") or " ".join(cell.get_text().split())
            box = soup.new_tag("div", attrs={"class": "tw-clamp"})
            for child in list(cell.contents):
                box.append(child.extract())
            cell.append(box)


#: Where a long word may break: after ``_ / = : +``, after a comma before a letter, and between a lower-case
#: letter and a capital (``Single|Stream``); never inside a number.
_JOINT = re.compile(r"(?<=[_/=:+])(?=\w)|(?<=,)(?=[A-Za-z])|(?<=[a-z])(?=[A-Z][a-z])")
#: Words shorter than this stay whole (a column needs their width anyway).
LONG_WORD = 10


def _segments(text: str) -> list[str]:
    """``text`` cut at the joints of its long words (the pieces between which a line may break)."""
    segments = [""]
    for number, part in enumerate(re.split(r"(\S{%d,})" % LONG_WORD, text)):
        first, *rest = _JOINT.split(part) if number % 2 else [part]
        segments[-1] += first
        segments += rest
    return segments


def _break_long_words(soup, element) -> None:
    """A <wbr> at each joint (:data:`_JOINT`) of every long word in ``element``'s text, so that a path, a
    ``key=value`` or a column name like ``per_iteration_speedup`` does not set its column's width (idempotent)."""
    for text in list(element.find_all(string=re.compile(r"\S{%d,}" % LONG_WORD))):
        segments = _segments(str(text))
        if len(segments) == 1 or text.find_parent(["script", "style"]):
            continue
        for segment in segments[:-1]:
            text.insert_before(segment)
            text.insert_before(soup.new_tag("wbr"))
        text.replace_with(segments[-1])


def box_tables(fragment: str) -> str:
    """``fragment`` with each table boxed (:func:`_box_tables`): the page never scrolls sideways."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(fragment, "html.parser")
    _box_tables(soup)
    return str(soup)


def fold_long_tables(fragment: str, limit: int = FOLD_ROWS, columns: int = FOLD_COLUMNS) -> str:
    """Tables of more than ``limit`` rows or ``columns`` columns that are not folded already go into a closed
    <details>; every table sits in a box of its own that scrolls sideways when it cannot shrink to the page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(fragment, "html.parser")
    _fold_long_tables(soup, limit, columns)
    return str(soup)


def _fold_long_tables(soup, limit: int = FOLD_ROWS, columns: int = FOLD_COLUMNS) -> None:
    """:func:`fold_long_tables` on a parsed fragment, in place."""
    for cell in soup.find_all("td"):
        _readable_cell(cell)
        text = cell.get_text(strip=True)
        if _NUMERIC.match(text):
            cell["class"] = [*cell.get("class", []), "tw-num"]  # never wrapped mid-digit
        elif _INTERVAL.match(text):
            cell["class"] = [*cell.get("class", []), "tw-interval"]
    _box_tables(soup)
    for table in soup.find_all("table"):
        rows = len(table.find_all("tr")) - 1
        wide = len(table.find("tr").find_all(["th", "td"])) > columns if table.find("tr") else False
        if (rows <= limit and not wide) or table.find_parent("details"):
            continue
        caption = table.parent.find_previous_sibling(class_="tw-caption")  # the caption precedes the table's box
        shared = table.parent.find_previous_sibling()  # the factors its configurations share, said above it
        title = caption.get_text(" ", strip=True) if caption else "table"
        details = soup.new_tag("details", attrs={"class": "tw-fold"})
        summary = soup.new_tag("summary")
        summary.string = f"{title} ({rows} rows)"
        table.parent.wrap(details)
        details.insert(0, summary)
        if shared is not None and "tw-shared" in (shared.get("class") or []):
            summary.insert_after(shared.extract())
        if caption:
            caption.decompose()


def notebook_body(path: str | os.PathLike, section: str = "", report_dir: str | os.PathLike | None = None) -> str:
    """The HTML fragment of one executed notebook: outputs and prose only, no code; figures with alt
    text and a link to their CSV (relative to ``report_dir``); long tables folded."""
    quickimport.jsonschema()  # before nbformat and nbconvert import it with grammars no notebook needs
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise RenderError(f"executed notebook not found: {path}")
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several types for a damaged file
        raise RenderError(f"cannot read executed notebook {path}", cause=exc) from exc
    _drop_active_outputs(notebook)
    _prepare(notebook, section or path.stem, Path(report_dir) if report_dir else None)
    body, _ = _exporter().from_notebook_node(notebook)
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "html.parser")  # parsed once for both passes (a notebook's HTML is megabytes)
    _sanitize(soup)
    _fold_long_tables(soup)
    return str(soup)


def sanitize(fragment: str) -> str:
    """Strip anything active from a fragment: script/iframe/object/embed elements, on* handlers,
    javascript: links and remote resources.  Notebooks escape what they show; this is the
    second line of defence, not the first."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(fragment, "html.parser")
    _sanitize(soup)
    return str(soup)


def _sanitize(soup) -> None:
    """:func:`sanitize` on a parsed fragment, in place."""
    for tag in soup.find_all(["script", "iframe", "object", "embed", "link", "meta", "base", "form"]):
        tag.decompose()
    for tag in soup.find_all(True):
        for attribute in list(tag.attrs):
            value = tag.attrs[attribute]
            text = " ".join(value) if isinstance(value, list) else str(value)
            if attribute.lower().startswith("on"):
                del tag.attrs[attribute]
            elif attribute.lower() in ("src", "href", "srcset", "data", "poster", "xlink:href", "action", "formaction"):
                if text.strip().lower().startswith(("javascript:", "vbscript:")) or (
                        _URL.match(text) and tag.name in RESOURCE_TAGS):
                    del tag.attrs[attribute]


def external_references(document: str) -> list[str]:
    """Every src/href of a resource element that points at the network, and every remote
    ``url()``/``@import`` inside a style (empty for a self-contained page)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(document, "html.parser")
    found = []
    for tag in soup.find_all(RESOURCE_TAGS):
        for attribute in ("src", "href", "srcset", "data"):
            value = tag.get(attribute)
            if value and re.search(r"https?:|^\s*//", " ".join(value) if isinstance(value, list) else value, re.I):
                found.append(f"<{tag.name} {attribute}={value!s}>")
    for tag in soup.find_all("style"):
        found += [f"<style> {m}" for m in re.findall(r"(?:url\(\s*['\"]?|@import\s+['\"])\s*(?:https?:)?//[^)'\"\s]*",
                                                     tag.get_text(), re.I)]
    for tag in soup.find_all(style=True):
        if re.search(r"url\(\s*['\"]?\s*(?:https?:)?//", tag["style"], re.I):
            found.append(f"<{tag.name} style=...remote url...>")
    return found


def checklist_summary(checklist_json: str | os.PathLike | None) -> str:
    """The checklist summary fragment, drawn by the checklist's own renderer (the one that writes checklist.md)."""
    path = Path(checklist_json) if checklist_json else None
    if path is None or not path.is_file():
        return ("<p class='tw-note'>No checklist was produced for this report "
                f"({html.escape(str(path) if path else 'no checklist file given')} is missing).</p>")
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise RenderError(f"checklist is not valid JSON: {path}", cause=exc) from exc
    if not isinstance(data, Mapping):
        raise RenderError(f"checklist must hold a JSON object: {path}")
    from ..checklist.model import AuditReport
    from ..checklist.render import html_fragment
    from ..errors import AuditInputError

    try:
        report = AuditReport.from_dict(data, str(path))
    except AuditInputError as exc:
        raise RenderError(f"{path} is not a twelveways checklist (format twelveways-checklist/2): "
                          f"{exc.one_line()}", cause=exc) from exc
    return sanitize(html_fragment(report))


def _read_optional_json(path) -> dict:
    """A JSON object that may be absent ({}); one that is there but damaged is a one-line RenderError."""
    if not path or not Path(path).is_file():
        return {}
    from ..inputs import read_json_object

    return read_json_object(path, "config dump", RenderError)


def _lookup(data: Mapping, *names: str):
    """The first of dotted ``names`` present in nested ``data`` (for header facts)."""
    for name in names:
        node = dotted(data, name)
        if node not in (None, "", {}):
            return node
    return None


def header_facts(config: Mapping, environment: Capture | None) -> list[str]:
    """Short provenance lines for the page header (escaped later)."""
    facts = []
    host, cpu = (environment.hostname, environment.cpu_model) if environment else (None, None)
    commit, dirty = (environment.git_commit, environment.git_dirty) if environment else (None, None)
    if host or cpu:
        facts.append("machine: " + ", ".join(str(v) for v in (host, cpu) if v))
    if config:
        stages = config.get("stages", {})
        on = [name for name, enabled in stages.items() if enabled] if isinstance(stages, Mapping) else []
        facts.append(f"profile: {config.get('profile', '?')}, seed {config.get('seed', '?')}, stages: {', '.join(on) or 'none'}")
    if commit:
        dirty_note = " (uncommitted changes)" if dirty else ""
        facts.append(f"project commit: {str(commit)[:12]}{dirty_note}")
    return facts


def locate(config_json, derived: str | os.PathLike | None = None) -> dict[str, Path | None]:
    """Where the derived results, the raw results and the Snakemake benchmark logs of this report are.

    Only the run the report renders: ``derived`` when the caller names it (a rebuild names the
    ``derived/`` it has just written), else the ``derived/`` beside that run's ``config.json``
    (the workflow keeps ``results/derived`` beside ``results/config.json``).  Nothing beside the
    report itself is read: a folder left there by an earlier ``make reader-report`` belongs to
    another run.
    """
    from .notebooks import NotebookError, project_root

    base = Path(config_json).parent if config_json else None
    candidates = [Path(derived)] if derived else ([base / "derived", base / "results" / "derived"] if base else [])
    raw = [base / "results", base] if base else []
    bench = base / "logs" / "bench" if base and (base / "logs" / "bench").is_dir() else None
    try:
        if bench is None and base and base.resolve() == (project_root() / "results").resolve():
            bench = project_root() / "logs" / "bench"  # the workflow's own run: its Snakemake benchmark logs
    except NotebookError:
        pass
    return {"derived": next((c for c in candidates if c.is_dir()), None),
            "results": next((c for c in raw if (c / "prk.nc").is_file() or (c / "bounds.nc").is_file()), None),
            "bench": bench}


#: The ``<meta>`` that names the run a report renders ("workflow", or "rebuild" of a stored set):
#: ``make archive`` packs that run's outputs only (twelveways.report.archive).
RUN_META = "twelveways-run"


def _page(title: str, facts: list[str], sections: list[tuple[str, str, str]], made_by: str = "workflow") -> str:
    """The whole document: head with the CSP and the style sheet, header, table of contents, sections."""
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'>",
        "<head>",
        "<meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<link rel='icon' href='data:,'>",
        f"<meta name='{RUN_META}' content='{html.escape(made_by)}'>",
        f"<title>{html.escape(str(title))}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        "<header class='tw-head'>",
        f"<h1>{html.escape(str(title))}</h1>",
        f"<p>{' · '.join(html.escape(str(fact)) for fact in facts)}</p>",
        f"<p>rendered {generated}; code cells hidden, every figure embedded with its data as CSV beside it; opens offline</p>",
        "</header>",
        "<nav class='tw-toc'>" + "".join(f"<a href='#section-{html.escape(name)}'>{html.escape(label)}</a>"
                                        for name, label, _ in sections) + "</nav>",
        "<main>",
    ]
    for name, label, body in sections:
        # a notebook brings its own title (its first heading); the first two sections get one here
        titled = name in ("summary", "headline", "reproduction")
        heading = f"<h2 class='tw-section-title'>{html.escape(label)}</h2>" if titled else ""
        parts += [f"<section class='tw-section' id='section-{html.escape(name)}'>", heading, body, "</section>"]
    parts += ["</main>",
              "<footer>Twelve Ways: SC15 rules R1–R12 and the twelve data-science benchmarking fallacies "
              "F1–F12, checked against this run's data.</footer>",
              "</body>", "</html>"]
    return "\n".join(parts)


def reproduction_section(reproduction_json: str | os.PathLike | None) -> list[tuple[str, str, str]]:
    """The comparison with the configured reference (``report.reference``; reports/reproduction.json), or nothing."""
    if not reproduction_json:
        return []
    from ..compare import record as compare_record
    from ..compare import render as compare_render

    found = _read_optional_json(reproduction_json)
    if not found:
        raise RenderError(f"{reproduction_json}: no reproduction record (run `twelveways reproduce` first)")
    record = compare_record.from_dict(found, str(reproduction_json))
    if not isinstance(record, compare_record.Reproduction):
        raise RenderError(f"{reproduction_json}: a comparison, not a reproduction record (run `twelveways reproduce`)")
    body = box_tables(compare_render.reproduction_fragment(record, heading="h3"))
    body += ("<p>Every shared configuration, the environment differences and the stability of each side: "
             "reports/reproduction.html.</p>")
    return [("reproduction", "Reproduction against the reference", body)]


def render(notebooks: Iterable[tuple[str, str | os.PathLike]], output: str | os.PathLike, *,
           checklist_json: str | os.PathLike | None = None, config_json: str | os.PathLike | None = None,
           environment_json: str | os.PathLike | None = None, title: str | None = None,
           note: str | None = None, reproduction_json: str | os.PathLike | None = None,
           derived_dir: str | os.PathLike | None = None, made_by: str = "workflow") -> Path:
    """Write the report: header, headline, one line per check, one section per executed notebook.

    ``notebooks`` are (name, executed .ipynb) pairs in report order; names index
    :data:`SECTION_TITLES`; ``derived_dir`` is where the run's notebooks wrote their derived results
    (default: ``derived/`` beside ``config_json``, see :func:`locate`).  The result is checked for remote references before it is
    written atomically.
    """
    config = _read_optional_json(config_json)
    environment = load_capture(environment_json, "environment capture", RenderError) \
        if environment_json and Path(environment_json).is_file() else None
    checklist = _read_optional_json(checklist_json)
    title = title or _lookup(config, "report.title") or "Twelve Ways benchmark report"
    output = Path(output)
    bodies = []
    for name, path in notebooks:
        body = notebook_body(path, name, output.parent)
        if name == "checklist":  # the lines above carry every check; its tables are for those who look
            body = ("<details class='tw-fold'><summary>Every check's evidence as the checklist notebook shows it "
                    "(open)</summary>" + body + "</details>")
        bodies.append((name, SECTION_TITLES.get(name, name.title()), body))
    figures = {f"{n}/{m}": f"fig-{n}-{m}" for n, _, b in bodies for m in re.findall(rf"id=\"fig-{re.escape(n)}-([^\"]+)\"", b)}
    places = locate(config_json, derived_dir)
    headline = headline_html(config, checklist, derived_dir=places["derived"], results_dir=places["results"],
                             bench_dir=places["bench"], figures=figures)
    sections = [("headline", "Headline", box_tables(headline)),
                ("summary", "Checklist: one line per check", box_tables(checklist_summary(checklist_json))),
                *reproduction_section(reproduction_json), *bodies]
    facts = header_facts(config, environment) + ([note] if note else [])
    document = _page(str(title), facts, sections, made_by)
    remote = external_references(document)
    if remote:
        raise RenderError(f"the report would load {len(remote)} remote resource(s), first: {remote[0][:120]}")
    output.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".partial", dir=output.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(document)
        os.chmod(tmp, 0o644)  # a report is for reading, unlike mkstemp's private default
        os.replace(tmp, output)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return output
