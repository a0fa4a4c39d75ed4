"""Shared plumbing of the Python PRK kernels: arguments, timing loop, the one-JSON-object contract.

Every kernel in this folder is a standalone program (``python <kernel>-numpy.py ...``) that
prints exactly one JSON object on stdout (DESIGN.md "Kernel contract"); human-readable text
goes to stderr only.  Exit codes: 0 valid, 1 validation failed (JSON still printed), 2 bad
arguments (one ``error: ...`` line on stderr, no JSON), 3 out of memory (one ``error: rank R:
cannot allocate ...`` line, as the C kernels' ``prk_die``).

Timing rules kept here so that no kernel can get them wrong: wall clock only
(``time.perf_counter_ns`` for NumPy, ``MPI.Wtime`` for mpi4py), iteration 0 is the warm-up
(timed and reported apart, never in the rate), iterations 1..N timed one by one, and for MPI
a barrier starts every iteration and the per-iteration value is the maximum over ranks.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

import numpy as np

#: PRK validation tolerance.
EPSILON = 1e-8
#: Environment variable that perturbs one element of the result (tests only).
PERTURB_ENV = "TW_PRK_PERTURB"

TIME_SUMMARY = "per-iteration max over ranks; rate from the arithmetic mean of iterations 1..N"


class ArgumentError(Exception):
    """A bad command-line argument: reported as one line and exit code 2."""


def parse_ints(argv: list[str], usage: str, specs: list[tuple[str, int, int | None]]) -> dict:
    """Positional integer arguments: ``specs`` is [(name, minimum, default or None if required)]."""
    names = [name for name, _, _ in specs]
    required = sum(1 for _, _, default in specs if default is None)
    if len(argv) < required or len(argv) > len(specs):
        raise ArgumentError(f"expected {required}..{len(specs)} arguments, got {len(argv)}; usage: {usage}")
    values = {}
    for index, (name, minimum, default) in enumerate(specs):
        if index < len(argv):
            text = argv[index]
            try:
                value = int(text)
            except ValueError:
                raise ArgumentError(f"{name} must be an integer, got {text!r}; usage: {usage}") from None
        else:
            value = default
        if value < minimum:
            raise ArgumentError(f"{name} must be at least {minimum}, got {value}; usage: {usage}")
        values[name] = value
    assert list(values) == names
    return values


def bad_arguments(message: str, show: bool = True) -> None:
    """Print one ``error:`` line (on one rank only for MPI) and exit 2."""
    if show:
        print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def perturb_requested() -> bool:
    """Whether the test-only perturbation is switched on (``TW_PRK_PERTURB=1``)."""
    return os.environ.get(PERTURB_ENV, "") == "1"


def block(n: int, parts: int, index: int) -> tuple[int, int]:
    """[start, stop) of block ``index`` when ``n`` items are split as evenly as possible."""
    base, extra = divmod(n, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


#: Elements per staged block of a transposed add: 32,768 doubles = 256 KiB, inside L2 beside the
#: rows of the destination it feeds.
TRANSPOSE_BLOCK_ELEMENTS = 32 * 1024


def transposed_add_blocks(dst: np.ndarray, src: np.ndarray, tile: int, rows: int | None = None) -> list[tuple]:
    """Plan ``dst += src.T`` block by block through one small contiguous buffer.

    ``dst += src.T`` in one call makes NumPy's inner loop read one cache line of ``src`` per
    element.  Instead ``src`` is taken in blocks of ``tile`` columns by ``rows`` rows: copying a
    block into the buffer reads whole lines, and ``dst`` then gets ``buffer.T`` added along its
    contiguous rows while the buffer sits in cache.  Returns ``(src_block, buffer, buffer.T,
    dst_block)`` per block; the caller runs ``np.copyto(buffer, src_block)`` and
    ``np.add(dst_block, buffer.T, out=dst_block)`` (and may reuse the buffer before moving on).
    """
    m, n = src.shape
    if m == 0 or n == 0:
        return []
    tile = min(tile, n)
    rows = min(m, rows or max(tile, TRANSPOSE_BLOCK_ELEMENTS // tile))
    buffer = np.empty((rows, tile))
    blocks = []
    for c in range(0, n, tile):
        for r in range(0, m, rows):
            src_block = src[r:r + rows, c:c + tile]
            buf = buffer[:src_block.shape[0], :src_block.shape[1]]
            blocks.append((src_block, buf, buf.T, dst[c:c + tile, r:r + rows]))
    return blocks


def perf_counter_timer() -> dict:
    """The NumPy kernels' timer and its declared resolution."""
    return {"name": "time.perf_counter_ns", "resolution_s": float(time.get_clock_info("perf_counter").resolution)}


def time_iterations(step, iterations: int) -> tuple[float, list[float]]:
    """Run ``step(k)`` for k = 0..iterations, timing each call with ``perf_counter_ns``.

    Returns (warm-up seconds, [seconds of iterations 1..N]).
    """
    times = []
    for k in range(iterations + 1):
        start = time.perf_counter_ns()
        step(k)
        times.append((time.perf_counter_ns() - start) * 1e-9)
    return times[0], times[1:]


def time_iterations_mpi(comm, wtime, step, iterations: int) -> tuple[float, list[float]]:
    """As :func:`time_iterations` on one rank: a barrier starts every iteration, ``MPI.Wtime`` times it."""
    times = []
    for k in range(iterations + 1):
        comm.Barrier()
        start = wtime()
        step(k)
        times.append(wtime() - start)
    return times[0], times[1:]


