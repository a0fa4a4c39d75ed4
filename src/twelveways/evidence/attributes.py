"""A results file's attributes as one typed, immutable record, checked against the evidence registry on load.

Why: the registry (:mod:`.registry`) declares each attribute's JSON type, and every check, claim and
comparison used to read the raw value by its name and guard its type where it read it (a list where a
dict belongs was silently ignored in one check and crashed another).  Here a file's attributes are read
once, when its source is built (``resultset.ResultSource``): each declared attribute is unwrapped from
numpy, decoded from the JSON text netCDF stores containers as, found under its canonical name or an
alias, and checked against its declared type; a wrong type is one :class:`AttributeTypeError` line
naming the file and the attribute (the readers' error policy then refuses or skips the file).
Consumers read fields (``source.attributes.timing_scope``), never attribute strings.

The fields are generated from the registry (one field per declared attribute, its type the declared
one), so the registry stays the one place a new attribute is declared.  Two deliberate exceptions:

* the settings the resolver reads from a file (:data:`RESOLVED`: ``confidence``, ``ci_target``) keep
  the value as stated: a bad one is named by ``evidence.settings`` where a check needs it (R5 then
  needs a human, naming the value and the file), and the other checks still run;
* ``contention`` is typed further as a :class:`Contention` record (the machine's load while the stage
  ran), checked field by field;
* ``summaries`` (:data:`PER_ENTRY`) is kept as stated and typed entry by entry by
  :mod:`twelveways.evidence.summary`: a bad entry, or a value that is no list, is left out with its
  line (R3 names it) and the file's rows stay, as for any other summary a publisher wrote oddly.

Absent attributes, and the empty text netCDF writers store for "none" (``results._attr_value``) in
an attribute that is not a text, are None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, ValidationError, create_model

from ..errors import AuditInputError
from ..inputs import brief
from . import registry

#: Attributes the settings resolver reads from a file (``evidence.settings``): kept as stated, checked there.
RESOLVED = ("confidence", "ci_target")
#: Attributes typed entry by entry elsewhere (``evidence.summary``), so one bad entry does not refuse the file.
PER_ENTRY = ("summaries",)
#: Words of the registry's JSON types, as an error line says what was expected.
TYPE_WORDS = {"string": "a text", "integer": "a whole number", "number": "a number", "object": "an object",
              "array": "a list"}


class AttributeTypeError(AuditInputError):
    """A results file's attribute is not of the type the evidence registry declares."""


