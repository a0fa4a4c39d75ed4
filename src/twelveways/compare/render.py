"""A comparison record (:mod:`.record`) as Markdown, HTML or JSON: environment diff first, then verdicts.

Every value a reader sees is a number in words or an escaped string: no JSON, no reprs, no
``nan`` (a missing number is shown as "—" with the reason in the verdict's text).
"""

from __future__ import annotations

import html

from .. import cireport, escape
from . import sides
from .record import ClaimRow, Comparison, Environment, HeadlineRow, Reproduction, Row

ORDER = {"slower": 0, "lower": 0, "faster": 1, "higher": 1, "inconclusive": 2, "same": 3, "not comparable": 4}
HEADER = ("Configuration", "invocations base / new", "summary base → new", "ratio new/base [CI]", "adjusted p",
          "detectable ratio", "verdict", "could explain")


def num(value, digits: int = 4) -> str:
    """A number in at most ``digits`` significant digits, or an em dash when absent."""
    if value is None:
        return "—"
    return f"{float(value):.{digits}g}"


def _cells(row: Row) -> list[str]:
    ci = row.ci
    ratio = num(row.ratio) + (f" [{num(ci[0])}, {num(ci[1])}]" if ci else "")
    return [row.configuration, invocations(row), f"{num(row.summary_base)} → {num(row.summary_new)}", ratio,
            num(row.p_adjusted, 2), num(row.detectable_ratio, 3), f"{row.verdict}: {row.reason}",
            "; ".join(row.candidates) or "—"]


def invocations(row: Row) -> str:
    """"3 / 3 (x 10 iterations)": the replicates counted, then the values that describe each one."""
    each = [row.iterations_base, row.iterations_new]
    inner = "" if not all(each) or each == [1, 1] else f" (× {num(each[0], 3)} / {num(each[1], 3)} values each)"
    return f"{row.n_base} / {row.n_new}{inner}"


def _sorted(rows) -> list[Row]:
    return sorted(rows, key=lambda r: (ORDER.get(r.verdict, 9), r.configuration))


def too_few(row: Row) -> bool:
    """A configuration with too few samples for the test: listed briefly, not in the main table."""
    return row.verdict == "inconclusive" and row.reason.startswith("one invocation per side")


def _brief(row: Row) -> str:
    return (f"{row.configuration}: {num(row.summary_base)} → {num(row.summary_new)} "
            f"(ratio {num(row.ratio)}, invocations {invocations(row)})")


def _split(rows) -> tuple[list[Row], list[Row]]:
    ordered = _sorted(rows)
    return [r for r in ordered if not too_few(r)], [r for r in ordered if too_few(r)]


def noise_text(record: Comparison) -> str:
    """Margin, then what was measured beyond each configuration's own invocations."""
    return f"{record.noise_floor.margin_text}; {record.noise_floor.text}"


def _environment_lines(env: Environment) -> list[str]:
    if not env.compared:
        return [f"Not compared: no environment capture for {', '.join(env.missing)}."]
    if not env.differences:
        return ["No field differs (volatile fields such as time and load left out).", *_sources(env)]
    lines = ["| class | field | base | new |", "|---|---|---|---|"]
    lines += [f"| {d.class_} | {escape.markdown_text(d.field)} | {escape.markdown_text(_value(d.a))} | "
              f"{escape.markdown_text(_value(d.b))} |" for d in env.differences]
    return lines + _sources(env)


def environment_sources(env: Environment) -> str:
    """Where each side's environment came from (a capture file, or the facts its results files state)."""
    found = "; ".join(f"{side}: {where}" for side, where in env.sources.items())
    return f"Environment of each side: {found}." if found else ""


def _sources(env: Environment) -> list[str]:
    text = environment_sources(env)
    return ["", escape.markdown_text(text)] if text else []


