# Analysis: execute each enabled notebook with papermill on the `twelveways` kernel.
# Notebooks read results files only and never run a benchmark; logic lives in each family's
# analysis module (twelveways.<family>.analysis), twelveways.report and twelveways.plots.
#
# One rule per declared family (twelveways.families: notebook, results files, figures' caption),
# generated below; each family notebook (prk, train, inference) also writes what it derives --
# speedups with their base case, summaries with CIs, fits, figure declarations -- to
# results/derived/<stage>.nc (papermill parameter derived_path); the checklist rule reads those files.
# A notebook reruns when any package file it or the notebook runner imports changes (code=).

from twelveways.report.notebooks import CHECKLIST_NOTEBOOK, NOTEBOOKS

#: Executed notebooks of the enabled stages, in report order (NOTEBOOKS: name -> (source, stage)).
EXECUTED_NOTEBOOKS = [
    f"results/notebooks/{name}.ipynb"
    for name, (_source, stage) in NOTEBOOKS.items()
    if stage is None or stage_on(stage)
]


for _family in families.FAMILIES.values():

    rule:
        """Statistics and figures of one declared family (notebooks/<notebook>.py on its results files)."""
        name:
            f"notebook_{_family.notebook}"
        input:
            notebook=f"notebooks/{_family.source}",
            results=[f"results/{name}" for name in _family.results],
            environment=ENV_JSON,
            config=CONFIG_FILE,
            code=notebook_code(_family.source, *filter(None, [_family.analysis])),
        output:
            **notebook_outputs(_family),
        log:
            f"logs/notebooks/{_family.notebook}.log",
        benchmark:
            f"logs/bench/notebook_{_family.notebook}.tsv"
        conda:
            "../../envs/twelveways.yaml"
        params:
            derived=derived_options(_family),
        shell:
            "python -m twelveways.report execute {input.notebook:q} --output {output.notebook:q} "
            "--figures-dir {output.figures:q} {params.derived} --environment {input.environment:q} "
            "--config {input.config:q} > {log:q} 2>&1"


rule notebook_checklist:
    """Every check and claim in detail, from reports/checklist.json."""
    input:
        notebook=f"notebooks/{CHECKLIST_NOTEBOOK}.py",
        checklist="reports/checklist.json",
        config=CONFIG_FILE,
        code=notebook_code(f"{CHECKLIST_NOTEBOOK}.py"),
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
