"""No import loops: every module of ``twelveways`` imports on its own, as in a fresh interpreter.

A loop between modules shows up only when the import starts at the wrong end (``import a`` works,
``import b`` alone fails on a half-initialised ``a``), so each module must be the first of the package
to be imported.  A fresh interpreter per module does that but costs minutes (NumPy, SciPy, PyTorch loaded
a hundred times), so a few interpreters each import every module in turn after dropping all of
``twelveways`` from ``sys.modules``: third-party packages stay loaded, the package's own modules start
from nothing each time, which is what decides whether a loop breaks the import.  A test runs the same
harness on a small package with a one-sided loop, so it is known to catch one.  A loop that happens to
survive import (names used only inside functions) is still a loop, so the module-level import graph is
also checked for cycles.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "twelveways"


def _module_files() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package), from the source tree (nothing imported)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _module_files()
#: ``__main__`` modules run a command when imported: they are entry points, not library modules.
IMPORTABLE = [name for name in MODULES if not name.endswith("__main__")]


#: Imports each named module as the first of its package: everything under the package is dropped from
#: sys.modules before each import.  Prints {module: null or the error's last lines} as JSON.
ALONE_HARNESS = r"""
import importlib, json, sys, traceback
package, names = sys.argv[1], sys.argv[2:]
failed = {}
for name in names:
    for loaded in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
        failed[name] = None
    except BaseException as exc:
        failed[name] = "".join(traceback.format_exception(exc)[-4:]).strip()
print(json.dumps(failed))
"""


def imports_alone(names: list[str], package: str, cwd, interpreters: int = 2) -> dict[str, str | None]:
    """Each module imported as the first of its package, in a few interpreters side by side."""
    chunks = [names[i::interpreters] for i in range(interpreters)]
    procs = [subprocess.Popen([sys.executable, "-c", ALONE_HARNESS, package, *chunk], cwd=cwd, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for chunk in chunks if chunk]
    found = {}
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"the import harness itself failed:\n{err[-3000:]}"
        found.update(json.loads(out.splitlines()[-1]))
    return found


@pytest.fixture(scope="module")
def fresh_imports(root) -> dict[str, str | None]:
    # under pytest-xdist the other workers keep the other cores busy: a second interpreter would only load
    # NumPy, SciPy and PyTorch once more
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return imports_alone(IMPORTABLE, "twelveways", root, interpreters=1 if workers > 1 else 2)


def test_the_module_list_covers_the_package():
    assert "twelveways.env.probe" in IMPORTABLE and "twelveways.env.render" in IMPORTABLE
    assert "twelveways.cli" in IMPORTABLE and len(IMPORTABLE) > 50


def test_the_harness_catches_a_loop_that_breaks_only_one_end(tmp_path):
    """``a`` imports ``b`` first, ``b`` takes a name from the half-initialised ``a``: ``import a`` alone fails,
    ``import b`` alone works, and importing ``b`` before ``a`` in one interpreter would hide the failure."""
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("import loopy.b\n\n\ndef f():\n    return 1\n")
    (package / "b.py").write_text("from loopy.a import f\n")
    found = imports_alone(["loopy.b", "loopy.a"], "loopy", tmp_path, interpreters=1)
    assert found["loopy.b"] is None
    assert found["loopy.a"] and "cannot import name 'f'" in found["loopy.a"], found


@pytest.mark.slow  # a fresh interpreter loads NumPy, SciPy and PyTorch: the import graph below is the unit check
@pytest.mark.parametrize("name", IMPORTABLE)
def test_module_imports_alone(name, fresh_imports):
    assert fresh_imports[name] is None, f"`import {name}` as the first of the package failed:\n{fresh_imports[name]}"


@functools.lru_cache(maxsize=None)  # the graph tests of this file and test_layout read each module once
def _imported_modules(name: str, *, anywhere: bool = False) -> frozenset[str]:
    """The twelveways modules ``name`` imports at module level (``anywhere``: inside functions too).

    ``from . import x`` depends on the submodule ``x``; ``from .pkg import f`` on ``pkg``
    itself, so a submodule that takes a name from its package's ``__init__`` is a loop.
    """
    path, is_package = MODULES[name]
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree) if anywhere else tree.body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
            found |= submodules if len(submodules) == len(node.names) else submodules | {base}
    return frozenset((found & MODULES.keys()) - {name})


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that ends where it starts, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_module_level_imports_form_no_cycle():
    graph = {name: _imported_modules(name) for name in MODULES}
    assert "twelveways.env.probe" in graph["twelveways.env.record"]  # the graph does see relative imports
    cycle = _cycle(graph)
    assert cycle is None, "import loop: " + " -> ".join(cycle)


def test_no_import_cycle_even_through_imports_inside_functions():
    """A lazy import dodges a loop at import time but is still a loop in the design (issue 40): the graph of every
    import, inside functions too, has none."""
    graph = {name: _imported_modules(name, anywhere=True) for name in MODULES}
    assert "twelveways.families.prk_points" in graph["twelveways.feasibility"]  # an import inside a function is seen
    cycle = _cycle(graph)
    assert cycle is None, "import loop (imports inside functions included): " + " -> ".join(cycle)


def test_env_submodules_are_not_shadowed_by_reexported_names():
    """``twelveways.env.<module>`` must be the module, not a function of the same name."""
    env = importlib.import_module("twelveways.env")
    for info in pkgutil.iter_modules(env.__path__):
        if info.name != "__main__":
            module = importlib.import_module(f"twelveways.env.{info.name}")
            assert getattr(env, info.name) is module, info.name


def test_no_function_grows_past_60_lines():
    """Functions stay small enough to read at once: none over 60 lines in the package, the bench or the Python
    kernels (the limit the code review holds every stage to)."""
    root = SRC.parent
    folders, long_ones = (PACKAGE, root / "bench", root / "kernels" / "python"), []
    assert all(folder.is_dir() for folder in folders)
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                    long_ones.append(f"{path.relative_to(root)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not long_ones, long_ones


def _absolute_imports(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every import anywhere in a file, module level or inside functions; relative ones
    resolved against ``package``, and ``from X import y`` named as both ``X`` and ``X.y``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            found += [(node.lineno, base)] + [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _checklist_imports(folder: Path, package: str) -> list[str]:
    """``file:line imports twelveways.checklist...`` for each import statement of the folder's files that names it."""
    found = {}
    for path in sorted(folder.glob("*.py")):
        for line, name in _absolute_imports(path, package):
            if name == "twelveways.checklist" or name.startswith("twelveways.checklist."):
                found.setdefault((path.name, line), name)
    return [f"{name}:{line} imports {module}" for (name, line), module in found.items()]


def test_compare_imports_no_checklist_module():
    """``compare`` reads result sets, claims and stability findings from modules below the checklist
    (``twelveways.resultset``, ``.claims``, ``.stability``), never the checklist itself, at any level."""
    folder = PACKAGE / "compare"
    assert len(list(folder.glob("*.py"))) > 5
    found = _checklist_imports(folder, "twelveways.compare")
    assert not found, found


def test_the_checklist_import_finder_sees_relative_and_lazy_imports(tmp_path):
    (tmp_path / "a.py").write_text("from ..checklist import rules\n\n\ndef f():\n    from .. import checklist\n"
                                   "    import twelveways.checklist.model\n    from . import sides\n")
    found = _checklist_imports(tmp_path, "twelveways.compare")
    assert [line.split(" ")[0] for line in found] == ["a.py:1", "a.py:5", "a.py:6"], found
