"""The project's own version (git commit and dirty flag): provenance recorded beside the environment."""

from __future__ import annotations

from . import probe
from .probe import unavailable


def git() -> dict:
    from ..results import git_state

    root = probe.PROJECT_ROOT
    commit, dirty = git_state(root)
    if commit == "unknown":
        return {"commit": unavailable(f"{root} is not a git checkout with a commit (or git is missing)"),
                "dirty": unavailable("no commit to compare against"), "root": str(root)}
    return {"commit": commit, "dirty": dirty, "root": str(root)}
