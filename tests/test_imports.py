"""No import loops: every module of ``twelveways`` imports on its own, in a fresh interpreter.

A loop between modules shows up only when the import starts at the wrong end (``import a`` works,
``import b`` alone fails on a half-initialised ``a``), so each module is imported alone in a new
process.  A loop that happens to survive import (names used only inside functions) is still a
loop, so the module-level import graph is also checked for cycles.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
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


@pytest.fixture(scope="module")
def fresh_imports(root) -> dict[str, subprocess.CompletedProcess]:
    """``python -c "import <module>"`` for every module, two at a time (the machine is shared)."""
    def run(name):
        return subprocess.run([sys.executable, "-c", f"import {name}"], cwd=root, capture_output=True,
                              text=True, timeout=300)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(IMPORTABLE, pool.map(run, IMPORTABLE)))


def test_the_module_list_covers_the_package():
    assert "twelveways.env.probe" in IMPORTABLE and "twelveways.env.render" in IMPORTABLE
    assert "twelveways.cli" in IMPORTABLE and len(IMPORTABLE) > 50


@pytest.mark.slow
@pytest.mark.parametrize("name", IMPORTABLE)
def test_module_imports_alone_in_a_fresh_interpreter(name, fresh_imports):
    done = fresh_imports[name]
    tail = "\n".join(done.stderr.strip().splitlines()[-5:])
    assert done.returncode == 0, f"`python -c 'import {name}'` failed:\n{tail}"


def _imported_modules(name: str) -> set[str]:
    """The twelveways modules ``name`` imports at module level (not inside functions).

    ``from . import x`` depends on the submodule ``x``; ``from .pkg import f`` on ``pkg``
    itself, so a submodule that takes a name from its package's ``__init__`` is a loop.
    """
    path, is_package = MODULES[name]
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
            found |= submodules if len(submodules) == len(node.names) else submodules | {base}
    return (found & MODULES.keys()) - {name}


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
