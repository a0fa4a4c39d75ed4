"""Which tests share an xdist worker, decided in the workers (they know the fixtures) and read by the scheduler.

A fixture wider than one test is built once per worker that needs it: the tests that share one must go
to one worker.  pytest-xdist's ``--dist loadgroup`` carries a group as a suffix on the test id, which is
lost on pytest 9.2 (pytest-xdist issue 1386: every test is then handed out on its own).  So the workers
write the groups they computed to a file the controller names (``workerinput``), and ``GroupScheduling``,
xdist's scheduler by scope, reads a test's scope from that file.  Every worker computes the same groups
from the same collection; each writes the whole map, atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

WORKERINPUT_KEY = "twelveways_xdist_groups"
_FILE = pytest.StashKey[Path]()


def groups_file(config: pytest.Config) -> Path:
    """The controller's file for this run's groups, made on first use (``remove`` deletes it at the end)."""
    if _FILE not in config.stash:
        handle, name = tempfile.mkstemp(prefix="twelveways-xdist-groups-", suffix=".json")
        os.close(handle)
        config.stash[_FILE] = Path(name)
    return config.stash[_FILE]


def remove(config: pytest.Config) -> None:
    if _FILE in config.stash:
        config.stash[_FILE].unlink(missing_ok=True)


def write(path: Path, groups: dict[str, str]) -> None:
    """The test id -> group map, replaced in one step (the other workers write the same map)."""
    part = path.with_name(f"{path.name}.{os.getpid()}")
    part.write_text(json.dumps(groups))
    os.replace(part, path)


class GroupScheduling(LoadScopeScheduling):
    """xdist's scheduling by scope, the scope of a test being its group (the workers' map), else the test itself."""

    def __init__(self, config, log=None, groups_file: Path | None = None) -> None:
        super().__init__(config, log)
        self._groups_file = groups_file
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # read once: scopes are asked for after every worker has collected
            self._groups = json.loads(self._groups_file.read_text() or "{}")
        return self._groups.get(nodeid, nodeid)
