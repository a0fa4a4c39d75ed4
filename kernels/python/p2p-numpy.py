"""PRK p2p (synch_p2p) in NumPy: a wavefront recurrence on an m x n grid.

Usage: p2p-numpy.py <iterations> <m> <n>

PRK definition: A[0, j] = j, A[i, 0] = i, the rest 0; each iteration computes, for i = 1..m-1
and j = 1..n-1 in dependency order, A[i, j] = A[i-1, j] + A[i, j-1] - A[i-1, j-1], then sets
A[0, 0] = -A[m-1, n-1].  Validation: A[m-1, n-1] = (N+1)*(m+n-2) (relative error <= 1e-8).
Flops: 2 per updated point, 2*(m-1)*(n-1) per iteration, as executed.

Speed: every point of one anti-diagonal (i + j = d) depends only on diagonals d-1 and d-2, so
the grid is kept in skewed storage, S[d, i] = A[i, d - i], where each anti-diagonal is one
contiguous row: a diagonal is two contiguous vector operations (add, subtract) instead of m*n
scalar steps, and no strided access walks a new cache line and page per point.  The wavefront is
vectorized, not reassociated: the arithmetic is the recurrence's own, in its own order.
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk


def skewed_grid(m: int, n: int) -> np.ndarray:
    """PRK's initial grid in skewed storage S[d, i] = A[i, d - i] ((m + n - 1) x m; the rest unused)."""
    skewed = np.zeros((m + n - 1, m))
    skewed[np.arange(n), 0] = np.arange(n)  # A[0, j] = j
    skewed[np.arange(m), np.arange(m)] = np.arange(m)  # A[i, 0] = i
    return skewed


def unskewed(skewed: np.ndarray, m: int, n: int) -> np.ndarray:
    """The m x n grid A back from skewed storage (for checks; A[i, j] = S[i + j, i])."""
    i, j = np.indices((m, n))
    return skewed[i + j, i]


def make_step(skewed: np.ndarray, m: int, n: int):
    """One p2p iteration on the skewed grid: diagonals 2 .. m+n-2 in order, then the corner feedback."""
    rows = []
    for d in range(2, m + n - 1):
        lo, hi = max(1, d - (n - 1)), min(m - 1, d - 1)  # interior rows i on diagonal d
        if lo <= hi:
            # point A[i, j] = S[d, i]; up A[i-1, j] = S[d-1, i-1]; left A[i, j-1] = S[d-1, i];
            # up-left A[i-1, j-1] = S[d-2, i-1]
            rows.append((skewed[d, lo:hi + 1], skewed[d - 1, lo - 1:hi], skewed[d - 1, lo:hi + 1],
                         skewed[d - 2, lo - 1:hi]))
    last = m + n - 2

    def step(_k: int) -> None:
        for point, up, left, upleft in rows:
            np.add(up, left, out=point)
            np.subtract(point, upleft, out=point)
        skewed[0, 0] = -skewed[last, m - 1]  # A[0, 0] = -A[m-1, n-1]

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "p2p-numpy.py <iterations> <m> <n>",
                          [("iterations", 1, None), ("m", 2, None), ("n", 2, None)])
    iterations, m, n = args["iterations"], args["m"], args["n"]
    skewed = skewed_grid(m, n)
    warmup, times = prk.time_iterations(make_step(skewed, m, n), iterations)

    reference = float((iterations + 1) * (m + n - 2))
    if prk.perturb_requested():
        skewed[m + n - 2, m - 1] += 1.0 + 1e-3 * reference
    corner = float(skewed[m + n - 2, m - 1])
    prk.emit(prk.document(
        kernel="p2p", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "m": m, "n": n, "vectorization": "anti-diagonal wavefront, skewed storage",
                    "bytes_counting": "compulsory traffic: A read+write once (2 x 8 B x m x n)"},
        size=m, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=2.0 * 8 * m * n, flops_per_iteration=2.0 * (m - 1) * (n - 1),
        error=abs(corner - reference) / reference, tolerance=prk.EPSILON,
        details={"kind": "relative error of the corner A[m-1, n-1]", "expected": reference, "observed": corner},
        rate_unit="MFlop/s"))


if __name__ == "__main__":
    prk.run_main(main)
