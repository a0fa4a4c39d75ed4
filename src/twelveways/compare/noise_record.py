"""A recorded A/A (noise floor) record as a typed, immutable model, checked once when it is read.

Why apart from :mod:`.noise` (which measures the record from two sides): reading a side
(:mod:`.sides`) loads the record beside its results, and must not import the measurement that
itself takes sides.  Why typed: the record crosses a file boundary (``results/noise_floor.json``),
so every field is checked on load against its declared type and domain — a run level's variance,
spread and degrees of freedom finite and not negative, rates fractions — and a record that fails is
one line naming the field, never a misleading "±-50.0%" later.  Readers then use fields, not keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .. import resultset
from ..errors import AuditInputError
from ..readers import decode

#: The A/A record's format: run levels per group (format 1, one global floor, is named and not used).
FORMAT = "twelveways-noise-floor/2"
REWRITE = "rewrite it with twelveways noise-floor"

#: A fraction between 0 and 1 (a rate, a confidence level).
Fraction = Annotated[decode.NonNegative, Field(le=1)]


class Record(BaseModel):
    """Base: fields other writers add are kept; nothing changes after load."""

    model_config = ConfigDict(extra="allow", frozen=True)


class RunLevel(Record):
    """One pooled between-run level of the A/A run (a kernel and implementation, a kernel, the family)."""

    group: tuple[str, ...]
    name: str
    variance: decode.NonNegative
    relative_sd: decode.NonNegative
    df: decode.NonNegative
    configurations: decode.Count
    measured: bool | None = None

    @property
    def is_measured(self) -> bool:
        """Evidence of between-run variance; a record written before ``measured`` was stored says so by a
        variance above zero."""
        return self.measured if self.measured is not None else self.variance > 0


class Rates(Record):
    """What the comparison without the run level called different among identical configurations."""

    confidence: Fraction | None = None
    false_positive_rate: Fraction | None = None
    false_positives: decode.Count | None = None

    @model_validator(mode="after")
    def _rate_has_its_count(self) -> Rates:
        if self.false_positive_rate is not None and self.false_positives is None:
            raise ValueError("'false_positive_rate' without the count 'false_positives'")
        return self


class AARecord(Rates):
    """Format 2: the A/A run's between-run levels with the configurations behind them."""

    format: Literal["twelveways-noise-floor/2"]
    configurations: decode.Count
    run_levels: tuple[RunLevel, ...]
    why: str = ""  # a record of no configuration: why none could be measured


class OldFloorRecord(Rates):
    """Format 1 (one global floor): still checked, since its floor is named in the comparison (not used)."""

    format: str | None = None
    floor: decode.NonNegative | None = None
    floor_configuration: str | None = None
    configurations: decode.Count | None = None
    median_detectable_ratio: decode.Positive | None = None

    @model_validator(mode="after")
    def _floor_has_its_evidence(self) -> OldFloorRecord:
        if self.floor is not None and self.floor_configuration is None:
            raise ValueError("no 'floor_configuration' (which configuration showed the floor)")
        if self.floor is not None and (self.configurations or 0) < 1:
            raise ValueError("'configurations' must be the number (>= 1) of A/A configurations behind the floor")
        return self


def from_dict(data: Any, where: str) -> AARecord | OldFloorRecord:
    """The record in ``data`` (parsed JSON), typed; else one :class:`AuditInputError` line naming the field."""
    if not isinstance(data, dict):
        raise AuditInputError(f"{where}: noise floor record: not a JSON object ({REWRITE})")
    model = AARecord if data.get("format") == FORMAT else OldFloorRecord
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise AuditInputError(f"{where}: noise floor record: {decode.error_line(exc)} ({REWRITE})"[:400]) from None


def load_record(path, label: str) -> AARecord | OldFloorRecord:
    """A recorded ``noise_floor.json``, read and checked before use (:func:`from_dict`)."""
    return from_dict(resultset.read_json(path, f"{label} noise floor"), str(path))
