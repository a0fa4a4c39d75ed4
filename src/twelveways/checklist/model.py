"""What a check returns: a status, the evidence it read, and what to do about it.

Every check is one small function registered with :func:`check`; it returns
``(status, evidence, recommendation)`` and the decorator wraps that into a :class:`CheckResult`
carrying the check's id and title, so the title is written once, where the check is declared
(MLPerf LoadGen style: each criterion defined where it is declared).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..errors import TwelveWaysError
from ..jsonvalue import plain

if TYPE_CHECKING:  # the claims import statistics (scipy): import-csv, which loads this module, needs none
    from ..claims import ClaimResult


class Status(str, Enum):
    """Outcome of one check.  ``fail`` means a violation proven by the data."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    NOT_APPLICABLE = "not_applicable"
    NEEDS_HUMAN = "needs_human"

    @property
    def satisfied(self) -> str:
        """LoadGen-style wording for the one-line summary."""
        return {"pass": "Yes", "fail": "No", "warn": "Partly (warning)",
                "not_applicable": "Not applicable", "needs_human": "Needs a human"}[self.value]


#: Worst first: how several findings of one check combine into its status.
SEVERITY = {Status.FAIL: 4, Status.WARN: 3, Status.NEEDS_HUMAN: 2, Status.PASS: 1, Status.NOT_APPLICABLE: 0}


def worst(statuses: Iterable[Status], default: Status = Status.NOT_APPLICABLE) -> Status:
    """The most severe status (fail > warn > needs_human > pass > not_applicable)."""
    statuses = list(statuses)
    return max(statuses, key=SEVERITY.__getitem__) if statuses else default


@dataclass
class Evidence:
    """One number (or fact) a check relied on, and where it came from."""

    what: str
    value: Any
    source: dict = field(default_factory=dict)  # {"file": path, "fields": [attr or column names]}

    def to_dict(self) -> dict:
        return {"what": self.what, "value": plain(self.value), "source": plain(self.source)}


def ev(what: str, value: Any, file: str | None = None, *fields: str) -> Evidence:
    """Shorthand: ``ev("base case", 1.2, "results/prk.nc", "attr speedup_base_case")``."""
    return Evidence(what, value, {"file": file or "", "fields": list(fields)})


def judged(statuses: list[Status], evidence: list[Evidence], looked_for: Evidence,
           advice: str) -> tuple[Status, list[Evidence], str]:
    """A check's outcome: the worst status found with its evidence and advice, or not applicable, naming what
    it looked for and found none of, when the data held nothing the check could judge."""
    if not statuses:
        return Status.NOT_APPLICABLE, [looked_for], ""
    return worst(statuses), evidence, advice


@dataclass
class CheckResult:
    id: str
    title: str
    status: Status
    evidence: list[Evidence] = field(default_factory=list)
    recommendation: str = ""

    @property
    def satisfied(self) -> str:
        return self.status.satisfied

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "status": self.status.value, "satisfied": self.satisfied,
                "evidence": [e.to_dict() for e in self.evidence], "recommendation": self.recommendation}


@dataclass
class AuditReport:
    inputs: list[str]
    checks: list[CheckResult]
    claims: list[ClaimResult] = field(default_factory=list)
    skipped: list[tuple[str, str, bool]] = field(default_factory=list)  # files of the trees not read: why, unreadable?
    excluded: list[str] = field(default_factory=list)  # runs their source judged invalid, with its criterion
    excluded_summary: list[dict] = field(default_factory=list)  # one record per reason (resultset.exclusion_summary)

    @property
    def failed(self) -> bool:
        """A check failed, or a claim is contradicted by (or has no) data."""
        from ..claims import ClaimVerdict

        return any(c.status is Status.FAIL for c in self.checks) or any(
            c.verdict is ClaimVerdict.NOT_SUPPORTED for c in self.claims)

    @property
    def unreadable(self) -> int:
        """Result files of the input trees that could not be read (skipped and listed; the rest audited)."""
        return sum(bool(item[2]) for item in self.skipped)

    @property
    def verdict(self) -> str:
        return "INVALID" if self.failed else "VALID"

    def to_dict(self) -> dict:
        counts = {s.value: sum(c.status is s for c in self.checks) for s in Status}
        return {"format": "twelveways-checklist/2", "verdict": self.verdict, "valid": not self.failed,
                "inputs": list(self.inputs), "excluded_summary": plain(self.excluded_summary),
                "excluded": list(self.excluded), "counts": counts,
                "checks": [c.to_dict() for c in self.checks], "claims": [c.to_dict() for c in self.claims],
                "skipped": [{"path": path, "why": why, "unreadable": bool(unreadable)} for path, why, unreadable in self.skipped],
                "unreadable": self.unreadable}


Finding = tuple[Status, list[Evidence], str]

#: id -> (title, function); filled by the @check decorators in rules.py and fallacies.py.
REGISTRY: dict[str, tuple[str, Callable[..., CheckResult]]] = {}
#: id -> the check's work on one raw file, ``f(data, source)``, for checks that declare it (see :func:`check`).
PER_SOURCE: dict[str, Callable] = {}


