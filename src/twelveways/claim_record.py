"""A claim's result and its numbers as typed, immutable records, checked once when they are built or read.

Why apart from :mod:`twelveways.claims` (which computes them): the audit's JSON (``reports/checklist.json``)
carries every claim's numbers to the report, ``compare`` and a CI system, and reading them back must not load
the statistics.  Why typed: the numbers cross a file boundary, so each field is checked on load (an estimate
is a number, n a whole number, a verdict one of three words) and a record that fails is one line naming the
field; readers then use fields, never keys.  Why the key order is remembered: each design writes its numbers
in its own order, and a record read back and written again must give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from .errors import AuditInputError
from .jsonvalue import plain


class ClaimVerdict(str, Enum):
    SUPPORTED = "supported"
    NOT_SUPPORTED = "not_supported"
    INCONCLUSIVE = "inconclusive"


def _number(value):
    """An int or a float, kept as given (2 stays 2, 2.0 stays 2.0: the JSON written back is the same)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not a number")
    return value


def _maybe_number(value):
    return None if value is None else _number(value)


def _scalar(value):
    """A filter's or a level's value: text, a number, true/false, or null."""
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise ValueError("not a text, number or true/false")
    return value


def _filter_value(value):
    return [_scalar(v) for v in value] if isinstance(value, list) else _scalar(value)


#: An int or float (no bool, no text), kept as given.
Number = Annotated[Any, BeforeValidator(_number)]
#: A number, or null where none could be computed.
MaybeNumber = Annotated[Any, BeforeValidator(_maybe_number)]
#: A column's level.
Scalar = Annotated[Any, BeforeValidator(_scalar)]
#: A side's filter: a level or a list of levels.
FilterValue = Annotated[Any, BeforeValidator(_filter_value)]
Verdict = Literal["supported", "not_supported", "inconclusive"]

R = TypeVar("R", bound="Record")


class Record(BaseModel):
    """Base: frozen, strict (no "3" for 3), unknown keys refused; remembers the order of the keys it was given,
    which :meth:`to_dict` writes back."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    _keys: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data, handler):
        record = handler(data)
        if isinstance(data, Mapping):
            record._keys = tuple(data)
        return record

    @classmethod
    def from_dict(cls: type[R], data: Any, where: str = "") -> R:
        """``data`` (parsed JSON, or what the package computed) as this record; else one :class:`AuditInputError`
        line naming the field."""
        try:
            return cls.model_validate(plain(data, finite=False))
        except ValidationError as exc:
            raise AuditInputError(error_line(exc, where or cls.__name__)) from None

    def to_dict(self) -> dict:
        """The record as JSON values, its keys in the order it was given (NaN written as null)."""
        return {key: _dumped(getattr(self, key)) for key in self._given()}

    def replaced(self: R, **changes) -> R:
        """A copy with ``changes`` (checked again); a new key goes last, as a dict's would."""
        values = {key: getattr(self, key) for key in self._given()}
        return type(self).model_validate({**values, **changes})

    def _given(self) -> tuple[str, ...]:
        """The keys it was given, in order (a copy made without them: its set fields in declared order)."""
        fields = type(self).model_fields
        return tuple(key for key in self._keys if key in fields) or tuple(
            key for key in fields if key in self.model_fields_set)


def _dumped(value):
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_dumped(v) for v in value]
    if isinstance(value, dict):
        return {k: _dumped(v) for k, v in value.items()}
    return plain(value)


#: pydantic's names of union members and validators in an error's location: not fields.
_TYPE_TAGS = {"int", "float", "str", "bool", "none", "list", "dict", "tuple"}


def error_line(exc: ValidationError, where: str) -> str:
    """The first problem as one line: the field's path, the value found and why."""
    from .readers.decode import shown

    first = exc.errors(include_url=False)[0]
    path = where
    for part in first["loc"]:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part not in _TYPE_TAGS and "[" not in part and not part[:1].isupper():
            path += f".{part}"
    why = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    if first.get("type") == "missing":
        return f"{path} is missing"
    return f"{path} is {shown(first.get('input'))}: {why}"[:400]


