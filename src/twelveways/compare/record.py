"""A comparison (``compare``, ``reproduce``, ``ab``) as one typed, immutable record, built once and read by field.

Why: the record crosses module and file boundaries — the comparison builds it, five renderers (Markdown, HTML,
JUnit, GitHub, the report's reproduction section) show it, ``reproduce`` and ``ab`` extend it, and its JSON is
read back (the report, ``plan --ab-record``, the benches).  As a dict each reader guessed its keys and types; as
a model every field is declared with its type here, checked when a JSON is read back (:func:`from_dict`: a bad
record is one line naming the field), and readers use fields.

The JSON written stays what it was: :meth:`Record.to_dict` dumps exactly the keys the builder set (unset
defaults left out, so a record without a section writes none), numbers keep their own type (``Number``: a
whole number stays whole), and the writer sorts the keys (:func:`.sides.dumps`).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from ..errors import AuditInputError
from ..oneline import error_line, shown

#: The formats of a comparison record: ``compare`` and ``reproduce`` write the first, ``ab`` the second.
COMPARISON_FORMAT, AB_FORMAT = "twelveways-comparison/1", "twelveways-ab/1"


def _plain(value: Any) -> Any:
    """A NumPy scalar (what an analysis may hand over) as the Python number it holds."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (int, float, str)) else value


def _number(value: Any) -> int | float:
    value = _plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{shown(value)} is not a finite number")
    return value


