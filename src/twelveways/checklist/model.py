"""What a check returns: a status, the evidence it read, and what to do about it.

Every check is one small function registered with :func:`check`; it returns
``(status, evidence, recommendation)`` and the decorator wraps that into a :class:`CheckResult`
carrying the check's id and title, so the title is written once, where the check is declared
(MLPerf LoadGen style: each criterion defined where it is declared).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from ..claim_record import ClaimResult, ClaimVerdict, Record
from ..errors import AuditInputError, TwelveWaysError
from ..jsonvalue import plain

if TYPE_CHECKING:  # annotations only: both load the analysis stack, which `twelveways audit --help` never waits for
    from ..claims import Claim
    from ..resultset import ResultSet

#: The audit JSON's format (``reports/checklist.json``).
FORMAT = "twelveways-checklist/2"


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


def _named(model: type[Record], args: tuple, given: dict) -> dict:
    """Positional arguments named by the model's fields in order (the checks build their results positionally)."""
    named = dict(zip(model.model_fields, args))
    return {key: list(value) if isinstance(value, tuple) and key != "source" else value
            for key, value in {**named, **given}.items()}


def _path_text(value):
    """A path named as evidence or input is written as its text (as the JSON always showed it)."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


PathText = Annotated[str, BeforeValidator(_path_text)]


class EvidenceSource(Record):
    """Where a number came from: the file and the attributes or columns read."""

    file: PathText = ""
    fields: list[str] = Field(default_factory=list)


class Evidence(Record):
    """One number (or fact) a check relied on, and where it came from."""

    what: str
    value: Any = None
    source: EvidenceSource = Field(default_factory=EvidenceSource)

    def __init__(self, *args, **given):
        super().__init__(**_named(type(self), args, given))

    def to_dict(self) -> dict:
        return {"what": self.what, "value": plain(self.value), "source": self.source.to_dict()}


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


class CheckResult(Record):
    """One check's status, the evidence it read and what to do about it."""

    id: str
    title: str
    status: Status = Field(strict=False)
    evidence: list[Evidence] = Field(default_factory=list)
    recommendation: str = ""

    def __init__(self, *args, **given):
        super().__init__(**_named(type(self), args, given))

    @model_validator(mode="before")
    @classmethod
    def _satisfied_agrees(cls, data):
        """The JSON's ``satisfied`` is the status in words: read back, it must say what the status says."""
        if isinstance(data, Mapping) and "satisfied" in data:
            data = dict(data)
            stated, status = data.pop("satisfied"), data.get("status")
            if status in {s.value for s in Status} and stated != Status(status).satisfied:
                raise ValueError(f"satisfied {stated!r} does not match status {status!r}")
        return data

    @property
    def satisfied(self) -> str:
        return self.status.satisfied

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "status": self.status.value, "satisfied": self.satisfied,
                "evidence": [e.to_dict() for e in self.evidence], "recommendation": self.recommendation}


class Skipped(Record):
    """A file of the input trees that was not audited, why, and whether it was a results file that failed."""

    path: PathText
    why: str
    unreadable: bool

    @model_validator(mode="before")
    @classmethod
    def _from_tuple(cls, data):
        if isinstance(data, (tuple, list)) and len(data) == 3:
            return {"path": data[0], "why": data[1], "unreadable": bool(data[2])}
        return data


class ExclusionLine(Record):
    """One reason runs were left out of every check, counted (``resultset.exclusion_summary``)."""

    line: str
    count: int
    what: str
    reason: str
    by_design: bool
    parts: dict[str, int] = Field(default_factory=dict)


#: Keys of the audit JSON that are worked out from the rest: read back, each must agree with it.
DERIVED = ("format", "verdict", "valid", "counts", "unreadable")


class AuditReport(Record):
    """The whole audit: inputs, every check, every claim, what was skipped or excluded; its JSON is
    ``reports/checklist.json``, read back with :meth:`from_dict`."""

    inputs: list[PathText] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    claims: list[ClaimResult] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)  # files of the trees not read: why, unreadable?
    excluded: list[str] = Field(default_factory=list)  # runs their source judged invalid, with its criterion
    excluded_summary: list[ExclusionLine] = Field(default_factory=list)  # one record per reason

    def __init__(self, *args, **given):
        super().__init__(**_named(type(self), args, given))

    @classmethod
    def from_dict(cls, data: Any, where: str = "audit") -> AuditReport:
        """The audit JSON (parsed) as a report; a wrong type, or a derived key (verdict, counts...) that disagrees
        with the checks and claims, is one :class:`AuditInputError` line naming the field."""
        if not isinstance(data, Mapping):
            raise AuditInputError(f"{where}: not a JSON object")
        report = super().from_dict({k: v for k, v in data.items() if k not in DERIVED}, where)
        written = report.to_dict()
        for key in DERIVED:
            if key in data and data[key] != written[key]:
                raise AuditInputError(f"{where}.{key} is {data[key]!r}"[:200] + f", but the checks and claims give "
                                      f"{written[key]!r}"[:200])
        return report

    @property
    def failed(self) -> bool:
        """A check failed, or a claim is contradicted by (or has no) data."""
        return any(c.status is Status.FAIL for c in self.checks) or any(
            c.verdict is ClaimVerdict.NOT_SUPPORTED for c in self.claims)

    @property
    def unreadable(self) -> int:
        """Result files of the input trees that could not be read (skipped and listed; the rest audited)."""
        return sum(item.unreadable for item in self.skipped)

    @property
    def verdict(self) -> str:
        return "INVALID" if self.failed else "VALID"

    def status_counts(self) -> dict[str, int]:
        """{status: how many checks have it}, every status listed."""
        return {s.value: sum(c.status is s for c in self.checks) for s in Status}

    def to_dict(self) -> dict:
        return {"format": FORMAT, "verdict": self.verdict, "valid": not self.failed,
                "inputs": list(self.inputs), "excluded_summary": [e.to_dict() for e in self.excluded_summary],
                "excluded": list(self.excluded), "counts": self.status_counts(),
                "checks": [c.to_dict() for c in self.checks], "claims": [c.to_dict() for c in self.claims],
                "skipped": [s.to_dict() for s in self.skipped], "unreadable": self.unreadable}


