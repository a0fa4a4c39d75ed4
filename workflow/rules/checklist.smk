# Checklist: audit the workflow's own results (SC15 rules R1-R12, fallacies F1-F12) and check the
# project's claims (config report.claims). Logic lives in src/twelveways/checklist; this rule only calls it.
# It reads the raw results and what the analysis notebooks derived from them (results/derived/*.nc:
# speedups with their base cases, summaries with CIs, fits, figure declarations), so it judges what
# the report shows.
# --exit-zero: a failed check is a finding for the report, not a broken workflow (the verdict says INVALID).


rule checklist:
    """Run every check and claim on the results; write reports/checklist.json and .md."""
    input:
        results=checklist_results(),
        derived=derived_results(),
        environment=ENV_JSON,
        config=CONFIG_FILE,
        claims=checklist_claims(),
        code=code_files("twelveways.checklist.__main__"),
    output:
        json=report("reports/checklist.json", caption="../report/checklist.rst", category="Checklist"),
        md=report("reports/checklist.md", caption="../report/checklist.rst", category="Checklist"),
    log:
        "logs/checklist.log",
    benchmark:
        "logs/bench/checklist.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        claims=lambda wildcards, input: input.claims[0] if input.claims else "",
    shell:
        "python -m twelveways.checklist audit {input.results:q} {input.derived:q} --environment {input.environment:q} "
        "--config {input.config:q} --claims {params.claims:q} --output {output.json:q} --output {output.md:q} "
        "--exit-zero > {log:q} 2>&1"
