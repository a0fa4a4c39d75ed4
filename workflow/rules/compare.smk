# Noise floor: the PRK stage's configurations (a seeded choice of measurement.placebo_configurations)
# run a second time in an independent invocation after the sweep (A/A); twelveways noise-floor compares
# the two and records the false-positive rate of the test alone, the floor and the power. Logic lives in
# src/twelveways/prk/sweep.py (--placebo) and src/twelveways/compare; these rules only call it.


rule prk_placebo:
    """The A/A run: the same binaries and config, a second invocation after the sweep."""
    input:
        binaries=PRK_BINARIES,
        python_kernels=PRK_PY_KERNELS,
        config=CONFIG_FILE,
        environment=ENV_JSON,
        first="results/prk.nc",
        code=benchmark_code("twelveways.prk.sweep"),
    output:
        "results/placebo/prk.nc",
    log:
        "logs/prk/placebo.log",
    benchmark:
        "logs/bench/prk_placebo.tsv"
    conda:
        "../../envs/twelveways.yaml"
    threads: workflow.cores
    params:
        launcher=mpi_launcher,
        configurations=config["measurement"]["placebo_configurations"],
    shell:
        "python -m twelveways.prk.sweep --config {input.config:q} --kernels-dir build/kernels "
        "--environment {input.environment:q} --mpi-launcher={params.launcher:q} --placebo {params.configurations} "
        "--no-progress --output {output:q} > {log:q} 2>&1"


rule noise_floor:
    """False-positive rate, floor and power of the comparison on identical code."""
    input:
        first="results/prk.nc",
        second="results/placebo/prk.nc",
        code=code_files("twelveways.compare.cli"),
    output:
        "results/noise_floor.json",
    log:
        "logs/noise_floor.log",
    benchmark:
        "logs/bench/noise_floor.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        confidence=config["measurement"]["confidence"],
    shell:
        "python -m twelveways noise-floor {input.first:q} {input.second:q} --confidence {params.confidence} "
        "--output {output:q} > {log:q} 2>&1"


rule reproduction:
    """This run against report.reference: Reproduced / Not reproduced / Inconclusive per claim and headline."""
    input:
        results=checklist_results(),
        derived=derived_results(),
        noise=noise_floor_files(),
        claims=checklist_claims(),
        code=code_files("twelveways.compare.cli"),
    output:
        json="reports/reproduction.json",
        md="reports/reproduction.md",
        html="reports/reproduction.html",
    log:
        "logs/reproduction.log",
    benchmark:
        "logs/bench/reproduction.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        reference=config["report"]["reference"],
        confidence=config["measurement"]["confidence"],
    shell:
        "python -m twelveways reproduce --reference {params.reference:q} --results results --claims '{input.claims}' "
        "--confidence {params.confidence} --output reports/reproduction > {log:q} 2>&1"
