"""The package files a stage's code imports: the ``code=`` inputs of the workflow's rules.

Why: a rule must rerun when the code that produced its output changes, and a hand-written list
of files goes stale (the checklist's listed 4 of its modules and no statistics file).  The import
graph is read with :mod:`ast` (nothing is imported or executed), restricted to this package, and
includes imports inside functions, so a lazily imported module counts too.  ``exclude`` cuts
subpackages out on purpose: a benchmark run must not be redone because the statistics changed.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

PACKAGE = "twelveways"
PACKAGE_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def module_file(module: str) -> Path | None:
    """``twelveways.a.b`` -> src/twelveways/a/b.py (or a/b/__init__.py); None outside the package."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_DIR.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    """The dotted name of a package file (``__init__.py`` names its package)."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _base(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module of ``from <node.module> import ...`` written in ``importer``."""
    if not node.level:
        return node.module or ""
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _statements(body: list[ast.stmt]):
    """Every statement in ``body`` and the blocks nested in it (imports are statements: no expression is visited)."""
    for node in body:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _statements(getattr(node, block, None) or [])


@lru_cache(maxsize=None)
def _imported(path: Path) -> frozenset[str]:
    """Every module name ``path`` may import (``from m import x`` counts m and m.x: x may be a submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    inside = path.is_relative_to(PACKAGE_DIR)
    importer = _module_name(path) if inside else ""
    names = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.level == 0 or inside):
            base = _base(node, importer, path.name == "__init__.py")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(names)


def imported_modules(module: str) -> frozenset[str]:
    """The package's modules that ``module`` imports anywhere in its file, inside functions too (a lazy import
    dodges a loop at import time but is still a loop in the design)."""
    path = module_file(module)
    if path is None:
        raise FileNotFoundError(f"no such module: {module}")
    return frozenset(name for name in _imported(path) if name != module and module_file(name) is not None)


def _with_parents(module: str) -> list[str]:
    """``a.b.c`` -> a, a.b, a.b.c: importing a module runs its packages' ``__init__`` first."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@lru_cache(maxsize=None)
def _closure(start: Path, exclude: tuple[str, ...]) -> frozenset[Path]:
    seen, pending = set(), [start]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imported(path):
            for module in _with_parents(name):
                if any(module == cut or module.startswith(cut + ".") for cut in exclude):
                    continue
                found = module_file(module)
                if found is not None and found not in seen:
                    pending.append(found)
    return frozenset(seen)


def _shown(path: Path, here: Path) -> str:
    """``path`` relative to ``here`` when inside it (the workflow's usual case), else absolute."""
    return os.path.relpath(path, here) if path.is_relative_to(here) else str(path)


def code_files(*starts: str, exclude: Iterable[str] = ()) -> list[str]:
    """Sorted paths of ``starts`` and the package files they import, relative to the working directory
    (Snakemake's: the repository root) where they lie inside it.

    A start is a module (``twelveways.prk.sweep``) or a Python file (``notebooks/prk.py``, relative to
    the working directory); ``exclude`` lists subpackages whose files are neither listed nor followed.
    """
    here, files = Path.cwd().resolve(), set()
    for start in starts:
        path = (here / start).resolve() if start.endswith(".py") else module_file(start)
        if path is None or not path.is_file():
            raise FileNotFoundError(f"no such module or file: {start}")
        files |= _closure(path, tuple(sorted(exclude)))
    return sorted(_shown(path, here) for path in files)
