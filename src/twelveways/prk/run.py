"""Run one PRK kernel invocation (C binary or Python program) and read its JSON contract.

An invocation is a kernel, an implementation, a rank and thread count and the kernel's
positional arguments.  Threads reach the program through ``OMP_NUM_THREADS`` (and the BLAS
pools' ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``, so NumPy's dgemm follows the same
count and MPI ranks do not oversubscribe the cores with BLAS threads); ranks through
``mpiexec -n R`` (by default the venv's MPICH launcher next to ``sys.executable``).

The program's exit code and its JSON must agree: 0 with ``valid: true``, 1 with
``valid: false`` (a failed validation is a result, returned, and its samples are marked
invalid); anything else (2 = bad arguments, a crash, a timeout, output that breaks the
contract) raises :class:`~twelveways.errors.KernelError` with one line saying why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import PROJECT_ROOT
from ..errors import KernelError
from ..families.prk import IMPLEMENTATIONS, KERNELS, MPI_IMPLEMENTATIONS, MPI_KERNELS, PYTHON_IMPLEMENTATIONS
from . import records

PYTHON_KERNELS_DIR = PROJECT_ROOT / "kernels" / "python"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Invocation:
    """One program run: ``args`` are the kernel's positional arguments, iterations first."""

    kernel: str
    implementation: str
    args: tuple[int, ...]
    ranks: int = 1
    threads: int = 1
    env: tuple[tuple[str, str], ...] = field(default=())

    def label(self) -> str:
        return f"{self.kernel} {self.implementation} r{self.ranks} t{self.threads} {' '.join(map(str, self.args))}"


def kernel_args(kernel: str, iterations: int, size: int | Sequence[int], *, radius: int = 2,
                tile: int = 32) -> tuple[int, ...]:
    """The PRK positional arguments of ``kernel`` for a size (p2p: an int is m = n, or (m, n))."""
    if kernel == "nstream":
        return (iterations, int(size))
    if kernel == "transpose":
        return (iterations, int(size), tile)
    if kernel == "stencil":
        return (iterations, int(size), radius)
    if kernel == "p2p":
        m, n = (size, size) if isinstance(size, int) else tuple(size)
        return (iterations, int(m), int(n))
    if kernel == "dgemm":
        return (iterations, int(size))
    if kernel == "sparse":
        return (iterations, int(size), radius)
    raise KernelError(f"unknown kernel {kernel!r} (known: {', '.join(KERNELS)})")


def default_launcher() -> list[str]:
    """The MPI launcher of this environment: ``mpiexec`` next to the running Python."""
    return [str(Path(sys.executable).parent / "mpiexec")]


def command(inv: Invocation, kernels_dir: str | os.PathLike = "build/kernels", *,
            python_dir: str | os.PathLike = PYTHON_KERNELS_DIR, launcher: Sequence[str] | None = None) -> list[str]:
    """The argv that runs ``inv``."""
    if inv.kernel not in KERNELS:
        raise KernelError(f"unknown kernel {inv.kernel!r} (known: {', '.join(KERNELS)})")
    if inv.implementation not in IMPLEMENTATIONS:
        raise KernelError(f"unknown implementation {inv.implementation!r} (known: {', '.join(IMPLEMENTATIONS)})")
    if inv.implementation in MPI_IMPLEMENTATIONS and inv.kernel not in MPI_KERNELS:
        raise KernelError(f"{inv.kernel} has no {inv.implementation} implementation")
    if inv.ranks != 1 and inv.implementation not in MPI_IMPLEMENTATIONS:
        raise KernelError(f"{inv.implementation} runs on one rank, not {inv.ranks}")
    if inv.implementation in PYTHON_IMPLEMENTATIONS:
        variant = "numpy" if inv.implementation == "numpy" else "mpi4py"
        program = Path(python_dir) / f"{inv.kernel}-{variant}.py"
        argv = [sys.executable, str(program)]
    else:
        program = Path(kernels_dir) / f"{inv.kernel}-{inv.implementation.removeprefix('c-')}"
        argv = [str(program)]
    if not program.is_file():
        raise KernelError(f"kernel program not found: {program} (build it with `python -m twelveways.prk.build`?)")
    argv += [str(a) for a in inv.args]
    if inv.implementation in MPI_IMPLEMENTATIONS:
        argv = [*(launcher or default_launcher()), "-n", str(inv.ranks), *argv]
    return argv


def environment(inv: Invocation, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment: thread counts set for OpenMP and the BLAS pools."""
    env = dict(os.environ if base is None else base)
    threads = inv.threads if inv.implementation in ("c-openmp", "numpy") else 1
    for name in THREAD_VARIABLES:
        env[name] = str(threads)
    env.update(dict(inv.env))
    return env


def parse_stdout(text: str, where: str) -> dict:
    """The one JSON object on stdout (lines that are not JSON objects, e.g. a launcher's, are ignored)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError as exc:
                raise KernelError(f"{where}: stdout holds a line that is not valid JSON ({exc})") from exc
            found.append(value)
    if len(found) != 1:
        raise KernelError(f"{where}: expected exactly one JSON object on stdout, found {len(found)}")
    return found[0]


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def run(inv: Invocation, kernels_dir: str | os.PathLike = "build/kernels", *, timeout: float | None = 600,
        python_dir: str | os.PathLike = PYTHON_KERNELS_DIR, launcher: Sequence[str] | None = None,
        extra_env: Mapping[str, str] | None = None) -> dict:
    """Run ``inv`` once and return its checked JSON object (``valid`` may be false)."""
    argv = command(inv, kernels_dir, python_dir=python_dir, launcher=launcher)
    env = environment(inv)
    if extra_env:
        env.update(extra_env)
    where = inv.label()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise KernelError(f"{where}: timed out after {timeout} s", cause=exc) from exc
    except OSError as exc:
        raise KernelError(f"{where}: cannot start {argv[0]}", cause=exc) from exc
    if proc.returncode == 2:
        raise KernelError(f"{where}: rejected its arguments: {_last_line(proc.stderr)}")
    if proc.returncode not in (0, 1):
        raise KernelError(f"{where}: exited with code {proc.returncode}: {_last_line(proc.stderr)}")
    doc = parse_stdout(proc.stdout, where)
    doc = records.check(doc, kernel=inv.kernel, implementation=inv.implementation, ranks=inv.ranks, where=where)
    if doc["valid"] != (proc.returncode == 0):
        raise KernelError(f"{where}: exit code {proc.returncode} disagrees with valid={doc['valid']}")
    return doc