def blas_threads() -> int:
    """Threads of the BLAS NumPy uses (threadpoolctl), 1 if it cannot be told."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return 1
    counts = [int(pool.get("num_threads", 1)) for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return max(counts) if counts else 1


def document(*, kernel: str, implementation: str, ranks: int, threads: int, parameters: dict, size: int,
             timer: dict, warmup_times: list[float], iteration_times: list[list[float]],
             bytes_per_iteration: float, flops_per_iteration: float, error: float, tolerance: float,
             details: dict, rate_unit: str, prk_work: float | None = None) -> dict:
    """The contract's JSON object.  ``iteration_times[r][i]`` is iteration i+1 on rank r.

    ``bytes_per_iteration`` / ``flops_per_iteration`` are what this program moves (compulsory
    traffic) and executes; the rate is computed from them, as the C kernels do.  ``prk_work`` is
    the work by PRK's own convention (e.g. transpose counts 2 x 8 B x order^2), recorded in
    ``parameters['prk_work_per_iteration']`` so that rates can also be compared with PRK's.
    """
    if len(warmup_times) != ranks or len(iteration_times) != ranks:
        raise ValueError("one warm-up time and one list of iteration times per rank are required")
    max_times = [max(column) for column in zip(*iteration_times)]
    avg_time = sum(max_times) / len(max_times)
    work = bytes_per_iteration if rate_unit == "MB/s" else flops_per_iteration
    parameters = {**parameters, "prk_work_per_iteration": float(prk_work if prk_work is not None else work)}
    rate = 1e-6 * work / avg_time if avg_time > 0 else None  # null, as the C kernels print
    valid = bool(math.isfinite(error) and error <= tolerance)
    return {
        "kernel": kernel,
        "implementation": implementation,
        "ranks": int(ranks),
        "threads": int(threads),
        "parameters": parameters,
        "size": int(size),
        "dtype": "fp64",
        "timer": timer,
        "warmup_times": [float(t) for t in warmup_times],
        "iteration_times": [[float(t) for t in row] for row in iteration_times],
        "iteration_max_times": [float(t) for t in max_times],
        "time_summary": TIME_SUMMARY,
        "bytes_per_iteration": float(bytes_per_iteration),
        "flops_per_iteration": float(flops_per_iteration),
        "validation": {"error": float(error) if math.isfinite(error) else None, "tolerance": float(tolerance),
                       "details": details},
        "valid": valid,
        "rate": rate,
        "rate_unit": rate_unit,
        "avg_time_s": float(avg_time),
    }


def emit(doc: dict) -> None:
    """Print the JSON object (the only stdout output) and a human line on stderr; exit 0 or 1."""
    sys.stdout.write(json.dumps(doc) + "\n")
    sys.stdout.flush()
    verdict = "Solution validates" if doc["valid"] else "ERROR: validation failed"
    rate = "n/a" if doc["rate"] is None else f"{doc['rate']:.1f}"
    error = doc["validation"]["error"]
    print(f"{doc['kernel']} {doc['implementation']}: {verdict}; rate {rate} {doc['rate_unit']}, "
          f"avg time {doc['avg_time_s']:.6g} s (error {'n/a' if error is None else f'{error:.3g}'}, "
          f"tolerance {doc['validation']['tolerance']:.0e})", file=sys.stderr, flush=True)
    sys.exit(0 if doc["valid"] else 1)


def run_main(main, show_errors: bool = True) -> None:
    """Call ``main(argv)``, turning an :class:`ArgumentError` into one line and exit 2.

    MPI programs pass ``show_errors`` true on rank 0 only, so the message is printed once.
    """
    try:
        main(sys.argv[1:])
    except ArgumentError as exc:
        bad_arguments(str(exc), show=show_errors)
    except MemoryError as exc:
        out_of_memory(exc)


def out_of_memory(exc: MemoryError) -> None:
    """Like the C kernels' ``prk_die``: one ``error: rank R: cannot allocate ...`` line, exit 3.

    Under MPI the whole job is aborted (code 3), so no rank waits forever for the failed one.
    """
    mpi = sys.modules.get("mpi4py.MPI")
    rank = mpi.COMM_WORLD.rank if mpi is not None else 0
    detail = " ".join(str(exc).split())[:200] or "out of memory"
    print(f"error: rank {rank}: cannot allocate memory ({detail})", file=sys.stderr, flush=True)
    if mpi is not None and mpi.COMM_WORLD.size > 1:
        mpi.COMM_WORLD.Abort(3)
    sys.exit(3)


def load_sibling(filename: str):
    """Import another kernel file of this folder (names with '-' are not importable by ``import``)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).with_name(filename)
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mpi_timer(mpi) -> dict:
    """The mpi4py kernels' timer (``MPI.Wtime``) and its resolution (``MPI.Wtick``)."""
    return {"name": "MPI_Wtime", "resolution_s": float(mpi.Wtick())}


def finish_mpi(comm, warmup: float, times: list[float], **fields) -> None:
    """Gather every rank's times to rank 0, which prints the JSON object; all ranks exit 0 or 1.

    ``fields`` are :func:`document`'s other arguments; their ``error`` must already be the
    global one (reduced over ranks), so every rank reaches the same verdict.
    """
    warmups = comm.gather(float(warmup), root=0)
    all_times = comm.gather([float(t) for t in times], root=0)
    if comm.rank == 0:
        emit(document(warmup_times=warmups, iteration_times=all_times, **fields))
    valid = math.isfinite(fields["error"]) and fields["error"] <= fields["tolerance"]
    sys.exit(0 if valid else 1)
