# Analysis: execute each enabled notebook with papermill on the `twelveways` kernel.
# Notebooks read results files only and never run a benchmark; logic lives in
# src/twelveways/report and src/twelveways/plots.py, the notebooks stay thin.
#
# Each family notebook (prk, train, inference) also writes what it derives -- speedups with their
# base case, summaries with CIs, fits, figure declarations -- to results/derived/<family>.nc
# (papermill parameter derived_path); the checklist rule reads those files.
#
# A stage whose notebook needs more files than its main results file lists them in
# <STAGE>_ANALYSIS_INPUTS in its own rules file (included before this one), e.g. in train.smk:
#     TRAIN_ANALYSIS_INPUTS = ["results/train-tuning.nc"]

from twelveways.report.notebooks import NOTEBOOKS

#: Executed notebooks of the enabled stages, in report order (NOTEBOOKS: name -> (source, stage)).
EXECUTED_NOTEBOOKS = [
    f"results/notebooks/{name}.ipynb"
    for name, (_source, stage) in NOTEBOOKS.items()
    if stage is None or config["stages"].get(stage, False)
]
#: Shared code every notebook imports (a change reruns the notebooks).
NOTEBOOK_CODE = ["src/twelveways/plots.py", "src/twelveways/report/tables.py"]
#: Code of the family notebooks that write derived results (results/derived/<family>.nc).
DERIVED_CODE = ["src/twelveways/derived.py"]


rule notebook_environment:
    """Hardware and software tables from the environment capture and the validated config (R9)."""
    input:
        notebook="notebooks/environment.py",
        environment=ENV_JSON,
        end="results/environment-end.json",
        config=CONFIG_FILE,
        code=NOTEBOOK_CODE,
    output:
        notebook="results/notebooks/environment.ipynb",
        figures=directory("results/figures/environment"),
    log:
        "logs/notebooks/environment.log",
    benchmark:
        "logs/bench/notebook_environment.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
        "--figures-dir {output.figures:q} --environment {input.environment:q} --config {input.config:q} "
        "> {log:q} 2>&1"


rule notebook_prk:
    """PRK statistics and figures: distributions, CIs, Q-Q, scaling, roofline, percent of bound."""
    input:
        notebook="notebooks/prk.py",
        results="results/prk.nc",
        bounds="results/bounds.nc",
        extra=globals().get("PRK_ANALYSIS_INPUTS", []),
        environment=ENV_JSON,
        config=CONFIG_FILE,
        code=NOTEBOOK_CODE + DERIVED_CODE + ["src/twelveways/report/prkanalysis.py"],
    output:
        notebook="results/notebooks/prk.ipynb",
        derived="results/derived/prk.nc",
        figures=report(
            directory("results/figures/prk"),
            patterns=["{name}.png"],
            caption="../report/prk.rst",
            category="Parallel Research Kernels",
        ),
    log:
        "logs/notebooks/prk.log",
    benchmark:
        "logs/bench/notebook_prk.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
        "--figures-dir {output.figures:q} --results-dir results --derived {output.derived:q} "
        "--environment {input.environment:q} --config {input.config:q} > {log:q} 2>&1"


rule notebook_train:
    """Training statistics and figures (notebooks/train.py, written by the training stage)."""
    input:
        notebook="notebooks/train.py",
        results="results/train.nc",
        extra=globals().get("TRAIN_ANALYSIS_INPUTS", []),
        environment=ENV_JSON,
        config=CONFIG_FILE,
        code=NOTEBOOK_CODE + DERIVED_CODE + ["src/twelveways/train/analysis.py"],
    output:
        notebook="results/notebooks/train.ipynb",
        derived="results/derived/train.nc",
        figures=report(
            directory("results/figures/train"),
            patterns=["{name}.png"],
            caption="../report/train.rst",
            category="Training",
        ),
    log:
        "logs/notebooks/train.log",
    benchmark:
        "logs/bench/notebook_train.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
        "--figures-dir {output.figures:q} --results-dir results --derived {output.derived:q} "
        "--environment {input.environment:q} --config {input.config:q} > {log:q} 2>&1"


rule notebook_inference:
    """Inference statistics and figures (notebooks/inference.py, written by the inference stage)."""
    input:
        notebook="notebooks/inference.py",
        results="results/inference.nc",
        extra=globals().get("INFER_ANALYSIS_INPUTS", []),
        environment=ENV_JSON,
        config=CONFIG_FILE,
        code=NOTEBOOK_CODE + DERIVED_CODE + ["src/twelveways/infer/analysis.py"],
    output:
        notebook="results/notebooks/inference.ipynb",
        derived="results/derived/infer.nc",
        figures=report(
            directory("results/figures/inference"),
            patterns=["{name}.png"],
            caption="../report/inference.rst",
            category="Inference",
        ),
    log:
        "logs/notebooks/inference.log",
    benchmark:
        "logs/bench/notebook_inference.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
        "--figures-dir {output.figures:q} --results-dir results --derived {output.derived:q} "
        "--environment {input.environment:q} --config {input.config:q} > {log:q} 2>&1"


rule notebook_checklist:
    """Every check and claim in detail, from reports/checklist.json."""
    input:
        notebook="notebooks/checklist.py",
        checklist="reports/checklist.json",
        config=CONFIG_FILE,
        code=NOTEBOOK_CODE,
    output:
        notebook="results/notebooks/checklist.ipynb",
        figures=directory("results/figures/checklist"),
    log:
        "logs/notebooks/checklist.log",
    benchmark:
        "logs/bench/notebook_checklist.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
        "--figures-dir {output.figures:q} --checklist {input.checklist:q} --config {input.config:q} "
        "> {log:q} 2>&1"
