"""The one line a typed record's wrong field is reported in: field path, the value found, and why.

Why a module of its own, in the core stage: every typed record (the formats the readers decode, the
A/A record, the environment capture) turns pydantic's ValidationError into the same words, and the
environment capture (measurement stage) cannot import the readers (audit stage) to reach them.
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import ValidationError

from . import inputs

def shown(value) -> str:
    """A value as an error line shows it: short, one line, never a repr of a whole structure."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        text = str(value)
        return text if len(text) <= 24 else f"a number of {len(text)} digits"
    return inputs.brief(value) if not isinstance(value, str) else repr(_short(value))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"


def field_path(loc: tuple, prefix: str = "", hide: Collection[str] = ()) -> str:
    """pydantic's error location as a JSON path: ``benchmarks[3].stats.mean`` (tags of a tagged union in
    ``hide`` left out: they name a branch, not a key of the file)."""
    out = prefix
    for part in (part for part in loc if part not in hide):
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def error_line(exc: ValidationError, where: str = "", hide: Collection[str] = ()) -> str:
    """The first problem pydantic found, as the project's error lines say it: field path, value, why
    (a whole-record rule names no field: its own words then; ``hide``: see :func:`field_path`)."""
    first = exc.errors(include_url=False)[0]
    if not first["loc"] and not where:
        return str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{field_path(first['loc'], where, hide)}{_problem(first)}"


#: pydantic's error types in the words of the project's other error lines.
_TYPE_WORDS = {"dict_type": "an object", "model_type": "an object", "list_type": "a list", "string_type": "a text",
               "bool_type": "true or false", "int_type": "a whole number", "float_type": "a number",
               "tuple_type": "a list", "literal_error": None, "enum": None}


def _problem(error: dict) -> str:
    """`` is <value>, <why>`` for one pydantic error (value shown short, bounds as numbers)."""
    kind, found = error.get("type", ""), error.get("input")
    context = error.get("ctx") or {}
    if kind == "missing":
        return " is missing"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(context.values()), "")
        word = {"greater_than_equal": "below its minimum", "greater_than": "not above",
                "less_than_equal": "above its maximum", "less_than": "not below"}[kind]
        return f" is {_number(found)}, {word} {_number(bound)}"
    if _TYPE_WORDS.get(kind):
        return f" is {shown(found)}, not {_TYPE_WORDS[kind]}"
    reason = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    own = f"{shown(found)} is "
    return f" is {shown(found)}, {reason[len(own):]}" if reason.startswith(own) else f" is {shown(found)}: {reason}"


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else shown(value)


# --- text -----------------------------------------------------------------------------------------
