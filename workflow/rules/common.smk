# Shared definitions for every stage. Logic lives in src/twelveways; rules stay thin.

import json
import os
from glob import glob
import sys
from pathlib import Path

from twelveways.config import use_interpreter_bin
from twelveways.report.notebooks import NOTEBOOKS, derived_file
from twelveways.results import canonical_hash

# Jobs' shell commands must find the interpreter (and mpiexec, papermill) that runs Snakemake,
# whether or not the user activated .venv.
use_interpreter_bin()

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


def checklist_results():
    """The enabled stages' results files, plus the measured bounds when the PRK stage runs (R11)."""
    files = results_files()
    if stage_on("prk"):
        files.append("results/bounds.nc")
    return files


def derived_results():
    """What the enabled stages' notebooks derive and the report shows (results/derived/<family>.nc):
    outputs of the notebook rules, inputs of the checklist (results -> analysis -> checklist -> report)."""
    return [f"results/{derived_file(name)}" for name, (_source, stage) in NOTEBOOKS.items()
            if stage is not None and stage_on(stage)]


def checklist_claims():
    """The claims file, when the config names one (report.claims; empty string: none)."""
    path = str(config["report"].get("claims", "") or "").strip()
    return [path] if path else []
