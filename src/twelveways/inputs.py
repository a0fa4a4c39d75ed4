"""One reader for every text file a user hands the project (config, claims, metadata, JSON).

A user's file is untrusted input: it may be binary, unreadable, a directory, huge, nested a
hundred thousand levels deep, or a YAML alias bomb whose few lines expand to gigabytes.  Each
reader here bounds size and depth, decodes with a clear error, and raises the caller's error
class (a :class:`~twelveways.errors.TwelveWaysError`) with the file and the problem in one line.
Messages never repr the value they reject.
"""

from __future__ import annotations

import copy
import json
import os
import stat
from collections import OrderedDict
from pathlib import Path

import yaml

from .errors import TwelveWaysError

#: Largest text file read from a user (bytes): configs, claims and metadata are a few kB.
MAX_BYTES = 16 * 1024 * 1024
#: Deepest nesting of mappings and lists accepted.
MAX_DEPTH = 64
#: Most nodes a document may hold once its YAML aliases are expanded.
MAX_NODES = 1_000_000
#: Texts up to this size (characters) keep their parsed value for the next read of the same text; the
#: most recent :data:`PARSED_KEPT` of them.
PARSED_MAX_CHARS = 256 * 1024
PARSED_KEPT = 32
_parsed: OrderedDict[str, object] = OrderedDict()


#: What a path that is not a regular file is, by its stat mode (opening a FIFO or a device may block forever).
SPECIAL_FILES = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                 (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def special_kind(path: str | Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a directory (never opened), else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((name for test, name in SPECIAL_FILES if test(mode)), None)


def require_regular_file(path: str | Path, what: str, error: type[TwelveWaysError] = TwelveWaysError) -> Path:
    """``path`` if it is a regular file; else ``error``: missing, a directory, a FIFO, a device or a socket."""
    path = Path(path)
    if not path.exists():
        raise error(f"{what} not found: {path}")
    if path.is_dir():
        raise error(f"{what} {path} is a directory, not a file")
    kind = special_kind(path)
    if kind is not None:
        raise error(f"{path}: {what} is {kind}, not a regular file (not opened: reading it could block forever)")
    return path


def read_text(path: str | Path, what: str, error: type[TwelveWaysError] = TwelveWaysError,
              max_bytes: int = MAX_BYTES) -> str:
    """The file's text (UTF-8), or ``error`` naming the file and why it cannot be read."""
    path = require_regular_file(path, what, error)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise error(f"{what} {path} is {size:,} bytes, more than the {max_bytes:,} accepted")
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or type(exc).__name__}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte {exc.start} cannot be decoded; binary file?)") from exc


def check_shape(value, where: str, error: type[TwelveWaysError] = TwelveWaysError) -> None:
    """Refuse documents nested deeper than :data:`MAX_DEPTH` or larger than :data:`MAX_NODES` nodes.

    Nodes shared through YAML aliases are counted once per reference, as a consumer would see
    them, without expanding anything (each node's size is memoized by identity).
    """
    sizes: dict[int, int] = {}

    def size(node, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise error(f"{where}: nested more than {MAX_DEPTH} levels deep")
        if not isinstance(node, (dict, list)):
            return 1
        if id(node) in sizes:
            return sizes[id(node)]
        children = list(node.keys()) + list(node.values()) if isinstance(node, dict) else node
        total = 1 + sum(size(child, depth + 1) for child in children)
        if total > MAX_NODES:
            raise error(f"{where}: expands to more than {MAX_NODES:,} values (YAML aliases?)")
        sizes[id(node)] = total
        return total

    size(value, 0)


class _TooDeep(Exception):
    """A document opened more collections than :data:`MAX_DEPTH` allows (raised by :class:`_DepthBoundLoader`)."""


class _DepthBoundLoader(yaml.SafeLoader):
    """PyYAML's safe loader, stopped at the first collection that opens beyond :data:`MAX_DEPTH` levels.

    Why: its composer recurses once per level, so ``[[[[…`` is refused only at Python's recursion limit,
    after the scanner's bookkeeping of possible keys (quadratic in the open flow levels) has spent about
    a second.  Each open flow collection is one ``flow_level`` and each open block collection one indent,
    so their sum never exceeds the depth of the value: nothing :func:`check_shape` accepts is refused."""

    def fetch_flow_collection_start(self, TokenClass):
        self._check_depth()
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column):
        added = super().add_indent(column)
        if added:
            self._check_depth()
        return added

    def _check_depth(self) -> None:
        if self.flow_level + len(self.indents) > MAX_DEPTH + 1:  # the innermost value then lies deeper than MAX_DEPTH
            raise _TooDeep


def parse_yaml(text: str, where: str, error: type[TwelveWaysError] = TwelveWaysError):
    """YAML text as Python (safe loader), checked with :func:`check_shape`.

    A text parsed before gives a deep copy of its value: PyYAML's pure-Python scanner takes a tenth of a
    second for the config schema, which every validation of a configuration reads again.  Only values
    that passed :func:`check_shape` are kept, so a copy is never deeper than :data:`MAX_DEPTH`."""
    if text in _parsed:
        _parsed.move_to_end(text)
        return copy.deepcopy(_parsed[text])
    try:
        value = yaml.load(text, Loader=_DepthBoundLoader)  # noqa: S506 -- a SafeLoader
    except _TooDeep:
        raise error(f"{where}: nested more than {MAX_DEPTH} levels deep") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise error(f"{where}: malformed YAML{at}: {getattr(exc, 'problem', None) or 'syntax error'}") from exc
    except RecursionError as exc:
        raise error(f"{where}: nested too deeply to parse") from exc
    except ValueError as exc:  # a value its type cannot hold: an integer of over 4300 digits, a 13th month
        raise error(f"{where}: a value cannot be read: {str(exc).split(';')[0]}") from exc
    check_shape(value, where, error)
    if len(text) <= PARSED_MAX_CHARS:
        _parsed[text] = copy.deepcopy(value)
        while len(_parsed) > PARSED_KEPT:
            _parsed.popitem(last=False)
    return value


def read_yaml(path: str | Path, what: str, error: type[TwelveWaysError] = TwelveWaysError):
    """A user's YAML file as Python, every problem one line of ``error``."""
    return parse_yaml(read_text(path, what, error), str(path), error)


def read_json(path: str | Path, what: str, error: type[TwelveWaysError] = TwelveWaysError):
    """A user's JSON file as Python, every problem one line of ``error``."""
    text = read_text(path, what, error)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON ({what}): {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc
    except RecursionError as exc:
        raise error(f"{path}: nested too deeply to parse ({what})") from exc
    except ValueError as exc:  # an integer of more than 4300 digits (Python's limit on reading one)
        raise error(f"{path}: a value cannot be read ({what}): {str(exc).split(';')[0]}") from exc
    check_shape(value, str(path), error)
    return value


def read_json_object(path: str | Path, what: str, error: type[TwelveWaysError] = TwelveWaysError) -> dict:
    """A JSON file that must hold one object (a capture, a description, a published result), problems one line."""
    value = read_json(path, what, error)
    if not isinstance(value, dict):
        raise error(f"{path}: {what} must be a JSON object, not {type(value).__name__}")
    return value


def brief(value, limit: int = 40) -> str:
    """A short description of a rejected value for an error line (never a large repr)."""
    if isinstance(value, (dict, list, tuple, set)):
        return f"a {type(value).__name__} of {len(value)} item(s)"
    text = " ".join(str(value).split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
