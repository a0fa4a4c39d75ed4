"""The PRK kernel contract on the reading side: check a kernel's JSON, turn it into result rows.

Every PRK program, C or Python, prints one JSON object (DESIGN.md "Kernel contract").  This
module refuses output that breaks the contract (:class:`~twelveways.errors.KernelError`) and
turns good output into long-form rows of the results store (``twelveways.results``):

* one ``time`` row (unit ``s``) per rank per iteration, iteration 0 being the warm-up (kept,
  never summarized: ``results.summarizable`` drops it);
* one ``rate`` row for the whole run (iteration -1, rank -1) with the kernel's own rate;
* ``valid`` copied from the kernel's self-validation on every row, so a failed run's samples
  are kept but never summarized;
* extra factors: ``scaling`` (single/strong/weak), ``base_size`` (the per-process size weak
  scaling started from), ``stop_reason`` (filled in by the sweep), ``flags`` (timer warnings
  from :func:`twelveways.measure.interval_flags`), ``params`` (the kernel's parameters as
  JSON), ``radius``/``tile`` where the kernel has them, ``timer``, ``bytes_per_iteration``,
  ``flops_per_iteration`` (as moved/executed) and ``prk_work_per_iteration`` (PRK's count).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from .. import measure
from ..errors import KernelError
from ..families.prk import IMPLEMENTATIONS

#: Keys every kernel's JSON object must hold, with the Python type each must have.
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "kernel": str, "implementation": str, "ranks": int, "threads": int, "parameters": dict, "size": int,
    "dtype": str, "timer": dict, "warmup_times": list, "iteration_times": list, "iteration_max_times": list,
    "time_summary": str, "bytes_per_iteration": (int, float), "flops_per_iteration": (int, float),
    "validation": dict, "valid": bool, "rate": (int, float, type(None)), "rate_unit": str,
    "avg_time_s": (int, float, type(None)),
}
RATE_UNITS = ("MB/s", "MFlop/s")
SCALINGS = ("single", "strong", "weak")


def check(doc, *, kernel: str | None = None, implementation: str | None = None,
          ranks: int | None = None, where: str = "kernel output") -> dict:
    """Return ``doc`` if it keeps the contract, else raise :class:`KernelError` naming the problem."""
    if not isinstance(doc, Mapping):
        raise KernelError(f"{where}: expected one JSON object, got {type(doc).__name__}")
    missing = [key for key in REQUIRED if key not in doc]
    if missing:
        raise KernelError(f"{where}: JSON object lacks required key(s): {', '.join(missing)}")
    for key, kind in REQUIRED.items():
        value = doc[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            raise KernelError(f"{where}: key {key!r} has the wrong type ({type(value).__name__})")
    for key, wanted in (("kernel", kernel), ("implementation", implementation), ("ranks", ranks)):
        if wanted is not None and doc[key] != wanted:
            raise KernelError(f"{where}: reports {key}={doc[key]!r}, expected {wanted!r}")
    if doc["implementation"] not in IMPLEMENTATIONS:
        raise KernelError(f"{where}: unknown implementation {doc['implementation']!r}")
    if doc["rate_unit"] not in RATE_UNITS:
        raise KernelError(f"{where}: rate_unit {doc['rate_unit']!r} is not one of {', '.join(RATE_UNITS)}")
    iterations = doc["parameters"].get("iterations")
    if not isinstance(iterations, int) or iterations < 1:
        raise KernelError(f"{where}: parameters.iterations must be a positive integer")
    n_ranks = doc["ranks"]
    if n_ranks < 1 or doc["threads"] < 1:
        raise KernelError(f"{where}: ranks and threads must be positive")
    if len(doc["warmup_times"]) != n_ranks:
        raise KernelError(f"{where}: warmup_times has {len(doc['warmup_times'])} entries for {n_ranks} rank(s)")
    if len(doc["iteration_times"]) != n_ranks:
        raise KernelError(f"{where}: iteration_times has {len(doc['iteration_times'])} rows for {n_ranks} rank(s)")
    for rank, row in enumerate(doc["iteration_times"]):
        if not isinstance(row, list) or len(row) != iterations:
            raise KernelError(f"{where}: iteration_times of rank {rank} does not hold {iterations} iterations")
    if len(doc["iteration_max_times"]) != iterations:
        raise KernelError(f"{where}: iteration_max_times does not hold {iterations} iterations")
    for value in [*doc["warmup_times"], *doc["iteration_max_times"], *(t for row in doc["iteration_times"] for t in row)]:
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
            raise KernelError(f"{where}: a time is not a finite non-negative number ({value!r})")
    for key in ("error", "tolerance"):
        if key not in doc["validation"]:
            raise KernelError(f"{where}: validation lacks {key!r}")
    for key in ("name", "resolution_s"):
        if key not in doc["timer"]:
            raise KernelError(f"{where}: timer lacks {key!r}")
    return dict(doc)


def _flags(seconds: float, resolution_ns: float, overhead_ns: float) -> str:
    return "; ".join(measure.interval_flags(seconds, resolution_ns, overhead_ns))


def to_records(doc: Mapping, *, run_id: str, seed: int, scaling: str = "single", base_size: int | None = None,
               timer_overhead_ns: float = 0.0, extra: Mapping | None = None) -> list[dict]:
    """Long-form result rows of one checked kernel run (see the module docstring)."""
    if scaling not in SCALINGS:
        raise KernelError(f"scaling must be one of {', '.join(SCALINGS)}, got {scaling!r}")
    params = dict(doc["parameters"])
    resolution_ns = float(doc["timer"].get("resolution_s") or 0.0) * 1e9
    common = {
        "benchmark": "prk", "workload": doc["kernel"], "implementation": doc["implementation"],
        "ranks": int(doc["ranks"]), "threads": int(doc["threads"]), "size": int(doc["size"]),
        "precision": doc["dtype"], "seed": int(seed), "run_id": run_id, "valid": bool(doc["valid"]),
        "scaling": scaling, "base_size": int(base_size if base_size is not None else doc["size"]),
        "stop_reason": "", "params": json.dumps(params, sort_keys=True), "timer": str(doc["timer"]["name"]),
        "radius": int(params.get("radius", -1)), "tile": int(params.get("tile", -1)),
        "bytes_per_iteration": float(doc["bytes_per_iteration"]),
        "flops_per_iteration": float(doc["flops_per_iteration"]),
        "prk_work_per_iteration": float(params.get("prk_work_per_iteration", math.nan)),
    }
    if extra:
        common.update(extra)
    rows = []
    for rank, (warmup, times) in enumerate(zip(doc["warmup_times"], doc["iteration_times"])):
        for iteration, seconds in enumerate([warmup, *times]):
            rows.append({**common, "iteration": iteration, "rank": rank, "metric": "time", "value": float(seconds),
                         "unit": "s", "flags": _flags(float(seconds), resolution_ns, timer_overhead_ns)})
    rate = doc["rate"]
    rows.append({**common, "iteration": -1, "rank": -1, "metric": "rate",
                 "value": float(rate) if rate is not None else math.nan, "unit": doc["rate_unit"], "flags": ""})
    return rows
