"""audit, compare and ab for CI systems: JUnit XML valid against the Jenkins xUnit schema, one GitHub summary table,
annotations escaped as GitHub's runner reads them, and no undecided verdict that reads as a pass."""

from __future__ import annotations

import functools
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from twelveways import cireport
from twelveways.checklist.model import AuditReport
from twelveways.checklist import render
from twelveways.checklist.audit import audit_main
from twelveways.compare import record as compare_record
from twelveways.compare import render as compare_render
from twelveways.compare.cli import compare_main

sys.path.insert(0, str(Path(__file__).parent / "data" / "good_results"))
import make_results  # noqa: E402

HERE = Path(__file__).parent
REFERENCE = HERE.parent / "data" / "reference"


@functools.cache
def junit_schema():
    """The JUnit schema, parsed on first use (xmlschema's import and parse cost each test worker a second)."""
    import xmlschema

    return xmlschema.XMLSchema(str(HERE / "schemas" / "junit-10.xsd"))


#: Evidence a user's data could carry: every character GitHub's workflow commands and Markdown tables care about.
HOSTILE = "50% of runs: slower, by far\r\nsecond line | a cell? <script>x</script> *bold* \x01"


def typed(report: dict) -> AuditReport:
    """A checklist dict as the renderers take it; its counts are recomputed (a crafted check changed them)."""
    return AuditReport.from_dict({k: v for k, v in report.items() if k != "counts"})


def reference_report() -> dict:
    return json.loads((REFERENCE / "checklist.json").read_text())


def crafted_report() -> dict:
    """The reference checklist with one check failed on hostile evidence, one needing a human, one claim not
    supported and one inconclusive."""
    report = reference_report()
    checks = {c["id"]: c for c in report["checks"]}
    checks["R3"].update(status="fail", satisfied="No", recommendation="Use the harmonic mean: rates, not costs.",
                        evidence=[{"what": "rate summarized by", "value": HOSTILE, "source": {"file": "a,b:c.nc"}}])
    checks["R6"].update(status="needs_human", satisfied="Needs a human",
                        evidence=[{"what": "could not be evaluated", "value": "too few samples", "source": {}}])
    report["claims"][0].update(verdict="not_supported", message="the CI [1.2, 1.9] lies below the stated 2x")
    report["claims"][1].update(verdict="inconclusive", message="one run per side: no interval at 95%")
    report.update(verdict="INVALID", valid=False)
    return report


def parse_junit(text: str) -> ET.Element:
    junit_schema().validate(text)  # raises, naming the element and the rule, when the XML is not valid JUnit
    return ET.fromstring(text)


def cases_of(root: ET.Element) -> dict[str, ET.Element]:
    return {case.get("name"): case for case in root.iter("testcase")}


def unescape_command(text: str) -> str:
    """What GitHub's runner reads back from an escaped workflow-command value."""
    for code, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(code, char)
    return text


# --- JUnit XML ---------------------------------------------------------------------------------------------------

def test_the_schema_rejects_what_is_not_junit():
    """The validation below can fail: a test case without a name, or a failure outside a case, is refused."""
    assert not junit_schema().is_valid('<testsuites><testsuite name="s" tests="1" failures="0" errors="0">'
                               '<testcase classname="x"/></testsuite></testsuites>')
    assert not junit_schema().is_valid('<testsuites><testsuite name="s" tests="1" failures="0" errors="0">'
                               '<failure message="m"/></testsuite></testsuites>')


def test_reference_audit_is_valid_junit_with_every_check_and_claim():
    report = reference_report()
    root = parse_junit(render.to_junit(typed(report)))
    cases = cases_of(root)
    assert set(cases) == {f"{c['id']} {c['title']}" for c in report["checks"]} | {f"Claim {c['id']}" for c in report["claims"]}
    assert int(root.get("tests")) == len(report["checks"]) + len(report["claims"]) and root.get("failures") == "0"
    warned = [f"{c['id']} {c['title']}" for c in report["checks"] if c["status"] == "warn"]
    assert warned  # the reference has warnings: each is skipped with its evidence, never a plain pass
    for name in warned:
        skipped = cases[name].find("skipped")
        assert skipped is not None and skipped.get("type") == "warn" and skipped.get("message").startswith("warn: ")
    passed = [name for name, case in cases.items() if len(case.findall("failure") + case.findall("skipped")) == 0]
    assert len(passed) == report["counts"]["pass"] + sum(c["verdict"] == "supported" for c in report["claims"])
    suites = [suite.get("name") for suite in root.iter("testsuite")]
    assert suites == ["SC15 rules", "Data-science fallacies", "Claims"]


