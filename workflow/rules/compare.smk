# Noise floor: the PRK stage's configurations (a seeded choice of measurement.placebo_configurations)
# run a second time in an independent invocation after the sweep (A/A); twelveways noise-floor compares
# the two and records the false-positive rate of the test alone, the floor and the power. Logic lives in
# src/twelveways/prk/sweep.py (--placebo) and src/twelveways/compare; these rules only call it.


def noise_floor_files():
    """results/noise_floor.json when the PRK stage runs and measurement.placebo is on."""
    return ["results/noise_floor.json"] if stage_on("prk") and config["measurement"]["placebo"] else []


rule prk_placebo:
    """The A/A run: the same binaries and config, a second invocation after the sweep."""
    input:
        binaries=PRK_BINARIES,
        python_kernels=PRK_PY_KERNELS,
        config=CONFIG_FILE,
        environment=ENV_JSON,
        first="results/prk.nc",
    output:
        "results/placebo/prk.nc",
    params:
        launcher=mpi_launcher,
        count=config["measurement"]["placebo_configurations"],
    threads: workflow.cores
    benchmark:
        "logs/bench/prk_placebo.tsv"
    log:
        "logs/prk/placebo.log",
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.prk.sweep --config {input.config:q} --kernels-dir build/kernels "
        "--environment {input.environment:q} --mpi-launcher={params.launcher:q} --placebo {params.count} "
        "--no-progress --output {output:q} > {log:q} 2>&1"


rule noise_floor:
    """False-positive rate, floor and power of the comparison on identical code."""
    input:
        first="results/prk.nc",
        second="results/placebo/prk.nc",
    output:
        "results/noise_floor.json",
    params:
        confidence=config["measurement"]["confidence"],
    log:
        "logs/noise_floor.log",
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways noise-floor {input.first:q} {input.second:q} --confidence {params.confidence} "
        "--output {output:q} > {log:q} 2>&1"