def _whole(value: Any) -> int:
    value = _plain(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{shown(value)} is not a whole number")
    return value


def _flag(value: Any) -> bool:
    value = _plain(value)
    if not isinstance(value, bool):
        raise ValueError(f"{shown(value)} is not true or false")
    return value


#: A finite JSON number kept as written: a whole number stays whole and a float a float, so the JSON written from
#: the record is the JSON the builder assembled (no "2" for 2, no 2.0 for 2).
Number = Annotated[int | float, BeforeValidator(_number)]
#: A whole number as written (a count of invocations, rounds, verdicts).
Whole = Annotated[int, BeforeValidator(_whole)]
#: true or false (no 1, no "yes").
Flag = Annotated[bool, BeforeValidator(_flag)]


class Record(BaseModel):
    """Base: immutable, keys other writers add kept; dumped as it was built (:meth:`to_dict`)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    def to_dict(self) -> dict:
        """The record as JSON-ready values: the keys that were set, under their JSON names."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def set_fields(self) -> dict[str, Any]:
        """{name: typed value} of the fields that were set and the keys other writers added: what a record that
        extends this one starts from."""
        return {name: getattr(self, name) for name in self.model_fields_set} | dict(self.model_extra or {})


class Difference(Record):
    """One environment field that differs between the sides (:func:`twelveways.envdiff.diff`)."""

    field: str
    class_: str = Field(alias="class")  # hardware, system, toolchain, libraries, settings
    a: Any = None  # the base side's value (None: absent there)
    b: Any = None


class Environment(Record):
    """The environment diff: what differs, whether both sides had a capture, and where each came from."""

    differences: tuple[Difference, ...] = ()
    compared: Flag
    missing: tuple[str, ...] = ()
    by_class: dict[str, tuple[str, ...]] = {}
    sources: dict[str, str] = {}  # {side: capture file or the results files that state it}


class NoiseFloor(Record):
    """The practical-equivalence margin and what was measured beyond each configuration's own invocations."""

    margin: Number
    margin_text: str
    measured: Flag
    text: str
    false_positive_rate: Number | None = None


class Row(Record):
    """One configuration compared (:class:`.verdicts.Row` as written), with the causes that could explain it."""

    configuration: str
    key: dict[str, Any] = {}  # the configuration's naming columns and factors: data, not fields of the record
    kind: str
    n_base: Whole  # invocations (the replicates), never iterations
    n_new: Whole
    iterations_base: Number | None = None
    iterations_new: Number | None = None
    summary_base: Number | None = None
    summary_new: Number | None = None
    ratio: Number | None = None
    ci: tuple[Number, Number] | None = None
    ci_method: str = ""
    p_value: Number | None = None
    p_adjusted: Number | None = None
    detectable_ratio: Number | None = None
    invocations_to_decide: Whole | None = None
    run_level: str = ""
    verdict: str
    reason: str
    candidates: tuple[str, ...] = ()

    @property
    def unit(self) -> str:
        """The configuration's unit, where its key names one."""
        return str(self.key.get("unit") or "")


class HeadlineRow(Row):
    """A headline number of ``reproduce``: a compared row with its outcome, or one only a side has (no counts)."""

    outcome: str
    kind: str | None = None
    n_base: Whole | None = None
    n_new: Whole | None = None
    verdict: str | None = None

    @property
    def compared(self) -> bool:
        """Both sides hold it: a row with invocations counted (one side only: its outcome and why, nothing else)."""
        return self.n_base is not None


class ClaimRow(Record):
    """A claim checked on both sides (``compare --claims``, ``reproduce``)."""

    id: str
    statement: str
    reference: str
    new: str
    outcome: str
    reason: str = ""
    line: str = ""
    reference_message: str = ""
    new_message: str = ""


class Machines(Record):
    """Same machine, same hardware or another CPU (:mod:`.machines`), and why."""

    relation: str
    why: str


class Comparison(Record):
    """``twelveways compare``: every configuration both sides hold, judged, with what could explain it."""

    format: Literal["twelveways-comparison/1", "twelveways-ab/1"]
    confidence: Number
    alpha: Number
    base: str
    new: str
    environment: Environment
    machine_load: dict[str, tuple[str, ...]] = {}
    noise_floor: NoiseFloor
    load_rule: str = ""
    method: str
    stated_method: str = ""
    counts: dict[str, Whole]
    rows: tuple[Row, ...]
    stability: dict[str, tuple[str, ...]]
    only_base: tuple[str, ...]
    only_new: tuple[str, ...]
    claims: tuple[ClaimRow, ...] = ()


class Reproduction(Comparison):
    """``twelveways reproduce``: the comparison, the machines' relation, the claims and the headline numbers."""

    machines: Machines
    headline: tuple[HeadlineRow, ...]
    claims_summary: str
    outcomes: dict[str, Whole]


class Invocation(Record):
    """One invocation of an A/B run, in the order it ran (its load shares kept as recorded)."""

    round: Whole
    side: str
    position: Whole
    mean_s: Number  # mean seconds per iteration of this invocation
    others_share: Number | None = None  # of the CPU other processes took while it ran (twelveways.contention)
    steal_share: Number | None = None  # of the CPU the hypervisor stole
    busy: Flag | None = None  # None: too short to measure its own load


class AbSection(Record):
    """What only an A/B run knows: rounds, seeds, each configuration's stop and placement, every invocation."""

    order_seed: Whole
    rounds: Whole
    program_runs: Whole
    seconds: Number
    stop: str
    stop_reasons: dict[str, str]
    planned_rounds: dict[str, Whole | None]
    stopping_rule: str
    model: str
    load: Any = None  # the machine's load over the run (twelveways.contention), as recorded
    busy_rounds: Whole
    paired_rounds: Whole
    placement: dict[str, str]
    placement_rule: str
    invocations: dict[str, tuple[Invocation, ...]]
    iterations: dict[str, str] = {}  # per configuration: the iterations both sides ran and how they were chosen


class AbRecord(Comparison):
    """``twelveways ab``: the comparison's layout plus the ``ab`` section."""

    ab: AbSection


def _model(data: dict) -> type[Comparison]:
    """The record's kind, from what it holds: an ``ab`` section, a ``headline`` table, else a comparison."""
    return AbRecord if "ab" in data else Reproduction if "headline" in data else Comparison


def from_dict(data: Any, where: str) -> Comparison:
    """A comparison record (parsed JSON, or what a builder assembled), typed; else one :class:`AuditInputError` line
    naming the field."""
    if not isinstance(data, dict):
        raise AuditInputError(f"{where}: comparison record: not a JSON object")
    try:
        return _model(data).model_validate(data)
    except ValidationError as exc:
        raise AuditInputError(f"{where}: comparison record: {error_line(exc)}"[:400]) from None
