"""MPI: the library (from the runtime probe; mpi4py is never imported here) and the launcher."""

from __future__ import annotations

import re
from collections.abc import Mapping

from . import runtimes
from .batch import launcher_in_use
from .probe import fail, first_line, run, safe, venv_tool


def _mpiexec() -> dict:
    path = venv_tool("mpiexec")
    text = run([path, "--version"], timeout=15, both=True)
    match = re.search(r"Version:\s*(\S+)", text)
    kind = "hydra" if "HYDRA" in text.upper() else ("Open MPI" if "Open MPI" in text else "unknown")
    return {"path": path, "process_manager": kind,
            "version": match.group(1) if match else first_line(text)}


def mpi(config: Mapping | None = None, library: dict | None = None) -> dict:
    """MPI library (from the runtime probe: mpi4py is never imported here) and launcher."""
    prk = (config or {}).get("prk") if isinstance(config, Mapping) else None
    configured = (prk or {}).get("launcher") if isinstance(prk, Mapping) else None
    if library is None:
        library = safe(lambda: runtimes.probe().get("mpi") or fail("runtime probe returned no MPI section"))
    return {"library": library, "launcher": safe(_mpiexec),
            "configured_launcher": configured or "mpiexec (default)",
            "launcher_in_use": launcher_in_use()}
