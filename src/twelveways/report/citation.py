"""Who made the artifact, for those who cite or deposit it: ``CITATION.cff`` and ``.zenodo.json``.

The authors come from the project's own history (``git log``: every commit author, most commits
first, bots left out), not from a placeholder; a deposit service (Zenodo) reads ``.zenodo.json``,
GitHub and Zenodo's GitHub integration read ``CITATION.cff``.  Both are written from one list, so
they cannot disagree: ``python -m twelveways.report citation`` rewrites them, ``--check`` says
whether they are current (tests/test_appendix.py).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import yaml

from ..errors import ResultsError
from . import notebooks as nb

CFF = "CITATION.cff"
ZENODO = ".zenodo.json"


def git_authors(root: Path) -> list[dict]:
    """Every commit author of ``root``'s history as {name, email}, most commits first (bots left out)."""
    try:
        log = subprocess.run(["git", "log", "--format=%aN%x09%aE"], cwd=root, check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise ResultsError(f"cannot read the authors: {root} is not a git checkout (git log failed)", cause=exc) from exc
    counts = Counter(tuple(line.split("\t", 1)) for line in log.splitlines() if "\t" in line)
    seen, authors = set(), []
    for (name, email), _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if name in seen or "[bot]" in name:
            continue
        seen.add(name)
        authors.append({"name": name, "email": email})
    return authors


def _authors_block(authors: list[dict]) -> str:
    lines = ["authors:  # from the project's git history (python -m twelveways.report citation)"]
    for author in authors:
        lines.append(f"  - name: {json.dumps(author['name'], ensure_ascii=False)}")
        if author.get("email") and "noreply" not in author["email"]:
            lines.append(f"    email: {json.dumps(author['email'])}")
    return "\n".join(lines) + "\n"


def cff_text(current: str, authors: list[dict]) -> str:
    """``CITATION.cff`` with its ``authors:`` block replaced (comments and every other key kept)."""
    block = re.compile(r"^authors:.*?(?=^\S)", re.MULTILINE | re.DOTALL)
    if not block.search(current):
        raise ResultsError(f"{CFF} has no top-level 'authors:' block to replace")
    return block.sub(lambda _: _authors_block(authors), current, count=1)


def zenodo(cff: dict) -> dict:
    """Zenodo deposit metadata (``.zenodo.json``) from the citation metadata."""
    return {"title": cff["title"], "upload_type": "software", "version": str(cff.get("version", "")),
            "description": " ".join(str(cff.get("abstract", cff["title"])).split()),
            "creators": [{"name": author["name"]} for author in cff["authors"]],
            "license": str(cff.get("license", "")), "access_right": "open",
            "keywords": list(cff.get("keywords", []))}


def expected(root: Path) -> dict[str, str]:
    """What ``CITATION.cff`` and ``.zenodo.json`` should hold for ``root``'s history."""
    text = cff_text((root / CFF).read_text(), git_authors(root))
    return {CFF: text, ZENODO: json.dumps(zenodo(yaml.safe_load(text)), indent=2, ensure_ascii=False) + "\n"}


def stale(root: Path) -> list[str]:
    """The metadata files that differ from what the history says (empty when current)."""
    return [name for name, text in expected(root).items()
            if not (root / name).is_file() or (root / name).read_text() != text]


def _citation(args) -> int:
    root = nb.project_root()
    if args.check:
        names = stale(root)
        if names:
            print(f"error: {', '.join(names)}: not current with the git history (run python -m twelveways.report "
                  "citation)")
            return 1
        return 0
    for name, text in expected(root).items():
        (root / name).write_text(text)
        print(root / name)
    return 0


def add_parser(sub) -> None:
    """The ``citation`` subcommand of ``python -m twelveways.report``."""
    p = sub.add_parser("citation", help="write CITATION.cff's authors (git history) and .zenodo.json")
    p.add_argument("--check", action="store_true", help="only say whether both files are current (exit 1 if not)")
    p.set_defaults(func=_citation)
