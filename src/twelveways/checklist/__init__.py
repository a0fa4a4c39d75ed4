"""The checklist: SC15 rules R1–R12 and data-science fallacies F1–F12 as small checks over results files.

Modules: ``model`` (status, evidence, results, and ``AuditRun``: one audit's claims and working state),
``domains`` (the kind of results a check is about), ``rules`` and ``fallacies`` (one function per check),
``restate`` (stated summaries recomputed), ``render`` (JSON, Markdown, HTML), ``audit`` and
``readers.csv_table`` (the CLI entry points).  Each check is ``f(audit)``: it reads the read-only result set
``audit.results`` (``twelveways.resultset.ResultSet``), judges authors' claims with ``twelveways.claims``
and R5's per-run stability with ``twelveways.stability``;
``twelveways compare`` reads those three too, never this package.  What each check reads is
documented in ``docs/checklist-evidence.md``.
"""

from .model import AuditReport, CheckResult, Evidence, Status

__all__ = ["AuditReport", "CheckResult", "Evidence", "Status"]
