"""The documentation site (mkdocs.yml, docs/) builds in strict mode, and its reference pages match the code.

The command reference is checked against every argparse parser the CLI uses, walked here on its own, so an
option added to a command without its reference fails; the README stays a short entry point.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from twelveways import cli, docsite

BUILD_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], capture_output=True, text=True, cwd=config.parent, env=BUILD_ENV,
                          timeout=300)


def nav_pages(nav) -> list[str]:
    """Every page the navigation of mkdocs.yml lists, in order."""
    pages = []
    for entry in nav:
        for value in (entry.values() if isinstance(entry, dict) else [entry]):
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


@pytest.mark.slow
def test_the_site_builds_in_strict_mode_with_every_page(root, tmp_path):
    proc = mkdocs_build(root / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    pages = nav_pages(yaml.safe_load((root / "mkdocs.yml").read_text())["nav"])
    for page in pages:
        built = tmp_path / "site" / ("index.html" if page == "index.md" else f"{page[:-3]}/index.html")
        assert built.is_file(), page
    assert sorted(pages) == sorted(p.name for p in (root / "docs").glob("*.md"))
    home = (tmp_path / "site" / "index.html").read_text()
    assert "fonts.googleapis" not in home and "fonts.gstatic" not in home  # opens offline, nothing fetched


@pytest.mark.slow
def test_a_broken_link_or_anchor_or_a_page_missing_from_the_navigation_fails_the_build(root, tmp_path):
    """The project's own settings (inherited) on a small site with one of each defect: the strict build stops
    and names every one."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](gone.md) and [here](#no-such-heading)\n")
    (tmp_path / "docs" / "unlisted.md").write_text("# Unlisted\n")
    (tmp_path / "mkdocs.yml").write_text(f"INHERIT: {root / 'mkdocs.yml'}\ndocs_dir: docs\nnav:\n  - Home: index.md\n")
    proc = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    for message in ("contains a link 'gone.md', but the target is not found", "there is no such anchor on this page",
                    "not included in the \"nav\" configuration:\n  - unlisted.md"):
        assert message in proc.stderr, proc.stderr


def test_the_generated_pages_are_fresh():
    assert docsite.stale() == [], "stale documentation pages: run `python -m twelveways.docsite` (make docs)"


def every_parser(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from every_parser(sub)


def section(page: str, prog: str) -> str:
    """The text under the heading of ``prog`` in the command reference, up to the next heading."""
    match = re.search(rf"^#+ `{re.escape(prog)}`\n(.*?)(?=^#)", page + "\n#", re.S | re.M)
    assert match, f"{prog} has no section in docs/commands.md"
    return match.group(1)


def test_every_option_of_every_command_is_in_the_reference(root):
    page = (root / "docs" / "commands.md").read_text()
    assert set(cli.PARSERS) == {*cli.DELEGATED, *cli.LOCAL}  # every command has a parser the reference reads
    for command in [*cli.DELEGATED, *cli.LOCAL]:
        for parser in every_parser(docsite.command_parser(command)):
            text = section(page, parser.prog)
            for action in parser._actions:
                if isinstance(action, argparse._HelpAction):
                    continue
                if isinstance(action, argparse._SubParsersAction):
                    names = list(action.choices)
                else:
                    names = action.option_strings or [action.metavar or action.dest]
                for name in names:
                    assert f"`{name}" in text, f"{parser.prog} {name} is missing from docs/commands.md"


def test_the_reference_states_what_compare_does():
    """The help that drifted once (compare no longer runs Mann-Whitney against a measured noise floor)."""
    description = docsite.command_parser("compare").description
    assert "Mann-Whitney" not in description and "practical-equivalence margin" in description


def test_the_statistics_page_names_only_tests_that_exist(root):
    named = re.findall(r"`(tests/test_\w+\.py)::(test_\w+)`", (root / "docs" / "statistics.md").read_text())
    assert len(named) >= 10
    for path, test in named:
        assert re.search(rf"^def {test}\(", (root / path).read_text(), re.M), f"{path}::{test}"


def test_the_checklist_page_says_what_each_check_checks_and_how_to_fix_it(root):
    from twelveways.checklist.audit import registered_checks
    from twelveways.checklist.model import REGISTRY

    page = (root / "docs" / "checklist.md").read_text()
    assert len(registered_checks()) >= 24
    for check_id in registered_checks():
        text = re.search(rf"^## {check_id}: (.*?)(?=^## |\Z)", page, re.S | re.M)
        assert text, check_id
        assert REGISTRY[check_id][0] in text.group(1) and "**How to fix:**\n\n- " in text.group(1), check_id
