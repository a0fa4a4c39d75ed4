"""Assembling the environment record: every probe, the slow ones concurrently, then the hash.

Slow probes (py-cpuinfo, the torch/BLAS runtime probe in a child process, compilers, GPUs,
srun) run in worker threads so a capture takes a few seconds.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import __version__
from . import machine, runtimes
from .batch import scheduler, slurm_version
from .gpu import gpus
from .hashing import VOLATILE, environment_hash
from .interpreter import loadgen, python
from .mpilib import mpi
from .probe import is_unavailable, safe, unavailable
from .store import FORMAT
from .system import environment_variables, load_at, operating_system, time_now, timer
from .toolchain import compilers
from .vcs import git


def _preload() -> None:
    """Import what the worker threads need, here in the calling thread.

    Two threads importing modules that share dependencies can deadlock on Python's per-module
    import locks (seen with cpuinfo -> ctypes beside importlib.metadata -> email), so the worker
    threads must find everything already imported.
    """
    import ctypes  # noqa: F401  (cpuinfo imports it)
    import email.parser  # noqa: F401  (importlib.metadata imports it lazily)

    for name in ("psutil", "cpuinfo"):
        try:
            __import__(name)
        except ImportError:
            pass  # the reader reports it as unavailable
    from .. import measure, results  # noqa: F401


def _runtime_section(probed, key: str, missing: str):
    """One section of the runtime probe's answer, or the probe's own reason when it failed."""
    return probed if is_unavailable(probed) else probed.get(key, unavailable(missing))


def _blas_openmp(probed) -> dict:
    section = _runtime_section(probed, "threadpools", "runtime probe returned no threadpools")
    if isinstance(section, list):
        pools = sorted(section, key=lambda p: json.dumps(p, sort_keys=True, default=str))
        section = {"imported_before_inspection": probed.get("imported", []),
                   "threadpools": pools}  # sorted: the loader's order varies between runs
    return section


def boot_id() -> str:
    """Linux's per-boot random id (/proc/sys/kernel/random/boot_id): the same running machine."""
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def _probe_sections(config: Mapping | None, variables) -> dict:
    """Every section a probe fills, the slow probes in worker threads."""
    with ThreadPoolExecutor(max_workers=6) as pool:
        runtimes_future = pool.submit(safe, runtimes.probe)  # the slowest probe (imports torch): first
        _preload()
        cpuinfo_future = pool.submit(safe, machine.cpuinfo)
        compilers_future = pool.submit(safe, compilers, config)
        gpus_future = pool.submit(safe, gpus)
        slurm_future = pool.submit(safe, slurm_version)
        result = {
            "format": FORMAT,
            "twelveways_version": __version__,
            "time": safe(time_now),
            "host": {"hostname": safe(socket.gethostname), "boot_id": safe(boot_id)},
            "os": safe(operating_system),
            "python": safe(python),
            "loadgen": safe(loadgen),
            "environment_variables": variables,
            "git": safe(git),
        }
        result["hardware"] = safe(machine.hardware, cpuinfo_future.result())
        result["compilers"] = compilers_future.result()
        probed = runtimes_future.result()
        result["mpi"] = safe(mpi, config, _runtime_section(probed, "mpi", "runtime probe returned no MPI section"))
        result["gpus"] = gpus_future.result()
        sched = safe(scheduler)
        if isinstance(sched, dict):
            sched["slurm_version"] = slurm_future.result()
        result["scheduler"] = sched
    result["blas_openmp"] = _blas_openmp(probed)
    result["torch"] = _runtime_section(probed, "torch", "runtime probe returned no torch section")
    return result


def capture(config: Mapping | None = None, label: str = "start") -> dict:
    """Capture the whole environment; every field present, unreadable ones say why (see the package doc)."""
    started = time.perf_counter()
    load = {label: load_at(label)}
    variables = safe(environment_variables, dict(os.environ))  # before imports can set any (joblib does)
    result = _probe_sections(config, variables)
    result["timer"] = safe(timer)  # measured last, when the probes no longer compete for the CPU
    result["load"] = load
    result["capture_seconds"] = round(time.perf_counter() - started, 3)
    result["hash_excludes"] = dict(VOLATILE)
    result["hash"] = environment_hash(result)
    return result
