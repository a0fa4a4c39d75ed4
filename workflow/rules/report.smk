# Report: one self-contained reports/report.html (checklist summary first, then a section per
# executed notebook; code hidden, figures embedded, nothing loaded from any URL).


rule report:
    """Assemble reports/report.html from the executed notebooks and the checklist."""
    input:
        notebooks=EXECUTED_NOTEBOOKS,
        checklist="reports/checklist.json",
        environment=ENV_JSON,
        config=CONFIG_FILE,
        reproduction=reproduction_files(),
        code=code_files("twelveways.report.__main__"),
    output:
        report("reports/report.html", caption="../report/report.rst", category="Report"),
    log:
        "logs/report.log",
    benchmark:
        "logs/bench/report.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        reproduction=lambda wildcards, input: f"--reproduction {input.reproduction}" if input.reproduction else "",
    shell:
        "python -m twelveways.report render --output {output:q} --checklist {input.checklist:q} "
        "--environment {input.environment:q} --config {input.config:q} {params.reproduction} {input.notebooks:q} "
        "> {log:q} 2>&1"


rule appendix:
    """The artifact-evaluation appendix: claims -> experiments -> figures -> expected results with
    tolerances (measured CIs) -> runtime (logs/bench/*.tsv of the rules that ran before it) -> requirements."""
    input:
        report="reports/report.html",
        checklist="reports/checklist.json",
        derived=derived_results(),
        environment=ENV_JSON,
        config=CONFIG_FILE,
        claims=checklist_claims(),
        code=code_files("twelveways.report.__main__"),
    output:
        report("reports/artifact-appendix.md", caption="../report/report.rst", category="Report"),
    log:
        "logs/appendix.log",
    benchmark:
        "logs/bench/appendix.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.report appendix --output {output:q} --checklist {input.checklist:q} "
        "--derived results/derived --environment {input.environment:q} --config {input.config:q} "
        "--bench logs/bench --figures results/figures > {log:q} 2>&1"
