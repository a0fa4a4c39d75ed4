"""Who holds this directory's Snakemake lock, so a run killed hard resumes and a live one is named.

Snakemake's lock files (``.snakemake/locks/*.lock``) list files, not the process that wrote them:
after a SIGKILL or a power loss they stay, and every later run stops with "Directory cannot be
locked".  ``twelveways run`` therefore writes an owner record beside them before it becomes
Snakemake (``exec``: same process id, same start time): the process id, the process's start time
and the machine's boot time, the host, the command and when it started.  The next run releases the
lock only when that process is gone, judged by its id *and* start time (a recycled id is another
process), never by a process name; a live owner makes the next run stop with one line naming it.
Incomplete jobs of the killed run are rerun by Snakemake (``rerun-incomplete`` in profiles/default).
A lock with no record (taken by a plain ``snakemake``) is left alone with a one-line hint; a plain
``snakemake`` started after a recorded run has ended is not seen by the record (use ``twelveways run``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import inputs
from .errors import WorkflowLockError

#: Snakemake's lock folder (file persistence backend, the default) and the owner record beside it.
LOCKS = Path(".snakemake") / "locks"
OWNER = Path(".snakemake") / "twelveways" / "owner.json"
#: Largest owner record read (bytes): a record is a few hundred bytes; a larger file is not one twelveways wrote.
MAX_RECORD_BYTES = 64 * 1024
#: Two readings of one process's start time differ by clock-tick rounding only (well under this).
_SAME_START_S = 0.5
#: Snakemake options under which it takes no lock (dry runs, listings, --unlock itself).
NON_LOCKING = frozenset({
    "-n", "--dry-run", "--dryrun", "--unlock", "--nolock", "--lint", "-l", "--list", "--list-rules",
    "--list-target-rules", "--lt", "-S", "--summary", "-D", "--detailed-summary", "--dag", "--rulegraph",
    "--filegraph", "-v", "--version", "-h", "--help", "--list-changes", "--lc", "--print-compilation",
})


@dataclass(frozen=True)
class Owner:
    """The process that runs (or ran) Snakemake in this directory."""

    pid: int
    process_start: float  # seconds since the epoch, as the kernel dates the process
    boot_time: float
    host: str
    command: str
    started_utc: str

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}, started {self.started_utc}, command `{self.command}`"


def _boot_time() -> float:
    import psutil

    return float(psutil.boot_time())


def process_start(pid: int) -> float | None:
    """When process ``pid`` started (epoch seconds), or None when there is no such process.  A zombie (a
    killed run whose parent died too, left unreaped by an init that does not reap, as in some containers)
    runs nothing and holds nothing: it counts as gone."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(process.create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess, ValueError):
        return None
    except psutil.AccessDenied:  # exists, owned by someone else: its start time is still readable on Linux
        return None


def this_process(argv: list[str]) -> Owner:
    """The owner record of the current process (which is about to become Snakemake)."""
    return Owner(pid=os.getpid(), process_start=process_start(os.getpid()) or time.time(), boot_time=_boot_time(),
                 host=socket.gethostname(), command=shlex.join(["twelveways", "run", *argv]),
                 started_utc=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))


def read_owner(path: Path = OWNER) -> Owner | None:
    """The recorded owner, or None when there is no record or its content is damaged (a damaged record names
    nobody).  Only a small regular file is read: a FIFO would block the run, a huge file would be read whole, and
    neither is a record twelveways wrote, so either is one line (:class:`WorkflowLockError`) asking for it to go."""
    if not os.path.lexists(path):
        return None
    try:
        text = inputs.read_text(path, "owner record", WorkflowLockError, max_bytes=MAX_RECORD_BYTES)
    except WorkflowLockError as exc:
        raise WorkflowLockError(f"{exc.one_line()}: not an owner record `twelveways run` wrote; if no run is in "
                                f"progress here, delete {path} and run again") from exc
    try:
        data = json.loads(text)
        return Owner(pid=int(data["pid"]), process_start=float(data["process_start"]),
                     boot_time=float(data["boot_time"]), host=str(data["host"]), command=str(data["command"]),
                     started_utc=str(data["started_utc"]))
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError):
        return None


def is_alive(owner: Owner) -> bool:
    """True while the recorded process runs: same boot, same id and same start time (a reused id is not it).

    A record from another host cannot be checked from here and counts as alive (shared file systems)."""
    if owner.host != socket.gethostname():
        return True
    if abs(owner.boot_time - _boot_time()) > 2.0:
        return False
    started = process_start(owner.pid)
    return started is not None and abs(started - owner.process_start) < _SAME_START_S


def _write(owner: Owner, path: Path) -> None:
    """Write the record atomically; a folder that cannot hold it (``-d`` naming a file, no permission) is one line."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(asdict(owner), indent=1) + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise WorkflowLockError(f"cannot write the owner record {path}: {exc.strerror or exc}") from exc


def _held(locks: Path) -> bool:
    try:
        return locks.is_dir() and any(locks.iterdir())
    except OSError as exc:
        raise WorkflowLockError(f"cannot read Snakemake's lock folder {locks}: {exc.strerror or exc}") from exc


def claim(argv: list[str], workdir: Path = Path(".")) -> str | None:
    """Take the directory for this run; returns a note when a dead run's lock was released.

    Raises :class:`WorkflowLockError` (one line) while another run lives, or when Snakemake's lock has no
    owner record to check (it was taken by a plain ``snakemake``)."""
    if NON_LOCKING & set(argv):
        return None
    locks, record = workdir / LOCKS, workdir / OWNER
    owner = read_owner(record)
    if owner is not None and owner.pid != os.getpid() and is_alive(owner):
        elsewhere = ("; it runs on another host, so it cannot be checked from here: if it is gone, delete "
                     f"{record} and run again") if owner.host != socket.gethostname() else ""
        raise WorkflowLockError(f"another run is in progress in {workdir.resolve()}: {owner.describe()}; "
                                f"wait for it to end or stop it, then run again{elsewhere}")
    note = None
    if _held(locks):
        if owner is None:
            raise WorkflowLockError(f"{locks}: Snakemake's lock is held by a run that twelveways run did not start "
                                    "(no owner record to check); if no snakemake runs here, release it with "
                                    "`snakemake --unlock` and run again")
        shutil.rmtree(locks, ignore_errors=True)
        note = f"released the lock of a run that is gone ({owner.describe()}); its incomplete jobs will rerun"
    _write(this_process(argv), record)
    return note
