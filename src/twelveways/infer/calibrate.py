"""Untimed estimates of a runner's latency and throughput, used only to set LoadGen's expectations.

These numbers are never reported as results (LoadGen measures those); they are stored in the
results' attributes so a reader can see what LoadGen was told to expect.
"""

from __future__ import annotations

import time

import numpy as np


def _median_call(fn, seconds: float, min_calls: int = 5) -> float:
    times = []
    deadline = time.perf_counter() + seconds
    while len(times) < min_calls or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if len(times) >= 10000:
            break
    return float(np.median(times))


def calibrate(runner, total: int, samples_per_query: int, batch: int, seconds: float = 0.1) -> dict:
    """Median seconds for a 1-sample and an N-sample call, and samples/s at the Offline batch."""
    rng = np.random.default_rng(0)
    single = [int(rng.integers(total))]
    multi = [int(i) % total for i in range(samples_per_query)]
    full = [int(i) % total for i in range(batch)]
    for _ in range(3):  # warm-up: first calls allocate and pick kernels
        runner(single), runner(multi), runner(full)
    latency_single = _median_call(lambda: runner(single), seconds)
    latency_multi = _median_call(lambda: runner(multi), seconds)
    latency_batch = _median_call(lambda: runner(full), seconds)
    return {"latency_single_s": latency_single, "latency_multi_s": latency_multi,
            "batch": batch, "latency_batch_s": latency_batch,
            "throughput_sps": batch / max(latency_batch, 1e-9)}
