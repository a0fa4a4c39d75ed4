"""PRK transpose with mpi4py: column blocks, pairwise-exchange schedule, tiled local transposes.

Usage: mpiexec -n R python transpose-mpi4py.py <iterations> <order> [tile]   (tile default 128)

Same definition and validation as transpose-numpy.py.  Rank p owns columns [c0_p, c1_p) of A
and B (orders that do not divide evenly work).  B[:, mine] += A[mine, :]^T needs from rank q the
rows ``mine`` of q's column block; in phase k = 0..R-1 rank p sends to (p+k) mod R and receives
from (p-k) mod R (MPI_Sendrecv), then adds the received block's transpose in blocks staged
through a cache-resident buffer (``prk.transposed_add_blocks``, as in transpose-numpy.py).
A barrier starts every iteration; rank 0 gathers every rank's times and prints the JSON.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import _prk_common as prk


def make_step(comm, a: np.ndarray, b: np.ndarray, order: int, tile: int):
    me, size = comm.rank, comm.size
    blocks = [prk.block(order, size, p) for p in range(size)]
    c0, c1 = blocks[me]
    width = c1 - c0
    phases = []
    for k in range(size):
        to, frm = (me + k) % size, (me - k) % size
        t0, t1 = blocks[to]
        f0, f1 = blocks[frm]
        send = a[t0:t1, :]  # rows ``to`` owns as columns: contiguous (C order)
        recv = send if k == 0 else np.empty((width, f1 - f0))
        target = b[f0:f1, :]  # (f1-f0) x width, receives recv^T
        phases.append((to, frm, send, recv, prk.transposed_add_blocks(target, recv, tile)))

    def step(_k: int) -> None:
        for to, frm, send, recv, blocks in phases:
            if to != me:
                comm.Sendrecv([send, MPI.DOUBLE], dest=to, recvbuf=[recv, MPI.DOUBLE], source=frm)
            for recv_block, buf, buf_t, target_block in blocks:
                np.copyto(buf, recv_block)
                np.add(target_block, buf_t, out=target_block)
        np.add(a, 1.0, out=a)

    return step


def local_error(b: np.ndarray, c0: int, order: int, iterations: int, rows: int = 256) -> float:
    addit = 0.5 * iterations * (iterations + 1)
    cols = np.arange(c0, c0 + b.shape[1], dtype=np.float64) * order
    total = 0.0
    for i0 in range(0, order, rows):
        i = np.arange(i0, min(i0 + rows, order), dtype=np.float64)[:, None]
        total += float(np.abs(b[i0:i0 + rows] - ((cols[None, :] + i) * (iterations + 1) + addit)).sum())
    return total


def main(argv: list[str]) -> None:
    comm = MPI.COMM_WORLD
    args = prk.parse_ints(argv, "transpose-mpi4py.py <iterations> <order> [tile]",
                          [("iterations", 1, None), ("order", 1, None), ("tile", 1, 128)])
    iterations, order, tile = args["iterations"], args["order"], min(args["tile"], args["order"])
    if order < comm.size:
        raise prk.ArgumentError(f"order {order} is smaller than the number of ranks {comm.size}")
    c0, c1 = prk.block(order, comm.size, comm.rank)
    a = np.add.outer(np.arange(order, dtype=np.float64) * order, np.arange(c0, c1, dtype=np.float64))
    b = np.zeros((order, c1 - c0))
    warmup, times = prk.time_iterations_mpi(comm, MPI.Wtime, make_step(comm, a, b, order, tile), iterations)

    if prk.perturb_requested() and comm.rank == 0:
        b[order // 2, 0] += 1.0
    error = comm.allreduce(local_error(b, c0, order, iterations), op=MPI.SUM)
    prk.finish_mpi(
        comm, warmup, times,
        kernel="transpose", implementation="mpi4py", ranks=comm.size, threads=1,
        parameters={"iterations": iterations, "order": order, "tile": tile,
                    "decomposition": "1-D column blocks, pairwise exchange (Sendrecv)",
                    "bytes_counting": "moved: A read+write, B read+write (4 x 8 B x order^2); "
                                      "PRK counts 2 x 8 B x order^2"},
        size=order, timer=prk.mpi_timer(MPI), bytes_per_iteration=4.0 * 8 * order * order,
        flops_per_iteration=2.0 * order * order, prk_work=2.0 * 8 * order * order,
        error=error, tolerance=prk.EPSILON, details={"kind": "sum of absolute errors of B over all ranks"},
        rate_unit="MB/s")


if __name__ == "__main__":
    prk.run_main(main, show_errors=MPI.COMM_WORLD.rank == 0)
