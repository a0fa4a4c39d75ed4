"""The checklist: SC15 rules R1–R12 and data-science fallacies F1–F12 as small checks over results files.

Modules: ``model`` (status, evidence, results), ``domains`` (the kind of results a check is
about), ``rules`` and ``fallacies`` (one function per check), ``restate`` (stated summaries
recomputed), ``render`` (JSON, Markdown, HTML), ``audit`` and ``readers.csv_table`` (the CLI entry
points).  The checks read an audited result set (``twelveways.resultset``), judge authors'
claims with ``twelveways.claims`` and R5's per-run stability with ``twelveways.stability``;
``twelveways compare`` reads those three too, never this package.  What each check reads is
documented in ``docs/checklist-evidence.md``.
"""

from .model import AuditReport, CheckResult, Evidence, Status

__all__ = ["AuditReport", "CheckResult", "Evidence", "Status"]
