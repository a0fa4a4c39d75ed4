"""PRK transpose in NumPy: B += A^T; A += 1 on order x order matrices.

Usage: transpose-numpy.py <iterations> <order> [tile]   (tile default 128; tile >= order: one strip)

PRK definition: A[i, j] = i*order + j, B = 0; after N+1 iterations
B[i, j] = (j*order + i)*(N+1) + N(N+1)/2.  Validation: sum of absolute errors <= 1e-8 (every
value is an integer, exact in fp64).  Bytes as moved: A and B each read and written (4 x 8 B x order^2); PRK's own
count, 2 x 8 B x order^2, is kept as prk_work_per_iteration.

Speed: ``B += A.T`` is done block by block through a small cache-resident buffer
(``prk.transposed_add_blocks``: whole cache lines read from A, B's rows added contiguously), and
A's block is overwritten with the buffer plus one while its cache lines are still there.  At
order 4096 this is about 1.7x the plain ``B += A.T; A += 1`` timed in the same run (``make
bench``, reports/bench.json).
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk

DEFAULT_TILE = 128


def make_step(a: np.ndarray, b: np.ndarray, tile: int, rows: int | None = None):
    """One iteration, B += A.T then A += 1, block by block (see the module docstring)."""
    blocks = prk.transposed_add_blocks(b, a, tile, rows)

    def step(_k: int) -> None:
        for a_block, buf, buf_t, b_block in blocks:
            np.copyto(buf, a_block)
            np.add(b_block, buf_t, out=b_block)
            np.add(buf, 1.0, out=a_block)

    return step


def absolute_error(b: np.ndarray, iterations: int, rows: int = 256) -> float:
    """Sum of |B - expected| computed in row blocks (no order^2 temporary)."""
    n = b.shape[0]
    addit = 0.5 * iterations * (iterations + 1)
    cols = np.arange(n, dtype=np.float64) * n
    total = 0.0
    for i0 in range(0, n, rows):
        i = np.arange(i0, min(i0 + rows, n), dtype=np.float64)[:, None]
        expected = (cols[None, :] + i) * (iterations + 1) + addit
        total += float(np.abs(b[i0:i0 + rows] - expected).sum())
    return total


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "transpose-numpy.py <iterations> <order> [tile]",
                          [("iterations", 1, None), ("order", 1, None), ("tile", 1, DEFAULT_TILE)])
    iterations, order, tile = args["iterations"], args["order"], min(args["tile"], args["order"])
    a = np.arange(order * order, dtype=np.float64).reshape(order, order)
    b = np.zeros((order, order))
    warmup, times = prk.time_iterations(make_step(a, b, tile), iterations)

    if prk.perturb_requested():
        b[order // 2, order // 3] += 1.0
    error = absolute_error(b, iterations)
    prk.emit(prk.document(
        kernel="transpose", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "order": order, "tile": tile,
                    "bytes_counting": "moved: A read+write, B read+write (4 x 8 B x order^2); "
                                      "PRK counts 2 x 8 B x order^2"},
        size=order, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=4.0 * 8 * order * order, flops_per_iteration=2.0 * order * order,
        prk_work=2.0 * 8 * order * order,
        error=error, tolerance=prk.EPSILON,
        details={"kind": "sum of absolute errors of B"}, rate_unit="MB/s"))


if __name__ == "__main__":
    prk.run_main(main)
