"""PRK p2p (synch_p2p) in NumPy: a wavefront recurrence on an m x n grid.

Usage: p2p-numpy.py <iterations> <m> <n>

PRK definition: A[0, j] = j, A[i, 0] = i, the rest 0; each iteration computes, for i = 1..m-1
and j = 1..n-1 in dependency order, A[i, j] = A[i-1, j] + A[i, j-1] - A[i-1, j-1], then sets
A[0, 0] = -A[m-1, n-1].  Validation: A[m-1, n-1] = (N+1)*(m+n-2) (relative error <= 1e-8).
Flops: 2 per updated point, 2*(m-1)*(n-1) per iteration, as executed.

Speed: every point of one anti-diagonal (i + j = d) depends only on diagonals d-1 and d-2, so
each diagonal is one strided NumPy view updated by two vector operations (the wavefront is
vectorized, not reassociated: the arithmetic is the recurrence's own).
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk


def diagonal_views(a: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(point, up, left, up-left) views of every anti-diagonal of the interior, in order."""
    m, n = a.shape
    flat = a.reshape(-1)
    stride = n - 1  # moving one row down and one column left along the flat array
    views = []
    for d in range(2, m + n - 1):
        lo, hi = max(1, d - (n - 1)), min(m - 1, d - 1)
        if lo > hi:
            continue
        start, stop = lo * n + (d - lo), hi * n + (d - hi) + 1
        views.append((flat[start:stop:stride], flat[start - n:stop - n:stride],
                      flat[start - 1:stop - 1:stride], flat[start - n - 1:stop - n - 1:stride]))
    return views


def make_step(a: np.ndarray):
    m, n = a.shape
    views = diagonal_views(a)

    def step(_k: int) -> None:
        for point, up, left, upleft in views:
            np.add(up, left, out=point)
            np.subtract(point, upleft, out=point)
        a[0, 0] = -a[m - 1, n - 1]

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "p2p-numpy.py <iterations> <m> <n>",
                          [("iterations", 1, None), ("m", 2, None), ("n", 2, None)])
    iterations, m, n = args["iterations"], args["m"], args["n"]
    a = np.zeros((m, n))
    a[0, :] = np.arange(n)
    a[:, 0] = np.arange(m)
    warmup, times = prk.time_iterations(make_step(a), iterations)

    reference = float((iterations + 1) * (m + n - 2))
    if prk.perturb_requested():
        a[m - 1, n - 1] += 1.0 + 1e-3 * reference
    corner = float(a[m - 1, n - 1])
    prk.emit(prk.document(
        kernel="p2p", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "m": m, "n": n, "vectorization": "anti-diagonal wavefront",
                    "bytes_counting": "compulsory traffic: A read+write once (2 x 8 B x m x n)"},
        size=m, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=2.0 * 8 * m * n, flops_per_iteration=2.0 * (m - 1) * (n - 1),
        error=abs(corner - reference) / reference, tolerance=prk.EPSILON,
        details={"kind": "relative error of the corner A[m-1, n-1]", "expected": reference, "observed": corner},
        rate_unit="MFlop/s"))


if __name__ == "__main__":
    prk.run_main(main)
