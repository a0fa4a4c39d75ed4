# Shared definitions for every stage. Logic lives in src/twelveways; rules stay thin.
# What each benchmark family is (stage key, results files, notebook) is declared once in
# src/twelveways/families; the rules read it. Each rule's code= input is the list of package files
# its entry point imports (twelveways.codegraph), so a change to any of them reruns it.

from twelveways import families
from twelveways.codegraph import code_files
from twelveways.config import dump_text, use_interpreter_bin

# Jobs' shell commands must find the interpreter (and mpiexec, papermill) that runs Snakemake,
# whether or not the user activated .venv.
use_interpreter_bin()

ENV_JSON = "results/environment.json"
CONFIG_FILE = "results/config.json"
#: Code a benchmark run is not redone for: the statistics (adaptive repetition only asks them when to
#: stop), the checklist, and the declarations (a new kernel or model reaches a run as a new binary or
#: config value). Analysis and checklist rules depend on all of it.
BENCHMARK_CODE_EXCLUDE = ["twelveways.stats", "twelveways.checklist", "twelveways.families"]


def benchmark_code(*modules):
    """The package files a benchmark's entry points import, less BENCHMARK_CODE_EXCLUDE (its code= input)."""
    return code_files(*modules, exclude=BENCHMARK_CODE_EXCLUDE)


def stage_on(name):
    """Whether a benchmark stage is switched on in the validated config."""
    return bool(config["stages"].get(name, False))


def enabled_families():
    """The declared benchmark families whose stage is switched on, in report order."""
    return [family for family in families.staged() if stage_on(family.stage)]


def mpi_launcher(wildcards, resources):
    """The MPI launcher a scheduler profile sets (profiles/slurm: resources.mpi), else '' (the venv's mpiexec)."""
    return str(getattr(resources, "mpi", "") or "")


def results_files():
    """The main results files of the enabled stages (inputs of the end capture, the checklist and the report)."""
    return [f"results/{family.results_file}" for family in enabled_families()]


def checklist_results():
    """The enabled stages' results files, main files first, then the others (the PRK's measured bounds, R11)."""
    others = [f"results/{name}" for family in enabled_families() for name in family.results[1:]]
    return results_files() + others


def derived_results():
    """What the enabled stages' notebooks derive and the report shows (results/derived/<family>.nc):
    outputs of the notebook rules, inputs of the checklist (results -> analysis -> checklist -> report)."""
    return [f"results/{family.derived_file}" for family in enabled_families()]


def checklist_claims():
    """The claims file, when the config names one (report.claims; empty string: none)."""
    path = str(config["report"].get("claims", "") or "").strip()
    return [path] if path else []


def notebook_code(source, *modules):
    """notebooks/<source>, and the package files it, ``modules`` and the runner (twelveways.report) import."""
    return code_files(f"notebooks/{source}", "twelveways.report.__main__", *modules)


def notebook_figures(family):
    """The figures folder of a family's notebook, filed in Snakemake's report when the family has a caption."""
    folder = directory(f"results/figures/{family.notebook}")
    if family.figures is None:
        return folder
    return report(folder, patterns=["{name}.png"], caption=family.figures.caption, category=family.figures.category)


def notebook_outputs(family):
    """The executed notebook, its figures, and for a benchmark family its derived results."""
    outputs = {"notebook": f"results/notebooks/{family.notebook}.ipynb"}
    if family.derived_file:
        outputs["derived"] = f"results/{family.derived_file}"
    return outputs | {"figures": notebook_figures(family)}


def derived_options(family):
    """``--results-dir`` and ``--derived`` for a benchmark family's notebook, nothing for the environment's.

    A param, not part of the shell string: Snakemake evaluates a rule's shell expression again when
    the job runs, when the loop below has moved on to the last family."""
    if not family.derived_file:
        return ""
    return f"--results-dir results --derived results/{family.derived_file}"


def reproduction_files():
    """reports/reproduction.json when report.reference names a stored result set to compare with."""
    return ["reports/reproduction.json"] if config["report"]["reference"] else []


def noise_floor_files():
    """results/noise_floor.json when the PRK stage runs and measurement.placebo is on."""
    return ["results/noise_floor.json"] if stage_on("prk") and config["measurement"]["placebo"] else []
