"""The checklist: SC15 rules R1–R12 and data-science fallacies F1–F12 as small checks over results files.

Modules: ``model`` (status, evidence, results), ``evidence`` (reading results files and the
shared vocabulary), ``rules`` and ``fallacies`` (one function per check), ``claims`` (authors'
claims checked with CIs of medians and Mann–Whitney), ``render`` (JSON, Markdown, HTML),
``audit`` and ``importcsv`` (the CLI entry points).  What each check reads is documented in
``docs/checklist-evidence.md``.
"""

from .model import AuditReport, CheckResult, ClaimResult, ClaimVerdict, Evidence, Status

__all__ = ["AuditReport", "CheckResult", "ClaimResult", "ClaimVerdict", "Evidence", "Status"]
