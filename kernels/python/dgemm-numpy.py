"""PRK dgemm in NumPy: C += A B on order x order matrices through the BLAS NumPy uses.

Usage: dgemm-numpy.py <iterations> <order>

PRK definition: A[i, j] = B[i, j] = j, C = 0; each iteration C += A B.  Validation: the sum of
C equals (N+1) * order^3 (order-1)^2 / 4 (relative error <= 1e-8).  Flops as executed:
2*order^3 in the BLAS call plus order^2 for the accumulation (PRK's count: 2*order^3).
Threads: the BLAS pool size (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS), read back with threadpoolctl.
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk


def make_step(a: np.ndarray, b: np.ndarray, c: np.ndarray):
    product = np.empty_like(c)

    def step(_k: int) -> None:
        np.matmul(a, b, out=product)
        np.add(c, product, out=c)

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "dgemm-numpy.py <iterations> <order>",
                          [("iterations", 1, None), ("order", 1, None)])
    iterations, order = args["iterations"], args["order"]
    a = np.tile(np.arange(order, dtype=np.float64), (order, 1))
    b = a.copy()
    c = np.zeros((order, order))
    warmup, times = prk.time_iterations(make_step(a, b, c), iterations)

    reference = 0.25 * order ** 3 * (order - 1.0) ** 2 * (iterations + 1)
    if prk.perturb_requested():
        c[order // 2, order // 2] += 1.0 + 1e-3 * reference
    checksum = float(c.sum())
    error = abs(checksum - reference) / reference if reference else abs(checksum)
    prk.emit(prk.document(
        kernel="dgemm", implementation="numpy", ranks=1, threads=prk.blas_threads(),
        parameters={"iterations": iterations, "order": order, "blas": "numpy.matmul",
                    "bytes_counting": "compulsory traffic: A, B read, C read+write, product write+read (6 x 8 B x order^2)"},
        size=order, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=6.0 * 8 * order * order, flops_per_iteration=2.0 * order ** 3 + order * order,
        prk_work=2.0 * order ** 3,
        error=error, tolerance=prk.EPSILON,
        details={"kind": "relative error of sum(C)", "expected": reference, "observed": checksum},
        rate_unit="MFlop/s"))


if __name__ == "__main__":
    prk.run_main(main)
