"""The two sides of ``twelveways ab``: a git ref checked out as a worktree (or the working tree), a config, built kernels.

Why here and not in the sweep: a side is a version of the project (its ``kernels/c`` and
``kernels/python``) plus a validated config (its ``prk`` section: sizes, iterations, compiler and
flags); this checkout's harness (:mod:`twelveways.prk.sweep`, :mod:`twelveways.prk.run`) runs
both, so what differs between the sides is what the sides bring, and the same harness times them.
A ref is checked out with ``git worktree add --detach`` into the run's temporary folder and removed
afterwards; its C kernels are built there by :func:`twelveways.prk.build.build_kernels` with the
side's compiler and flags.  Each side's facts (commit, compiler and flags, kernel sources, config,
the lock it declares) feed :func:`twelveways.envdiff.diff`: what differs between the sides.
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import config as config_module
from ..cliargs import UsageError
from ..paths import PROJECT_ROOT
from ..errors import TwelveWaysError
from ..prk import build as prk_build
from ..prk import sweep
from ..families.prk_config import PrkConfig
from ..results import git_state

WORKING_TREE = "working tree"
CONFIG_IN_TREE = Path("config") / "config.yaml"
LOCK_IN_TREE = Path("envs") / "requirements.lock"


@dataclass
class Side:
    """One prepared side: where its kernels are, its validated config, and the facts the environment diff reads."""

    label: str  # "base" or "new"
    ref: str  # the git ref given, or WORKING_TREE
    commit: str
    root: Path  # the checkout holding kernels/c and kernels/python
    config: dict
    config_path: Path
    kernels_dir: Path | None = None
    facts: dict = field(default_factory=dict)

    @property
    def prk(self) -> PrkConfig:
        return PrkConfig.from_config(self.config)

    @property
    def python_dir(self) -> Path:
        return self.root / "kernels" / "python"

    @property
    def launcher(self) -> list[str] | None:
        chosen = self.prk.mpi_launcher
        return shlex.split(chosen) if chosen else None

    def describe(self) -> str:
        return f"{self.ref} ({self.commit[:12]}), config {self.config_path}"


def _git(*args: str, cwd: Path = PROJECT_ROOT) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise UsageError(f"cannot run git: {exc.strerror or exc}") from exc


def resolve(ref: str) -> str:
    """The commit a ref names in this project's repository, or one line saying it names none."""
    if not ref.strip() or ref.startswith("-"):
        raise UsageError(f"git ref {ref!r} is not a ref (a branch, tag or commit of {PROJECT_ROOT})")
    done = _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise UsageError(f"git ref {ref!r} names no commit in {PROJECT_ROOT}")
    return done.stdout.strip()


@contextmanager
def checkouts(refs: Mapping[str, str | None], work: Path) -> Iterator[dict[str, tuple[Path, str]]]:
    """{label: (checkout root, commit)}: each ref as a detached worktree under ``work`` (removed on exit), the
    working tree itself where the ref is None."""
    made: list[Path] = []
    found = {}
    try:
        for label, ref in refs.items():
            if ref is None:
                commit, dirty = git_state(PROJECT_ROOT)
                found[label] = (PROJECT_ROOT, commit + ("+dirty" if dirty else ""))
                continue
            commit = resolve(ref)
            target = work / f"checkout-{label}"
            done = _git("worktree", "add", "--detach", "--force", str(target), commit)
            if done.returncode != 0:
                raise UsageError(f"cannot check out {ref!r} as a worktree: {done.stderr.strip().splitlines()[-1:]}")
            made.append(target)
            found[label] = (target, commit)
        yield found
    finally:
        for target in made:  # its own entries only: other worktrees of the repository are left alone
            _git("worktree", "remove", "--force", str(target))


def load_config(path: Path, label: str) -> dict:
    """A side's config, validated by this checkout's schema; one line naming the side when it is not usable."""
    if not path.is_file():
        raise UsageError(f"{label} config not found: {path}")
    try:
        return config_module.load(path)
    except TwelveWaysError as exc:
        raise UsageError(f"{label} config {path}: {exc.one_line()} (give --{label}-config)") from exc


def _digests(folder: Path, suffixes: Sequence[str]) -> dict[str, str]:
    files = sorted(p for p in folder.glob("*") if p.suffix in suffixes and p.is_file()) if folder.is_dir() else []
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:16] for p in files}


def _lock(root: Path) -> dict[str, dict]:
    """The pins a side's lock declares ({package: {"version": v}}); what ran is this checkout's environment."""
    path = root / LOCK_IN_TREE
    lines = path.read_text().splitlines() if path.is_file() else []
    pins = (line.split(";")[0].strip().split("==", 1) for line in lines if "==" in line and not line.startswith("#"))
    return {name.strip().lower(): {"version": version.strip()} for name, version in pins}


def facts(side: Side, manifest: Mapping | None) -> dict:
    """What the environment diff compares: commit, compiler and flags (build.json), kernel sources, the side's
    config, and the lock the side declares (both sides run with this checkout's Python and libraries)."""
    compiler = dict((manifest or {}).get("compiler", {}))
    prk = side.prk
    return {
        "project": {"ref": side.ref, "commit": side.commit},
        "compilers": {"cc": compiler.get("cc", prk.build.cc), "cc_version": compiler.get("version", "not built"),
                      "cflags": prk.build.cflags, "openmp_flag": prk.build.openmp_flag,
                      **({"mpicc_show": compiler["mpicc_show"]} if "mpicc_show" in compiler else {})},
        "kernel_sources": {"c": _digests(side.root / "kernels" / "c", (".c", ".h")),
                           "python": _digests(side.python_dir, (".py",))},
        "config": {"seed": side.config.get("seed"), "prk": {k: v for k, v in prk.section.items() if k != "build"}},
        "declared_lock": _lock(side.root),
    }


def build(side: Side, points: Sequence[sweep.Point], work: Path) -> None:
    """Compile the C kernels the chosen configurations need, from the side's own sources with its own flags."""
    needed = sorted({p.kernel for p in points if p.implementation.startswith("c-")})
    variants = sorted({p.implementation.removeprefix("c-") for p in points if p.implementation.startswith("c-")})
    side.kernels_dir = work / f"kernels-{side.label}"
    manifest = None
    if needed:
        prk = side.prk
        manifest = prk_build.build_kernels(side.kernels_dir, cc=prk.build.cc, cflags=prk.build.cflags,
                                           openmp_flag=prk.build.openmp_flag, kernels=needed, variants=variants,
                                           source_dir=side.root / "kernels" / "c")
    side.facts = facts(side, manifest)


def python_dir_ok(side: Side) -> None:
    """A side's Python kernels folder must exist (an old ref may predate one)."""
    if not side.python_dir.is_dir():
        raise UsageError(f"{side.label} ({side.ref}): no kernels/python folder in {side.root}")

