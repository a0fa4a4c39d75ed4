"""The input layer below every reader: bounded JSON, typed models (pydantic 2), linear-time text.

Why one layer: each reader used to walk dicts and lines with its own guards and each missed some
(a 400-digit integer, nesting 100,000 deep, a string where a number belongs).  Here:

* JSON is found after any launcher, scheduler or banner lines a tool's output begins with (and
  before any it ends with), decoded with integers bounded to 64 bits and nesting bounded, then
  validated into a pydantic model: strict types (no "2" for 2, no true for 1), finite numbers where
  the format requires them, counts that are whole, and one error line naming the file, the field
  path and the value.
* pydantic 2 over msgspec: it is already in the lock (a dependency of the notebook stack), its
  errors carry the field path (``loc``) that the one-line message needs, and its strict mode and
  per-field constraints say the domain of each field where the model declares it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from ..oneline import error_line, field_path, shown  # noqa: F401  (the readers' one error line)
from .common import ReaderError, read_bytes

#: Deepest nesting of a published JSON result (pyperf, the deepest, nests 7 levels).
MAX_DEPTH = 64
#: Largest magnitude of a JSON integer (64 bits, signed or not: counters, nanoseconds, ids).
MAX_INTEGER = 2 ** 64
#: Lines of leading text (launcher, scheduler, banner) looked past before a JSON document: Intel MPI's
#: ``I_MPI_DEBUG`` pin table alone prints a line per rank (an IOR JSON summary of 1,024 ranks follows 1,000 lines).
MAX_PREAMBLE_LINES = 5000
#: A line that opens a JSON document: ``{`` or ``[`` alone, or opening an object, list or string (blanks, a CR
#: too, may come between: ``{\r"a": 1}`` is JSON).
_JSON_OPENING = re.compile(r"[ \t]*[\[{][ \t\r]*(?:[\"{\[\]}]|$)", re.MULTILINE)


class _HugeInteger(ValueError):
    """A JSON integer beyond 64 bits (json's parse_int hook raises it; json passes it through)."""


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > 20:
        raise _HugeInteger(f"an integer of {len(digits.lstrip('-'))} digits")
    value = int(digits)
    if abs(value) > MAX_INTEGER:
        raise _HugeInteger(f"the integer {digits}, beyond 64 bits")
    return value


#: Blank space before a document (a BOM too): matched in place, never copied.
_BLANK = re.compile(r"[ \t\r\n\ufeff]*")


def json_start(text: str) -> int | None:
    """Offset of the first line that opens a JSON document (0 for plain JSON), None when no line does.

    Looks at most :data:`MAX_PREAMBLE_LINES` lines (found one by one with ``str.find``), so a document of
    millions of lines, or of megabytes of blank lines, costs no more than its first lines."""
    start = _BLANK.match(text).end()
    if text[start:start + 1] in ("{", "[") and _JSON_OPENING.match(text, start):
        return start
    offset = 0
    for _ in range(MAX_PREAMBLE_LINES):
        if offset >= len(text):
            return None
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end + 1
        if _JSON_OPENING.match(text[offset:min(end, offset + 4096)]):
            return offset
        offset = end
    return None


def decode_json_text(text: str, where: str) -> Any:
    """The JSON document in ``text`` (after leading lines that are not JSON; trailing lines ignored).

    Raises ValueError with a message fit for one line (position, huge integer, nesting)."""
    start = json_start(text)
    if start is None:
        raise ValueError("no JSON document (no line opens an object or a list)")
    decoder = json.JSONDecoder(parse_int=_bounded_int)
    try:
        value, end = decoder.raw_decode(text, start)
    except _HugeInteger as exc:
        raise ValueError(f"{exc} (integers are read up to 64 bits)") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc
    except RecursionError as exc:
        raise ValueError("nested too deeply to parse") from exc
    _check_depth(value, where)
    return value


def _check_depth(value, where: str) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` (iteratively: no recursion on hostile input)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def load_json(path: Path, fmt: str) -> Any:
    """A published JSON result (gzip or not, after any launcher lines), bounded; one error line naming the file."""
    data = read_bytes(path, fmt)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReaderError(path, f"{fmt}: not UTF-8 text (byte {exc.start} cannot be decoded)") from exc
    try:
        return decode_json_text(text, str(path))
    except ValueError as exc:
        raise ReaderError(path, f"{fmt}: {exc}") from exc


# --- typed models ---------------------------------------------------------------------------------

def _finite(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{shown(value)} is not a number")
    if not math.isfinite(value):
        raise ValueError(f"{shown(value)} is not a finite number")
    return float(value)


def _whole(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{shown(value)} is not a whole number")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise ValueError(f"{shown(value)} is not a whole number")
    if abs(value) > MAX_INTEGER:
        raise ValueError(f"{shown(value)} is beyond 64 bits")
    return int(value)


def _name(value):
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{shown(value)} is not a name")
    return value


def _number_or_missing(value):
    """JMH and asv write null, ``"NaN"`` or NaN where no number could be computed: None, never an error."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("nan", "")) or (
            isinstance(value, float) and math.isnan(value)):
        return None
    return _finite(value)


#: A finite number (an int or float in the file; no string, no bool).
Finite = Annotated[float, BeforeValidator(_finite)]
#: A finite number that is zero or more (times, sizes, rates).
NonNegative = Annotated[float, BeforeValidator(_finite), Field(ge=0)]
#: A finite number above zero.
Positive = Annotated[float, BeforeValidator(_finite), Field(gt=0)]
#: A whole number within 64 bits (2.0 is 2; 2.5 and "2" are errors).
Whole = Annotated[int, BeforeValidator(_whole)]
#: A count: whole and zero or more.
Count = Annotated[int, BeforeValidator(_whole), Field(ge=0)]
#: A non-empty string.
Name = Annotated[str, BeforeValidator(_name)]
#: A number the publisher's tool may leave out (null, NaN, "NaN"): None then.
MaybeNumber = Annotated[float | None, BeforeValidator(_number_or_missing)]


class Model(BaseModel):
    """Base of the format models: unknown keys kept (tools add keys between versions), values immutable."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


M = TypeVar("M", bound=BaseModel)


def validate(path: Path, fmt: str, model: type[M], value: Any, where: str = "") -> M:
    """``value`` as ``model``, else one error line: file, format, field path, the value found and why."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise ReaderError(path, f"{fmt}: {error_line(exc, where)}") from None


# --- text -----------------------------------------------------------------------------------------

def fields(line: str) -> list[str]:
    """A line's whitespace-separated fields (str.split: linear, no pattern to backtrack)."""
    return line.split()


def number_field(path: Path, fmt: str, where: str, text: str, *, low: float | None = 0.0,
                 integer: bool = False) -> float:
    """A number printed by a tool, checked: finite, within its domain, whole where a count is meant."""
    try:
        value = float(text)
    except ValueError:
        raise ReaderError(path, f"{fmt}: {where} is {shown(text)}, not a number") from None
    if not math.isfinite(value):
        raise ReaderError(path, f"{fmt}: {where} is {shown(text)}, not a finite number")
    if integer and not value.is_integer():
        raise ReaderError(path, f"{fmt}: {where} is {shown(text)}, not a whole number")
    if low is not None and value < low:
        raise ReaderError(path, f"{fmt}: {where} is {shown(text)}, below its minimum {low:g}")
    return int(value) if integer else value


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, line) of a text already read within the line cap."""
    return enumerate(text.splitlines(), start=1)
