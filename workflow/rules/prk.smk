# PRK stage: build the C kernels, measure this machine's bounds, run the sweep.
# Logic lives in src/twelveways/prk (build.py, bounds.py, sweep.py); these rules only call it.
# Benchmark rules take every core (threads: workflow.cores) so that no other job runs beside them.

from glob import glob as _prk_glob

from twelveways.families.prk_config import PrkConfig

#: The PRK section parsed once (the schema filled every default); the rules read this record.
PRK = PrkConfig.from_config(config)

#: The kernels the PRK family declares (twelveways.families.prk), and those with an MPI program.
PRK_KERNELS = list(families.FAMILIES["prk"].workloads)
PRK_MPI_KERNELS = [k for k in PRK_KERNELS if k in families.prk.MPI_KERNELS]
PRK_BINARIES = [f"build/kernels/{k}-{v}" for k in PRK_KERNELS for v in ("serial", "openmp")] + [
    f"build/kernels/{k}-mpi" for k in PRK_MPI_KERNELS
]
PRK_C_SOURCES = sorted(_prk_glob("kernels/c/*.c") + _prk_glob("kernels/c/*.h"))
PRK_PY_KERNELS = sorted(_prk_glob("kernels/python/*.py"))


rule prk_build:
    """Compile the C kernels; compiler and flags are params, so changing them rebuilds."""
    input:
        sources=PRK_C_SOURCES,
        code=benchmark_code("twelveways.prk.build"),
    output:
        PRK_BINARIES,
    log:
        "logs/prk/build.log",
    benchmark:
        "logs/bench/prk_build.tsv"
    conda:
        "../../envs/twelveways.yaml"
    params:
        cc=PRK.build.cc,
        cflags=PRK.build.cflags,
        openmp_flag=PRK.build.openmp_flag,
    shell:
        "python -m twelveways.prk.build --cc {params.cc:q} --cflags {params.cflags:q} "
        "--openmp-flag {params.openmp_flag:q} --out build/kernels > {log:q} 2>&1"


rule prk_bounds:
    """Memory bandwidth (C nstream beyond the LLC) and peak flop rate (BLAS dgemm) of this machine."""
    input:
        binaries=["build/kernels/nstream-serial", "build/kernels/nstream-openmp"],
        config=CONFIG_FILE,
        environment=ENV_JSON,
        code=benchmark_code("twelveways.prk.bounds"),
    output:
        nc="results/bounds.nc",
        json=report("results/bounds.json", caption="../report/prk_bounds.rst", category="PRK"),
    log:
        "logs/prk/bounds.log",
    benchmark:
        "logs/bench/prk_bounds.tsv"
    conda:
        "../../envs/twelveways.yaml"
    threads: workflow.cores
    shell:
        "python -m twelveways.prk.bounds --config {input.config:q} --kernels-dir build/kernels "
        "--environment {input.environment:q} --output {output.nc:q} --json {output.json:q} > {log:q} 2>&1"


rule prk_run:
    """The sweep kernel x implementation x ranks/threads x size, seeded order, adaptive repetition."""
    input:
        binaries=PRK_BINARIES,
        python_kernels=PRK_PY_KERNELS,
        config=CONFIG_FILE,
        environment=ENV_JSON,
        code=benchmark_code("twelveways.prk.sweep"),
    output:
        report("results/prk.nc", caption="../report/prk_run.rst", category="PRK"),
    log:
        "logs/prk/run.log",
    benchmark:
        "logs/bench/prk_run.tsv"
    conda:
        "../../envs/twelveways.yaml"
    threads: workflow.cores
    params:
        # the MPI launcher a scheduler profile sets (profiles/slurm: resources.mpi), else the venv's mpiexec
        launcher=mpi_launcher,
    shell:
        "python -m twelveways.prk.sweep --config {input.config:q} --kernels-dir build/kernels "
        "--environment {input.environment:q} --mpi-launcher={params.launcher:q} "
        "--output {output:q} > {log:q} 2>&1"
