# Shared definitions for every stage. Logic lives in src/twelveways; rules stay thin.

import json
import os
from glob import glob
import sys
from pathlib import Path

from twelveways.results import canonical_hash

# Jobs' shell commands must find the interpreter (and mpiexec, papermill) that runs Snakemake,
# whether or not the user activated .venv: put its bin folder first on PATH.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

PY = "python -m"
ENV_JSON = "results/environment.json"
CONFIG_FILE = "results/config.json"


def stage_on(name):
    """Whether a benchmark stage is switched on in the validated config."""
    return bool(config["stages"].get(name, False))


def mpi_launcher(wildcards, resources):
    """The MPI launcher a scheduler profile sets (profiles/slurm: resources.mpi), else '' (the venv's mpiexec)."""
    return str(getattr(resources, "mpi", "") or "")


def results_files():
    """The raw results files of the enabled stages (inputs of the checklist and the report)."""
    files = {"prk": "results/prk.nc", "train": "results/train.nc", "infer": "results/inference.nc"}
    return [path for stage, path in files.items() if stage_on(stage)]


rule config_dump:
    """Write the validated configuration (defaults filled) so every job reads the same values."""
    output:
        CONFIG_FILE,
    params:
        # the hash makes the rule rerun whenever any config value changes
        config_hash=canonical_hash(config),
    log:
        "logs/config_dump.log",
    conda:
        "../../envs/twelveways.yaml"
    run:
        from twelveways.config import write_json

        write_json(config, output[0])
