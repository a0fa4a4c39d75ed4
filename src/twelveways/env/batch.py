"""The batch system and launcher of *this* job (cheap: environment variables only)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from .probe import first_line, run

_OTHER_SCHEDULERS = (("pbs", "PBS_JOBID"), ("lsf", "LSB_JOBID"), ("sge", "SGE_TASK_ID"), ("flux", "FLUX_JOB_ID"))


def launcher_in_use(environ: Mapping[str, str] | None = None) -> str:
    """How this process was started: srun, an MPI launcher, a batch script, or 'none'."""
    env = os.environ if environ is None else environ
    if ("SLURM_STEP_ID" in env or "SLURM_STEPID" in env) and "SLURM_STEP_NUM_TASKS" in env:
        return "srun"
    if "OMPI_COMM_WORLD_SIZE" in env:
        return "mpirun (Open MPI)"
    if "PMI_RANK" in env or "PMI_SIZE" in env:
        return "mpiexec (hydra/PMI)"
    if "PMIX_RANK" in env:
        return "PMIx launcher"
    if "SLURM_JOB_ID" in env:
        return "sbatch (batch step)"
    return "none"


def _slurm_job(env: Mapping[str, str], launcher: str) -> dict:
    def get(*names):
        return next((env[n] for n in names if n in env), "none")

    return {
        "name": "slurm",
        "job_id": get("SLURM_JOB_ID"),
        "array_job_id": get("SLURM_ARRAY_JOB_ID"),
        "array_task_id": get("SLURM_ARRAY_TASK_ID"),
        "step_id": get("SLURM_STEP_ID", "SLURM_STEPID"),
        "job_name": get("SLURM_JOB_NAME"),
        "node_list": get("SLURM_JOB_NODELIST", "SLURM_NODELIST"),
        "num_nodes": get("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
        "ntasks": get("SLURM_NTASKS", "SLURM_NPROCS"),
        "cpus_per_task": get("SLURM_CPUS_PER_TASK"),
        "partition": get("SLURM_JOB_PARTITION"),
        "cluster": get("SLURM_CLUSTER_NAME"),
        "launcher": launcher,
    }


def scheduler(environ: Mapping[str, str] | None = None) -> dict:
    """Scheduler, job ids, node list and launcher of *this* job (cheap: environment only).

    Call it in every job and store it with the job's results (per job); outside a
    batch system every field says "none".
    """
    env = os.environ if environ is None else environ
    launcher = launcher_in_use(env)
    if "SLURM_JOB_ID" in env:
        return _slurm_job(env, launcher)
    for name, var in _OTHER_SCHEDULERS:
        if var in env:
            return {"name": name, "job_id": env[var], "node_list": env.get("PBS_NODEFILE", "not recorded"),
                    "launcher": launcher}
    return {"name": "none", "job_id": "none", "node_list": "none", "launcher": launcher}


def slurm_version() -> str:
    if "SLURM_JOB_ID" not in os.environ:
        return "none (not running under SLURM)"
    if not shutil.which("srun"):
        return "none (srun not on PATH)"
    return first_line(run(["srun", "--version"], timeout=10))
