"""The checklist notebook's reader of ``reports/checklist.json``, as tables.

The checklist engine (``twelveways.checklist``) owns the format (``twelveways-checklist/2``, the typed
:class:`~twelveways.checklist.model.AuditReport` that checks it on load: a wrong type is one line naming the
field) and renders its summary (``twelveways.checklist.render``, the report's summary lines and checklist.md).
This module turns it into the notebook's tables, reading fields, and escapes every string it shows.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from twelveways.checklist.model import AuditReport, CheckResult

STATUS_ORDER = ["fail", "warn", "needs_human", "pass", "not_applicable"]
#: CSS status class per status or verdict word (anything else is "other").
_CLASSES = {"pass": "pass", "valid": "pass", "warn": "warn", "fail": "fail", "invalid": "fail",
            "not-applicable": "not-applicable", "needs-human": "needs-human", "needs-a-human": "needs-human"}
#: Columns of :func:`normalize`'s table (status once; no "satisfied", which repeats it in words).
COLUMNS = ("id", "title", "status", "why", "what to do", "evidence")


def _evidence_summary(check: CheckResult) -> str:
    """``N items from FILES`` for a check's evidence (the items themselves are tables in the summary)."""
    from twelveways.checklist.render import evidence_rows

    rows = evidence_rows(check)
    files = sorted({row["source"].split(":")[0] for row in rows if row["source"] != "—"})
    return f"{len(rows)} item{'s' if len(rows) != 1 else ''}" + (f" from {', '.join(files)}" if files else "")


def normalize(data: Mapping) -> tuple[str, pd.DataFrame]:
    """(overall verdict, one row per check: id, title, status, why, what to do, evidence count and files)."""
    from twelveways.checklist.render import todo, why

    report = AuditReport.from_dict(data, "checklist")
    rows = [{"id": check.id, "title": check.title, "status": check.status.value, "why": why(check),
             "what to do": todo(check), "evidence": _evidence_summary(check)} for check in report.checks]
    return report.verdict, pd.DataFrame(rows, columns=list(COLUMNS))


def status_class(status: str) -> str:
    """A CSS class name for a status or verdict (a fixed set, whatever the input)."""
    word = "".join(ch if ch.isalpha() else "-" for ch in str(status).lower()).strip("-")
    return "tw-status-" + _CLASSES.get(word, "other")


def status_label(status: str) -> str:
    """``not_applicable`` -> ``not applicable`` for display."""
    return str(status).replace("_", " ")


def claims_frame(data: Mapping) -> pd.DataFrame:
    """One row per claim side: verdicts, configuration, n, value, interval, coverage (the checklist's one
    renderer of a side record, ``render.claim_sides``), the estimate, the test and the Holm-adjusted p, as text
    (never the raw numbers)."""
    from twelveways.checklist.render import claim_facts, claim_sides

    rows = []
    for claim in AuditReport.from_dict(data, "checklist").claims:
        facts = dict(claim_facts(claim))
        verdicts, *shown = (facts[label] for label in CLAIM_FACTS)
        for side in claim_sides(claim) or [{}]:
            rows.append({"claim": claim.id, "verdict": status_label(claim.verdict.value),
                         "per claim / after Holm": verdicts, **side, **dict(zip(CLAIM_FACTS[1:], shown)),
                         "why": claim.message})
    return pd.DataFrame(rows)


#: The lines of ``render.claim_facts`` the claims table shows beside the sides: both verdicts, then these.
CLAIM_FACTS = ("verdict", "estimate", "test", "Holm")
