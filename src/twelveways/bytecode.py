"""Compile the bytecode of every Python file under a folder, on every core: ``python -m twelveways.bytecode DIR``.

Why: the test tiers start two workers at once, and with no bytecode cached each compiles numpy,
scipy, pandas and torch from source for itself (about 6 s of a 60 s tier); ``make venv`` therefore
compiles the installed packages for them (``make test`` and ``make test-fast`` depend on it).
``make report`` does not wait for it: its jobs run mostly one after another, so each module is
compiled once, by the first job that imports it, and only the modules used are.  Python's own
``compileall -j0`` does the same in about 1.5 times the wall time on 2 cores (measured on the lock's
16,000 files: 26.5 s against 17.2 s), so the files are dealt out here in large chunks instead.
A file whose cached bytecode matches it (the header an import checks) is passed over; one Python
cannot compile (a test fixture written for another version) is counted and left alone, as an
import would leave it.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: The mode an import checks by default (py_compile would choose hashes where SOURCE_DATE_EPOCH is set).
TIMESTAMP = py_compile.PycInvalidationMode.TIMESTAMP
#: Files per task: large enough that dealing them out costs nothing beside compiling them.
CHUNK = 200


def is_current(source: Path) -> bool:
    """Whether ``source`` has the cached bytecode an import would use: this Python's magic number, the
    timestamp check, and the source's modification time and size in the header."""
    try:
        status = source.stat()
        with open(importlib.util.cache_from_source(str(source)), "rb") as cached:
            header = cached.read(16)
    except OSError:
        return False
    fields = (0, int(status.st_mtime) & 0xFFFFFFFF, status.st_size & 0xFFFFFFFF)
    return header == importlib.util.MAGIC_NUMBER + b"".join(field.to_bytes(4, "little") for field in fields)


def stale_sources(folder: Path) -> list[str]:
    """Python files under ``folder`` without current bytecode."""
    return [str(source) for source in folder.rglob("*.py") if not is_current(source)]


def _compile_chunk(sources: list[str]) -> int:
    """How many of ``sources`` compiled (quietly: a file Python cannot compile is the import's concern)."""
    compiled = 0
    for source in sources:
        try:
            py_compile.compile(source, doraise=True, invalidation_mode=TIMESTAMP)
            compiled += 1
        except (py_compile.PyCompileError, OSError, ValueError):
            continue
    return compiled


def compile_folder(folder: Path, workers: int | None = None) -> tuple[int, int]:
    """(compiled, stale) for the files under ``folder`` not yet compiled, ``workers`` processes (default: every core)."""
    sources = stale_sources(folder)
    chunks = [sources[i:i + CHUNK] for i in range(0, len(sources), CHUNK)]
    if not chunks:
        return 0, 0
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        return sum(pool.map(_compile_chunk, chunks)), len(sources)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m twelveways.bytecode FOLDER (an existing folder)", file=sys.stderr)
        return 2
    compiled, stale = compile_folder(Path(args[0]))
    refused = f" ({stale - compiled} left as they are: Python could not compile or write them)" if stale > compiled else ""
    print(f"bytecode: compiled {compiled} Python files under {args[0]}{refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
