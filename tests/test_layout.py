"""The declared stages (twelveways.layout) hold on the import graph, and docs/architecture.md says what the code does."""

from __future__ import annotations

from pathlib import Path

import pytest

from twelveways import layout
from test_imports import MODULES, _cycle, _imported_modules

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_belongs_to_a_stage():
    unplaced = []
    for name in MODULES:
        try:
            layout.stage_of(name)
        except LookupError as exc:
            unplaced.append(str(exc))
    assert not unplaced, unplaced
    assert layout.stage_of("twelveways.prk.analysis").name == "analysis"  # the most specific name wins
    assert layout.stage_of("twelveways.prk.sweep").name == "measurement"


def test_no_module_imports_a_later_stage():
    """Imports inside functions included: a lazy import is still a dependency."""
    later = []
    for name in MODULES:
        mine = layout.rank(layout.stage_of(name))
        for imported in _imported_modules(name, anywhere=True):
            theirs = layout.stage_of(imported)
            if layout.rank(theirs) > mine:
                later.append(f"{name} ({layout.stage_of(name).name}) imports {imported} ({theirs.name})")
    assert not later, later


def test_stages_form_no_cycle():
    graph: dict[str, set[str]] = {stage.name: set() for stage in layout.STAGES}
    for name in MODULES:
        graph[layout.stage_of(name).name] |= {layout.stage_of(m).name for m in _imported_modules(name, anywhere=True)}
    assert _cycle({k: v - {k} for k, v in graph.items()}) is None


def test_the_checker_catches_a_later_stage_import(monkeypatch):
    """The order test can fail: put the statistics after the report and stats' importers break it."""
    moved = tuple(s for s in layout.STAGES if s.name != "statistics") + tuple(
        s for s in layout.STAGES if s.name == "statistics")
    monkeypatch.setattr(layout, "STAGES", moved)
    with pytest.raises(AssertionError, match="imports twelveways.stats"):
        test_no_module_imports_a_later_stage()


def test_places_for_new_code_exist():
    for _, where in layout.PLACES:
        for token in where.split():
            token = token.strip(",;()`")
            if token.startswith("src/twelveways/") and "<" not in token:
                assert (ROOT / token).exists(), token


def test_architecture_page_is_current():
    page = ROOT / "docs" / "architecture.md"
    assert page.read_text() == layout.render(), \
        "docs/architecture.md is stale: run `python -m twelveways.layout > docs/architecture.md`"


def test_subpackages_and_top_level_modules_form_no_cycle():
    """The old loop config -> feasibility -> prk (sweep) -> config ran between folders: none remains."""
    def unit(name: str) -> str:
        return ".".join(name.split(".")[:2])

    graph: dict[str, set[str]] = {}
    for name in MODULES:
        graph.setdefault(unit(name), set()).update(unit(m) for m in _imported_modules(name, anywhere=True))
    graph = {k: v - {k, "twelveways"} for k, v in graph.items()}
    assert "twelveways.families" in graph["twelveways.feasibility"]
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)
