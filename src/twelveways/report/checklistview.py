"""A reader for ``reports/checklist.json`` and a plain summary fragment for the report.

The checklist engine (``twelveways.checklist``) owns the format and its own HTML fragment
(``twelveways.checklist.render.html_fragment``); the report uses that when it exists.  This
module is the fallback and the checklist notebook's reader: it accepts the fields the engine
writes (``verdict``, ``checks`` with ``id``, ``title``, ``status``, ``evidence``,
``recommendation``) and a few obvious synonyms, and escapes every string it shows.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping

import pandas as pd

STATUS_ORDER = ["fail", "warn", "needs a human", "pass", "not applicable"]
_SYNONYMS = {"id": ("id", "rule", "code", "key"), "title": ("title", "name", "description", "summary"),
             "status": ("status", "result", "outcome"), "evidence": ("evidence", "details", "numbers"),
             "recommendation": ("recommendation", "fix", "advice")}


def _pick(item: Mapping, field: str, default=""):
    for name in _SYNONYMS[field]:
        if name in item and item[name] not in (None, ""):
            return item[name]
    return default


def _text(value) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, sort_keys=True, default=str)


def normalize(data: Mapping) -> tuple[str, pd.DataFrame]:
    """(overall verdict, one row per check: id, title, status, evidence, recommendation)."""
    verdict = data.get("verdict", data.get("overall", data.get("result", "unknown")))
    if isinstance(verdict, Mapping):
        verdict = verdict.get("status", verdict.get("verdict", json.dumps(verdict, sort_keys=True)))
    checks = data.get("checks", data.get("results", []))
    if isinstance(checks, Mapping):
        checks = [{"id": key, **(value if isinstance(value, Mapping) else {"status": value})} for key, value in checks.items()]
    rows = []
    for item in checks if isinstance(checks, list) else []:
        if not isinstance(item, Mapping):
            continue
        rows.append({field: _text(_pick(item, field)) for field in _SYNONYMS})
    return str(verdict), pd.DataFrame(rows, columns=list(_SYNONYMS))


def status_class(status: str) -> str:
    """A CSS class name for a status (only letters and dashes, whatever the input)."""
    word = "".join(ch if ch.isalpha() else "-" for ch in str(status).lower()).strip("-")
    return "tw-status-" + (word if word in {"pass", "warn", "fail", "not-applicable", "needs-a-human"} else "other")


def summary_html(data: Mapping) -> str:
    """Overall verdict, then one line per check (LoadGen style); every string escaped."""
    verdict, checks = normalize(data)
    lines = [f"<p class='tw-verdict {status_class(verdict)}'>Result is: <strong>{html.escape(verdict.upper())}</strong></p>",
             "<ul class='tw-checks'>"]
    for _, row in checks.iterrows():
        lines.append(f"<li><span class='tw-badge {status_class(row['status'])}'>{html.escape(row['status'] or '?')}</span> "
                     f"<strong>{html.escape(row['id'])}</strong> {html.escape(row['title'])}</li>")
    lines.append("</ul>")
    if checks.empty:
        lines.insert(1, "<p>The checklist holds no checks.</p>")
    return "\n".join(lines)
