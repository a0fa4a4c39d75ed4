"""Render an audit (its ``to_dict()`` form, as in ``reports/checklist.json``) as JSON, Markdown or HTML.

The renderers take the dict so the report stage can render ``reports/checklist.json`` without
re-running the audit.  Every string that comes from data or configuration is escaped: HTML
with ``html.escape``, Markdown table cells with backslash-escaped pipes and no newlines.  Each
claim shows, per side, its configuration, n, median, interval and achieved coverage, then the
estimate, the test, the Holm-adjusted p and both verdicts (per claim and after Holm).
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
        out += _claims_markdown(report["claims"])
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
        parts += _claims_html(report["claims"])
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


# --------------------------------------------------------------------------- claims

def _num(value) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def _pct(value) -> str:
    return f"{100 * value:.4g}%" if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def _verdict_word(value) -> str:
    return str(value or "—").replace("_", " ")


def _side_interval(side: dict) -> str:
    if side.get("ci"):
        return f"[{_num(side['ci'][0])}, {_num(side['ci'][1])}]"
    if side.get("n") == 1:
        return "none (one sample)"
    if side.get("range"):
        return f"none (range [{_num(side['range'][0])}, {_num(side['range'][1])}] covers only {_pct(side.get('range_coverage'))})"
    return "none"


def _side_coverage(side: dict, needed) -> str:
    if side.get("deterministic"):
        return f"{_pct(side.get('coverage'))} (deterministic: all {side.get('n')} equal)"
    if side.get("coverage") is not None:
        return f"{_pct(side['coverage'])} (target {_pct(side.get('level'))})"
    wanted = f"; needs n ≥ {needed}" if needed else ""
    return f"none: n too small for {_pct(side.get('level'))}{wanted}"


def claim_sides(claim: dict) -> list[dict]:
    """One row per side (and per-seed estimate): label, configuration, n, median, interval, coverage."""
    numbers = claim.get("numbers") or {}
    needed = numbers.get("n_needed") or {}
    rows = []
    for key, label in (("a", "a (claimed better)"), ("b", "b (base case)"), ("pairs", "per-seed estimate")):
        side = numbers.get(key)
        if not isinstance(side, dict):
            continue
        configuration = side.get("configuration") or ""
        if key == "pairs":
            configuration = f"seeds {', '.join(map(str, side.get('seeds') or []))}"
        coverage = _side_coverage(side, needed.get(key))
        if numbers.get("design") == "paired" and key != "pairs" and side.get("coverage") is None:
            coverage = f"none at {_pct(side.get('level'))} (not used: the paired claim rests on the per-seed estimate)"
        rows.append({"side": label, "configuration": configuration, "n": str(side.get("n", "—")),
                     "median": _num(side.get("median")), "interval": _side_interval(side), "coverage": coverage})
    return rows


def claim_facts(claim: dict) -> list[tuple[str, str]]:
    """(label, text) lines: estimate and interval, the test, Holm, both verdicts, and why."""
    numbers = claim.get("numbers") or {}
    design = {"paired": "paired by seed", "independent": "independent samples", "one sample": "one sample"}
    estimate = f"{_num(numbers.get('estimate'))} = {numbers.get('estimate_definition', '—')}"
    if numbers.get("interval"):
        low, high = numbers["interval"]
        estimate += f"; interval [{_num(low)}, {_num(high)}], achieved coverage {_pct(numbers.get('coverage'))}"
    else:
        estimate += f"; no interval at {_pct(numbers.get('confidence'))}"
    threshold = " and ".join(f"{word} {_num(numbers[key])}" for key, word in (("at_least", "at least"), ("at_most", "at most"))
                             if numbers.get(key) is not None)
    test, holm = numbers.get("test"), numbers.get("holm") or {}
    if test:
        test_text = (f"{test.get('name')}: H1 {test.get('hypothesis')}, p = {_num(test.get('p_value'))}, "
                     f"α = {_num(test.get('alpha'))}: {'below' if test.get('significant') else 'not below'} α")
    else:
        test_text = "not run (no interval at the stated confidence, or the sides are not comparable)"
    if holm.get("p_adjusted") is not None:
        holm_text = (f"adjusted p = {_num(holm['p_adjusted'])} over {holm.get('family_size')} tested claims: "
                     f"{'below' if holm.get('significant') else 'not below'} α")
    else:
        holm_text = f"not in the family (not tested; {holm.get('family_size', 0)} claims tested)"
    verdicts = (f"per claim: {_verdict_word(numbers.get('per_claim_verdict', claim.get('verdict')))}; "
                f"after Holm: {_verdict_word(claim.get('verdict'))}")
    return [("design", f"{design.get(numbers.get('design'), '—')}; {numbers.get('metric', '')} in {numbers.get('unit', '')}"),
            ("threshold", threshold or "—"), ("estimate", estimate), ("test", test_text),
            ("Holm", holm_text), ("verdict", verdicts), ("why", claim.get("message", ""))]


SIDE_COLUMNS = ("side", "configuration", "n", "median", "interval", "coverage")


def _claims_markdown(claims: list[dict]) -> list[str]:
    out = ["## Claims", "", "| claim | verdict | per claim | test p | Holm-adjusted p | n (a / b) |", "|---|---|---|---|---|---|"]
    for c in claims:
        numbers = c.get("numbers") or {}
        ns = " / ".join(str((numbers.get(k) or {}).get("n", "—")) for k in ("a", "b") if k in numbers) or "—"
        out.append(f"| {_md(c['id'])} | **{_verdict_word(c['verdict'])}** | "
                   f"{_verdict_word(numbers.get('per_claim_verdict', c['verdict']))} | "
                   f"{_num((numbers.get('test') or {}).get('p_value'))} | "
                   f"{_num((numbers.get('holm') or {}).get('p_adjusted'))} | {ns} |")
    out.append("")
    for c in claims:
        out += [f"### Claim {_md(c['id'])} — {_verdict_word(c['verdict'])}", "", _md(c["statement"]), ""]
        sides = claim_sides(c)
        if sides:
            out += ["| " + " | ".join(SIDE_COLUMNS) + " |", "|" + "---|" * len(SIDE_COLUMNS)]
            out += ["| " + " | ".join(_md(row[col]) for col in SIDE_COLUMNS) + " |" for row in sides]
            out.append("")
        out += [f"- *{label}:* {_md(text)}" for label, text in claim_facts(c)]
        out.append("")
    return out


def _claims_html(claims: list[dict]) -> list[str]:
    e = html.escape
    parts = ['<h3>Claims</h3><table class="checklist-claims"><thead><tr><th>claim</th><th>verdict</th>'
             '<th>per claim</th><th>test p</th><th>Holm-adjusted p</th><th>n (a / b)</th></tr></thead><tbody>']
    for c in claims:
        numbers = c.get("numbers") or {}
        ns = " / ".join(str((numbers.get(k) or {}).get("n", "—")) for k in ("a", "b") if k in numbers) or "—"
        parts.append(f'<tr class="verdict-{e(c["verdict"])}"><td>{e(c["id"])}</td><td>{e(_verdict_word(c["verdict"]))}</td>'
                     f'<td>{e(_verdict_word(numbers.get("per_claim_verdict", c["verdict"])))}</td>'
                     f'<td>{e(_num((numbers.get("test") or {}).get("p_value")))}</td>'
                     f'<td>{e(_num((numbers.get("holm") or {}).get("p_adjusted")))}</td><td>{e(ns)}</td></tr>')
    parts.append("</tbody></table>")
    for c in claims:
        parts.append(f'<details class="claim verdict-{e(c["verdict"])}"><summary>Claim {e(c["id"])}: '
                     f'{e(_verdict_word(c["verdict"]))}</summary><p>{e(c["statement"])}</p>')
        sides = claim_sides(c)
        if sides:
            parts.append('<table class="claim-sides"><thead><tr>' + "".join(f"<th>{e(col)}</th>" for col in SIDE_COLUMNS)
                         + "</tr></thead><tbody>")
            parts += ["<tr>" + "".join(f"<td>{e(row[col])}</td>" for col in SIDE_COLUMNS) + "</tr>" for row in sides]
            parts.append("</tbody></table>")
        parts.append("<ul>" + "".join(f"<li><em>{e(label)}:</em> {e(text)}</li>" for label, text in claim_facts(c)) + "</ul>")
        parts.append("</details>")
    return parts


RENDERERS = {"json": to_json, "md": to_markdown, "html": to_html}
html_fragment = to_html  # the name the report stage imports
