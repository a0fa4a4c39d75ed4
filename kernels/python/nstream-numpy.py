"""PRK nstream in NumPy: A += B + scalar*C over vectors of ``length`` doubles.

Usage: nstream-numpy.py <iterations> <length>

PRK definition: A = 0, B = 2, C = 2, scalar = 3; each iteration A += B + 3*C; validation
compares sum|A| with length * sum_k (B + 3*C) over the N+1 iterations (relative error <= 1e-8).
Bytes per iteration are PRK's count, 4 arrays x 8 B x length (read A, B, C; write A).

Speed: NumPy's ``A += B + s*C`` makes two full-length temporaries (3 extra passes over memory).
Here the update runs in cache-sized chunks with one reused temporary, so only A, B and C
stream from memory, as in the C kernel.
"""

from __future__ import annotations

import numpy as np

import _prk_common as prk

SCALAR = 3.0
CHUNK = 1 << 17  # 1 MiB temporary: stays in L2/L3 while A, B, C stream


def expected_sum(iterations: int, length: int) -> float:
    value = 0.0
    for _ in range(iterations + 1):
        value += 2.0 + SCALAR * 2.0
    return value * length


def make_step(a: np.ndarray, b: np.ndarray, c: np.ndarray):
    """An in-place, chunked A += B + scalar*C (no full-length temporaries)."""
    n = a.size
    tmp = np.empty(min(CHUNK, max(n, 1)))
    chunks = [(a[i:i + CHUNK], b[i:i + CHUNK], c[i:i + CHUNK], tmp[:min(CHUNK, n - i)]) for i in range(0, n, CHUNK)]

    def step(_k: int) -> None:
        for ac, bc, cc, t in chunks:
            np.multiply(cc, SCALAR, out=t)
            np.add(t, bc, out=t)
            np.add(ac, t, out=ac)

    return step


def main(argv: list[str]) -> None:
    args = prk.parse_ints(argv, "nstream-numpy.py <iterations> <length>",
                          [("iterations", 1, None), ("length", 1, None)])
    iterations, length = args["iterations"], args["length"]
    a = np.zeros(length)
    b = np.full(length, 2.0)
    c = np.full(length, 2.0)
    warmup, times = prk.time_iterations(make_step(a, b, c), iterations)

    if prk.perturb_requested():
        a[length // 2] += 1.0 + abs(a[length // 2])
    reference = expected_sum(iterations, length)
    asum = float(np.sum(np.abs(a)))
    error = abs(reference - asum) / abs(reference)
    prk.emit(prk.document(
        kernel="nstream", implementation="numpy", ranks=1, threads=1,
        parameters={"iterations": iterations, "length": length, "scalar": SCALAR,
                    "bytes_counting": "PRK: 4 arrays x 8 B x length per iteration"},
        size=length, timer=prk.perf_counter_timer(), warmup_times=[warmup], iteration_times=[times],
        bytes_per_iteration=4.0 * 8 * length, flops_per_iteration=3.0 * length,
        error=error, tolerance=prk.EPSILON,
        details={"kind": "relative error of sum|A|", "expected": reference, "observed": asum},
        rate_unit="MB/s"))


if __name__ == "__main__":
    prk.run_main(main)
