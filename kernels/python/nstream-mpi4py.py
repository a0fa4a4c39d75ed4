"""PRK nstream with mpi4py: each rank updates its block of the vectors (NumPy inside).

Usage: mpiexec -n R python nstream-mpi4py.py <iterations> <length>

Same definition and validation as nstream-numpy.py; ``length`` is the global length, split as
evenly as possible (lengths that do not divide evenly work).  A barrier starts every iteration,
every rank times every iteration with MPI_Wtime, rank 0 gathers all times and prints the JSON.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import _prk_common as prk


def main(argv: list[str]) -> None:
    comm = MPI.COMM_WORLD
    args = prk.parse_ints(argv, "nstream-mpi4py.py <iterations> <length>",
                          [("iterations", 1, None), ("length", 1, None)])
    iterations, length = args["iterations"], args["length"]
    if length < comm.size:
        raise prk.ArgumentError(f"length {length} is smaller than the number of ranks {comm.size}")
    local = prk.load_sibling("nstream-numpy.py")
    start, stop = prk.block(length, comm.size, comm.rank)
    n = stop - start
    a, b, c = np.zeros(n), np.full(n, 2.0), np.full(n, 2.0)
    warmup, times = prk.time_iterations_mpi(comm, MPI.Wtime, local.make_step(a, b, c), iterations)

    if prk.perturb_requested() and comm.rank == 0:
        a[n // 2] += 1.0 + abs(a[n // 2])
    asum = comm.allreduce(float(np.sum(np.abs(a))), op=MPI.SUM)
    reference = local.expected_sum(iterations, length)
    prk.finish_mpi(
        comm, warmup, times,
        kernel="nstream", implementation="mpi4py", ranks=comm.size, threads=1,
        parameters={"iterations": iterations, "length": length, "scalar": local.SCALAR,
                    "decomposition": "1-D blocks", "bytes_counting": "PRK: 4 arrays x 8 B x length per iteration"},
        size=length, timer=prk.mpi_timer(MPI), bytes_per_iteration=4.0 * 8 * length,
        flops_per_iteration=3.0 * length, error=abs(reference - asum) / abs(reference), tolerance=prk.EPSILON,
        details={"kind": "relative error of sum|A| over all ranks", "expected": reference, "observed": asum},
        rate_unit="MB/s")


if __name__ == "__main__":
    prk.run_main(main, show_errors=MPI.COMM_WORLD.rank == 0)
