"""Collecting the tests imports no PyTorch: every xdist worker collects every test module, so a torch import
at collection costs each worker about 6 s, though one worker runs the torch tests (tests/lazy_modules.py).

Read from the source with :mod:`ast`, as importing the modules would import what they import: a test
module, conftest.py and the helpers and project modules they import at module level (function bodies are
left out: they run when a test does).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from twelveways import codegraph

TESTS = Path(__file__).resolve().parent
HEAVY = "torch"


def _run_at_import(body: list[ast.stmt]):
    """The statements of ``body`` that run when the module is imported: not function bodies, nor the
    block of ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            yield from _run_at_import(node.orelse)
            continue
        yield node
        for block in ("body", "orelse", "finalbody", "handlers"):
            yield from _run_at_import(getattr(node, block, None) or [])


def _package_of(path: Path) -> list[str]:
    """The package a file's relative imports start from (``twelveways.train`` for train/sweeps.py,
    ``browser`` for tests/browser/reportdata.py)."""
    top = codegraph.PACKAGE_DIR.parent if path.is_relative_to(codegraph.PACKAGE_DIR) else TESTS
    return list(path.relative_to(top).parts[:-1]) if path.is_relative_to(top) else []


@functools.cache
def _imported_at_import(path: Path) -> frozenset[str]:
    """Every module name ``path`` imports when imported, with its parent packages (their ``__init__`` runs)."""
    names = set()
    for node in _run_at_import(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            package = _package_of(path) if node.level else []
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(".".join(name.split(".")[:i]) for name in names for i in range(1, name.count(".") + 2))


def _file_of(module: str) -> Path | None:
    """The project module's file, or the tests' helper module's (tests/ is on the path: ``import tinyrun``)."""
    found = codegraph.module_file(module)
    if found is None:
        base = TESTS.joinpath(*module.split("."))
        found = next((c for c in (base.with_suffix(".py"), base / "__init__.py") if c.is_file()), None)
    return found


def chain_to_heavy(start: Path, seen: set[Path] | None = None) -> list[str] | None:
    """How importing ``start`` imports torch (the modules in between, torch last), or None when it does not;
    ``seen``: the files already followed, shared between calls so that each is followed once (once a chain
    is found, it may hide another through the same files)."""
    seen = set() if seen is None else seen
    pending = [(start, [start.name])]
    while pending:
        path, chain = pending.pop()
        for name in sorted(_imported_at_import(path)):
            if name == HEAVY:
                return chain + [name]
            found = _file_of(name)
            if found is not None and found not in seen:
                seen.add(found)
                pending.append((found, chain + [name]))
    return None


def test_collecting_the_tests_imports_no_torch():
    collected = sorted(TESTS.rglob("test_*.py")) + sorted(TESTS.rglob("conftest.py"))
    clean: set[Path] = set()
    chains = {path.name: chain for path in collected if (chain := chain_to_heavy(path, clean))}
    assert chains == {}, "import torch through tests/lazy_modules.py (lazy) in: " + "; ".join(
        " -> ".join(chain) for chain in chains.values())


def test_the_scan_sees_a_project_module_that_imports_torch_and_not_an_import_inside_a_test(tmp_path):
    at_import = tmp_path / "test_at_import.py"
    at_import.write_text("import pytest\n\ntry:\n    from twelveways.train import loop\nexcept ImportError:\n    pass\n")
    assert chain_to_heavy(at_import) == ["test_at_import.py", "twelveways.train.loop", "torch"]
    in_test = tmp_path / "test_in_test.py"
    in_test.write_text("def test_x():\n    import torch\n\n\nclass TestY:\n    def test_z(self):\n"
                       "        from twelveways.infer import model\n")
    assert chain_to_heavy(in_test) is None
    assert chain_to_heavy(TESTS / "test_train_units.py") is None  # names torch through lazy_modules.lazy


def test_planning_a_run_imports_no_torch():
    """`twelveways plan` and the report's runtime sentence name every training configuration (models, learning
    rates): the training modules they read leave PyTorch to what builds or trains a model."""
    for module in ("twelveways.plan", "twelveways.plan_stages", "twelveways.train.planning", "twelveways.train.models"):
        assert chain_to_heavy(codegraph.module_file(module)) is None, module
