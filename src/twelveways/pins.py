"""Keep the dependencies in one voice: pyproject.toml's ranges, the lock's pins, environment.yml, envs/*.yaml.

pyproject.toml states what the package needs as lower-bounded ranges (core and extras); the lock pins one
version of each, inside its range, and the conda files pin the lock's versions of every package pyproject names.
`python -m twelveways.pins --write` regenerates the conda files from pyproject.toml and the lock;
`python -m twelveways.pins` (and tests/test_pins.py) reports any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement

from . import atomic
from .paths import PROJECT_ROOT

CONDA_FILES = ("environment.yml", "envs/twelveways.yaml")
LOCK = "envs/requirements.lock"


def _name(requirement: str) -> str:
    return Requirement(requirement).name.lower().replace("_", "-")


def _pinned(requirement: str) -> str:
    """The version of an exact ``name==version`` pin, else ''; a local label (torch's ``+cpu``) names the build of
    a wheel, not its version, and conda files install from PyPI, which has none."""
    specs = list(Requirement(requirement).specifier)
    return specs[0].version.split("+")[0] if len(specs) == 1 and specs[0].operator == "==" else ""


def project_requirements(root: Path = PROJECT_ROOT) -> dict[str, list[Requirement]]:
    """pyproject.toml's requirements by layer: ``core`` (the package's dependencies) and each extra by name."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    layers = {"core": project["dependencies"], **project.get("optional-dependencies", {})}
    return {layer: [Requirement(r) for r in reqs] for layer, reqs in layers.items()}


def conda_pins(path: Path) -> dict[str, str]:
    spec = yaml.safe_load(path.read_text())
    pins = {}
    for dep in spec.get("dependencies", []):
        if isinstance(dep, dict):
            pins.update({_name(r): _pinned(r) for r in dep.get("pip", [])})
    return pins


def lock_pins(root: Path = PROJECT_ROOT) -> dict[str, str]:
    lines = [line.strip() for line in (root / LOCK).read_text().splitlines()]
    return {_name(line): _pinned(line) for line in lines if line and not line.startswith("#")}


def _range_problems(layer: str, requirement: Requirement, locked: dict[str, str]) -> list[str]:
    """A range pyproject states: lower-bounded, never exact, and holding the lock's version."""
    name, where = requirement.name.lower().replace("_", "-"), f"pyproject.toml ({layer})"
    operators = {spec.operator for spec in requirement.specifier}
    problems = []
    if operators & {"==", "==="}:
        problems.append(f"{where}: {requirement} is an exact pin: state a lower bound (the pin belongs in {LOCK})")
    elif ">=" not in operators:
        problems.append(f"{where}: {requirement} has no lower bound (>=)")
    if name not in locked:
        problems.append(f"{LOCK}: {name} is missing but pyproject.toml ({layer}) requires {requirement}")
    elif not requirement.specifier.contains(locked[name], prereleases=True):
        problems.append(f"{LOCK}: {name}=={locked[name]} is outside pyproject.toml's {requirement} ({layer})")
    return problems


def disagreements(root: Path = PROJECT_ROOT) -> list[str]:
    """One line per disagreement: a pyproject range that is exact, unbounded below or misses the lock's version,
    and a conda file whose pin of a pyproject package is not the lock's."""
    locked = lock_pins(root)
    layers = project_requirements(root)
    problems = [line for layer, reqs in layers.items() for req in reqs for line in _range_problems(layer, req, locked)]
    named = {req.name.lower().replace("_", "-") for reqs in layers.values() for req in reqs}
    for rel in CONDA_FILES:
        pins = conda_pins(root / rel)
        for name in sorted(named & locked.keys()):
            if pins.get(name) != locked[name]:
                problems.append(f"{rel}: {name}=={pins.get(name)} but {LOCK} says {locked[name]}")
    return problems


def render_conda(name: str = "twelveways", root: Path = PROJECT_ROOT) -> str:
    """The conda environment: every package pyproject.toml names (core, then each extra), at the lock's version."""
    locked = lock_pins(root)
    lines = ["# Generated from pyproject.toml and envs/requirements.lock by `make envs`; tests/test_pins.py checks them.",
             "# Every package pyproject.toml names (core and extras), from PyPI through pip, at the lock's exact version.",
             f"name: {name}", "channels:", "  - conda-forge", "dependencies:", "  - python=3.11", "  - pip", "  - pip:"]
    seen: set[str] = set()
    for reqs in project_requirements(root).values():
        for req in reqs:
            key = req.name.lower().replace("_", "-")
            if key not in seen:
                seen.add(key)
                lines.append(f"      - {req.name}=={locked.get(key, '')}")
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