def check(check_id: str, title: str, domain: str | None = None, per_source: Callable | None = None):
    """Register a check function ``f(data) -> (Status, [Evidence], recommendation)``.

    ``domain`` names the kind of results the check is about (``domains.DOMAINS``: training,
    inference, ml, parallel, rates, ...): outside it the check is not applicable, whatever the
    data lack.  A pass whose evidence holds a null, NaN or empty value is downgraded to a warning:
    a check cannot pass on evidence nobody can read.

    ``per_source(data, source)``: the check's work on each raw file, which the check gathers with
    :func:`source_parts`; :func:`start_per_source` runs it for every file in forked workers while
    the other checks run (``twelveways.forkmap``).
    """
    if per_source is not None:
        PER_SOURCE[check_id] = per_source

    def wrap(func: Callable[..., Finding]) -> Callable[..., CheckResult]:
        def run(data) -> CheckResult:
            outside = _outside_domain(domain, data)
            if outside is not None:
                return CheckResult(check_id, title, Status.NOT_APPLICABLE, [outside], "")
            try:
                status, evidence, recommendation = func(data)
            except TwelveWaysError as exc:  # e.g. a statistic the data cannot support
                return CheckResult(check_id, title, Status.NEEDS_HUMAN,
                                   [ev("could not be evaluated", exc.one_line())],
                                   "Inspect the data by hand; the automatic check could not decide.")
            status, evidence = _guard_empty_evidence(status, list(evidence))
            return CheckResult(check_id, title, status, evidence, recommendation)

        run.__name__ = func.__name__
        run.__doc__ = func.__doc__
        run.check_id = check_id
        run.title = title
        run.domain = domain
        REGISTRY[check_id] = (title, run)
        return run

    return wrap


def start_per_source(data) -> list[str]:
    """Start every declared per-file part (:data:`PER_SOURCE`) in the background; the ids started."""
    from functools import partial

    from ..forkmap import BackgroundMap

    if PER_SOURCE:
        data.background[BACKGROUND] = BackgroundMap(partial(_every_part, data), data.raw_sources)
    return list(PER_SOURCE)


#: Key of the one background map of every declared per-file part in ``AuditData.background``.
BACKGROUND = "per-source parts"


class _Failed:
    """A per-file part that raised: :func:`source_parts` runs it again for its own check, which states the error."""


def _every_part(data, source) -> dict:
    """Every declared per-file part of one file (one map over the files does them all); a part that raises
    does not take the other checks' parts with it."""
    out = {}
    for check_id, part in PER_SOURCE.items():
        try:
            out[check_id] = part(data, source)
        except Exception:  # noqa: BLE001 - raised again, as it is, by the check it belongs to
            out[check_id] = _Failed()
    return out


def source_parts(data, check_id: str) -> list:
    """The per-file parts of a check, one per raw file in order: from the background map when one was
    started, else computed here."""
    started = data.background.get(BACKGROUND)
    if started is not None:
        if not isinstance(started, list):
            data.background[BACKGROUND] = started = started.results()
        return [PER_SOURCE[check_id](data, source) if isinstance(parts[check_id], _Failed) else parts[check_id]
                for parts, source in zip(started, data.raw_sources)]
    return [PER_SOURCE[check_id](data, source) for source in data.raw_sources]


def _outside_domain(domain: str | None, data) -> Evidence | None:
    """Evidence that the audited results lie outside ``domain`` (None when inside or no domain)."""
    if domain is None:
        return None
    from .domains import DOMAINS

    description, inside = DOMAINS[domain]
    if inside(data):
        return None
    return ev(f"{description} in the audited results", "none (the check applies only to those)", "", "rows")


def is_empty(value) -> bool:
    """Null, NaN, an empty text or an empty collection: nothing a reader could check."""
    import math

    import numpy as np

    if value is None:
        return True
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, (list, tuple, set, dict)):
        return len(value) == 0
    return False


def _guard_empty_evidence(status: Status, evidence: list[Evidence]) -> tuple[Status, list[Evidence]]:
    """A pass resting on null/NaN/empty evidence becomes a warning naming that evidence."""
    if status is not Status.PASS:
        return status, evidence
    empty = [e.what for e in evidence if is_empty(e.value)]
    if not empty and evidence:
        return status, evidence
    what = "; ".join(empty[:5]) if empty else "no evidence at all"
    return Status.WARN, evidence + [ev("evidence with no value (a pass needs every number)", what, "", "evidence")]


CHECK_FAMILIES = ("R", "F")  # SC15 rules first, then the fallacies; any other prefix after them


def ordered_ids() -> list[str]:
    """Every registered check in report order (R1..R12, F1..F12, then others): the registry is the only list."""
    def key(check_id: str):
        prefix, digits = check_id.rstrip("0123456789"), check_id[len(check_id.rstrip("0123456789")):]
        family = CHECK_FAMILIES.index(prefix) if prefix in CHECK_FAMILIES else len(CHECK_FAMILIES)
        return family, prefix, int(digits or 0)

    return sorted(REGISTRY, key=key)