class Record(BaseModel):
    """Base: immutable, strict (no "2" for 2), unknown keys of other writers kept."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)


Share = Annotated[StrictInt | StrictFloat, Field(ge=0, le=1)]
NonNegative = Annotated[StrictInt | StrictFloat, Field(ge=0)]


class Contention(Record):
    """The machine's load while a stage ran (``twelveways.contention.summarize`` writes it): 1-minute load
    average (mean, largest) over ``cpus`` cores, the shares of CPU time the hypervisor stole and other
    processes used (None where /proc was unreadable), how long and how often it was sampled."""

    stage: StrictStr | None = None
    cpus: Annotated[StrictInt, Field(ge=1)] | None = None
    seconds: NonNegative | None = None
    samples: Annotated[StrictInt, Field(ge=0)] | None = None
    load_mean: NonNegative | None = None
    load_max: NonNegative | None = None
    steal_share: Share | None = None
    others_share: Share | None = None
    source: StrictStr | None = None


#: A value as the file states it (a setting the resolver checks: :data:`RESOLVED`).
Stated = Any
_JSON_TYPES: dict[str, Any] = {"string": StrictStr, "integer": StrictInt, "number": StrictInt | StrictFloat,
                               "object": dict, "array": list}


def field_type(attribute: registry.Attribute) -> Any:
    """The model type of a declared attribute: its JSON type ("a|b" a union), or the exceptions above."""
    if attribute.name in RESOLVED or attribute.name in PER_ENTRY:
        return Stated
    if attribute.name == "contention":
        return Contention
    parts = [_JSON_TYPES[part] for part in attribute.type.split("|")]
    union = parts[0]
    for part in parts[1:]:
        union = union | part
    return union


class _Attributes(Record):
    """Base of :data:`Attributes`: immutable and strict; undeclared keys never reach it (:func:`from_attrs`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


#: One file's declared attributes, one optional field per registry attribute (canonical name).
Attributes = create_model("Attributes", __base__=_Attributes, __module__=__name__,
                          **{a.name: (field_type(a) | None, None) for a in registry.ATTRIBUTES})


def plain(raw: Any) -> Any:
    """A netCDF attribute as Python: numpy scalars and one-element arrays unwrapped, arrays as lists."""
    if hasattr(raw, "dtype") and hasattr(raw, "tolist"):
        return raw.tolist() if getattr(raw, "size", 1) != 1 else raw.item()
    return raw


def _decoded(attribute: registry.Attribute, raw: Any) -> Any:
    """The value of ``attribute`` as its declared type reads it: containers decoded from their JSON text where
    the attribute may be one (a text attribute keeps its text), a bool of an integer flag as 0/1, the empty
    text of an attribute that is not a text as None (a resolved setting keeps it: the resolver reads "" as
    unset)."""
    value = plain(raw)
    types = set(attribute.type.split("|"))
    resolved = attribute.name in RESOLVED
    if isinstance(value, str) and value[:1] in ("[", "{") and (types & {"object", "array"} or resolved):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if value == "" and "string" not in types and not resolved:
        return None
    if isinstance(value, bool) and attribute.type == "integer":
        return int(value)
    return value


def _found(attrs: Mapping) -> tuple[dict[str, Any], dict[str, str]]:
    """{canonical name: decoded value} of the declared attributes in ``attrs``, and {canonical name: the key
    it was found under}: the canonical key first, else the first alias that holds a value."""
    values, keys = {}, {}
    for attribute in registry.ATTRIBUTES:
        for key in (attribute.name, *attribute.aliases):
            if key in attrs:
                value = _decoded(attribute, attrs[key])
                if value not in (None, ""):
                    values[attribute.name], keys[attribute.name] = value, key
                    break
                values.setdefault(attribute.name, value)
                keys.setdefault(attribute.name, key)
    return values, keys


def from_attrs(attrs: Mapping, where: str) -> Any:
    """The typed :data:`Attributes` of one file's attributes; a wrong type is one :class:`AttributeTypeError`
    line naming the file (``where``), the attribute and what it holds."""
    values, keys = _found(attrs)
    try:
        return Attributes.model_validate(values)
    except ValidationError as exc:
        raise AttributeTypeError(_error_line(exc, values, keys, where)) from None


def _error_line(exc: ValidationError, values: dict, keys: dict, where: str) -> str:
    """``<file>: attribute <key> is <value>, not <declared type> (twelveways.evidence.registry)``; inside the
    contention record the field (``contention.cpus is '2', not a whole number``)."""
    error = exc.errors(include_url=False)[0]
    name = str(error["loc"][0])
    if name == "contention" and len(error["loc"]) > 1 and isinstance(values.get(name), Mapping):
        field = str(error["loc"][1])
        return f"{where}: attribute {keys[name]}.{field} is {_shown(error.get('input'))}, {_why(error)} " \
               "(twelveways.evidence.registry)"
    expected = " or ".join(TYPE_WORDS[part] for part in registry.BY_NAME[name].type.split("|"))
    return f"{where}: attribute {keys[name]} is {_shown(values.get(name))}, not {expected} (twelveways.evidence.registry)"


#: pydantic's error types in the words of the project's error lines.
_WHY = {"int_type": "not a whole number", "float_type": "not a number", "string_type": "not a text",
        "greater_than_equal": "below its minimum {ge}", "less_than_equal": "above its maximum {le}"}


def _why(error: dict) -> str:
    words = next((_WHY[kind] for kind in _WHY if error.get("type", "").startswith(kind)), None)
    return words.format(**(error.get("ctx") or {})) if words else str(error.get("msg", "invalid")).lower()


def _shown(value: Any) -> str:
    """A value as an error line shows it: numbers as they are, texts quoted and short, containers by size."""
    if isinstance(value, bool) or value is None:
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return brief(value)


def objects(value: Any) -> list[dict]:
    """The objects of a list attribute (figures, bounds, comparisons): someone else's file may hold anything in
    a list, and an entry that is not an object says nothing a check can use."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def is_set(value: Any) -> bool:
    """Whether a file sets an attribute: not absent, and not an empty text, list or object (what writers store
    for "none")."""
    return value is not None and value != "" and value != [] and value != {}