def test_a_failed_check_carries_its_evidence_and_undecided_never_passes():
    report = crafted_report()
    root = parse_junit(render.to_junit(typed(report)))
    cases = cases_of(root)
    failure = cases["R3 arithmetic mean for costs, harmonic for rates"].find("failure")
    assert failure.get("type") == "fail" and failure.get("message").startswith("fail: rate summarized by: 50% of runs")
    assert "a,b:c.nc" in failure.text and "What to do: Use the harmonic mean" in failure.text
    assert "<script>" in failure.get("message")  # literal text, escaped by the XML writer and parsed back
    assert "\ufffd" in failure.get("message")  # the control character XML cannot hold, replaced
    needs = cases["R6 no assumed normality"].find("skipped")
    assert needs.get("type") == "needs a human" and "too few samples" in needs.get("message")
    claims = report["claims"]
    assert cases[f"Claim {claims[0]['id']}"].find("failure").get("message") == \
        "not supported: the CI [1.2, 1.9] lies below the stated 2x"
    assert cases[f"Claim {claims[1]['id']}"].find("skipped").get("type") == "inconclusive"
    assert root.get("failures") == "2"


# --- GitHub job summary and annotations ----------------------------------------------------------------------------

def summary_tables(markdown: str) -> list[list[list[str]]]:
    """Every table as GitHub renders it (GFM tables): rows of cell texts, header first."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables, row, inside = [], None, False
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            inside = True
        elif token.type == "inline" and inside:
            row.append(token.content)
            inside = False
        elif token.type == "tr_close":
            tables[-1].append(row)
    return tables


@pytest.mark.parametrize("report", [reference_report(), crafted_report()], ids=["reference", "crafted"])
def test_github_summary_is_one_table_with_a_row_per_check_and_claim(report):
    text = render.to_github(typed(report))
    tables = summary_tables(text)
    assert len(tables) == 1
    header, *rows = tables[0]
    assert header == ["check / claim", "status", "evidence"]
    expected = [f"{c['id']} {c['title']}" for c in report["checks"]] + [f"Claim {c['id']}" for c in report["claims"]]
    assert [row[0] for row in rows] == expected and all(len(row) == 3 for row in rows)
    assert text.startswith(f"## twelveways audit: {report['verdict']}")
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script>" not in rendered  # the hostile evidence is inert: GitHub's renderer shows it as text


def test_annotations_are_escaped_as_githubs_runner_reads_them():
    report = crafted_report()
    lines = render.github_annotations(typed(report))
    assert all("\n" not in line and "\r" not in line for line in lines)
    failed = [line for line in lines if line.startswith("::error ")]
    assert len(failed) == 2  # R3 and the claim not supported
    match = re.fullmatch(r"::error title=([^:]*)::(.*)", failed[0])
    assert unescape_command(match.group(1)) == "R3 arithmetic mean for costs, harmonic for rates"
    assert "%2C" in match.group(1) and "," not in match.group(1)
    message = unescape_command(match.group(2))
    assert message.startswith("fail: rate summarized by: 50% of runs")
    assert "%" not in match.group(2).replace("%25", "").replace("%0A", "").replace("%0D", "")
    assert message.endswith("What to do: Use the harmonic mean: rates, not costs.")
    warned = {unescape_command(re.match(r"::warning title=([^:]*)::", line).group(1)) for line in lines
              if line.startswith("::warning ")}
    assert {"R6 no assumed normality", f"Claim {report['claims'][1]['id']}"} <= warned
    assert not any("R1 " in line for line in lines)  # a pass is not annotated


def test_escaping_follows_githubs_rules():
    assert cireport.escape_data("100%\r\ndone: a, b") == "100%25%0D%0Adone: a, b"
    assert cireport.escape_property("100%\r\ndone: a, b") == "100%25%0D%0Adone%3A a%2C b"
    assert unescape_command(cireport.escape_property(HOSTILE)) == HOSTILE


def test_past_githubs_limit_the_last_annotation_counts_the_rest():
    cases = [cireport.Case("g", f"case {i}", "fail", "slower", "evidence") for i in range(25)]
    lines = cireport.github_annotations(cases)
    assert len(lines) == cireport.ANNOTATIONS_SHOWN
    assert lines[-1].startswith("::error title=16 more::16 more fail") and "case 24" in lines[-1]


# --- compare and ab ----------------------------------------------------------------------------------------------

def crafted_comparison() -> compare_record.Comparison:
    """A comparison record of every verdict (as ``compare.build`` writes it), plus a configuration only one side has."""
    def row(name, verdict, ratio, reason, to_decide=None):
        return {"configuration": f"{name}: time [s]", "key": {"unit": "s"}, "kind": "cost", "n_base": 5, "n_new": 5,
                "iterations_base": 10.0, "iterations_new": 10.0, "summary_base": 1.0, "summary_new": ratio,
                "ratio": ratio, "ci": [ratio * 0.98, ratio * 1.02], "p_adjusted": 0.01, "detectable_ratio": 1.03,
                "invocations_to_decide": to_decide, "verdict": verdict, "reason": reason, "candidates": []}
    rows = [row("stencil", "slower", 1.5, "ratio 1.5 [1.47, 1.53] from 5 / 5 invocations, beyond the ±2% margin"),
            row("nstream", "faster", 0.8, "ratio 0.8 [0.784, 0.816], beyond the margin"),
            row("transpose", "same", 1.0, "within the ±2% margin"),
            row("dgemm", "inconclusive", 1.01, "reaches across the margin", to_decide=40),
            row("p2p", "not comparable", 1.2, "absolute values on different CPUs"),
            row("accuracy", "lower", 0.9, "quality 10% lower, % and , and : in words\nnext line")]
    claim = {"reference": "supported", "new": "not supported", "reason": "why"}
    return compare_record.from_dict({
        "format": "twelveways-comparison/1", "confidence": 0.95, "alpha": 0.05, "base": "base: a", "new": "new: b",
        "environment": {"compared": False, "missing": ["base"]}, "method": "crafted", "stability": {},
        "counts": {"slower": 1, "faster": 1, "same": 1, "inconclusive": 1},
        "noise_floor": {"margin": 0.02, "margin_text": "±2% margin", "measured": False, "text": "no A/A run"},
        "machine_load": {}, "rows": rows, "only_base": ["sparse: time [s]"], "only_new": [],
        "claims": [{**claim, "id": "fast", "statement": "stencil at least 2x faster", "outcome": "Not reproduced",
                    "line": "fast: not supported in this run, supported in the reference: Not reproduced"},
                   {**claim, "id": "small", "statement": "p2p within 5%", "outcome": "Inconclusive",
                    "line": "one run"}]}, "crafted")


def test_comparison_junit_fails_slower_and_never_passes_the_undecided():
    root = parse_junit(compare_render.to_junit(crafted_comparison()))
    cases = cases_of(root)
    outcome = {name.split(":")[0]: ("failure" if case.find("failure") is not None else
                                    case.find("skipped").get("type") if case.find("skipped") is not None else "pass")
               for name, case in cases.items()}
    assert outcome == {"stencil": "failure", "accuracy": "failure", "nstream": "pass", "transpose": "pass",
                       "dgemm": "inconclusive", "p2p": "not comparable", "sparse": "only on the base side",
                       "Claim fast": "failure", "Claim small": "inconclusive"}
    slower = cases["stencil: time [s]"].find("failure")
    assert slower.get("type") == "slower" and "1 → 1.5 s (base → new)" in slower.get("message")
    assert "What to do: run about 40 invocations per side" in cases["dgemm: time [s]"].find("skipped").text


def test_comparison_summary_is_one_table_and_annotations_name_each_regression():
    record = crafted_comparison()
    tables = summary_tables(compare_render.to_github(record))
    assert len(tables) == 1 and len(tables[0]) == 1 + len(record.rows) + 1 + 2  # header, rows, one-sided, claims
    assert tables[0][0] == ["configuration / claim", "verdict", "evidence"]
    lines = compare_render.github_annotations(record)
    errors = [unescape_command(line.split("::")[1].removeprefix("error title=")) for line in lines if line.startswith("::error")]
    assert errors == ["accuracy: time [s]", "stencil: time [s]", "Claim fast"]  # regressions first, as the report
    assert sum(line.startswith("::warning") for line in lines) == 4  # inconclusive, not comparable, one side, claim
    lower = next(line for line in lines if "accuracy" in line)
    assert unescape_command(lower.split("::", 2)[2]).startswith("lower: 1 → 0.9 s (base → new); quality 10% lower, %")


# --- the commands --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    paths = make_results.build(tmp_path_factory.mktemp("clean"))
    return [*paths["results"], "--environment", paths["environment"], "--config", paths["config"]]


def test_audit_format_junit_and_xml_suffix(clean, tmp_path, capsys):
    assert audit_main(clean + ["--format", "junit"]) == 0
    root = parse_junit(capsys.readouterr().out)
    cases = cases_of(root)  # the 24 checks and the claim the crafted results carry
    assert len(cases) == 25 and "Claim topk-iterations" in cases and root.get("failures") == "0"
    assert audit_main(clean + ["--output", str(tmp_path / "audit.xml"), "--output", str(tmp_path / "audit.md")]) == 0
    assert set(cases_of(parse_junit((tmp_path / "audit.xml").read_text()))) == set(cases)


def test_audit_format_github_writes_the_summary_and_annotates_on_stderr(clean, capsys):
    assert audit_main(clean + ["--format", "github"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("## twelveways audit: VALID") and len(summary_tables(captured.out)) == 1
    assert "::" not in captured.out  # workflow commands stay out of the summary file
    annotated = [line for line in captured.err.splitlines() if line.startswith("::")]
    marks = [row[1].split()[0] for row in summary_tables(captured.out)[0][1:]]
    assert len(annotated) == sum(mark in (cireport.MARKS["fail"], cireport.MARKS["undecided"]) for mark in marks)


def test_a_failing_audit_exits_1_and_says_so_in_every_ci_format(tmp_path, capsys):
    paths = make_results.build(tmp_path, "rate_without_dtype")
    args = [*paths["results"], "--environment", paths["environment"], "--config", paths["config"]]
    summary = tmp_path / "step_summary_1"  # as $GITHUB_STEP_SUMMARY is named: no suffix, so --format decides
    assert audit_main(args + ["--output", str(tmp_path / "a.xml"), "--output", str(summary), "--format", "github"]) == 1
    assert summary.read_text().startswith("## twelveways audit: INVALID")
    root = parse_junit((tmp_path / "a.xml").read_text())
    assert [case.get("name").split()[0] for case in root.iter("testcase") if case.find("failure") is not None] == ["F5"]
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith("::error title=F5 ")


def test_compare_format_junit_and_github(tmp_path, capsys):
    ref = str(REFERENCE / "results" / "prk.nc")
    assert compare_main([ref, ref, "--format", "github", "--output", str(tmp_path / "c.md")]) == 0
    tables = summary_tables((tmp_path / "c.md").read_text())
    assert len(tables) == 1 and len(tables[0]) > 1
    undecided = sum(row[1].split()[0] == cireport.MARKS["undecided"] for row in tables[0][1:])
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("::warning")]
    assert len(warnings) == min(undecided, cireport.ANNOTATIONS_SHOWN)
    assert compare_main([ref, ref, "--output", str(tmp_path / "c.xml")]) == 0
    root = parse_junit((tmp_path / "c.xml").read_text())
    assert len(cases_of(root)) == len(tables[0]) - 1 and root.get("failures") == "0"  # the same run on both sides
