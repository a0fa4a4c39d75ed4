"""Render an audit (an :class:`~.model.AuditReport`, as run or read back from ``reports/checklist.json``) as
JSON, Markdown or HTML.

The renderers take the typed record, so the report stage renders ``reports/checklist.json`` without re-running
the audit (:meth:`AuditReport.from_dict` checks it on load) and every reader uses fields, never keys.  Every
string that comes from data or configuration is escaped: HTML with ``html.escape``, Markdown table cells with
backslash-escaped pipes and no newlines.  Each claim shows, per side, what its record states (one renderer per
record, :data:`SIDE_FIELDS`): its configuration, n (runs and the values inside them, test items, or samples),
value (summary over runs or median), interval and coverage (achieved, or nominal with its method), then the
estimate, the test, the Holm-adjusted p and both verdicts (per claim and after Holm).  The summary opens every
format: the verdict, excluded runs counted per reason, one line per check and claim; the excluded runs are
listed last.
"""

from __future__ import annotations

import html
import json
import re

from .. import cireport
from ..claim_record import ClaimNumbers, ClaimResult, Side
from .model import AuditReport, CheckResult, EvidenceSource


def to_json(report: AuditReport) -> str:
    return json.dumps(report.to_dict(), indent=2, sort_keys=False, default=str) + "\n"


STATUS_WORDS = {"pass": "pass", "warn": "warn", "fail": "FAIL", "needs_human": "needs a human",
                "not_applicable": "not applicable"}


