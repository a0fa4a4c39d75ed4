"""Atomic writes: a temporary file in the target's folder, flushed, then renamed over the target.

A reader never sees a partial file under the real name, and a failed write (full disk, killed
process, permission) leaves the earlier file byte-identical and no temporary file behind.  Every
path problem becomes one :class:`OutputError` line naming the file and the reason.  A process
killed mid-write cannot clean up: its temporary file names its process id, and the next write of
the same target removes it once that process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import stat
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


PARTIAL_SUFFIX = ".partial"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_stale_partials(path: Path) -> list[Path]:
    """Remove the temporary files of ``path`` left by writers that were killed (their process is gone);
    those of live writers stay.  Returns what was removed."""
    prefix, removed = f".{path.name}.", []
    with contextlib.suppress(OSError):
        for old in path.parent.iterdir():
            middle = old.name[len(prefix):-len(PARTIAL_SUFFIX)]
            if not (old.name.startswith(prefix) and old.name.endswith(PARTIAL_SUFFIX)):
                continue
            owner = re.fullmatch(r"(\d+)\.\w+|\w+", middle)  # pid.random, or random alone (written before pids)
            if owner and (owner.group(1) is None or not _alive(int(owner.group(1)))):
                old.unlink(missing_ok=True)
                removed.append(old)
    return removed


def _special_kind(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file or folder (a device, a pipe, a socket), else None."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    for test, kind in ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "pipe"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return None


@contextlib.contextmanager
def _streamed(path: Path, kind: str, what: str) -> Iterator[Path]:
    """A device or pipe named as the output (``--output /dev/null``, ``/dev/stdout``) is written into, never renamed
    over: a rename would replace the device with a regular file.  The body writes a temporary file first, so a
    failure sends nothing; a pipe without a reader is an error, not a hang (opened non-blocking)."""
    if kind in ("block device", "socket"):
        raise OutputError(f"cannot write {what} {path}: it is a {kind}, not a file")
    with tempfile.TemporaryDirectory(prefix="twelveways-out-") as folder:
        tmp = Path(folder) / path.name
        yield tmp
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            why = "no process reads the pipe" if exc.errno == errno.ENXIO else _reason(exc)
            raise OutputError(f"cannot write {what} {path}: {why}") from exc
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        try:
            with open(fd, "wb") as out, open(tmp, "rb") as data:
                shutil.copyfileobj(data, out)
        except OSError as exc:
            raise OutputError(f"cannot write {what} {path}: {_reason(exc)}") from exc


@contextlib.contextmanager
def replacing(path: str | os.PathLike, what: str = "output", *, make_parents: bool = False,
              mode: int = 0o644) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success fsync it and rename it onto ``path``.

    Whatever the body raises, the temporary file is removed and ``path`` is left as it was; an
    ``OSError`` becomes one :class:`OutputError` line.  A device or pipe is written into instead (:func:`_streamed`).
    """
    path = Path(path)
    kind = _special_kind(path)
    if kind:
        with _streamed(path, kind, what) as tmp:
            yield tmp
        return
    _check_target(path, what, make_parents)
    remove_stale_partials(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=PARTIAL_SUFFIX, dir=path.parent)
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
