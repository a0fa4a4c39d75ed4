"""A stated summary (one entry of the results-file attribute ``summaries``) as a typed, immutable model.

Why: a summary crosses file and module boundaries (written by the readers of asv, criterion, JMH,
LoadGen, pytest-benchmark... and by the analysis stage, read by the checklist, compare and the
report).  Each consumer used to read ``s.get("ci")`` behind its own ``isinstance`` guards, so a
confidence of 99 or an interval upside down was judged differently by each.  Here every field is
checked once, on load, against its domain: finite numbers, ``n`` a positive whole number where a
value is stated, an interval ``[low, high]`` with low <= high, levels and rates fractions.  An
entry that fails is left out of the file's summaries with ONE line naming the file and the field
(:func:`load`): a publisher's odd number excludes that statement, never the whole file.

Why here, in the core stage: the analysis stage (``key_results``) reads the summaries it wrote
beside the audit (``resultset``) and the report; all import this, it imports no reader.
The attributes model (``resultset``'s registry-driven attributes) refers to :class:`StatedSummary`
for the entries of ``summaries``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from .kinds import StatedBy


def _number(value):
    """A finite JSON number, as written (an int stays an int: evidence shows it as the file did)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not a number")
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _number_or_missing(value):
    """JMH and asv write null, ``"NaN"`` or NaN where no number could be computed: None then, never an error."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or (
            isinstance(value, str) and value.strip().lower() in ("nan", "")):
        return None
    return _number(value)


def _whole(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
        raise ValueError("not a whole number")
    return int(value)


#: Flags as publishers write them: true/false, 1/0, "yes"/"no".
_FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _flag(value):
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if text not in _FLAGS:
        raise ValueError("not true or false (true/false, 1/0, yes/no)")
    return _FLAGS[text]


def _filters(value):
    """The rows' factors a summary selects; null is none."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError("not an object of factor: value")
    return dict(value)


def _stated_by(value):
    return StatedBy.PUBLISHER if value in (None, "") else str(value).strip().lower() if isinstance(value, str) else value


def _blank(value):
    """A blank number ("" or null) is one not stated."""
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


Number = Annotated[int | float, BeforeValidator(_number)]
MaybeNumber = Annotated[int | float | None, BeforeValidator(_number_or_missing)]
NonNegative = Annotated[int | float, BeforeValidator(_number), Field(ge=0)]
Count = Annotated[int, BeforeValidator(_whole), Field(ge=0)]
#: A level strictly between 0 and 1 (a confidence level).
Level = Annotated[float, BeforeValidator(_number), Field(gt=0, lt=1)]
#: A fraction between 0 and 1 (a coverage, a p-value, a relative target).
Fraction = Annotated[float, BeforeValidator(_number), Field(ge=0, le=1)]
Flag = Annotated[bool | None, BeforeValidator(_flag)]
Fraction_ = Annotated[Fraction | None, BeforeValidator(_blank)]
Filters = Annotated[dict[str, Any], BeforeValidator(_filters)]


class StatedSummary(BaseModel):
    """One stated statistic of some rows: what it is of (metric, filters), its value and interval, who stated it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    metric: Annotated[str, Field(min_length=1)]
    statistic: str | None = None
    kind: str | None = None
    unit: str | None = None
    filters: Filters = {}
    value: MaybeNumber = None
    ci: tuple[Number, Number] | None = None
    confidence: Annotated[Level | None, BeforeValidator(_blank)] = None
    ci_method: str | None = None
    ci_level: str | None = None
    ci_target: Annotated[Annotated[float, BeforeValidator(_number), Field(gt=0, le=1)] | None, BeforeValidator(_blank)] = None
    n: Annotated[Count | None, BeforeValidator(_blank)] = None
    coverage: Fraction_ = None
    normality_checked: Flag = None
    shapiro_p: Fraction_ = None
    note: str | None = None
    stated_by: Annotated[StatedBy, BeforeValidator(_stated_by)] = StatedBy.PUBLISHER
    recomputable: Flag = None
    includes_invalid: Flag = None
    resolution: Annotated[NonNegative | None, BeforeValidator(_blank)] = None
    rank_reduction: str | None = None
    rate_intervals: str | None = None
    trim_each_side: Count | None = None
    runs_required: Count | None = None
    n_invalid: Count | None = None
    base_case: str | None = None
    base_value: MaybeNumber = None
    relative_accuracy: str | None = None
    replicate: str | None = None
    values: Count | None = None
    runs: Count | None = None

    @model_validator(mode="after")
    def _consistent(self) -> StatedSummary:
        if self.ci is not None and self.ci[0] > self.ci[1]:
            raise ValueError(f"ci is [{self.ci[0]:g}, {self.ci[1]:g}]: its low bound is above its high bound")
        if self.n == 0 and self.value is not None:
            raise ValueError("n is 0, but a value is stated (n counts the values behind it: at least 1)")
        return self

    @property
    def ci_low(self) -> float | None:
        return None if self.ci is None else self.ci[0]

    @property
    def ci_high(self) -> float | None:
        return None if self.ci is None else self.ci[1]

    @property
    def noted(self) -> str:
        """The summary's note, stripped ("" when none)."""
        return (self.note or "").strip()

    @property
    def restatable(self) -> bool:
        """Recomputable from the file's rows (``recomputable: 0``: stated from samples the file does not hold)."""
        return self.recomputable is not False


#: Every key the model reads, declared once (tests prove each is parsed; consumers read fields).
FIELDS = tuple(StatedSummary.model_fields)


def _line(exc: ValidationError, where: str) -> str:
    """The first problem as one line: ``<where>.confidence is 'x': not a number``."""
    first = exc.errors(include_url=False)[0]
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
    found = first.get("input")
    text = repr(found[:40]) if isinstance(found, str) else str(found)[:40]
    shown = "" if not first["loc"] or isinstance(found, (dict, list)) else f" is {text}"
    if first.get("type") == "missing":
        shown = " is missing"
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}{path}{shown}: {message}" if first.get("type") != "missing" else f"{where}{path}{shown}"


def parse(entry: Any, where: str) -> StatedSummary:
    """One entry as a model; else ValueError with one line naming ``where`` (file and index) and the field."""
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} is not an object")
    try:
        return StatedSummary.model_validate(dict(entry))
    except ValidationError as exc:
        raise ValueError(_line(exc, where)[:400]) from None


def load(value: Any, where: str) -> tuple[tuple[StatedSummary, ...], tuple[str, ...]]:
    """(the summaries of an attribute's value, one line per entry left out and why).  ``where`` names the file.

    The one loader every consumer goes through (``ResultSource.summaries``, ``key_results``)."""
    if not isinstance(value, list):
        return (), (() if value in (None, "", []) else (f"{where}: attribute summaries is not a list",))
    kept, left_out = [], []
    for index, entry in enumerate(value):
        try:
            kept.append(parse(entry, f"{where}: summaries[{index}]"))
        except ValueError as exc:
            left_out.append(str(exc))
    return tuple(kept), tuple(left_out)
