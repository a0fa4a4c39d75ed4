"""Keep the dependency pins in one voice: pyproject.toml, the lock, environment.yml, envs/*.yaml.

`python -m twelveways.pins --write` regenerates the conda files from pyproject.toml;
`python -m twelveways.pins` (and tests/test_pins.py) reports any disagreement.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import yaml

from . import atomic
from .paths import PROJECT_ROOT

CONDA_FILES = ("environment.yml", "envs/twelveways.yaml")
LOCK = "envs/requirements.lock"


def _name(requirement: str) -> str:
    return re.split(r"[=<>!~\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _version(requirement: str) -> str:
    return requirement.split("==", 1)[1].split("+")[0].strip() if "==" in requirement else ""


def project_pins(root: Path = PROJECT_ROOT) -> dict[str, str]:
    data = tomllib.loads((root / "pyproject.toml").read_text())
    reqs = list(data["project"]["dependencies"]) + list(data["project"]["optional-dependencies"]["test"])
    return {_name(r): _version(r) for r in reqs}


def conda_pins(path: Path) -> dict[str, str]:
    spec = yaml.safe_load(path.read_text())
    pins = {}
    for dep in spec.get("dependencies", []):
        if isinstance(dep, dict):
            pins.update({_name(r): _version(r) for r in dep.get("pip", [])})
    return pins


def lock_pins(root: Path = PROJECT_ROOT) -> dict[str, str]:
    lines = [line.strip() for line in (root / LOCK).read_text().splitlines()]
    return {_name(line): _version(line) for line in lines if line and not line.startswith("#")}


def disagreements(root: Path = PROJECT_ROOT) -> list[str]:
    """One line per pin that differs between pyproject.toml and another file."""
    wanted = project_pins(root)
    problems = []
    for name, version in wanted.items():
        if not version:
            problems.append(f"pyproject.toml: {name} is not pinned with ==")
    locked = lock_pins(root)
    for name, version in wanted.items():
        if locked.get(name) != version:
            problems.append(f"{LOCK}: {name}=={locked.get(name)} but pyproject.toml says {version}")
    for rel in CONDA_FILES:
        pins = conda_pins(root / rel)
        for name, version in wanted.items():
            if pins.get(name) != version:
                problems.append(f"{rel}: {name}=={pins.get(name)} but pyproject.toml says {version}")
    return problems


def render_conda(name: str = "twelveways", root: Path = PROJECT_ROOT) -> str:
    data = tomllib.loads((root / "pyproject.toml").read_text())
    reqs = list(data["project"]["dependencies"]) + list(data["project"]["optional-dependencies"]["test"])
    locked = lock_pins(root)  # the docs extra states ranges: the conda files pin the lock's version in them
    reqs += [f"{_name(r)}=={locked[_name(r)]}" for r in data["project"]["optional-dependencies"].get("docs", [])]
    lines = ["# Generated from pyproject.toml by `make envs`; tests/test_pins.py checks they agree.",
             "# Packages come from PyPI through pip, pinned exactly like envs/requirements.lock.",
             f"name: {name}", "channels:", "  - conda-forge", "dependencies:", "  - python=3.11", "  - pip", "  - pip:"]
    lines += [f"      - {r}" for r in reqs]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twelveways.pins", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate environment.yml and envs/*.yaml")
    args = parser.parse_args(argv)
    if args.write:
        for rel in CONDA_FILES:
            atomic.write_text(PROJECT_ROOT / rel, render_conda(), "environment file")
    problems = disagreements()
    for line in problems:
        print(f"error: {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
