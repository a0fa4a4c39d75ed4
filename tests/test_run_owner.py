"""The owner record beside Snakemake's lock: a dead owner's lock is released, a live owner is named in one line.

Real processes, no mocks: a live owner is a ``sleep`` started here, a dead one a process that has exited, a
recycled id is this test's own process with another start time.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from twelveways import run_owner
from twelveways.errors import WorkflowLockError


def _hold_lock(workdir):
    locks = workdir / run_owner.LOCKS
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("results/prk.nc\n")
    return locks


def _record(workdir, owner):
    path = workdir / run_owner.OWNER
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dataclasses.asdict(owner)))


def _owner_of(proc, command="twelveways run --cores all") -> run_owner.Owner:
    return dataclasses.replace(run_owner.this_process([]), pid=proc.pid,
                               process_start=run_owner.process_start(proc.pid), command=command)


@pytest.fixture
def live_process():
    proc = subprocess.Popen(["sleep", "120"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_dead_owners_lock_is_released_and_the_new_owner_recorded(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    owner = _owner_of(gone)
    gone.wait()
    locks = _hold_lock(tmp_path)
    _record(tmp_path, owner)
    note = run_owner.claim(["--cores", "2"], tmp_path)
    assert not locks.exists()
    assert f"pid {gone.pid}" in note and "gone" in note
    mine = run_owner.read_owner(tmp_path / run_owner.OWNER)
    assert mine.pid != gone.pid and run_owner.is_alive(mine) and mine.command == "twelveways run --cores 2"


def test_a_live_owner_refuses_the_second_run_in_one_line(tmp_path, live_process):
    locks = _hold_lock(tmp_path)
    _record(tmp_path, _owner_of(live_process))
    with pytest.raises(WorkflowLockError) as caught:
        run_owner.claim(["--cores", "2"], tmp_path)
    line = caught.value.one_line()
    assert f"pid {live_process.pid}" in line and "twelveways run --cores all" in line and " UTC" in line
    assert locks.exists() and run_owner.read_owner(tmp_path / run_owner.OWNER).pid == live_process.pid


def test_a_recycled_pid_is_not_the_owner(tmp_path, live_process):
    """Same process id, another start time: the recorded process is gone, whoever has its id now."""
    recycled = dataclasses.replace(_owner_of(live_process), process_start=_owner_of(live_process).process_start - 3600)
    assert not run_owner.is_alive(recycled)
    locks = _hold_lock(tmp_path)
    _record(tmp_path, recycled)
    assert "gone" in run_owner.claim([], tmp_path) and not locks.exists()


def test_an_owner_on_another_host_is_not_guessed_at(tmp_path):
    """A shared file system: the process cannot be checked from here, so it counts as running, and the line
    says how to go on if it is gone."""
    _hold_lock(tmp_path)
    _record(tmp_path, dataclasses.replace(run_owner.this_process([]), host="node-elsewhere", pid=1))
    with pytest.raises(WorkflowLockError, match="pid 1 on node-elsewhere.*another host.*delete .*owner.json"):
        run_owner.claim([], tmp_path)


def test_a_lock_without_owner_record_is_left_alone(tmp_path):
    locks = _hold_lock(tmp_path)
    with pytest.raises(WorkflowLockError, match="no owner record.*snakemake --unlock"):
        run_owner.claim([], tmp_path)
    assert locks.exists()


def test_dry_runs_take_nothing(tmp_path, live_process):
    _record(tmp_path, _owner_of(live_process))
    assert run_owner.claim(["-n", "--cores", "1"], tmp_path) is None
    assert run_owner.read_owner(tmp_path / run_owner.OWNER).pid == live_process.pid


def test_a_damaged_record_names_nobody(tmp_path):
    (tmp_path / run_owner.OWNER).parent.mkdir(parents=True)
    (tmp_path / run_owner.OWNER).write_text('{"pid": "x"')
    assert run_owner.read_owner(tmp_path / run_owner.OWNER) is None


def test_cli_refuses_a_second_run_in_one_line(root, tmp_path, live_process):
    """`twelveways run` beside a live run: exit 1, one line naming it, not Snakemake's 23-line message."""
    _hold_lock(tmp_path)
    _record(tmp_path, _owner_of(live_process))
    done = subprocess.run([sys.executable, "-m", "twelveways", "run", "--cores", "1", "--snakefile",
                           str(root / "Snakefile")], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.startswith("error: another run is in progress") and len(done.stderr.splitlines()) == 1
    assert f"pid {live_process.pid}" in done.stderr and "Snakemake" not in done.stdout + done.stderr


def test_a_killed_owner_left_as_a_zombie_is_gone(tmp_path, live_process):
    """A killed run nobody has reaped yet (its parent died too; some containers' init reaps late) is gone."""
    import os
    import signal
    import time

    owner = _owner_of(live_process)
    os.kill(live_process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not open(f"/proc/{live_process.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
        assert time.monotonic() < deadline, "the killed process never became a zombie"
        time.sleep(0.01)
    locks = _hold_lock(tmp_path)
    _record(tmp_path, owner)
    assert not run_owner.is_alive(owner)
    assert "gone" in run_owner.claim(["--cores", "2"], tmp_path) and not locks.exists()
