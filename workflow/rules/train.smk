# Training benchmark: data reformatting (untimed), then every training study in one job.
# Logic lives in src/twelveways/train; these rules only call its entry points.

from twelveways.train.settings import TrainConfig

TRAIN = TrainConfig.from_config(config)
TRAIN_DATA = TRAIN.data_dir
TRAIN_DATASETS = list(TRAIN.datasets_to_prepare())
#: Checkpoints for the inference benchmark: the reference model, and one per family/size when the
#: families study runs (the inference stage's size variants).
TRAIN_MODELS = ["reference"] + (list(TRAIN.models) if "families" in TRAIN.studies else [])


rule train_data:
    """Untimed reformatting (MLPerf allows it): data sets as .npz with fixed splits, sha256 in manifest.json."""
    input:
        config=CONFIG_FILE,
        code=benchmark_code("twelveways.train.data"),
    output:
        manifest=f"{TRAIN_DATA}/manifest.json",
        data=expand(f"{TRAIN_DATA}/{{name}}.npz", name=TRAIN_DATASETS),
    log:
        "logs/train/data.log",
    benchmark:
        "logs/bench/train_data.tsv"
    conda:
        "../../envs/twelveways.yaml"
    shell:
        "python -m twelveways.train.data prepare --config {input.config:q} > {log:q} 2>&1"


rule train_sweeps:
    """Every training study (time to train under MLPerf rules, mllog logs checked for compliance)."""
    input:
        config=CONFIG_FILE,
        environment=ENV_JSON,
        manifest=rules.train_data.output.manifest,
        data=rules.train_data.output.data,
        code=benchmark_code("twelveways.train.sweeps", "twelveways.train.dist"),
    output:
        results="results/train.nc",
        logs=directory("results/train/mllog"),
        models=expand("results/models/{name}{ext}", name=TRAIN_MODELS, ext=[".pt", ".json"]),
    log:
        "logs/train/sweeps.log",
    benchmark:
        "logs/bench/train_sweeps.tsv"
    conda:
        "../../envs/twelveways.yaml"
    threads: max(max(TRAIN.parallel.ranks) * TRAIN.threads, TRAIN.threads)
    params:
        launcher=mpi_launcher,  # a scheduler profile's resources.mpi (profiles/slurm), else ''
    shell:
        "python -m twelveways.train.sweeps --config {input.config:q} --output {output.results:q} "
        "--environment {input.environment:q} --logs {output.logs:q} --models results/models "
        "--mpi-launcher={params.launcher:q} > {log:q} 2>&1"