def _value(value) -> str:
    if value is None:
        return "(absent)"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _only(record: Comparison) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(side, the configurations only that side holds) of both sides."""
    return ("base", record.only_base), ("new", record.only_new)


def _verdicts(record: Comparison) -> str:
    return ", ".join(f"{n} {v}" for v, n in record.counts.items()) or "no shared configuration"


def markdown(record: Comparison, title: str = "Comparison", *, environment: bool = True) -> str:
    """The comparison as Markdown (``environment=False``: the diff is stated once above, by the caller)."""
    out = [f"# {title}", "", f"- Base: {escape.markdown_text(record.base)}",
           f"- New: {escape.markdown_text(record.new)}", f"- Verdicts: {_verdicts(record)}",
           *(f"- Machine load, {side}: {escape.markdown_text('; '.join(lines))}"
             for side, lines in record.machine_load.items()),
           *(["", "## Environment differences", "", *_environment_lines(record.environment)] if environment else []),
           "", "## Noise floor", "", escape.markdown_text(noise_text(record)), "",
           "## Configurations", "", f"Method: {record.method}.", "",
           *([f"Stated summaries: {record.stated_method}.", ""] if record.stated_method else []),
           *([f"A busy machine: {record.load_rule}.", ""] if record.load_rule else []),
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    tested, few = _split(record.rows)
    out += ["| " + " | ".join(escape.markdown_text(c) for c in _cells(r)) + " |" for r in tested]
    out += ["", "## Stability within runs (change points)", ""]
    out += [f"- {escape.markdown_text(side)}: {escape.markdown_text(line)}"
            for side, lines in record.stability.items() for line in lines] or ["No per-iteration series."]
    if few:
        out += ["", f"## One invocation per side ({len(few)}: inconclusive; run at least 3 invocations per side)", ""]
        out += [f"- {escape.markdown_text(_brief(r))}" for r in few]
    for side, labels in _only(record):
        if labels:
            out += ["", f"## Only on the {side} side ({len(labels)})", ""]
            out += [f"- {escape.markdown_text(c)}" for c in labels]
    return "\n".join(out) + "\n"


def _table_html(header, rows) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _environment_html(env: Environment) -> str:
    found = (_table_html(("class", "field", "base", "new"),
                         [(d.class_, d.field, _value(d.a), _value(d.b)) for d in env.differences])
             if env.differences else f"<p>{html.escape(_environment_lines(env)[0])}</p>")
    return found + (f"<p>{html.escape(environment_sources(env))}</p>" if environment_sources(env) else "")


def _after_table_html(record: Comparison, few: list[Row]) -> str:
    """Stability, the configurations of one invocation per side, then what only one side holds."""
    only = "".join(f"<h2>Only on the {side} side ({len(labels)})</h2><ul>"
                   + "".join(f"<li>{html.escape(c)}</li>" for c in labels) + "</ul>"
                   for side, labels in _only(record) if labels)
    stable = "".join(f"<li>{html.escape(side)}: {html.escape(line)}</li>"
                     for side, lines in record.stability.items() for line in lines)
    only = f"<h2>Stability within runs (change points)</h2><ul>{stable or '<li>No per-iteration series.</li>'}</ul>" + only
    if few:
        only = (f"<h2>One invocation per side ({len(few)}: inconclusive; run at least 3 invocations per side)</h2><ul>"
                + "".join(f"<li>{html.escape(_brief(r))}</li>" for r in few) + "</ul>" + only)
    return only


def html_page(record: Comparison, title: str = "Comparison", *, environment: bool = True) -> str:
    """The comparison as a standalone HTML page (``environment=False``: the diff is stated above it)."""
    tested, few = _split(record.rows)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;max-width:80rem;margin:auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.2rem .4rem;font-size:.9rem}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><ul><li>Base: {html.escape(record.base)}</li>"
            f"<li>New: {html.escape(record.new)}</li><li>Verdicts: {html.escape(_verdicts(record))}</li>"
            + "".join(f"<li>Machine load, {html.escape(side)}: {html.escape('; '.join(lines))}</li>"
                      for side, lines in record.machine_load.items()) + "</ul>"
            + (f"<h2>Environment differences</h2>{_environment_html(record.environment)}" if environment else "")
            + f"<h2>Noise floor</h2><p>{html.escape(noise_text(record))}</p><h2>Configurations</h2>"
            f"<p>Method: {html.escape(record.method)}.</p>"
            + (f"<p>Stated summaries: {html.escape(record.stated_method)}.</p>" if record.stated_method else "")
            + (f"<p>A busy machine: {html.escape(record.load_rule)}.</p>" if record.load_rule else "")
            + f"{_table_html(HEADER, [_cells(r) for r in tested])}{_after_table_html(record, few)}</body></html>\n")


# ------------------------------------------------------------------------ CI systems (twelveways.cireport)

#: A configuration's verdict -> the CI outcome: a regression fails; what the data cannot decide is no pass.
CI_OUTCOMES = {"faster": "pass", "higher": "pass", "same": "pass", "slower": "fail", "lower": "fail",
               "inconclusive": "undecided", "not comparable": "undecided"}
#: A claim's outcome on both sides (compare --claims) -> the CI outcome.
CLAIM_OUTCOMES = {"Reproduced": "pass", "Not reproduced": "fail", "Inconclusive": "undecided"}
CI_HEADER = ("configuration / claim", "verdict", "evidence")


def _row_case(row: Row) -> cireport.Case:
    unit = f" {row.unit}" if row.unit else ""
    message = f"{num(row.summary_base)} → {num(row.summary_new)}{unit} (base → new); {row.reason}"
    details = "\n".join(f"{head}: {cell}" for head, cell in zip(HEADER, _cells(row)))
    advice = {"fail": "if the change is not meant to cost this, find the cause (what could explain it is in the evidence)",
              "undecided": f"run about {row.invocations_to_decide} invocations per side"
              if row.invocations_to_decide else ""}.get(CI_OUTCOMES.get(row.verdict, "undecided"), "")
    return cireport.Case("Configurations", row.configuration, CI_OUTCOMES.get(row.verdict, "undecided"), row.verdict,
                         message, details, advice)


def ci_cases(record: Comparison) -> list[cireport.Case]:
    """One CI case per configuration compared, per configuration only one side has, and per claim."""
    cases = [_row_case(row) for row in _sorted(record.rows)]
    for (side, labels), other in zip(_only(record), ("new", "base")):
        cases += [cireport.Case("Configurations", label, "undecided", f"only on the {side} side",
                                f"not compared: the {other} side has no such configuration")
                  for label in labels]
    for row in record.claims:
        cases.append(cireport.Case("Claims", f"Claim {row.id}", CLAIM_OUTCOMES.get(row.outcome, "undecided"),
                                   row.outcome.lower(), row.line or row.reason, f"statement: {row.statement}"))
    return cases


def ci_lead(record: Comparison) -> list[str]:
    """What the job summary says above its table: both sides, the verdicts counted, the noise and the load."""
    return [f"Base: {record.base}", f"New: {record.new}", f"Verdicts: {_verdicts(record)}",
            f"Noise: {noise_text(record)}",
            *(f"Machine load, {side}: {'; '.join(lines)}" for side, lines in record.machine_load.items())]


def to_junit(record: Comparison, title: str = "twelveways compare") -> str:
    """JUnit XML: a test case per configuration (a slower one fails; inconclusive is skipped, never passed)."""
    return cireport.junit_xml(title, ci_cases(record), {"base": str(record.base), "new": str(record.new),
                                                        "confidence": str(record.confidence)})


def to_github(record: Comparison, title: str = "twelveways compare", lead: list[str] | None = None) -> str:
    """Markdown for a GitHub job summary: the lead lines, then one table of every configuration and claim."""
    return cireport.github_summary(title, ci_lead(record) if lead is None else lead, ci_cases(record), CI_HEADER)


def github_annotations(record: Comparison) -> list[str]:
    """``::error`` for each slower (or lower-quality) configuration, ``::warning`` for each undecided one."""
    return cireport.github_annotations(ci_cases(record))


def to_json(record: Comparison, title: str = "") -> str:
    """The record as the JSON every command writes (keys sorted, no NaN)."""
    return sides.dumps(record.to_dict())


RENDERERS = {"md": markdown, "html": html_page, "json": to_json}


CLAIM_HEADER = ("Claim", "reference", "this run", "outcome", "why")
#: Fields of one environment class shown before "and N more".
FIELDS_SHOWN = 6


def grouped_environment(env: Environment) -> list[str]:
    """The environment diff once, one line per class: 'hardware (3): field (a → b), ...'."""
    if not env.compared or not env.differences:
        return _environment_lines(env)[:1]
    lines = []
    for cls, fields in env.by_class.items():
        mine = [d for d in env.differences if d.class_ == cls]
        shown = ", ".join(f"{d.field} ({_value(d.a)} → {_value(d.b)})" for d in mine[:FIELDS_SHOWN])
        more = f" and {len(mine) - FIELDS_SHOWN} more" if len(mine) > FIELDS_SHOWN else ""
        lines.append(f"{cls} ({len(fields)}): {shown}{more}")
    return lines


def _lead_lines(record: Reproduction) -> list[str]:
    """What a reproduction report says first: N of M claims, the machines, their load, the environment."""
    lines = [record.claims_summary, f"Machines: {record.machines.relation} ({record.machines.why})"]
    lines += [f"Machine load, {side}: {'; '.join(load)}" for side, load in record.machine_load.items()]
    return [line for line in lines if line]


HEADLINE_HEADER = ("Headline number", "invocations ref / new", "summary ref → new", "ratio new/ref [CI]", "outcome", "why",
                   "could explain")


def _claim_cells(row: ClaimRow) -> list[str]:
    return [f"{row.id}: {row.statement}", row.reference, row.new, row.outcome, row.reason]


def _headline_cells(row: HeadlineRow) -> list[str]:
    if not row.compared:
        return [row.configuration, "—", "—", "—", row.outcome, row.reason, "—"]
    ci = row.ci
    ratio = num(row.ratio) + (f" [{num(ci[0])}, {num(ci[1])}]" if ci else " (no CI)")
    return [row.configuration, invocations(row), f"{num(row.summary_base)} → {num(row.summary_new)}", ratio,
            row.outcome, f"{row.verdict}: {row.reason}", "; ".join(row.candidates) or "—"]


def _md_table(header, rows) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(escape.markdown_text(c) for c in row) + " |" for row in rows)]


def _outcomes(record: Reproduction) -> str:
    return ", ".join(f"{n} {o}" for o, n in record.outcomes.items()) or "nothing to compare"


def reproduction_markdown(record: Reproduction) -> str:
    """The reproduction report as Markdown: N of M claims, machines, environment once, one line per claim,
    then the claims and headline tables and the full comparison."""
    out = ["# Reproduction report", "", *(f"- {escape.markdown_text(line)}" for line in _lead_lines(record)),
           f"- Outcomes: {_outcomes(record)}.", f"- Noise: {escape.markdown_text(noise_text(record))}.", "",
           "## Environment differences (by class)", "",
           *(f"- {escape.markdown_text(line)}" for line in grouped_environment(record.environment)), "",
           "## Claims", ""]
    out += [f"- {escape.markdown_text(r.line)}" for r in record.claims if r.line]
    out += ["", *_md_table(CLAIM_HEADER, [_claim_cells(r) for r in record.claims])] if record.claims \
        else ["No claims."]
    out += ["", "## Headline numbers", ""]
    out += _md_table(HEADLINE_HEADER, [_headline_cells(r) for r in record.headline]) \
        if record.headline else ["No headline numbers (no derived results in this run)."]
    full = markdown(record, "Full comparison", environment=False).replace("\n## ", "\n### ")
    return "\n".join(out) + "\n\n" + full


def reproduction_fragment(record: Reproduction, heading: str = "h2") -> str:
    """Outcomes, noise floor, claims and headline numbers as HTML: the top of the standalone reproduction
    page, and the report's Reproduction section when ``report.reference`` is configured."""
    claims = _table_html(CLAIM_HEADER, [_claim_cells(r) for r in record.claims]) if record.claims \
        else "<p>No claims.</p>"
    heads = _table_html(HEADLINE_HEADER, [_headline_cells(r) for r in record.headline]) if record.headline \
        else "<p>No headline numbers (no derived results in this run).</p>"
    lead = "".join(f"<li>{html.escape(line)}</li>" for line in _lead_lines(record))
    env = "".join(f"<li>{html.escape(line)}</li>" for line in grouped_environment(record.environment))
    lines = "".join(f"<li>{html.escape(r.line)}</li>" for r in record.claims if r.line)
    return (f"<ul>{lead}</ul><p>Reference: {html.escape(record.base)}; this run: {html.escape(record.new)}. "
            f"Outcomes: {html.escape(_outcomes(record))}.</p><p>Noise floor: {html.escape(noise_text(record))}.</p>"
            f"<{heading}>Environment differences (by class)</{heading}><ul>{env}</ul>"
            f"<{heading}>Claims</{heading}>{f'<ul>{lines}</ul>' if lines else ''}{claims}"
            f"<{heading}>Headline numbers</{heading}>{heads}")


def reproduction_html(record: Reproduction) -> str:
    """The reproduction report as a standalone HTML page (same content as the Markdown)."""
    body = "<h1>Reproduction report</h1>" + reproduction_fragment(record)
    page = html_page(record, "Full comparison", environment=False)
    return page.replace("<body>", f"<body>{body}", 1).replace("<title>Full comparison</title>",
                                                              "<title>Reproduction report</title>", 1)
