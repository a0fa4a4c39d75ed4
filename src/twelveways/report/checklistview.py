"""The checklist notebook's reader of ``reports/checklist.json``, as tables.

The checklist engine (``twelveways.checklist``) owns the format (``twelveways-checklist/2``:
``verdict`` VALID/INVALID, ``checks`` with ``id``, ``title``, ``status``, ``satisfied``,
``evidence`` as ``{what, value, source: {file, fields}}`` items and ``recommendation``;
``claims``) and renders its summary (``twelveways.checklist.render``, the report's summary
lines and checklist.md).  This module turns it into the notebook's tables; it also accepts a
few obvious synonyms, and escapes every string it shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pandas as pd

STATUS_ORDER = ["fail", "warn", "needs_human", "pass", "not_applicable"]
#: CSS status class per status or verdict word (anything else is "other").
_CLASSES = {"pass": "pass", "valid": "pass", "warn": "warn", "fail": "fail", "invalid": "fail",
            "not-applicable": "not-applicable", "needs-human": "needs-human", "needs-a-human": "needs-human"}
_SYNONYMS = {"id": ("id", "rule", "code", "key"), "title": ("title", "name", "description", "summary"),
             "status": ("status", "result", "outcome"), "evidence": ("evidence", "details", "numbers"),
             "recommendation": ("recommendation", "fix", "advice")}
#: Columns of :func:`normalize`'s table (status once; no "satisfied", which repeats it in words).
COLUMNS = ("id", "title", "status", "why", "what to do", "evidence")


def _pick(item: Mapping, field: str, default=""):
    for name in _SYNONYMS[field]:
        if name in item and item[name] not in (None, ""):
            return item[name]
    return default


def _text(value) -> str:
    from twelveways.checklist.render import clean, readable

    return value if isinstance(value, str) else clean(readable(value))


def _evidence_summary(item: Mapping) -> str:
    """``N items from FILES`` for a check's evidence (the items themselves are tables in the summary)."""
    from twelveways.checklist.render import evidence_rows

    rows = evidence_rows({"evidence": [e for e in item.get("evidence") or [] if isinstance(e, Mapping)]})
    files = sorted({row["source"].split(":")[0] for row in rows if row["source"] != "—"})
    return f"{len(rows)} item{'s' if len(rows) != 1 else ''}" + (f" from {', '.join(files)}" if files else "")


def normalize(data: Mapping) -> tuple[str, pd.DataFrame]:
    """(overall verdict, one row per check: id, title, status, why, what to do, evidence count and files)."""
    verdict = data.get("verdict", data.get("overall", data.get("result", "unknown")))
    if isinstance(verdict, Mapping):
        verdict = verdict.get("status", verdict.get("verdict", json.dumps(verdict, sort_keys=True)))
    checks = data.get("checks", data.get("results", []))
    if isinstance(checks, Mapping):
        checks = [{"id": key, **(value if isinstance(value, Mapping) else {"status": value})} for key, value in checks.items()]
    from twelveways.checklist.render import todo, why

    rows = []
    for item in checks if isinstance(checks, list) else []:
        if not isinstance(item, Mapping):
            continue
        check = {field: _pick(item, field) for field in _SYNONYMS}
        check["evidence"] = check["evidence"] if isinstance(check["evidence"], list) else []
        check["status"] = _text(check["status"])
        rows.append({"id": _text(check["id"]), "title": _text(check["title"]), "status": check["status"],
                     "why": why(check), "what to do": todo(check), "evidence": _evidence_summary(check)})
    return str(verdict), pd.DataFrame(rows, columns=list(COLUMNS))


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
    (never the raw ``numbers`` dict)."""
    from twelveways.checklist.render import claim_facts, claim_sides

    rows = []
    claims = data.get("claims")
    for claim in claims if isinstance(claims, list) else []:
        if not isinstance(claim, Mapping) or "id" not in claim:
            continue
        facts = dict(claim_facts(dict(claim)))
        for side in claim_sides(dict(claim)) or [{}]:
            rows.append({"claim": str(claim["id"]), "verdict": status_label(claim.get("verdict", "")),
                         "per claim / after Holm": facts["verdict"], **side, "estimate": facts["estimate"],
                         "test": facts["test"], "Holm": facts["Holm"], "why": str(claim.get("message", ""))})
    return pd.DataFrame(rows)
