"""twelveways.bytecode: the bytecode `make venv` compiles for the test tiers, and which targets wait for it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from importlib import _bootstrap_external
from pathlib import Path

from twelveways import bytecode

ROOT = Path(__file__).resolve().parents[1]
STAMP = ".venv/.twelveways-installed"


def _tree(folder: Path) -> dict[str, Path]:
    files = {"top": folder / "top.py", "nested": folder / "pkg" / "sub" / "mod.py",
             "broken": folder / "broken.py"}
    files["nested"].parent.mkdir(parents=True)
    files["top"].write_text("VALUE = 1\n")
    files["nested"].write_text("def f():\n    return 2\n")
    files["broken"].write_text("def f(:\n")  # a fixture Python cannot compile
    return files


def _accepted_by_import(source: Path) -> bool:
    """Whether an import of ``source`` would use its cached bytecode (importlib's own header check)."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    if not cached.is_file():
        return False
    data, stat = cached.read_bytes(), source.stat()
    try:
        flags = _bootstrap_external._classify_pyc(data, source.name, {})
        _bootstrap_external._validate_timestamp_pyc(data, int(stat.st_mtime), stat.st_size, source.name, {})
    except ImportError:
        return False
    return flags == 0


def test_compiles_every_file_an_import_would_accept_and_counts_the_rest(tmp_path):
    files = _tree(tmp_path)
    assert bytecode.compile_folder(tmp_path, workers=2) == (2, 3)
    assert _accepted_by_import(files["top"]) and _accepted_by_import(files["nested"])
    assert not _accepted_by_import(files["broken"])


def test_a_second_pass_compiles_only_what_changed(tmp_path):
    files = _tree(tmp_path)
    bytecode.compile_folder(tmp_path, workers=1)
    assert bytecode.stale_sources(tmp_path) == [str(files["broken"])]
    later = files["nested"].stat().st_mtime + 10
    files["nested"].write_text("def f():\n    return 3\n")
    os.utime(files["nested"], (later, later))
    assert sorted(bytecode.stale_sources(tmp_path)) == sorted(map(str, (files["broken"], files["nested"])))
    assert bytecode.compile_folder(tmp_path, workers=1) == (1, 2)
    assert _accepted_by_import(files["nested"])


def test_command_line_reports_counts_and_refuses_a_missing_folder(tmp_path, capsys):
    _tree(tmp_path)
    assert bytecode.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == (f"bytecode: compiled 2 Python files under {tmp_path} "
                                                "(1 left as they are: Python could not compile or write them)")
    assert bytecode.main([str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err.strip() == "usage: python -m twelveways.bytecode FOLDER (an existing folder)"


def _planned(target: str) -> str:
    """The commands `make` would run for ``target`` with .venv installed, every other prerequisite out of date."""
    done = subprocess.run(["make", "-n", "-B", "-o", STAMP, target], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return done.stdout


def test_test_tiers_wait_for_the_compiled_bytecode_and_the_report_does_not():
    """make report's jobs cache what they import themselves; the tiers' two workers would each compile it all."""
    assert "twelveways.bytecode" in _planned("test-fast")
    assert "twelveways.bytecode" in _planned("venv")
    assert "twelveways.bytecode" not in _planned("report")


def test_bytecode_of_an_older_source_with_another_size_is_not_current(tmp_path):
    """A reinstall may bring back an older file: only the header's mtime and size tell, as for an import."""
    source = tmp_path / "mod.py"
    source.write_text("A = 1\n")
    bytecode.compile_folder(tmp_path, workers=1)
    assert bytecode.is_current(source) and _accepted_by_import(source)
    earlier = source.stat().st_mtime - 100
    source.write_text("A = 10\n")
    os.utime(source, (earlier, earlier))
    assert not bytecode.is_current(source) and not _accepted_by_import(source)
    assert bytecode.compile_folder(tmp_path, workers=1) == (1, 1)
    assert bytecode.is_current(source) and _accepted_by_import(source)
