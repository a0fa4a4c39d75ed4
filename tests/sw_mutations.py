"""Mutations of a result file's text for the property tests of the software-benchmark readers.

Each mutation is one way a published file arrives damaged or odd: cut short, a number swapped for
another type, integers of 400 digits, 1e308, negative and NaN numbers, nesting 100,000 deep, a line
of 1 MB, latin-1 bytes, launcher lines before the document.  A reader given any of them must end in
parsed rows or one AuditInputError line (never a traceback, a hang or unbounded memory).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from twelveways.errors import AuditInputError
from twelveways.readers import read_paths

KINDS = ("truncate", "string_for_number", "huge_integer", "huge_float", "negative", "nan", "null_for_number",
         "list_for_number", "object_for_list", "deep_nesting", "long_line", "latin1", "launcher", "empty")
_NUMBER = re.compile(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _numbers(text: str) -> list[re.Match]:
    return list(_NUMBER.finditer(text))


def _swap(text: str, index: int, new: str) -> str:
    found = _numbers(text)
    if not found:
        return text + new
    match = found[index % len(found)]
    return text[:match.start()] + new + text[match.end():]


def mutate(data: bytes, kind: str, index: int) -> bytes:
    """``data`` damaged one way (``index`` picks the place: a number, a cut)."""
    text = data.decode("utf-8")
    if kind == "truncate":
        return data[: index % max(len(data), 1)]
    if kind == "latin1":
        return text.replace("e", "\xe9", 3).encode("latin-1", errors="replace")
    if kind == "deep_nesting":
        return ("[" * 100_000 + "]" * 100_000).encode()
    if kind == "long_line":
        return _swap(text, index, "1" * (1 << 20)).encode()
    if kind == "launcher":
        return b"[0] MPI startup(): Intel(R) MPI Library, Version 2021.9\nsrun: job 42 queued and waiting\n" + data
    if kind == "empty":
        return b""
    if kind == "list_for_number":
        return _swap(text, index, "[1, 2]").encode()
    if kind == "object_for_list":
        return text.replace("[", "{", 1).encode() if index % 2 else text.replace("[[", "[{}", 1).encode()
    new = {"string_for_number": '"4 KiB"', "huge_integer": "9" * 400, "huge_float": "1e308", "negative": "-3.5",
           "nan": "NaN", "null_for_number": "null"}[kind]
    return _swap(text, index, new).encode()


def outcome(paths: list[Path]) -> list | str:
    """What reading gives: the results, or the one error line (anything else fails the test)."""
    try:
        return read_paths(paths)
    except AuditInputError as exc:
        line = str(exc)
        assert line and "\n" not in line.strip(), line
        assert "Traceback" not in line, line
        return line


def read_mutated(files: dict[str, bytes], target: str, kind: str, index: int, name_folder: bool = False):
    """Write ``files`` (relative path -> bytes) with ``target`` mutated, read them, and return the outcome."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(mutate(content, kind, index) if rel == target else content)
        return outcome([root / target] if not name_folder else [(root / target).parent])


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


kinds = st.sampled_from(KINDS)
places = st.integers(min_value=0, max_value=10_000)
