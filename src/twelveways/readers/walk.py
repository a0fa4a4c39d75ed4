"""Directory trees walked for results, and a few words on a file no reader knows.

Why apart from recognition: walking decides which files are opened at all (FIFOs, sockets,
devices and broken links never are), whatever formats the registry holds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from .. import inputs
from .head import Head


class Skipped(NamedTuple):
    """A file of the input trees not audited: why, and whether it was results that could not be read."""

    path: Path
    why: str
    unreadable: bool = False


def looks_like(path: Path) -> str:
    """A few words on what an unrecognized file seems to be."""
    head = Head.of(path)
    text = head.text.lstrip()
    if not head.raw:
        return "an empty file"
    if head.utf16:
        return "UTF-16 text (results are read as UTF-8: convert it, e.g. iconv -f UTF-16 -t UTF-8)"
    if head.binary:
        return "a binary file"
    if head.json_text:
        value = head.json
        if isinstance(value, dict):  # keys shortened: a damaged file's key may be 30 KB long
            return f"JSON with top-level keys {[k if len(k) <= 40 else k[:39] + '…' for k in list(value)[:5]]}"
        if isinstance(value, list):
            return "a JSON list"
        return _json_problem(head) or "JSON too long to judge from its head, of no known shape"
    first = text.splitlines()[0][:60] if text else ""
    return f"text starting {first!r}" if text else "blank text"


def _json_problem(head: Head) -> str | None:
    """Why a JSON document held whole in the head does not parse (nested too deep, a huge integer, where)."""
    from .decode import decode_json_text

    if not head.whole:
        return None
    try:
        decode_json_text(head.json_text, "")
    except ValueError as exc:
        return f"JSON that cannot be read ({' '.join(str(exc).split())[:120]})"
    return None


def walk(path: Path, skipped: list | None = None) -> list[Path]:
    """The regular files under a directory (sorted; hidden files and folders skipped), or the file itself.
    FIFOs, sockets and devices in a tree are never opened: each is added to ``skipped`` with why."""
    if not path.is_dir():
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".")):
            file = Path(root) / name
            kind = inputs.special_kind(file) or (None if file.exists() else "a broken symbolic link")
            if kind is None:
                found.append(file)
            elif skipped is not None:
                skipped.append(Skipped(file, f"{kind}: not opened"))
    return found
