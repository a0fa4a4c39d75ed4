"""Where ``twelveways ab`` runs each invocation: a configuration's threads and ranks bound to fixed CPUs.

Why: ab's power is limited by how much one invocation's mean differs from the next, and on a small
machine an unbound kernel adds its own share of that: the OpenMP runtime and MPICH's launcher leave
threads and ranks free to migrate, to meet on one CPU for a while, and to share one with the harness.
Binding removes that term for both sides alike (the same CPUs for BASE and NEW in every round), so it
cannot favour one; what stays is the machine's own noise.  The rule: a configuration needing n CPUs
(ranks x threads) runs on the last n usable CPUs (the harness, idle while a kernel runs, keeps the
others); OpenMP threads are placed one per CPU (``OMP_PLACES`` listing them, ``OMP_PROC_BIND=close``),
MPI ranks one per CPU (MPICH's ``-bind-to user:<cpus>``), and the process starts on those CPUs (the
affinity of the thread that launches it, which the child inherits; NumPy's BLAS threads stay within
them).  A configuration needing more CPUs than are usable, another MPI launcher, or a system without
CPU affinity runs unbound, and the record says so.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..prk import run
from .ab_options import BIND_NONE

#: The rule in words, as the A/B record states it.
RULE = ("--bind cores: a configuration needing n CPUs runs on the last n usable ones, OpenMP threads and MPI ranks one "
        "per CPU, the same CPUs for both sides")


@dataclass(frozen=True)
class Placement:
    """How one configuration's invocations are placed: CPUs (empty: unbound), environment, launcher options."""

    cpus: tuple[int, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    launcher_args: tuple[str, ...] = ()
    unbound_because: str = ""

    def text(self) -> str:
        if not self.cpus:
            return f"unbound ({self.unbound_because})"
        return f"bound to CPU{'s' if len(self.cpus) > 1 else ''} {','.join(map(str, self.cpus))}"


def usable_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on, in order (empty where the system has no CPU affinity)."""
    getter = getattr(os, "sched_getaffinity", None)
    return tuple(sorted(getter(0))) if getter else ()


def _default_launchers(launchers: Sequence[Sequence[str] | None]) -> bool:
    """Whether both sides start ranks with the environment's own MPICH ``mpiexec`` (Hydra), whose binding
    option ab adds."""
    return all(not launcher or list(launcher) == run.default_launcher() for launcher in launchers)


def placement(implementation: str, ranks: int, threads: int, *, bind: str, usable: Sequence[int],
              launchers: Sequence[Sequence[str] | None] = ()) -> Placement:
    """The placement of one configuration under ``--bind`` (module docstring: the rule)."""
    if bind == BIND_NONE:
        return Placement(unbound_because="--bind none")
    if not usable:
        return Placement(unbound_because="this system sets no CPU affinity")
    mpi = implementation in run.MPI_IMPLEMENTATIONS
    needed = ranks * threads
    if needed > len(usable):
        return Placement(unbound_because=f"needs {needed} CPUs, {len(usable)} usable")
    if mpi and not _default_launchers(launchers):
        return Placement(unbound_because="ranks are bound only with MPICH's mpiexec")
    if mpi and threads != 1:
        return Placement(unbound_because="ranks with several threads each are not bound")
    cpus = tuple(usable[-needed:])
    env: tuple[tuple[str, str], ...] = ()
    if implementation == "c-openmp":
        env = (("OMP_PLACES", ",".join(f"{{{cpu}}}" for cpu in cpus)), ("OMP_PROC_BIND", "close"))
    launcher_args = ("-bind-to", "user:" + ",".join(map(str, cpus))) if mpi else ()
    return Placement(cpus, env, launcher_args)


@contextlib.contextmanager
def started_on(cpus: Sequence[int]) -> Iterator[None]:
    """While inside, this thread (and so every process it starts) runs on ``cpus``; restored after."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cpus))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
