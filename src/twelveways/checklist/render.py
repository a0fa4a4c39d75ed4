"""Render an audit (its ``to_dict()`` form, as in ``reports/checklist.json``) as JSON, Markdown or HTML.

The renderers take the dict so the report stage can render ``reports/checklist.json`` without
re-running the audit.  Every string that comes from data or configuration is escaped: HTML
with ``html.escape``, Markdown table cells with backslash-escaped pipes and no newlines.
"""

from __future__ import annotations

import html
import json


def to_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=False, default=str) + "\n"


def _short(value, limit: int = 240) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(value) -> str:
    return " ".join(_short(value).split()).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def _source(source: dict) -> str:
    fields = ", ".join(source.get("fields") or [])
    file = source.get("file") or ""
    return f"{file}: {fields}" if file and fields else file or fields


def summary_lines(report: dict) -> list[str]:
    """LoadGen-style: the verdict, then one line per check and per claim."""
    lines = [f"Result is: {report['verdict']}"]
    for c in report["checks"]:
        lines.append(f"{c['id']} {c['title']}: satisfied: {c['satisfied']}")
    for c in report["claims"]:
        lines.append(f"Claim {c['id']}: {c['verdict'].replace('_', ' ')}")
    return lines


def to_markdown(report: dict) -> str:
    out = ["# Benchmarking checklist", "", f"**Result is: {report['verdict']}**", ""]
    out += ["Inputs: " + ", ".join(f"`{_md(p)}`" for p in report["inputs"]), ""]
    out += ["```"] + [line.replace("`", "'") for line in summary_lines(report)[1:]] + ["```", ""]
    if report["claims"]:
        out += ["## Claims", "", "| claim | statement | verdict | numbers |", "|---|---|---|---|"]
        for c in report["claims"]:
            out.append(f"| {_md(c['id'])} | {_md(c['statement'])} | **{c['verdict'].replace('_', ' ')}** | {_md(c['message'])} |")
        out.append("")
    out += ["## Checks", ""]
    for c in report["checks"]:
        out += [f"### {c['id']} {_md(c['title'])} — {c['status'].replace('_', ' ')}", ""]
        if c["evidence"]:
            out += ["| evidence | value | source |", "|---|---|---|"]
            out += [f"| {_md(e['what'])} | {_md(e['value'])} | {_md(_source(e['source']))} |" for e in c["evidence"]]
            out.append("")
        if c["recommendation"] and c["status"] != "not_applicable":
            out += [f"*Recommendation:* {_md(c['recommendation'])}", ""]
    return "\n".join(out)


def to_html(report: dict) -> str:
    """An HTML fragment (a <section>) for the first section of the report."""
    e = html.escape
    verdict = report["verdict"]
    parts = [f'<section class="checklist checklist-{e(verdict.lower())}">',
             f'<h2>Benchmarking checklist</h2>', f'<p class="verdict"><strong>Result is: {e(verdict)}</strong></p>',
             '<table class="checklist-summary"><thead><tr><th>check</th><th>title</th><th>satisfied</th></tr></thead><tbody>']
    for c in report["checks"]:
        parts.append(f'<tr class="status-{e(c["status"])}"><td>{e(c["id"])}</td><td>{e(c["title"])}</td>'
                     f'<td>{e(c["satisfied"])}</td></tr>')
    parts.append("</tbody></table>")
    if report["claims"]:
        parts.append('<h3>Claims</h3><table class="checklist-claims"><thead><tr><th>claim</th><th>statement</th>'
                     '<th>verdict</th><th>numbers</th></tr></thead><tbody>')
        for c in report["claims"]:
            parts.append(f'<tr class="verdict-{e(c["verdict"])}"><td>{e(c["id"])}</td><td>{e(c["statement"])}</td>'
                         f'<td>{e(c["verdict"].replace("_", " "))}</td><td>{e(c["message"])}</td></tr>')
        parts.append("</tbody></table>")
    for c in report["checks"]:
        parts.append(f'<details class="status-{e(c["status"])}"><summary>{e(c["id"])} {e(c["title"])}: '
                     f'{e(c["status"].replace("_", " "))}</summary><ul>')
        for item in c["evidence"]:
            parts.append(f'<li>{e(item["what"])}: <code>{e(_short(item["value"]))}</code> '
                         f'<small>({e(_source(item["source"]))})</small></li>')
        parts.append("</ul>")
        if c["recommendation"] and c["status"] != "not_applicable":
            parts.append(f'<p class="recommendation">{e(c["recommendation"])}</p>')
        parts.append("</details>")
    parts.append("</section>")
    return "\n".join(parts) + "\n"


RENDERERS = {"json": to_json, "md": to_markdown, "html": to_html}
html_fragment = to_html  # the name the report stage imports
