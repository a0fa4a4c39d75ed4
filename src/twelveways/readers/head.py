"""What recognition sees of a file: its first bytes, as text, and as JSON where they hold a document.

Why one object: every recognizer of the registry looks at the same head, read once per file
(64 KiB, decompressed when gzip), so recognition costs one read however many formats there are,
and launcher or scheduler lines before a JSON document are looked past in one place.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .common import ReaderError

HEAD_BYTES = 1 << 16
#: The value of :attr:`Head.json` when the head holds no whole JSON document.
NO_JSON = object()


def _read_head(path: Path) -> bytes:
    """The first bytes (decompressed when gzip: only as many as the head needs, never the whole stream)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as handle:
                return handle.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ReaderError(path, f"cannot read ({type(exc).__name__}: {exc})") from exc
    return head


@dataclass(frozen=True)
class Head:
    """The head of one file; ``name`` only breaks ties between formats of one content (never decides alone)."""

    raw: bytes
    name: str = ""

    @classmethod
    def of(cls, path: Path) -> "Head":
        return cls(_read_head(path), path.name)

    @property
    def whole(self) -> bool:
        """True when the head is the whole file (a JSON document in it can be parsed)."""
        return len(self.raw) < HEAD_BYTES

    @cached_property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace").lstrip("\ufeff")

    @property
    def binary(self) -> bool:
        return b"\x00" in self.raw[:1024]

    @property
    def utf16(self) -> bool:
        """True for UTF-16 text (a Windows shell's redirect writes it): a BOM, or every other byte zero."""
        start = self.raw[:512]
        if start[:2] in (b"\xff\xfe", b"\xfe\xff"):
            return True
        halves = (start[0::2], start[1::2])
        return len(start) >= 8 and any(half.count(0) == len(half) and other.count(0) == 0
                                       for half, other in (halves, halves[::-1]))

    @cached_property
    def json_text(self) -> str:
        """The head from the line that opens a JSON document on ("" when none does): launcher lines looked past."""
        from .decode import json_start

        start = None if self.binary else json_start(self.text)
        return "" if start is None else self.text[start:]

    @cached_property
    def json(self):
        """The JSON document when the whole of it is in the head and parses, else :data:`NO_JSON`."""
        from .decode import decode_json_text

        if not self.json_text or not self.whole:
            return NO_JSON
        try:
            return decode_json_text(self.json_text, self.name)
        except ValueError:
            return NO_JSON

    @property
    def document(self):
        """The parsed JSON document, None when the head holds none (or one too long to parse: see :attr:`window`)."""
        return None if self.json is NO_JSON else self.json

    @property
    def window(self) -> str:
        """The first 4,000 characters of the JSON text: where a tool writes its identifying keys."""
        return self.json_text[:4000]

    def json_keys(self, *keys: str) -> bool:
        """True when every quoted key is in the JSON window (recognition of a document too long to parse)."""
        return all(f'"{key}"' in self.window for key in keys)
