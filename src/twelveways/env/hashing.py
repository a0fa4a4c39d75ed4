"""The content hash of a capture: which fields are volatile, the stable view, and differences.

Two captures of the same machine and software stack give the same hash; results files carry it
as ``environment_hash`` so results from different environments are never merged unawares.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

from . import probe

#: Fields left out of the content hash, as dotted paths (fnmatch patterns), and why.
VOLATILE: dict[str, str] = {
    "hash": "the hash itself",
    "hash_excludes": "documentation of the hash",
    "time.utc": "the moment of capture",
    "capture_seconds": "how long the capture took",
    "load": "load average and process counts change from moment to moment (recorded at start and end)",
    "timer.resolution_ns": "measured: varies slightly between runs",
    "timer.overhead_ns": "measured: varies with load",
    "hardware.memory.available_bytes": "free memory changes from moment to moment",
    "hardware.numa.nodes.*.memory_bytes": "a node's MemTotal follows memory hotplug and ballooning on virtual "
                                          "machines (it changed by itself during runs); the machine's total stays",
    "host.hostname": "container hostnames change per start; nodes of one type share an environment",
    "host.boot_id": "changes at every boot; with the host name it says two runs share one running machine",
    "scheduler": "per job: job ids, node list, allocation and the launcher of this particular job",
    "mpi.launcher_in_use": "per job: how this particular process was started",
    "environment_variables.SLURM_*": "set per job by SLURM (job id, node list, ...)",
    "environment_variables.SBATCH_*": "set per job submission",
    "environment_variables.SRUN_*": "set per job step",
    "environment_variables.PMI_*": "set per process by the MPI launcher (rank, size, fd)",
    "environment_variables.PMIX_*": "set per process by the MPI launcher",
    "environment_variables.OMPI_COMM_WORLD_*": "set per process by Open MPI's launcher",
    "environment_variables.MPI_LOCAL*": "set per process by the MPI launcher",
    "environment_variables.*_NUM_THREADS": "per job: Snakemake sets the thread variables of every job to its "
                                           "threads; each result records its own thread count",
    "environment_variables.VECLIB_MAXIMUM_THREADS": "per job, as *_NUM_THREADS",
    "blas_openmp.threadpools.num_threads": "follows the per-job thread variables",
    "torch.num_threads": "follows the per-job thread variables",
    "torch.num_interop_threads": "follows the per-job thread variables",
    "torch.parallel_info": "lists the per-job thread settings",
    "git": "the project's own version is provenance, not environment: every results file carries "
           "git_commit and git_dirty separately",
    "comparison": "only in an end-of-run capture: how it differs from the start",
}


def _excluded(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in VOLATILE)


def stable_view(capture: Mapping) -> dict:
    """The capture without volatile fields, the project path replaced by ``$PROJECT``."""
    root = str(probe.PROJECT_ROOT)

    def clean(value, path):
        if isinstance(value, Mapping):
            return {k: clean(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()
                    if not _excluded(f"{path}.{k}" if path else str(k))}
        if isinstance(value, (list, tuple)):
            return [clean(v, path) for v in value]
        if isinstance(value, str) and root in value:
            return value.replace(root, "$PROJECT")
        return value

    return clean(capture, "")


def environment_hash(capture: Mapping) -> str:
    """sha256 of the canonical JSON of :func:`stable_view` (see :data:`VOLATILE`)."""
    from ..results import canonical_hash

    return canonical_hash(stable_view(capture))


def changes(a: Mapping, b: Mapping, limit: int = 50) -> list[tuple[str, object, object]]:
    """(dotted path, value in ``a``, value in ``b``) for each stable field that differs (``"<absent>"`` when
    missing): volatile fields never count, so what is listed is what can matter."""
    found: list[tuple[str, object, object]] = []

    def walk(x, y, path):
        if len(found) >= limit:
            return
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            for key in sorted(set(x) | set(y), key=str):
                walk(x.get(key, "<absent>"), y.get(key, "<absent>"), f"{path}.{key}" if path else str(key))
        elif x != y:
            found.append((path, x, y))

    walk(stable_view(a), stable_view(b), "")
    return found


def differences(a: Mapping, b: Mapping, limit: int = 50) -> list[str]:
    """Dotted paths whose stable values differ between two captures."""
    return [path for path, _, _ in changes(a, b, limit)]
