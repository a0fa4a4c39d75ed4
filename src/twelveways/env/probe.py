"""Shared helpers of every probe: unavailable values, reading files, running commands.

The bottom of :mod:`twelveways.env`: it imports nothing from the package, and every probe
imports it, so the probes never import one another in a loop.  A reader that cannot read its
field raises :class:`Unavailable`; :func:`safe` turns that (or any failure) into the field's
``{"unavailable": "<why>"}`` value, so a capture explains every gap instead of crashing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from ..paths import PROJECT_ROOT  # noqa: F401  (re-exported: env.PROJECT_ROOT)


class Unavailable(Exception):
    """Raised by a reader that cannot read its field; the message says why."""


def unavailable(reason: str) -> dict:
    """The value of a field that could not be read: ``{"unavailable": reason}``."""
    return {"unavailable": " ".join(str(reason).split()) or "unknown reason"}


def is_unavailable(value) -> bool:
    return isinstance(value, Mapping) and set(value) == {"unavailable"}


def safe(reader: Callable, *args):
    """Run one reader; any failure becomes an ``unavailable`` value naming the cause."""
    try:
        return reader(*args)
    except Unavailable as exc:
        return unavailable(str(exc))
    except Exception as exc:  # noqa: BLE001 - a capture must explain, never crash
        return unavailable(f"{type(exc).__name__}: {exc}")


def unavailable_fields(capture: Mapping, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted path, reason) of every unavailable field, for reports and tests."""
    found = []
    for key, value in capture.items():
        path = f"{prefix}{key}"
        if is_unavailable(value):
            found.append((path, value["unavailable"]))
        elif isinstance(value, Mapping):
            found.extend(unavailable_fields(value, path + "."))
    return found


def fail(reason: str):
    """Raise :class:`Unavailable` from inside an expression (lambdas, ``or`` chains)."""
    raise Unavailable(reason)


def read_text(path: str | os.PathLike) -> str:
    """A file's stripped text; Unavailable when it is missing or unreadable."""
    try:
        return Path(path).read_text().strip()
    except FileNotFoundError:
        raise Unavailable(f"{path} does not exist") from None
    except OSError as exc:
        raise Unavailable(f"cannot read {path}: {exc.strerror or exc}") from None


def run(cmd: list[str], timeout: float = 15, both: bool = False) -> str:
    """stdout of a command (stdout+stderr with ``both``); Unavailable when missing or failing."""
    exe = shutil.which(cmd[0]) if os.sep not in cmd[0] else (cmd[0] if os.access(cmd[0], os.X_OK) else None)
    if exe is None:
        raise Unavailable(f"{cmd[0]} not found")
    try:
        done = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"`{shlex.join(cmd)}` did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise Unavailable(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        first = (done.stderr.strip() or done.stdout.strip()).splitlines()[:1]
        raise Unavailable(f"`{shlex.join(cmd)}` exited {done.returncode}" + (f": {first[0]}" if first else ""))
    return (done.stdout + done.stderr) if both else done.stdout


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    raise Unavailable("empty output")


def first_of(*readers: Callable[[], object]):
    """The first reader that succeeds; Unavailable listing every reason otherwise."""
    reasons = []
    for reader in readers:
        try:
            return reader()
        except Unavailable as exc:
            reasons.append(str(exc))
    raise Unavailable("; ".join(reasons))


def parse_size(text: str) -> int:
    """'32K' / '1024K' / '32 MiB' -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise Unavailable(f"cannot parse size {text!r}")
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[match.group(2).upper()]
    return int(float(match.group(1)) * scale)


def venv_tool(name: str) -> str:
    """A tool from this Python's environment (.venv/bin) first, else from PATH."""
    local = Path(sys.prefix) / "bin" / name
    if local.exists() and os.access(local, os.X_OK):
        return str(local)
    found = shutil.which(name)
    if not found:
        raise Unavailable(f"{name} not found in {local.parent} or on PATH")
    return found