def _short(value, limit: int = 240) -> str:
    text = value if isinstance(value, str) else readable(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(value) -> str:
    from ..escape import inert_tags  # "p < 0.05" reads as written; only a would-be tag is escaped

    return inert_tags(" ".join(_short(value).split()).replace("\\", "\\\\").replace("|", "\\|"))


def _source(source: EvidenceSource) -> str:
    fields = ", ".join(source.fields)
    file = source.file
    return f"{file}: {fields}" if file and fields else file or fields


def readable(value) -> str:
    """A number, text or small structure as words: never JSON, never ``None``/``nan``."""
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')} {readable(v)}" for k, v in value.items()) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(readable(v) for v in value) or "—"
    if isinstance(value, str) and value[:1] in "{[" and value[-1:] in "}]":
        parsed = _literal(value)
        return value if parsed is None else readable(parsed)
    return str(value)


def _literal(text: str):
    """A JSON or Python literal written as text (a repr that reached the evidence), else None."""
    import ast

    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


_UNSET_FACTOR = re.compile(r"\s*\b[\w.]+=(?:nan|None)\b")


def clean(text: str) -> str:
    """Evidence wording as a reader sees it: unset factors (``x=nan``) left out, ``None``/``nan`` in words."""
    text = _UNSET_FACTOR.sub("", str(text))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:  # a dict repr inside the words: its items in words
        parsed = _literal(text[start:end + 1])
        if isinstance(parsed, dict):
            text = text[:start] + readable(parsed) + text[end + 1:]
    text = re.sub(r"\bCI None\b", "no CI", text)
    return re.sub(r"\bnan\b", "—", re.sub(r"\bNone\b", "none", text)).strip()


def evidence_rows(check: CheckResult) -> list[dict]:
    """Evidence as small-table rows: configuration, what, number, unit, source (a dict value: one row per key)."""
    rows = []
    for item in check.evidence:
        what, value = item.what, item.value
        head, sep, tail = what.rpartition(": ")
        configuration, label = (head, tail) if sep and "=" in head else ("", what)
        unit = str(value.get("unit", "")) if isinstance(value, dict) else ""
        values = {k: v for k, v in value.items() if k != "unit"} if isinstance(value, dict) else {"": value}
        for key, number in values.items():
            rows.append({"configuration": clean(configuration) or "—",
                         "what": clean(f"{label} {str(key).replace('_', ' ')}"), "number": clean(readable(number)),
                         "unit": unit or "—", "source": clean(_source(item.source)) or "—"})
    return rows


def why(check: CheckResult) -> str:
    """One sentence: what decided the status (the first evidence item, and how many more there are)."""
    rows = evidence_rows(check)
    if not rows:
        return "No evidence in these results." if check.status.value != "pass" else "Nothing contradicts the rule."
    first = rows[0]
    where = f" ({first['configuration']})" if first["configuration"] != "—" else ""
    unit = f" {first['unit']}" if first["unit"] != "—" else ""
    more = f"; {len(rows) - 1} more item{'s' if len(rows) > 2 else ''} in the evidence" if len(rows) > 1 else ""
    return f"{first['what']}{where}: {first['number']}{unit}{more}."


def todo(check: CheckResult) -> str:
    """What a reader or author should do about the check (nothing for pass and not applicable)."""
    if check.status.value in ("pass", "not_applicable"):
        return "nothing"
    return check.recommendation or "read the evidence and decide"


def _status_word(check: CheckResult) -> str:
    return STATUS_WORDS.get(check.status.value, check.status.value)


def summary_lines(report: AuditReport) -> list[str]:
    """LoadGen-style: the verdict, one line per reason runs were excluded, then one line per check and per claim."""
    lines = [f"Result is: {report.verdict}"] + excluded_lines(report)
    for c in report.checks:
        lines.append(f"{c.id} {c.title}: {_status_word(c)}")
    for c in report.claims:
        lines.append(f"Claim {c.id}: {c.verdict.value.replace('_', ' ')}")
    return lines + skipped_lines(report)


#: Checks that did not pass named one per line on checklist.md's first screen (the rest under "Checks").
MAX_FLAGGED = 6


def compact_lines(report: AuditReport) -> list[str]:
    """The checklist in a few lines (checklist.md's first screen): per family of checks the statuses by id, each
    check that did not pass on a line of its own with its title, the claims counted, then the excluded runs."""
    lines = []
    families = {"R": "SC15 rules", "F": "Fallacies"}
    for prefix, name in families.items():
        mine = [c for c in report.checks if c.id.startswith(prefix)]
        if mine:
            others = [f"{c.id} {_status_word(c)}" for c in mine if c.status.value != "pass"]
            span = f"{mine[0].id}-{mine[-1].id}" if len(mine) > 1 else mine[0].id
            lines.append(f"{name} {span}: " + (f"pass except {', '.join(others)}" if others else "all pass"))
    rest = [c for c in report.checks if c.id[:1] not in families]
    lines += [f"{c.id} {c.title}: {_status_word(c)}" for c in rest]
    flagged = [c for c in report.checks if c.status.value not in ("pass", "not_applicable") and c not in rest]
    lines += [f"  {c.id} {c.title}: {_status_word(c)}" for c in flagged[:MAX_FLAGGED]]
    if len(flagged) > MAX_FLAGGED:
        lines.append(f"  and {len(flagged) - MAX_FLAGGED} more not passing (see Checks)")
    if report.claims:
        counts: dict[str, list[str]] = {}
        for c in report.claims:
            counts.setdefault(c.verdict.value.replace("_", " "), []).append(c.id)
        lines.append("Claims: " + ", ".join(f"{len(ids)} {verdict}" + (f" ({', '.join(ids)})" if verdict != "supported"
                                                                     else "") for verdict, ids in counts.items()))
    return lines + excluded_lines(report) + skipped_lines(report)[:1]


def excluded_lines(report: AuditReport) -> list[str]:
    """One line per reason runs or configurations were left out of every check, with counts (the runs
    themselves are listed further down, :func:`excluded_list`)."""
    lines = [item.line for item in report.excluded_summary]
    if not lines and report.excluded:  # a checklist written before the summary: count the lines
        lines = [f"{len(report.excluded)} runs or configurations"]
    return [f"Excluded from every check: {line} (each listed under \"Excluded runs\")" for line in lines]


def excluded_list(report: AuditReport) -> list[str]:
    """Every excluded run or configuration, one line each with its file and reason."""
    return list(report.excluded)


def status_counts(report: AuditReport) -> str:
    """"17 pass, 3 warn, 1 needs a human, 4 not applicable of 25 checks": the verdict's one-line context."""
    counts = report.status_counts()
    order = ("fail", "warn", "needs_human", "pass", "not_applicable")
    parts = [f"{counts[s]} {STATUS_WORDS[s]}" for s in order if counts.get(s)]
    return f"{', '.join(parts) or 'no checks'} of {len(report.checks)} checks"


def skipped_lines(report: AuditReport) -> list[str]:
    """One line per file of the input trees that was not audited, with the reason (none when all were read)."""
    skipped, unreadable = report.skipped, report.unreadable
    head = (f"Skipped {len(skipped)} file(s) of the input trees (not audited; {unreadable} of them results that could "
            "not be read):" if unreadable else f"Skipped {len(skipped)} file(s) of the input trees (not audited):")
    return [head] + [f"  {item.path}: {item.why}" for item in skipped] if skipped else []


EVIDENCE_COLUMNS = ("configuration", "what", "number", "unit", "source")


def to_markdown(report: AuditReport) -> str:
    """Summary first (verdict, the checks in a few lines: :func:`compact_lines`), then the claims, one line per
    check with why and what to do, the evidence, the skipped files and the excluded runs one by one."""
    out = ["# Benchmarking checklist", "", f"**Result is: {report.verdict}** ({status_counts(report)})", ""]
    out += ["```"] + [line.replace("`", "'") for line in compact_lines(report)] + ["```", ""]
    out += ["Inputs: " + ", ".join(f"`{_md(p)}`" for p in report.inputs), ""]
    if report.claims:
        out += _claims_markdown(report.claims)
    out += ["## Checks", "", "| check | status | why | what to do |", "|---|---|---|---|"]
    out += [f"| {_md(c.id)} {_md(c.title)} | {STATUS_WORDS.get(c.status.value, _md(c.status.value))} | {_md(why(c))} "
            f"| {_md(todo(c))} |" for c in report.checks]
    out.append("")
    for c in report.checks:
        rows = evidence_rows(c)
        if rows:
            out += [f"### {c.id} evidence", "", "| " + " | ".join(EVIDENCE_COLUMNS) + " |",
                    "|" + "---|" * len(EVIDENCE_COLUMNS)]
            out += ["| " + " | ".join(_md(row[col]) for col in EVIDENCE_COLUMNS) + " |" for row in rows]
            out.append("")
    skipped = skipped_lines(report)
    if skipped:
        out += ["## Skipped files", "", _md(skipped[0]), ""] + [f"- {_md(line.strip())}" for line in skipped[1:]] + [""]
    if excluded_list(report):
        out += ["## Excluded runs", "", "Left out of every check, each with the reason its source gave:", ""]
        out += [f"- {_md(line)}" for line in excluded_list(report)] + [""]
    return "\n".join(out)


def check_line_html(c: CheckResult) -> str:
    """One check: badge, id and title, why, what to do; its evidence table folded beneath."""
    e = html.escape
    rows = evidence_rows(c)
    table = ""
    if rows:
        table = ('<details class="tw-evidence"><summary>evidence (' + str(len(rows)) + ')</summary><table class="tw-small">'
                 "<thead><tr>" + "".join(f"<th>{col}</th>" for col in EVIDENCE_COLUMNS) + "</tr></thead><tbody>"
                 + "".join("<tr>" + "".join(f'<td class="{"tw-num" if col == "number" else ""}">{e(row[col])}</td>'
                                            for col in EVIDENCE_COLUMNS) + "</tr>" for row in rows)
                 + "</tbody></table></details>")
    status = c.status.value
    return (f'<li class="status-{e(status)}"><span class="tw-badge tw-status-{e(status.replace("_", "-"))}">'
            f'{e(STATUS_WORDS.get(status, status))}</span> <strong>{e(c.id)}</strong> {e(c.title)}'
            f'<span class="tw-why"> — {e(why(c))}</span>'
            + (f'<span class="tw-todo"> Do: {e(todo(c))}</span>' if todo(c) != "nothing" else "") + table + "</li>")


def to_html(report: AuditReport) -> str:
    """An HTML fragment (a <section>): the verdict, excluded runs per reason, claims, one line per check with
    folded evidence, skipped files, then the excluded runs one by one (folded)."""
    e = html.escape
    verdict = report.verdict
    parts = [f'<section class="checklist checklist-{e(verdict.lower())}">',
             f'<p class="verdict"><strong>Result is: {e(verdict)}</strong> ({e(status_counts(report))})</p>']
    parts += [f'<p class="tw-excluded">{e(line)}</p>' for line in excluded_lines(report)]
    if report.claims:
        parts += _claims_html(report.claims)
    parts.append('<h3>Checks</h3><ul class="tw-checklist">')
    parts += [check_line_html(c) for c in report.checks]
    parts.append("</ul>")
    skipped = skipped_lines(report)
    if skipped:
        parts += [f"<p>{e(skipped[0])}</p>", "<ul>"] + [f"<li>{e(line.strip())}</li>" for line in skipped[1:]] + ["</ul>"]
    listed = excluded_list(report)
    if listed:
        parts.append(f'<details class="tw-excluded-runs"><summary>Excluded runs ({len(listed)})</summary><ul>'
                     + "".join(f"<li>{e(line)}</li>" for line in listed) + "</ul></details>")
    parts.append("</section>")
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- claims

def _num(value) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def _pct(value) -> str:
    return f"{100 * value:.4g}%" if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def _verdict_word(value) -> str:
    return str(value or "—").replace("_", " ")


#: Side-table column -> the fields of a claim side record it shows: a cell reads "—" only where the record has
#: none of them (the side records of every design in ``twelveways.claims``: centre, replicates, test set).
SIDE_FIELDS = {"n": ("n", "runs", "values", "test_set_items", "correct"), "value": ("summary", "median"),
               "interval": ("ci", "range"), "coverage": ("coverage", "level", "ci_method", "deterministic")}


def side_n(side: Side) -> str:
    """The replicates a side counts, in words: runs (and the values inside them), test items, or samples."""
    if getattr(side, "runs", None) is not None:
        inside = f" holding {side.values} values" if side.values is not None else ""
        return f"{side.runs} run{'s' if side.runs != 1 else ''}{inside}"
    if getattr(side, "test_set_items", None) is not None:
        correct = f"{side.correct} of " if side.correct is not None else ""
        return f"{side.n if side.n is not None else 1} evaluation ({correct}{side.test_set_items} test items)"
    return str(side.n) if side.n is not None else "—"


def side_value(side: Side, unit: str = "") -> str:
    """The side's centre: the summary over its runs (the replicate design) or its median (or accuracy)."""
    for value, word in ((getattr(side, "summary", None), "summary over runs"), (side.median, "median")):
        if value is not None:
            shown = f" {unit}" if unit and not unit.startswith("1") else ""  # "1": a fraction (accuracy)
            return f"{_num(value)}{shown} ({word})"
    return "—"


def _side_interval(side: Side) -> str:
    if side.ci:
        return f"[{_num(side.ci[0])}, {_num(side.ci[1])}]"
    if getattr(side, "runs", None) == 1:
        return "none (one run)"
    if side.n == 1:
        return "none (one sample)"
    if side.range:
        return f"none (range [{_num(side.range[0])}, {_num(side.range[1])}] covers only {_pct(side.range_coverage)})"
    return "none"


def _side_coverage(side: Side, needed) -> str:
    """Achieved coverage where the record states it, else the interval's nominal level and method; "none" only
    where the record has no interval."""
    method = f" ({side.ci_method})" if side.ci_method else ""
    if side.deterministic:
        return f"{_pct(side.coverage)} (deterministic: all {side.n} equal)"
    if side.coverage is not None:
        return f"{_pct(side.coverage)} (target {_pct(side.level)})"
    if side.ci:
        return f"nominal {_pct(side.level)}{method}"
    wanted = f"; needs n ≥ {needed}" if needed else ""
    if method:
        return f"none at {_pct(side.level)}{method}{wanted}"
    return f"none: n too small for {_pct(side.level)}{wanted}"


def claim_sides(claim: ClaimResult) -> list[dict]:
    """One row per side (and per-seed estimate): label, configuration, n, value, interval, coverage."""
    numbers = claim.numbers
    needed = numbers.n_needed or {}
    rows = []
    for key, label in (("a", "a (claimed better)"), ("b", "b (base case)"), ("pairs", "per-seed estimate")):
        side = numbers.side(key)
        if side is None:
            continue
        if key == "pairs":
            configuration = f"seeds {', '.join(map(str, side.seeds))}"
        else:
            configuration = side.configuration or ""
        coverage = _side_coverage(side, needed.get(key))
        if numbers.design == "paired" and key != "pairs" and side.coverage is None:
            coverage = f"none at {_pct(side.level)} (not used: the paired claim rests on the per-seed estimate)"
        unit = "" if key == "pairs" else numbers.unit
        rows.append({"side": label, "configuration": configuration, "n": side_n(side),
                     "value": side_value(side, unit), "interval": _side_interval(side), "coverage": coverage})
    return rows


#: Designs whose interval has an exact, achieved coverage (order statistics); the others' is nominal.
EXACT_DESIGNS = ("independent", "paired", "one sample")
#: Each design in words.
DESIGN_WORDS = {"paired": "paired by seed", "independent": "independent samples", "one sample": "one sample",
                "replicates": "runs as replicates (iterations describe one run)",
                "test set": "one evaluation per side on a counted test set, items not paired",
                "paired items": "one evaluation per side on the same test items, paired item by item"}


def _estimate_text(numbers: ClaimNumbers) -> str:
    """The estimate, what it is, and its interval (or that there is none at the stated confidence)."""
    if numbers.estimate is None:
        return "none (no samples to estimate from: see why)"
    estimate = f"{_num(numbers.estimate)} = {numbers.estimate_definition or '—'}"
    if numbers.interval:
        low, high = numbers.interval
        exact = "achieved coverage" if numbers.design in EXACT_DESIGNS else "coverage"
        return estimate + f"; interval [{_num(low)}, {_num(high)}], {exact} {_pct(numbers.coverage)}"
    return estimate + f"; no interval at {_pct(numbers.confidence)}"


def _test_and_holm(numbers: ClaimNumbers) -> tuple[str, str]:
    test, holm = numbers.test, numbers.holm
    if test:
        test_text = (f"{test.name}: H1 {test.hypothesis}, p = {_num(test.p_value)}, "
                     f"α = {_num(test.alpha)}: {'below' if test.significant else 'not below'} α")
    else:
        test_text = "not run (no interval at the stated confidence, or the sides are not comparable)"
    if holm is not None and holm.p_adjusted is not None:
        holm_text = (f"adjusted p = {_num(holm.p_adjusted)} over {holm.family_size} tested claims: "
                     f"{'below' if holm.significant else 'not below'} α")
    else:
        holm_text = f"not in the family (not tested; {holm.family_size if holm else 0} claims tested)"
    return test_text, holm_text


def _per_claim(claim: ClaimResult) -> str:
    return _verdict_word(claim.numbers.per_claim_verdict or claim.verdict.value)


def claim_facts(claim: ClaimResult) -> list[tuple[str, str]]:
    """(label, text) lines: estimate and interval, the test, Holm, both verdicts, and why."""
    numbers = claim.numbers
    threshold = " and ".join(f"{word} {_num(value)}" for value, word in ((numbers.at_least, "at least"),
                                                                          (numbers.at_most, "at most"))
                             if value is not None)
    test_text, holm_text = _test_and_holm(numbers)
    verdicts = f"per claim: {_per_claim(claim)}; after Holm: {_verdict_word(claim.verdict.value)}"
    named = DESIGN_WORDS.get(numbers.design, numbers.design or "—")
    method = [("method", numbers.method)] if numbers.method else []
    return [("design", f"{named}; {numbers.metric} in {numbers.unit}"),
            ("threshold", threshold or "—"), ("estimate", _estimate_text(numbers)), *method, *_pairing_facts(numbers),
            ("test", test_text),
            ("Holm", holm_text), ("verdict", verdicts), ("why", claim.message)]


def _pairing_facts(numbers: ClaimNumbers) -> list[tuple[str, str]]:
    """An accuracy claim on a test set: its paired items (the discordant counts decide), or why it has none."""
    items = numbers.items
    if items is not None:
        return [("paired items", f"{items.items} items: {items.only_a} only a right and "
                                  f"{items.only_b} only b right (discordant), {items.both} both right, "
                                  f"{items.neither} neither; {items.mcnemar_test}: "
                                  f"p = {_num(items.mcnemar_exact_p)}")]
    return [("pairing", numbers.pairing)] if numbers.pairing else []


SIDE_COLUMNS = ("side", "configuration", "n", "value", "interval", "coverage")


CLAIM_COLUMNS = ("claim", "verdict", "per claim", "test p", "Holm-adjusted p", "n (a / b)")


def side_count(side: Side) -> str:
    """A side's n for the claims table: "7 runs", "360 items", or the sample count."""
    if side.runs is not None:
        return f"{side.runs} run{'s' if side.runs != 1 else ''}"
    if side.test_set_items is not None:
        return f"{side.test_set_items} items"
    return str(side.n) if side.n is not None else "—"


def claim_cells(claim: ClaimResult) -> list[str]:
    """One claim's summary row (CLAIM_COLUMNS) as plain text, for the Markdown and the HTML table alike."""
    numbers = claim.numbers
    ns = " / ".join(side_count(side) for side in (numbers.a, numbers.b) if side is not None) or "—"
    return [claim.id, _verdict_word(claim.verdict.value), _per_claim(claim),
            _num(numbers.test.p_value if numbers.test else None),
            _num(numbers.holm.p_adjusted if numbers.holm else None), ns]


def _claims_markdown(claims: list[ClaimResult]) -> list[str]:
    out = ["## Claims", "", "| " + " | ".join(CLAIM_COLUMNS) + " |", "|" + "---|" * len(CLAIM_COLUMNS)]
    for c in claims:
        cells = claim_cells(c)
        cells[1] = f"**{cells[1]}**"
        out.append("| " + " | ".join(_md(cell) if i != 1 else cell for i, cell in enumerate(cells)) + " |")
    out.append("")
    for c in claims:
        out += [f"### Claim {_md(c.id)} — {_verdict_word(c.verdict.value)}", "", _md(c.statement), ""]
        sides = claim_sides(c)
        if sides:
            out += ["| " + " | ".join(SIDE_COLUMNS) + " |", "|" + "---|" * len(SIDE_COLUMNS)]
            out += ["| " + " | ".join(_md(row[col]) for col in SIDE_COLUMNS) + " |" for row in sides]
            out.append("")
        out += [f"- *{label}:* {_md(text)}" for label, text in claim_facts(c)]
        out.append("")
    return out


def _claims_html(claims: list[ClaimResult]) -> list[str]:
    e = html.escape
    head = "".join(f"<th>{e(column)}</th>" for column in CLAIM_COLUMNS)
    parts = [f'<h3>Claims</h3><table class="checklist-claims"><thead><tr>{head}</tr></thead><tbody>']
    for c in claims:
        cells = "".join(f"<td>{e(cell)}</td>" for cell in claim_cells(c))
        parts.append(f'<tr class="verdict-{e(c.verdict.value)}">{cells}</tr>')
    parts.append("</tbody></table>")
    for c in claims:
        parts.append(f'<details class="claim verdict-{e(c.verdict.value)}"><summary>Claim {e(c.id)}: '
                     f'{e(_verdict_word(c.verdict.value))}</summary><p>{e(c.statement)}</p>')
        sides = claim_sides(c)
        if sides:
            parts.append('<table class="claim-sides"><thead><tr>' + "".join(f"<th>{e(col)}</th>" for col in SIDE_COLUMNS)
                         + "</tr></thead><tbody>")
            parts += ["<tr>" + "".join(f"<td>{e(row[col])}</td>" for col in SIDE_COLUMNS) + "</tr>" for row in sides]
            parts.append("</tbody></table>")
        parts.append("<ul>" + "".join(f"<li><em>{e(label)}:</em> {e(text)}</li>" for label, text in claim_facts(c)) + "</ul>")
        parts.append("</details>")
    return parts


# --------------------------------------------------------------------------- CI systems (twelveways.cireport)

#: A check's status -> the CI outcome (cireport: warn and needs a human are undecided, never a pass).
CI_OUTCOMES = {"pass": "pass", "fail": "fail", "warn": "undecided", "needs_human": "undecided",
               "not_applicable": "not_applicable"}
#: A claim's verdict -> the CI outcome: not supported fails the audit, inconclusive decides nothing.
CLAIM_OUTCOMES = {"supported": "pass", "not_supported": "fail", "inconclusive": "undecided"}
CHECK_GROUPS = {"R": "SC15 rules", "F": "Data-science fallacies"}


def _evidence_line(row: dict) -> str:
    where = f" ({row['configuration']})" if row["configuration"] != "—" else ""
    unit = f" {row['unit']}" if row["unit"] != "—" else ""
    return f"{row['what']}{where}: {row['number']}{unit} [source: {row['source']}]"


def _check_case(c: CheckResult) -> cireport.Case:
    advice = todo(c)
    return cireport.Case(CHECK_GROUPS.get(c.id[:1], "Other checks"), f"{c.id} {c.title}",
                         CI_OUTCOMES.get(c.status.value, "undecided"), _status_word(c).lower(),
                         why(c), "\n".join(_evidence_line(row) for row in evidence_rows(c)),
                         "" if advice == "nothing" else advice)


def _claim_case(c: ClaimResult) -> cireport.Case:
    facts = [("statement", c.statement), *claim_facts(c)]
    return cireport.Case("Claims", f"Claim {c.id}", CLAIM_OUTCOMES.get(c.verdict.value, "undecided"),
                         _verdict_word(c.verdict.value), clean(c.message or "no reason given"),
                         "\n".join(f"{label}: {text}" for label, text in facts))


def ci_cases(report: AuditReport) -> list[cireport.Case]:
    """One CI case per check and per claim, and one for the files of the input trees that were skipped (undecided
    when a result file among them could not be read: the audit exits 3)."""
    cases = [_check_case(c) for c in report.checks] + [_claim_case(c) for c in report.claims]
    skipped = skipped_lines(report)
    if skipped:
        unreadable = bool(report.unreadable)
        cases.append(cireport.Case("Inputs", "Result files of the input trees", "undecided" if unreadable else "pass",
                                   "not all read" if unreadable else "pass", skipped[0].rstrip(":"),
                                   "\n".join(line.strip() for line in skipped[1:])))
    return cases


def _ci_lead(report: AuditReport) -> list[str]:
    claims = ", ".join(f"{n} {v}" for v, n in _claim_counts(report).items())
    return [f"Result is: {report.verdict} ({status_counts(report)}{'; claims: ' + claims if claims else ''})",
            *excluded_lines(report)]


def _claim_counts(report: AuditReport) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in report.claims:
        counts[_verdict_word(c.verdict.value)] = counts.get(_verdict_word(c.verdict.value), 0) + 1
    return counts


def to_junit(report: AuditReport) -> str:
    """JUnit XML: a test case per check and claim (``twelveways.cireport`` says how statuses map)."""
    return cireport.junit_xml("twelveways audit", ci_cases(report), {"verdict": report.verdict,
                                                                    "inputs": ", ".join(report.inputs)})


def to_github(report: AuditReport) -> str:
    """Markdown for a GitHub job summary: the verdict, then one table of every check and claim."""
    return cireport.github_summary(f"twelveways audit: {report.verdict}", _ci_lead(report), ci_cases(report))


def github_annotations(report: AuditReport) -> list[str]:
    """``::error`` for each failed check or claim, ``::warning`` for each undecided one (stderr, beside the summary)."""
    return cireport.github_annotations(ci_cases(report))


RENDERERS = {"json": to_json, "md": to_markdown, "html": to_html, "junit": to_junit, "github": to_github}
#: Formats that also speak to the CI runner itself: lines for stderr (workflow commands) beside the rendered text.
ANNOTATIONS = {"github": github_annotations}
SUFFIXES = cireport.SUFFIXES
html_fragment = to_html  # the name the report stage imports
