"""Verdicts in the forms CI systems read: JUnit XML, and a GitHub job summary with annotations.

A CI system knows three outcomes of a test case: passed, failed and skipped.  Every verdict of
``audit``, ``compare`` and ``ab`` becomes one :class:`Case` with one of four outcomes:

- ``pass``: a passed test case.
- ``fail`` (a violation or a regression the data prove): ``<failure>``, the evidence as its message;
  an ``::error`` annotation.
- ``undecided`` (warn, needs a human, inconclusive, not comparable): ``<skipped>`` whose message starts
  with the status word, the evidence after it; a ``::warning`` annotation.  Skipped, because a CI shows a
  skipped case as not green (never as a pass) while not failing a build that the command itself, by its
  exit code, does not fail: a warning or an inconclusive verdict exits 0.
- ``not_applicable``: ``<skipped>`` too (the case's check had nothing to judge), and no annotation.

The status word of the command itself (``warn``, ``needs a human``, ``slower`` ...) travels with the case:
the ``type`` of ``<failure>``/``<skipped>``, the status column of the summary table.  Every line a reader
sees is built by the command's renderer (evidence in words, never JSON); this module only lays it out and
escapes it for each format.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PASS, FAIL, UNDECIDED, NOT_APPLICABLE = "pass", "fail", "undecided", "not_applicable"
OUTCOMES = (PASS, FAIL, UNDECIDED, NOT_APPLICABLE)

#: What each outcome shows first in the summary table's status cell (the command's own word follows).
MARKS = {PASS: "✅", FAIL: "❌", UNDECIDED: "⚠️", NOT_APPLICABLE: "➖"}
#: File suffixes of an ``--output`` (audit, compare) that name a format other than their own: ``.xml`` is JUnit XML.
SUFFIXES = {"markdown": "md", "htm": "html", "xml": "junit"}
#: The workflow command of each outcome that gets an annotation.
ANNOTATION = {FAIL: "error", UNDECIDED: "warning"}


@dataclass(frozen=True)
class Case:
    """One verdict as a test case: ``group`` is the JUnit suite and classname (SC15 rules, claims ...)."""

    group: str
    name: str
    outcome: str
    status: str  # the command's own word: "pass", "warn", "needs a human", "slower", "inconclusive"
    message: str  # one sentence: the evidence that decided it
    details: str = ""  # every evidence item, one per line
    advice: str = ""  # what to do about it (nothing for a pass)

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(OUTCOMES)}")


# ------------------------------------------------------------------------------------------------ JUnit XML

#: Characters XML 1.0 cannot hold at all (control characters other than tab, LF, CR; lone surrogates).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(text: str) -> str:
    """Text an XML parser accepts: what XML cannot hold becomes U+FFFD (ElementTree escapes the rest)."""
    return _NOT_XML.sub("\ufffd", str(text))


def _counts(cases: Sequence[Case]) -> dict[str, str]:
    failed = sum(c.outcome == FAIL for c in cases)
    skipped = sum(c.outcome in (UNDECIDED, NOT_APPLICABLE) for c in cases)
    return {"tests": str(len(cases)), "failures": str(failed), "errors": "0", "skipped": str(skipped)}


def _testcase(suite: ET.Element, case: Case) -> None:
    element = ET.SubElement(suite, "testcase", name=_xml_text(case.name), classname=_xml_text(case.group))
    if case.outcome != PASS:
        tag = "failure" if case.outcome == FAIL else "skipped"
        verdict = ET.SubElement(element, tag, type=_xml_text(case.status),
                                message=_xml_text(f"{case.status}: {case.message}"))
        verdict.text = _xml_text(_body(case))
    elif case.details:
        ET.SubElement(element, "system-out").text = _xml_text(case.details)


def _body(case: Case) -> str:
    """A case's whole story: the evidence item by item (else its one sentence), then what to do."""
    return (case.details or case.message) + (f"\nWhat to do: {case.advice}" if case.advice else "")


def junit_xml(title: str, cases: Sequence[Case], properties: dict[str, str] | None = None) -> str:
    """``<testsuites>`` with one ``<testsuite>`` per group, in the order the groups first appear; ``properties``
    (the verdict, the inputs) on the first."""
    root = ET.Element("testsuites", name=_xml_text(title), **{k: v for k, v in _counts(cases).items() if k != "skipped"})
    for group in dict.fromkeys(c.group for c in cases):
        mine = [c for c in cases if c.group == group]
        suite = ET.SubElement(root, "testsuite", name=_xml_text(group), **_counts(mine))
        if properties and group == cases[0].group:  # stated once, on the first suite
            listed = ET.SubElement(suite, "properties")
            for key, value in properties.items():
                ET.SubElement(listed, "property", name=_xml_text(key), value=_xml_text(value))
        for case in mine:
            _testcase(suite, case)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ------------------------------------------------------------------------------------------------ GitHub

SUMMARY_HEADER = ("check / claim", "status", "evidence")


def github_summary(title: str, lead: Iterable[str], cases: Sequence[Case], header: Sequence[str] = SUMMARY_HEADER) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: a heading, the lead lines, then ONE table, one row per case."""
    from .escape import markdown_text

    out = [f"## {markdown_text(title)}", "", *(f"{markdown_text(line)}  " for line in lead), "",
           "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += [f"| {markdown_text(c.name)} | {MARKS[c.outcome]} {markdown_text(c.status)} | {markdown_text(c.message)} |"
            for c in cases]
    return "\n".join(out) + "\n"


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF percent-encoded (GitHub's toolkit, ``escapeData``)."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property (``title=``): as :func:`escape_data`, and ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


#: GitHub shows at most 10 annotations of each kind per step and drops the rest without a word.
ANNOTATIONS_SHOWN = 10


def github_annotations(cases: Sequence[Case]) -> list[str]:
    """One ``::error`` per failed case and one ``::warning`` per undecided one: the evidence sentence and what to
    do as the message (the evidence item by item is in the JUnit XML and the report).  Past GitHub's limit of
    each kind, the last one shown says how many more the summary table lists."""
    lines = []
    for outcome, command in ANNOTATION.items():
        mine = [c for c in cases if c.outcome == outcome]
        shown = mine if len(mine) <= ANNOTATIONS_SHOWN else mine[:ANNOTATIONS_SHOWN - 1]
        for case in shown:
            message = f"{case.status}: {case.message}" + (f"\nWhat to do: {case.advice}" if case.advice else "")
            lines.append(f"::{command} title={escape_property(case.name)}::{escape_data(message)}")
        if len(shown) < len(mine):
            rest = ", ".join(c.name for c in mine[len(shown):])
            lines.append(f"::{command} title={escape_property(f'{len(mine) - len(shown)} more')}::"
                         + escape_data(f"{len(mine) - len(shown)} more {outcome} (see the job summary's table): {rest}"))
    return lines
