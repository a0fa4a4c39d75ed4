"""Atomic writes: a temporary file in the target's folder, flushed, then renamed over the target.

A reader never sees a partial file under the real name, and a failed write (full disk, killed
process, permission) leaves the earlier file byte-identical and no temporary file behind.  Every
path problem becomes one :class:`OutputError` line naming the file and the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import TwelveWaysError


class OutputError(TwelveWaysError):
    """An output file cannot be written (directory in the way, missing folder, full disk, ...)."""


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    return exc.strerror or type(exc).__name__


def _check_target(path: Path, what: str, make_parents: bool) -> None:
    if path.is_dir():
        raise OutputError(f"cannot write {what} {path}: it is a directory")
    if make_parents:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot create the folder of {what} {path}: {_reason(exc)}") from exc
    elif not path.parent.is_dir():
        raise OutputError(f"cannot write {what} {path}: folder {path.parent} does not exist")


@contextlib.contextmanager
def replacing(path: str | os.PathLike, what: str = "output", *, make_parents: bool = False,
              mode: int = 0o644) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success fsync it and rename it onto ``path``.

    Whatever the body raises, the temporary file is removed and ``path`` is left as it was; an
    ``OSError`` becomes one :class:`OutputError` line.
    """
    path = Path(path)
    _check_target(path, what, make_parents)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {_reason(exc)}") from exc
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)  # mkstemp makes 0600 files; outputs are meant to be shared
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {what} {path}: {_reason(exc)}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: str | os.PathLike, data: bytes, what: str = "output", *, make_parents: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    with replacing(path, what, make_parents=make_parents) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str, what: str = "output", *, make_parents: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return write_bytes(path, text.encode("utf-8"), what, make_parents=make_parents)
