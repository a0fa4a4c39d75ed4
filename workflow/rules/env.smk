# Environment capture: the first job of every run (SC15 rule 9). Logic: src/twelveways/env/.


rule environment:
    """Capture hardware and software (results/environment.json, with its content hash) and render
    the SC-style Artifact Description; every later stage records this capture's hash."""
    input:
        config=CONFIG_FILE,
    output:
        env=ENV_JSON,
        artifact=report(
            "reports/artifact-description.md",
            caption="../report/environment.rst",
            category="Environment",
        ),
    log:
        "logs/environment.log",
    benchmark:
        "logs/bench/environment.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.env --config {input.config:q} --output {output.env:q}"
        " --artifact {output.artifact:q} --label start > {log:q} 2>&1"


rule environment_end:
    """Load at the end of the run, and whether the environment changed since the start capture
    (e.g. a frequency governor switched mid-run). Runs after every enabled stage's results."""
    input:
        env=ENV_JSON,
        config=CONFIG_FILE,
        results=lambda wildcards: results_files(),
    output:
        "results/environment-end.json",
    log:
        "logs/environment_end.log",
    benchmark:
        "logs/bench/environment_end.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.env --config {input.config:q} --compare {input.env:q} --label end"
        " --output {output:q} > {log:q} 2>&1"
