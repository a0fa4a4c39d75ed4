"""Careful reading of the text outputs of HPC benchmarks (OSU, HPL, HPCG, STREAM, IOR).

These files are console output, often pasted into a log with other programs' lines around them.
Every problem is one :class:`~.common.ReaderError` naming the file: a file too large to be a
benchmark's output, bytes that do not decode, a field that should be a number and is not.  Kept
apart (and small) so that the readers can move to a shared safe-input layer in one place.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .common import ReaderError

#: Larger than any output of these tools (an HPL.out of thousands of runs is a few MB).
MAX_BYTES = 64 * 1024 * 1024
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def read_text(path: Path, fmt: str) -> str:
    """The whole file as text (UTF-8, undecodable bytes replaced), refusing absurd sizes."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ReaderError(path, f"{fmt}: {size} bytes, larger than any {fmt} output ({MAX_BYTES} bytes at most); "
                                    f"trim it to the benchmark's output")
        return path.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")
    except OSError as exc:
        raise ReaderError(path, f"{fmt}: cannot read ({type(exc).__name__}: {exc})") from exc


def number(text: str, path: Path, fmt: str, what: str) -> float:
    """A finite number printed by the tool; anything else is one error naming the field."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise ReaderError(path, f"{fmt}: {what} is {str(text).strip()[:40]!r}, not a number") from None
    if not math.isfinite(value):
        raise ReaderError(path, f"{fmt}: {what} is {text.strip()!r}, not a finite number")
    return value


def integer(text: str, path: Path, fmt: str, what: str) -> int:
    """A whole number (printed as 10000000 or 1.0e7); a fraction is an error."""
    value = number(text, path, fmt, what)
    if value != int(value):
        raise ReaderError(path, f"{fmt}: {what} is {text.strip()!r}, not a whole number")
    return int(value)


def first(pattern: str, text: str, flags: int = re.MULTILINE) -> str:
    """The first group of the first match, or ``""`` when the file does not print it."""
    match = re.search(pattern, text, flags)
    return match.group(1).strip() if match else ""