Finding = tuple[Status, list[Evidence], str]


@dataclass(frozen=True)
class AuditRun:
    """One audit of a result set: the claims it checks (embedded in the files, then the claims file) with their
    results, and its working state.  Why apart from the :class:`~twelveways.resultset.ResultSet` it reads: an audit
    never changes its input, so one set can be audited again, or compared, and give the same answer.  Every check
    is ``f(audit)``; it reads the rows and attributes from :attr:`results`."""

    results: ResultSet
    claims: tuple[Claim, ...] = ()
    #: (origin, claim id, message, kind) of each claim embedded in a file that could not be read (F12 names them)
    claim_problems: tuple[tuple[str, str, str, str], ...] = ()
    claim_results: tuple[ClaimResult, ...] = ()
    #: rows of each stated summary (restate.summary_rows): R3 and R5 ask for the same rows several times
    summary_rows: dict = field(default_factory=dict, repr=False)
    #: :data:`BACKGROUND` -> the forkmap.BackgroundMap of the per-file parts while they run, then their results
    background: dict = field(default_factory=dict, repr=False)


#: id -> (title, function); filled by the @check decorators in rules.py and fallacies.py.
REGISTRY: dict[str, tuple[str, Callable[..., CheckResult]]] = {}
#: id -> the check's work on one raw file, ``f(results, source)``, for checks that declare it (see :func:`check`).
PER_SOURCE: dict[str, Callable] = {}


def check(check_id: str, title: str, domain: str | None = None, per_source: Callable | None = None):
    """Register a check function ``f(audit: AuditRun) -> (Status, [Evidence], recommendation)``.

    ``domain`` names the kind of results the check is about (``domains.DOMAINS``: training,
    inference, ml, parallel, rates, ...): outside it the check is not applicable, whatever the
    data lack.  A pass whose evidence holds a null, NaN or empty value is downgraded to a warning:
    a check cannot pass on evidence nobody can read.

    ``per_source(results, source)``: the check's work on each raw file of the result set, which the check gathers with
    :func:`source_parts`; :func:`start_per_source` runs it for every file in forked workers while
    the other checks run (``twelveways.forkmap``).
    """
    if per_source is not None:
        PER_SOURCE[check_id] = per_source

    def wrap(func: Callable[..., Finding]) -> Callable[..., CheckResult]:
        def run(audit: AuditRun) -> CheckResult:
            outside = _outside_domain(domain, audit.results)
            if outside is not None:
                return CheckResult(check_id, title, Status.NOT_APPLICABLE, [outside], "")
            try:
                status, evidence, recommendation = func(audit)
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


def start_per_source(audit: AuditRun) -> list[str]:
    """Start every declared per-file part (:data:`PER_SOURCE`) in the background; the ids started."""
    from functools import partial

    from ..forkmap import BackgroundMap

    if PER_SOURCE:
        audit.background[BACKGROUND] = BackgroundMap(partial(_every_part, audit.results), audit.results.raw_sources)
    return list(PER_SOURCE)


#: Key of the one background map of every declared per-file part in ``AuditRun.background``.
BACKGROUND = "per-source parts"


class _Failed:
    """A per-file part that raised: :func:`source_parts` runs it again for its own check, which states the error."""


def _every_part(results: ResultSet, source) -> dict:
    """Every declared per-file part of one file (one map over the files does them all); a part that raises
    does not take the other checks' parts with it."""
    out = {}
    for check_id, part in PER_SOURCE.items():
        try:
            out[check_id] = part(results, source)
        except Exception:  # noqa: BLE001 - raised again, as it is, by the check it belongs to
            out[check_id] = _Failed()
    return out


def source_parts(audit: AuditRun, check_id: str) -> list:
    """The per-file parts of a check, one per raw file in order: from the background map when one was
    started, else computed here."""
    results, started = audit.results, audit.background.get(BACKGROUND)
    if started is not None:
        if not isinstance(started, list):
            audit.background[BACKGROUND] = started = started.results()
        return [PER_SOURCE[check_id](results, source) if isinstance(parts[check_id], _Failed) else parts[check_id]
                for parts, source in zip(started, results.raw_sources)]
    return [PER_SOURCE[check_id](results, source) for source in results.raw_sources]


def _outside_domain(domain: str | None, results: ResultSet) -> Evidence | None:
    """Evidence that the audited results lie outside ``domain`` (None when inside or no domain)."""
    if domain is None:
        return None
    from .domains import DOMAINS

    description, inside = DOMAINS[domain]
    if inside(results):
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
