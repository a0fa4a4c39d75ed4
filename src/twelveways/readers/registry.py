"""The one registry of formats read: each reader module declares itself here once.

Why: a new format used to touch four places (constants, two sniffer tables, a dispatch and the
folder grouping).  Now a reader module holds one :class:`Format` (its name, what it reads, how it
recognizes a file by content, its read, and, for results that span the files of one folder, its
:class:`Group`); recognition walks the registry and picks the highest score; :func:`formats_read` and
the table in docs/formats.md are made from it.  Other packages add readers through the entry point
group ``twelveways.readers`` (an entry point names a module holding ``READER``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .head import Head

#: Reader modules of this package, in the order recognition breaks ties (more specific first).
BUILTIN = ("netcdf", "pytest_benchmark", "asv", "asv_machine", "jmh", "criterion", "pyperf_json",
           "gbench", "hyperfine", "loadgen", "mlperf_training", "reframe", "osu", "hpl", "hpcg", "stream", "ior",
           "csv_table")
ENTRY_POINT_GROUP = "twelveways.readers"
#: Scores: a file its tool's signature marks beyond doubt, a likely one, a last resort (CSV).
CERTAIN, LIKELY, FALLBACK = 100, 50, 10


@dataclass(frozen=True)
class Group:
    """Formats whose one result spans the files of one folder (criterion's ``new/``, a LoadGen run).

    ``read`` takes {format name: [files]} of one folder and returns its results."""

    name: str
    read: Callable[[dict[str, list[Path]]], list]


@dataclass(frozen=True)
class Format:
    """One format read: declared once, in the module that reads it."""

    name: str
    title: str                                  # what a user calls it
    reads: str                                  # versions and site variants read
    recognize: Callable[[Head], int]            # score by content (0: not this format)
    read: Callable | None = None                # read(path) -> [Loaded], or read(path, options) when takes_options
    group: Group | None = None                  # the folder's files are read together instead
    companion: str = ""                         # not results: describes the results beside it (say which)
    takes_options: bool = False                 # CSV's column map, constants and metadata
    publishers: tuple[str, ...] = field(default_factory=tuple)  # whose files the tests read


@cache
def formats() -> tuple[Format, ...]:
    """Every format read: this package's, then those of installed plugins (entry point ``twelveways.readers``)."""
    found = [importlib.import_module(f".{name}", __package__).READER for name in BUILTIN]
    found += _plugins()
    names = [f.name for f in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        from ..errors import AuditInputError

        raise AuditInputError(f"two readers declare the format {twice[0]!r} (a plugin of the entry point group "
                              f"{ENTRY_POINT_GROUP} clashes with another reader)")
    return tuple(found)


def _plugins() -> list[Format]:
    """Readers other packages declare: each entry point loads a module (or object) with ``READER``."""
    from importlib.metadata import entry_points

    out = []
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        loaded = point.load()
        reader = getattr(loaded, "READER", loaded)
        if not isinstance(reader, Format):
            from ..errors import AuditInputError

            raise AuditInputError(f"entry point {point.name} ({point.value}) of {ENTRY_POINT_GROUP} is not a "
                                  "twelveways.readers.registry.Format (nor a module holding READER)")
        out.append(reader)
    return out


def by_name(name: str) -> Format:
    """The format called ``name`` (workers look their format up by name: a Format is not sent between processes)."""
    return next(f for f in formats() if f.name == name)


#: What a recognizer may raise on a head it did not foresee (a list where it looked for an object, a number
#: where it looked for a string): that head is not its format, and the other recognizers still judge it.
RECOGNIZER_FAULTS = (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError, RecursionError,
                     UnicodeError)


def recognize(head: Head) -> Format | None:
    """The format whose recognizer gives ``head`` the highest score (ties: registry order), None when none does.

    A recognizer that raises on a damaged head scores 0 there: recognition runs every recognizer on every
    file of a tree, so one recognizer's slip must not end the audit of all of them (tests/test_readers_fuzz.py
    still reports the slip, for the reader's owner)."""
    best, score = None, 0
    for fmt in formats():
        try:
            mine = fmt.recognize(head) or 0
        except RECOGNIZER_FAULTS:
            continue
        if mine > score:
            best, score = fmt, mine
    return best


def formats_read() -> str:
    """The formats read, in one line (for errors that must say what would have been read)."""
    return "; ".join(f.title for f in formats() if not f.companion)


def docs_table() -> str:
    """The table of docs/formats.md (generated: tests check that the page holds it unchanged)."""
    lines = ["| format | name | versions and variants read | how its files are taken |", "|---|---|---|---|"]
    for fmt in formats():
        how = (f"companion: {fmt.companion}" if fmt.companion
               else f"with the other files of its folder ({fmt.group.name})" if fmt.group else "one file")
        reads, how = (text.replace("<", "&lt;") for text in (fmt.reads, how))  # a <placeholder> is no HTML tag
        lines.append(f"| {fmt.title} | `{fmt.name}` | {reads} | {how} |")
    return "\n".join(lines)


TABLE_BEGIN, TABLE_END = "<!-- formats table: begin (generated) -->", "<!-- formats table: end -->"


def with_docs_table(page: str) -> str:
    """``page`` (docs/formats.md) with the text between the table markers replaced by :func:`docs_table`."""
    before, _, rest = page.partition(TABLE_BEGIN)
    _, _, after = rest.partition(TABLE_END)
    return f"{before}{TABLE_BEGIN}\n{docs_table()}\n{TABLE_END}{after}"

