"""PRK stencil with mpi4py: 2-D block decomposition with halo exchange (NumPy inside).

Usage: mpiexec -n R python stencil-mpi4py.py <iterations> <n> [radius]   (radius default 2)

Same definition and validation as stencil-numpy.py.  The R ranks form a 2-D grid
(MPI_Dims_create); each owns a block of rows and columns (sizes that do not divide evenly
work) plus a halo of ``radius`` points on each side, refreshed every iteration from the four
neighbours with MPI_Sendrecv (a star stencil needs no corners).  Every block must be at
least ``radius`` points wide.  A barrier starts every iteration; rank 0 prints the JSON.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import _prk_common as prk

ROW_BLOCK = 32


class Halo:
    """Halo exchange of one local array along both grid dimensions."""

    def __init__(self, cart, a: np.ndarray, r: int, h: int, w: int):
        self.cart, self.a, self.r, self.h, self.w = cart, a, r, h, w
        self.up, self.down = cart.Shift(0, 1)
        self.left, self.right = cart.Shift(1, 1)
        self.row_send, self.row_recv = np.empty((r, w)), np.empty((r, w))
        self.col_send, self.col_recv = np.empty((h, r)), np.empty((h, r))

    def _swap(self, send_view, dest, recv_view, source, sbuf, rbuf) -> None:
        np.copyto(sbuf, send_view)
        self.cart.Sendrecv([sbuf, MPI.DOUBLE], dest=dest, recvbuf=[rbuf, MPI.DOUBLE], source=source)
        if source != MPI.PROC_NULL:
            np.copyto(recv_view, rbuf)

    def exchange(self) -> None:
        a, r, h, w = self.a, self.r, self.h, self.w
        cols = slice(r, r + w)
        rows = slice(r, r + h)
        # rows: my last r rows go down, my top halo comes from up; then the reverse
        self._swap(a[h:h + r, cols], self.down, a[0:r, cols], self.up, self.row_send, self.row_recv)
        self._swap(a[r:2 * r, cols], self.up, a[h + r:h + 2 * r, cols], self.down, self.row_send, self.row_recv)
        self._swap(a[rows, w:w + r], self.right, a[rows, 0:r], self.left, self.col_send, self.col_recv)
        self._swap(a[rows, r:2 * r], self.left, a[rows, w + r:w + 2 * r], self.right, self.col_send, self.col_recv)


def parse_arguments(argv: list[str], ranks: int) -> tuple[int, int, int, list[int]]:
    """Iterations, n, radius and the 2-D rank grid, refused unless every block is at least radius wide."""
    args = prk.parse_ints(argv, "stencil-mpi4py.py <iterations> <n> [radius]",
                          [("iterations", 1, None), ("n", 1, None), ("radius", 1, 2)])
    iterations, n, r = args["iterations"], args["n"], args["radius"]
    if 2 * r + 1 > n:
        raise prk.ArgumentError(f"radius {r} is too large for grid n={n} (need 2*radius+1 <= n)")
    dims = MPI.Compute_dims(ranks, 2)
    if n // dims[0] < r or n // dims[1] < r:
        raise prk.ArgumentError(f"grid n={n} split over {dims[0]}x{dims[1]} ranks gives blocks narrower than radius {r}")
    return iterations, n, r, dims


def main(argv: list[str]) -> None:
    comm = MPI.COMM_WORLD
    iterations, n, r, dims = parse_arguments(argv, comm.size)
    serial = prk.load_sibling("stencil-numpy.py")
    cart = comm.Create_cart(dims, periods=[False, False], reorder=False)
    ci, cj = cart.Get_coords(cart.rank)
    i0, i1 = prk.block(n, dims[0], ci)
    j0, j1 = prk.block(n, dims[1], cj)
    h, w = i1 - i0, j1 - j0
    gi = np.arange(i0 - r, i1 + r, dtype=np.float64) * serial.COEF
    gj = np.arange(j0 - r, j1 + r, dtype=np.float64) * serial.COEF
    a = np.add.outer(gi, gj)  # local IN with halo; local (x, y) is global (i0 + x - r, j0 + y - r)
    b = np.zeros((h, w))  # local OUT, owned points only
    halo = Halo(cart, a, r, h, w)

    # owned points that are active (at least r from the global edge), in local OUT coordinates
    ai0, ai1 = max(i0, r) - i0, min(i1, n - r) - i0
    aj0, aj1 = max(j0, r) - j0, min(j1, n - r) - j0
    blocks = []
    if ai1 > ai0 and aj1 > aj0:
        tmp = np.empty((ROW_BLOCK, aj1 - aj0))
        for x0 in range(ai0, ai1, ROW_BLOCK):
            x1 = min(x0 + ROW_BLOCK, ai1)
            terms = [(a[x0 + r + di:x1 + r + di, aj0 + r + dj:aj1 + r + dj], wt) for di, dj, wt in serial.star_weights(r)]
            blocks.append((b[x0:x1, aj0:aj1], terms, tmp[:x1 - x0]))
    owned = a[r:r + h, r:r + w]

    def step(_k: int) -> None:
        halo.exchange()
        for out, terms, t in blocks:
            for view, wt in terms:
                np.multiply(view, wt, out=t)
                np.add(out, t, out=out)
        np.add(owned, 1.0, out=owned)

    warmup, times = prk.time_iterations_mpi(comm, MPI.Wtime, step, iterations)

    active = (n - 2 * r) ** 2
    if prk.perturb_requested() and i0 <= n // 2 < i1 and j0 <= n // 2 < j1:
        b[n // 2 - i0, n // 2 - j0] += float(active)
    local = float(np.abs(b[ai0:ai1, aj0:aj1]).sum()) if blocks else 0.0
    norm = comm.allreduce(local, op=MPI.SUM) / active
    reference = (iterations + 1) * (serial.COEF + serial.COEF)
    prk.finish_mpi(
        comm, warmup, times,
        kernel="stencil", implementation="mpi4py", ranks=comm.size, threads=1,
        parameters={"iterations": iterations, "n": n, "radius": r, "pattern": "star",
                    "decomposition": f"2-D blocks {dims[0]}x{dims[1]}, halo exchange (Sendrecv)",
                    "bytes_counting": "compulsory traffic: IN read+write (IN += 1), OUT read+write on the interior"},
        size=n, timer=prk.mpi_timer(MPI), bytes_per_iteration=8.0 * (2.0 * n * n + 2.0 * active),
        flops_per_iteration=8.0 * r * active + n * n, prk_work=(2.0 * (4 * r + 1) + 1) * active,
        error=abs(norm - reference), tolerance=prk.EPSILON,
        details={"kind": "absolute error of mean |OUT| over the interior", "expected": reference, "observed": norm},
        rate_unit="MFlop/s")


if __name__ == "__main__":
    prk.run_main(main, show_errors=MPI.COMM_WORLD.rank == 0)