class Centre(Record):
    """A median with its distribution-free CI (``claims.centre``): a side's, or the per-seed estimates'."""

    n: int | None = None
    median: MaybeNumber = None
    ci: list[MaybeNumber] | None = None
    coverage: MaybeNumber = None
    coverage_exact: str | None = None
    level: Number | None = None
    deterministic: bool | None = None
    range: list[Number] | None = None
    range_coverage: Number | None = None
    ci_method: str | None = None


class Side(Centre):
    """One side of a claim: its filters and what each design states about it."""

    filters: dict[str, FilterValue] = Field(default_factory=dict)
    configuration: str | None = None
    runs: int | None = None
    values: int | None = None
    summary: MaybeNumber = None
    test_set_items: int | None = None
    correct: int | None = None


class Pairs(Centre):
    """The per-seed estimates of a claim paired by seed."""

    seeds: list[int] = Field(default_factory=list)
    runs_without_partner: dict[str, int] = Field(default_factory=dict)


class TestPart(Record):
    """One bound's one-sided test."""

    hypothesis: str
    statistic: MaybeNumber = None
    p_value: MaybeNumber = None
    test: str | None = None


class EffectSize(Record):
    a12: Number
    cliffs_delta: Number
    magnitude: str


class ClaimTest(Record):
    """The claim's test (both bounds: the larger p)."""

    name: str
    hypothesis: str
    parts: list[TestPart]
    p_value: MaybeNumber = None
    alpha: Number
    alpha_exact: str | None = None
    significant: bool
    effect_size: EffectSize | None = None


class Holm(Record):
    family_size: int
    p_adjusted: MaybeNumber = None
    significant: bool | None = None


class PairedItems(Record):
    """The 2×2 table of two evaluations on the same items, with McNemar's exact test."""

    both: int
    only_a: int
    only_b: int
    neither: int
    items: int
    discordant: int
    mcnemar_exact_p: MaybeNumber = None
    mcnemar_test: str


class Decidable(Record):
    """What the run's profile lacks to decide the claim (``twelveways.decidable``)."""

    unit: str
    needs: int
    provided: int | None = None
    profile: str
    decided_by: list[str]


class ClaimNumbers(Record):
    """Every number behind a claim's verdict (``twelveways.claims``'s module docstring says what each is)."""

    metric: str
    unit: str
    confidence: Number
    at_least: MaybeNumber = None
    at_most: MaybeNumber = None
    matched: dict[str, Scalar] = Field(default_factory=dict)
    a: Side | None = None
    b: Side | None = None
    spans: dict[str, dict[str, list[Scalar]]] | None = None
    design: str | None = None
    estimate: MaybeNumber = None
    interval: list[MaybeNumber] | None = None
    coverage: MaybeNumber = None
    coverage_exact: str | None = None
    method: str | None = None
    n_needed: dict[str, int] | None = None
    pairs: Pairs | None = None
    estimate_definition: str | None = None
    test: ClaimTest | None = None
    items: PairedItems | None = None
    pairing: str | None = None
    per_claim_verdict: Verdict | None = None
    holm: Holm | None = None
    verdict_after_holm: Verdict | None = None
    busy_machine: list[str] | None = None
    decidable: Decidable | None = None

    def side(self, name: str) -> Side | Pairs | None:
        """Side ``a``, ``b`` or the ``pairs`` by name (the order a table lists them)."""
        return {"a": self.a, "b": self.b, "pairs": self.pairs}[name]


class ClaimResult(Record):
    """A claim's verdict (after Holm), its numbers, why, and where the claim was stated."""

    id: str
    statement: str
    verdict: ClaimVerdict = Field(strict=False)
    numbers: ClaimNumbers
    message: str = ""
    origin: str = ""

    def to_dict(self) -> dict:
        return {"id": self.id, "statement": self.statement, "verdict": self.verdict.value,
                "numbers": self.numbers.to_dict(), "message": self.message, "origin": self.origin}

    def replaced(self, **changes) -> ClaimResult:
        return self.model_copy(update=changes)
