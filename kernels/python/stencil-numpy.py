"""PRK stencil in NumPy: a star stencil of radius r applied to an n x n grid.

Usage: stencil-numpy.py <iterations> <n> [radius]   (radius default 2)

PRK definition: IN[i, j] = i + j (COEFX = COEFY = 1), OUT = 0, star weights
W[0, +-k] = W[+-k, 0] = +-1/(2 k r) for k = 1..r; each iteration OUT += W * IN on the
interior (points at least r from the edge), then IN += 1 everywhere.  Validation: the mean of
|OUT| over the (n-2r)^2 interior points equals (N+1)*(COEFX+COEFY) (absolute error <= 1e-8).
Flops as executed: 8r per interior point (the zero centre weight is skipped) plus n^2 for
IN += 1; PRK's own count, (2*(4r+1)+1) per interior point, is kept as prk_work_per_iteration.

Speed: the interior is processed in blocks of rows so that the one reused temporary and the
OUT block stay in cache while each of the 4r shifted IN views streams through.
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk

COEF = 1.0
ROW_BLOCK = 32


def star_weights(r: int) -> list[tuple[int, int, float]]:
    """(di, dj, weight) of the 4r non-zero star points."""
    points = []
    for k in range(1, r + 1):
        w = 1.0 / (2.0 * k * r)
        points += [(0, k, w), (0, -k, -w), (k, 0, w), (-k, 0, -w)]
    return points


def make_step(a: np.ndarray, b: np.ndarray, r: int):
    n = a.shape[0]
    hi = n - r
    tmp = np.empty((ROW_BLOCK, hi - r))
    blocks = []
    for i0 in range(r, hi, ROW_BLOCK):
        i1 = min(i0 + ROW_BLOCK, hi)
        terms = [(a[i0 + di:i1 + di, r + dj:hi + dj], w) for di, dj, w in star_weights(r)]
        blocks.append((b[i0:i1, r:hi], terms, tmp[:i1 - i0]))

    def step(_k: int) -> None:
        for out, terms, t in blocks:
            for view, w in terms:
                np.multiply(view, w, out=t)
                np.add(out, t, out=out)
        np.add(a, 1.0, out=a)

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "stencil-numpy.py <iterations> <n> [radius]",
                          [("iterations", 1, None), ("n", 1, None), ("radius", 1, 2)])
    iterations, n, r = args["iterations"], args["n"], args["radius"]
    if 2 * r + 1 > n:
        raise prk.ArgumentError(f"radius {r} is too large for grid n={n} (need 2*radius+1 <= n)")
    a = np.add.outer(np.arange(n, dtype=np.float64) * COEF, np.arange(n, dtype=np.float64) * COEF)
    b = np.zeros((n, n))
    warmup, times = prk.time_iterations(make_step(a, b, r), iterations)

    active = (n - 2 * r) ** 2
    if prk.perturb_requested():
        b[n // 2, n // 2] += float(active)
    norm = float(np.abs(b[r:n - r, r:n - r]).sum()) / active
    reference = (iterations + 1) * (COEF + COEF)
    prk.emit(prk.document(
        kernel="stencil", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "n": n, "radius": r, "pattern": "star",
                    "bytes_counting": "compulsory traffic: IN read+write (IN += 1), OUT read+write on the interior"},
        size=n, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=8.0 * (2.0 * n * n + 2.0 * active), flops_per_iteration=8.0 * r * active + n * n,
        prk_work=(2.0 * (4 * r + 1) + 1) * active,
        error=abs(norm - reference), tolerance=prk.EPSILON,
        details={"kind": "absolute error of mean |OUT| over the interior", "expected": reference, "observed": norm},
        rate_unit="MFlop/s"))


if __name__ == "__main__":
    prk.run_main(main)
