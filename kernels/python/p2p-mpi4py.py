"""PRK p2p (synch_p2p) with mpi4py: 1-D pipelined column strips (NumPy inside).

Usage: mpiexec -n R python p2p-mpi4py.py <iterations> <m> <n>

Same definition and validation as p2p-numpy.py.  Rank p owns a strip of columns [j0, j1)
(widths that do not divide evenly work) and a ghost column j0-1.  Row by row it receives the
ghost value A[i, j0-1] from rank p-1, updates its part of row i, and sends A[i, j1-1] to rank
p+1, so the ranks form a pipeline.  Within a row the recurrence
A[i, j] = A[i, j-1] + (A[i-1, j] - A[i-1, j-1]) is a running sum (np.cumsum): 2 flops per
point as in PRK.  At the end of an iteration the last rank sends A[m-1, n-1] to rank 0, which
sets A[0, 0] = -A[m-1, n-1].  A barrier starts every iteration; rank 0 prints the JSON.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import _prk_common as prk


def parse_arguments(argv: list[str], size: int) -> tuple[int, int, int]:
    """Iterations, m and n, refused unless every rank gets at least one column."""
    args = prk.parse_ints(argv, "p2p-mpi4py.py <iterations> <m> <n>",
                          [("iterations", 1, None), ("m", 2, None), ("n", 2, None)])
    iterations, m, n = args["iterations"], args["m"], args["n"]
    if n < size:
        raise prk.ArgumentError(f"n {n} is smaller than the number of ranks {size}")
    return iterations, m, n


def main(argv: list[str]) -> None:
    comm = MPI.COMM_WORLD
    me, size = comm.rank, comm.size
    iterations, m, n = parse_arguments(argv, size)
    j0, j1 = prk.block(n, size, me)
    w = j1 - j0
    a = np.zeros((m, w + 1))  # column 0: ghost (global j0-1); columns 1..w: global j0..j1-1
    a[0, 1:] = np.arange(j0, j1)
    if me == 0:
        a[:, 1] = np.arange(m)
    first = 2 if me == 0 else 1  # first local column that is computed (global column 0 is fixed)
    tmp = np.empty(max(w + 1 - first, 0))
    left = me - 1 if me > 0 else None
    right = me + 1 if me < size - 1 else None
    corner = np.empty(1)

    def step(_k: int) -> None:
        for i in range(m):
            if left is not None:
                comm.Recv([a[i, 0:1], MPI.DOUBLE], source=left, tag=i)
            if i > 0 and tmp.size:
                np.subtract(a[i - 1, first:], a[i - 1, first - 1:-1], out=tmp)
                tmp[0] += a[i, first - 1]
                np.cumsum(tmp, out=a[i, first:])
            if right is not None:
                comm.Send([a[i, w:w + 1], MPI.DOUBLE], dest=right, tag=i)
        if size == 1:
            a[0, 1] = -a[m - 1, w]
        elif me == size - 1:
            corner[0] = a[m - 1, w]
            comm.Send([corner, MPI.DOUBLE], dest=0, tag=m)
        elif me == 0:
            comm.Recv([corner, MPI.DOUBLE], source=size - 1, tag=m)
            a[0, 1] = -corner[0]

    warmup, times = prk.time_iterations_mpi(comm, MPI.Wtime, step, iterations)

    reference = float((iterations + 1) * (m + n - 2))
    if me == size - 1:
        if prk.perturb_requested():
            a[m - 1, w] += 1.0 + 1e-3 * reference
        observed = float(a[m - 1, w])
    else:
        observed = None
    observed = comm.bcast(observed, root=size - 1)
    prk.finish_mpi(
        comm, warmup, times,
        kernel="p2p", implementation="mpi4py", ranks=size, threads=1,
        parameters={"iterations": iterations, "m": m, "n": n,
                    "decomposition": "1-D column strips, row-by-row pipeline (Send/Recv)",
                    "vectorization": "row scan (np.cumsum) within a strip",
                    "bytes_counting": "compulsory traffic: A read+write once (2 x 8 B x m x n)"},
        size=m, timer=prk.mpi_timer(MPI), bytes_per_iteration=2.0 * 8 * m * n,
        flops_per_iteration=2.0 * (m - 1) * (n - 1), error=abs(observed - reference) / reference,
        tolerance=prk.EPSILON,
        details={"kind": "relative error of the corner A[m-1, n-1]", "expected": reference, "observed": observed},
        rate_unit="MFlop/s")


if __name__ == "__main__":
    prk.run_main(main, show_errors=MPI.COMM_WORLD.rank == 0)
