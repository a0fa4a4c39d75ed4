"""Careful reading of the text outputs of HPC benchmarks (OSU, HPL, HPCG, STREAM, IOR).

These files are console output, often pasted into a log with a launcher's, a scheduler's or other
programs' lines around them (``[0] MPI startup(): ...``, ``srun: ...``, a SLURM prologue, a flux
eventlog).  Why a layer of its own: every reader here tokenizes lines in linear time -- str.split,
str.partition and fixed prefixes, never a backtracking pattern -- over lines of bounded length, and
every number a tool printed goes through one check (finite, within its domain, whole where a count is
meant, within 64 bits), so that a damaged file is one :class:`~.common.ReaderError` naming the file,
the field and the value, never a hang, an OverflowError or a silently truncated 2.5.
"""

from __future__ import annotations

import math
from pathlib import Path

from .common import MAX_LINE_BYTES, ReaderError, read_bytes
from . import decode
from .decode import shown

#: Larger than any output of these tools (an HPL.out of 50,000 runs is about 16 MB).
MAX_BYTES = 64 * 1024 * 1024
#: Longest line (characters): these tools print lines of at most a few hundred characters.
MAX_LINE = MAX_LINE_BYTES
#: Largest count or size in bytes accepted (signed 64 bits, as the tools' own counters).
MAX_COUNT = 2 ** 63 - 1


def read_text(path: Path, fmt: str) -> str:
    """The whole file as text (gunzipped when gzip; UTF-8 with undecodable bytes replaced, as a terminal
    shows them); a file beyond :data:`MAX_BYTES` is one error, refused before it is read whole."""
    data = read_bytes(path, fmt, MAX_BYTES)
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")


def capped(lines: list[str], path: Path, fmt: str) -> list[str]:
    """``lines``, once each is known to be at most :data:`MAX_LINE` characters (else one error naming it)."""
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            raise ReaderError(path, f"{fmt}: line {number} is longer than {MAX_LINE:,} characters "
                                    f"({len(line):,}): not {fmt} output (a damaged or binary log?)")
    return lines


def read_lines(path: Path, fmt: str) -> list[str]:
    """The file's lines (see :func:`read_text`), each at most :data:`MAX_LINE` characters."""
    return capped(read_text(path, fmt).splitlines(), path, fmt)


def number(text: str, path: Path, fmt: str, what: str, *, low: float | None = 0.0) -> float:
    """A finite number printed by the tool, at least ``low``; anything else is one error naming the field."""
    return decode.number_field(path, fmt, what, str(text).strip(), low=low)


def count(text: str, path: Path, fmt: str, what: str, *, low: int = 0) -> int:
    """A whole number (printed as 10000000 or 1.0e7) within 64 bits; 2.5 or 1e308 is an error."""
    printed = str(text).strip()
    digits = printed.lstrip("+-")
    if digits.isdigit() and digits.isascii():  # read exactly (a float holds 53 bits)
        if len(digits) > 19 or int(digits) > MAX_COUNT:
            raise ReaderError(path, f"{fmt}: {what} is {shown(printed)} ({len(digits)} digits), beyond 64 bits")
        if int(printed) < low:
            raise ReaderError(path, f"{fmt}: {what} is {shown(printed)}, below its minimum {low}")
        return int(printed)
    value = number(text, path, fmt, what, low=low)
    if not value.is_integer():
        raise ReaderError(path, f"{fmt}: {what} is {shown(str(text).strip())}, not a whole number")
    if value > MAX_COUNT:
        raise ReaderError(path, f"{fmt}: {what} is {shown(str(text).strip())}, beyond 64 bits")
    return int(value)


def in_bytes(value: float, scale: float, path: Path, fmt: str, what: str) -> int:
    """``value`` x ``scale`` as a whole number of bytes within 64 bits (1e308 KiB is an error, not inf)."""
    total = value * scale
    if not math.isfinite(total) or total > MAX_COUNT:
        raise ReaderError(path, f"{fmt}: {what} is {value:g}, beyond 64 bits once in bytes")
    return int(round(total))


def looks_numeric(token: str) -> bool:
    """True for a token a tool prints as a number (``12``, ``-3``, ``.5``, ``1e308``): cheap, no parse."""
    head = token[:2]
    return head[:1].isdigit() or (head[:1] in "+-." and head[1:2].isdigit())


def parses(token: str) -> bool:
    """True when ``token`` is a number Python reads (``1e308`` and ``nan`` are; ``2024-05-01`` is not)."""
    try:
        float(token)
    except ValueError:
        return False
    return True


def after(line: str, label: str) -> str:
    """The text after ``label`` in ``line`` (stripped), ``""`` when the line does not hold it."""
    before, found, rest = line.partition(label)
    return rest.strip() if found else ""


def first_token(text: str) -> str:
    """The first whitespace-separated token of ``text`` (``""`` for none)."""
    tokens = text.split(maxsplit=1)
    return tokens[0] if tokens else ""
