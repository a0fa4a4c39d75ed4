"""PRK sparse in NumPy: repeated sparse matrix-vector products with a scrambled 2-D star stencil.

Usage: sparse-numpy.py <iterations> <lsize> <radius>

PRK definition: the grid is 2^lsize x 2^lsize (periodic), the matrix order 4^lsize, each row
holds the 4r+1 points of a star stencil of radius r; grid indices are scrambled by reversing
their 2*lsize bits (PRK's SCRAMBLE), column indices are sorted within a row, and the entry in
column c is 1/(c+1).  Each iteration adds (row+1) to vector[row], then result += matrix@vector.
Validation: sum(result) = nent (N+1)(N+2)/2 with nent = 4^lsize (4r+1) (relative error <= 1e-8).
Flops as executed: 2*nent plus 4^lsize for the vector update (PRK's count: 2*nent).

Speed: the product runs over blocks of rows, gathering into one reused cache-sized buffer.
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk

ROWS_PER_BLOCK = 1 << 14


def bit_reverse(values: np.ndarray, bits: int) -> np.ndarray:
    """Reverse the lowest ``bits`` bits of each value (a permutation of 0 .. 2^bits - 1)."""
    x = values.astype(np.uint64)
    for shift, mask in ((1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F),
                        (8, 0x00FF00FF00FF00FF), (16, 0x0000FFFF0000FFFF), (32, 0x00000000FFFFFFFF)):
        m, s = np.uint64(mask), np.uint64(shift)
        x = ((x >> s) & m) | ((x & m) << s)
    return (x >> np.uint64(64 - bits)).astype(np.int64) if bits > 0 else np.zeros_like(values, dtype=np.int64)


def build_matrix(lsize: int, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """(column indices, values), both of shape (4^lsize, 4r+1), rows sorted by column."""
    size = 1 << lsize
    rows = np.arange(size * size, dtype=np.int64)
    i, j = rows % size, rows // size
    points = [(i, j)]
    for r in range(1, radius + 1):
        points += [((i + r) % size, j), ((i - r) % size, j), (i, (j + r) % size), (i, (j - r) % size)]
    cols = np.stack([bit_reverse(pi + (pj << lsize), 2 * lsize) for pi, pj in points], axis=1)
    cols.sort(axis=1)
    return cols, 1.0 / (cols + 1.0)


def make_step(cols: np.ndarray, values: np.ndarray, vector: np.ndarray, result: np.ndarray):
    nrows, width = cols.shape
    ramp = np.arange(1.0, nrows + 1.0)
    gathered = np.empty((min(ROWS_PER_BLOCK, nrows), width))
    sums = np.empty(min(ROWS_PER_BLOCK, nrows))
    blocks = []
    for r0 in range(0, nrows, ROWS_PER_BLOCK):
        r1 = min(r0 + ROWS_PER_BLOCK, nrows)
        blocks.append((cols[r0:r1], values[r0:r1], result[r0:r1], gathered[:r1 - r0], sums[:r1 - r0]))

    def step(_k: int) -> None:
        np.add(vector, ramp, out=vector)
        for c, v, res, g, s in blocks:
            np.take(vector, c, out=g)
            np.multiply(g, v, out=g)
            np.sum(g, axis=1, out=s)
            np.add(res, s, out=res)

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "sparse-numpy.py <iterations> <lsize> <radius>",
                          [("iterations", 1, None), ("lsize", 0, None), ("radius", 0, None)])
    iterations, lsize, radius = args["iterations"], args["lsize"], args["radius"]
    if lsize > 15:
        raise prk.ArgumentError(f"lsize {lsize} is too large (at most 15: the matrix would not fit in memory)")
    size = 1 << lsize
    if size < 2 * radius + 1:
        raise prk.ArgumentError(f"grid extent 2^{lsize} = {size} is smaller than the stencil diameter {2 * radius + 1}")
    cols, values = build_matrix(lsize, radius)
    size2, width = cols.shape
    nent = size2 * width
    vector = np.zeros(size2)
    result = np.zeros(size2)
    warmup, times = prk.time_iterations(make_step(cols, values, vector, result), iterations)

    reference = 0.5 * nent * (iterations + 1) * (iterations + 2)
    if prk.perturb_requested():
        result[size2 // 2] += 1.0 + 1e-3 * reference
    total = float(result.sum())
    prk.emit(prk.document(
        kernel="sparse", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "lsize": lsize, "radius": radius, "matrix_order": size2,
                    "nonzeros": nent, "scramble": True,
                    "bytes_counting": "compulsory traffic: values and column indices (16 B x nent), "
                                      "vector read+write and gather, result read+write (40 B x order)"},
        size=lsize, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=16.0 * nent + 40.0 * size2, flops_per_iteration=2.0 * nent + size2,
        prk_work=2.0 * nent,
        error=abs(total - reference) / reference, tolerance=prk.EPSILON,
        details={"kind": "relative error of sum(result)", "expected": reference, "observed": total},
        rate_unit="MFlop/s"))


if __name__ == "__main__":
    prk.run_main(main)
