"""The sweep's configurations: the ``prk`` config section expanded into points (no run, no config file).

Why a module of its own: the config's feasibility check expands the sweep to test every point's
ranks and memory before anything runs; the sweep itself loads the config.  Kept apart, neither
imports the other (see :mod:`twelveways.prk.sweep` for what the points mean).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import KernelError
from .prk import MPI_IMPLEMENTATIONS, MPI_KERNELS
from .prk_config import PrkConfig


@dataclass(frozen=True)
class Point:
    """One configuration of the sweep."""

    kernel: str
    implementation: str
    ranks: int
    threads: int
    size: int | tuple[int, int]
    base_size: int | tuple[int, int]
    scaling: str

    @property
    def pe(self) -> int:
        return self.ranks * self.threads

    def key(self) -> str:
        size = "x".join(map(str, self.size)) if isinstance(self.size, tuple) else str(self.size)
        return f"{self.kernel}/{self.implementation}/r{self.ranks}t{self.threads}/s{size}/{self.scaling}"

    def primary(self, size) -> int:
        """The size column: the first size argument (p2p: m)."""
        return int(size[0]) if isinstance(size, tuple) else int(size)


def weak_size(kernel: str, base: int | tuple[int, int], pe: int) -> int | tuple[int, int] | None:
    """The size with ``pe`` times the work of ``base`` (None where no such size exists).

    nstream: length x P; transpose, stencil: side x sqrt(P); dgemm: order x P^(1/3) (work ~
    order^3); p2p: m x P (rows); sparse: lsize + log4(P), only where P is a power of 4.
    """
    if pe == 1:
        return base
    if kernel == "nstream":
        return int(base) * pe
    if kernel in ("transpose", "stencil"):
        return int(round(int(base) * math.sqrt(pe)))
    if kernel == "dgemm":
        return int(round(int(base) * pe ** (1.0 / 3.0)))
    if kernel == "p2p":
        m, n = base if isinstance(base, tuple) else (base, base)
        return (m * pe, n)
    if kernel == "sparse":
        steps = math.log(pe, 4)
        if abs(steps - round(steps)) > 1e-9:
            return None
        return int(base) + int(round(steps))
    raise KernelError(f"unknown kernel {kernel!r}")


def levels(kernel: str, implementation: str, prk: PrkConfig) -> list[tuple[int, int]]:
    """(ranks, threads) levels of one kernel and implementation (empty: not implemented)."""
    if implementation in MPI_IMPLEMENTATIONS:
        return [(r, 1) for r in prk.ranks] if kernel in MPI_KERNELS else []
    if implementation == "c-openmp" or (implementation == "numpy" and kernel == "dgemm"):
        return [(1, t) for t in prk.threads]
    return [(1, 1)]


def expand(prk: PrkConfig) -> tuple[list[Point], list[str]]:
    """All configurations of the sweep (unordered) and the reasons for any that were left out."""
    points: list[Point] = []
    skipped: list[str] = []
    scalings = {"strong": ("strong",), "weak": ("weak",), "both": ("strong", "weak")}[prk.scaling]
    for kernel in prk.kernels:
        for implementation in prk.implementations:
            resource_levels = levels(kernel, implementation, prk)
            if not resource_levels:
                skipped.append(f"{kernel} {implementation}: no such implementation (MPI kernels: {', '.join(MPI_KERNELS)})")
                continue
            for base in prk.sizes[kernel]:
                for ranks, threads in resource_levels:
                    pe = ranks * threads
                    if pe == 1:
                        points.append(Point(kernel, implementation, ranks, threads, base, base, "single"))
                        continue
                    for scaling in scalings:
                        size = base if scaling == "strong" else weak_size(kernel, base, pe)
                        if size is None:
                            skipped.append(f"{kernel} {implementation} r{ranks}t{threads} base {base}: no weak-scaling size "
                                           f"(sparse grows by powers of 4, P={pe})")
                            continue
                        points.append(Point(kernel, implementation, ranks, threads, size, base, scaling))
    unique = list(dict.fromkeys(points))
    return unique, skipped
