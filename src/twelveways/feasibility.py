"""Refuse a configuration that cannot run, before any job starts (config validation, stage 2).

A JSON schema checks each value alone; it cannot see that ``min_samples`` exceeds
``max_samples``, that a stencil grid is no wider than its stencil, that 4096 ranks cannot split
an order-64 matrix, or that a 10^12-element nstream needs 24 TB.  Those rules live here, each
raising one :class:`ConfigError` line that names the key.  The memory estimates follow the
allocations of ``kernels/c/*.c`` and ``kernels/python/*.py`` (8-byte doubles), for every point
the sweep will actually run (weak scaling grows the sizes), and are compared with this
machine's total memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .errors import ConfigError
from .families import prk as prk_kernels

DOUBLE = 8
#: Largest sizes the C kernels accept (their prk_arg_long bounds); larger ones are refused there.
C_LIMITS = {k.name: k.c_size_limit for k in prk_kernels.DECLARED if k.c_size_limit is not None}  # declared per kernel
#: MPI messages carry at most INT_MAX elements (transpose-mpi's block exchange).
INT_MAX = 2 ** 31 - 1


def check(config: Mapping, memory_bytes: int | None = None) -> None:
    """All cross-field and feasibility rules of a validated (defaults filled) configuration."""
    check_finite(config)
    measurement = config["measurement"]
    if measurement["min_samples"] > measurement["max_samples"]:
        raise ConfigError(f"config key 'measurement.min_samples': {measurement['min_samples']} exceeds "
                          f"measurement.max_samples {measurement['max_samples']}")
    if config["stages"]["prk"]:
        check_prk(config, machine_memory() if memory_bytes is None else memory_bytes)


def check_finite(node, key: str = "") -> None:
    """Refuse NaN and infinity anywhere (YAML's ``.nan`` / ``.inf``): no budget or size can be either; and
    integers beyond 64 bits (``--config seed=<400 digits>``), which every results file and kernel would refuse later."""
    if isinstance(node, Mapping):
        for name, value in node.items():
            check_finite(value, f"{key}.{name}" if key else str(name))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            check_finite(value, f"{key}[{index}]")
    elif isinstance(node, float) and not math.isfinite(node):
        raise ConfigError(f"config key '{key or '(top level)'}': must be a finite number, got {node}")
    elif isinstance(node, int) and not -2 ** 63 <= node < 2 ** 63:
        raise ConfigError(f"config key '{key or '(top level)'}': an integer of {node.bit_length()} bits is beyond "
                          "the 64-bit integer range")


def machine_memory() -> int:
    """Total physical memory of this machine, bytes."""
    import psutil

    return int(psutil.virtual_memory().total)


def check_prk(config: Mapping, memory_bytes: int) -> None:
    """Grid vs radius, sizes in range, then every sweep point's ranks and memory."""
    from .families.prk_points import expand  # the sweep's points, without the sweep (which loads this config)
    from .families.prk_config import PrkConfig

    prk = PrkConfig.from_config(config)
    radius = prk.radius
    _check_sizes(prk, radius)
    points, _ = expand(prk)
    for point in points:
        key = f"prk.sizes.{point.kernel}"
        size = _grid(point.kernel, point.size)
        _check_ranks(point.kernel, size, point.ranks, radius, key)
        needed, formula = footprint(point.kernel, point.implementation, size, point.ranks, radius)
        if needed > memory_bytes:
            where = f" ({point.scaling} scaling at P={point.pe})" if point.scaling == "weak" else ""
            raise ConfigError(f"config key '{key}': {point.kernel} {point.implementation} size {_size_text(size)}{where} "
                              f"needs about {_gb(needed)} ({formula}), more than this machine's memory {_gb(memory_bytes)}")
        limit = C_LIMITS.get(point.kernel)
        if point.implementation.startswith("c-") and limit is not None and max(_values(size)) > limit:
            raise ConfigError(f"config key '{key}': {point.kernel} size {_size_text(size)} exceeds the C kernel's "
                              f"limit {limit}")
    _check_bounds(prk.bounds, memory_bytes)


def _check_sizes(prk, radius: int) -> None:
    """Sizes within 64 bits; stencil and sparse grids wider than the stencil (2*radius+1 points)."""
    for kernel in prk.kernels:
        for raw in prk.sizes[kernel]:
            if max(_values(raw)) >= 2 ** 63:
                raise ConfigError(f"config key 'prk.sizes.{kernel}': {_size_text(raw)} is beyond the 64-bit integer range")
            if kernel == "stencil" and raw < 2 * radius + 1:
                raise ConfigError(f"config key 'prk.sizes.stencil': grid {raw} must exceed 2*radius = {2 * radius} "
                                  f"(prk.radius {radius})")
            if kernel == "sparse" and 2 ** raw < 2 * radius + 1:
                raise ConfigError(f"config key 'prk.sizes.sparse': grid side 2^{raw} = {2 ** raw} must exceed "
                                  f"2*radius = {2 * radius} (prk.radius {radius})")


def _check_ranks(kernel: str, size, ranks: int, radius: int, key: str) -> None:
    """The MPI kernels' own refusals (kernels/c/*_mpi.c, kernels/python/*-mpi4py.py), before any run."""
    if ranks == 1:
        return
    if kernel in ("nstream", "transpose") and size < ranks:
        raise ConfigError(f"config key 'prk.ranks': {ranks} ranks exceed {kernel} size {size} ('{key}'; "
                          "each rank needs at least one element or row)")
    if kernel == "transpose" and math.ceil(size / ranks) ** 2 > INT_MAX:
        raise ConfigError(f"config key '{key}': transpose order {size} on {ranks} ranks gives blocks larger than "
                          f"one MPI message ({INT_MAX} elements); use more ranks or a smaller order")
    if kernel == "p2p" and size[1] < ranks:
        raise ConfigError(f"config key 'prk.ranks': {ranks} ranks exceed p2p's {size[1]} columns ('{key}')")
    if kernel == "stencil":
        cols = max(d for d in range(1, math.isqrt(ranks) + 1) if ranks % d == 0)
        rows = ranks // cols
        if size // rows < radius or size // cols < radius:
            raise ConfigError(f"config key 'prk.ranks': {ranks} ranks split stencil grid {size} ('{key}') into "
                              f"{rows}x{cols} blocks narrower than prk.radius {radius}")


def _grid(kernel: str, size):
    """p2p sizes as (m, n) (an int n means n x n); other kernels' sizes unchanged."""
    if kernel == "p2p":
        return tuple(size) if isinstance(size, (list, tuple)) else (size, size)
    return size


def _values(size) -> list[int]:
    return list(size) if isinstance(size, (list, tuple)) else [size]


def footprint(kernel: str, implementation: str, size, ranks: int, radius: int) -> tuple[int, str]:
    """(bytes, formula) of one run's arrays, summed over its ranks."""
    numpy = implementation == "numpy"
    if kernel == "nstream":
        return 3 * size * DOUBLE, "3 arrays of n doubles"
    if kernel in ("transpose", "stencil"):
        return 2 * size * size * DOUBLE, "2 arrays of n^2 doubles"
    if kernel == "dgemm":
        count = 4 if numpy else 3
        return count * size * size * DOUBLE, f"{count} arrays of n^2 doubles"
    if kernel == "p2p":
        m, n = size
        if numpy:
            return (m + n - 1) * m * DOUBLE, "skewed grid of (m+n-1) x m doubles"
        return m * (n + ranks - 1) * DOUBLE, "m x n doubles (+ a ghost column per rank)"
    if kernel == "sparse":
        rows = 4 ** size
        entries = rows * (4 * radius + 1)
        if numpy:
            return 3 * entries * DOUBLE + 2 * rows * DOUBLE, "3 x (4^lsize x (4r+1)) 8-byte entries while building, 2 vectors"
        return entries * (DOUBLE + 4) + 2 * rows * DOUBLE, "4^lsize x (4r+1) entries of 12 bytes, 2 vectors"
    raise ConfigError(f"config key 'prk.kernels': unknown kernel {kernel!r}")


def _check_bounds(bounds, memory_bytes: int) -> None:
    if not bounds.enabled:
        return
    for key, needed, formula in (
            ("nstream_length", 3 * bounds.nstream_length * DOUBLE, "3 arrays of n doubles"),
            ("dgemm_order", 3 * bounds.dgemm_order ** 2 * DOUBLE, "3 arrays of n^2 doubles")):
        if needed > memory_bytes:
            raise ConfigError(f"config key 'prk.bounds.{key}': needs about {_gb(needed)} ({formula}), "
                              f"more than this machine's memory {_gb(memory_bytes)}")


def _size_text(size) -> str:
    return "x".join(map(str, size)) if isinstance(size, (list, tuple)) else str(size)


def _gb(count: int) -> str:
    return f"{count / 1e9:,.1f} GB"
