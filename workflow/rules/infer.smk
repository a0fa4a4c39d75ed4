# Inference stage: the trained model(s) on MLPerf LoadGen, every scenario and variant.
# Logic lives in src/twelveways/infer; this rule only calls its entry point.
# The checkpoints are the training stage's outputs (rule train_sweeps writes results/models/<name>.pt
# and .json), so a missing checkpoint makes Snakemake train it first.
# Benchmark rules take every core (threads: workflow.cores) so that no other job runs beside them.

from twelveways.infer.settings import InferConfig

INFER = InferConfig.from_config(config)
INFER_MODELS = expand("results/models/{name}{ext}", name=INFER.models, ext=[".pt", ".json"])


rule infer:
    """LoadGen SingleStream, MultiStream, Server (search for the highest VALID QPS), Offline and
    AccuracyOnly for every model and precision variant; every LoadGen log kept and parsed."""
    input:
        config=CONFIG_FILE,
        environment=ENV_JSON,
        models=INFER_MODELS,
        code=benchmark_code("twelveways.infer.run"),
    output:
        results="results/inference.nc",
        logs=directory("results/inference"),
    log:
        "logs/infer/infer.log",
    benchmark:
        "logs/bench/infer.tsv"
    # Measured alone (every core), so it goes first once the models exist: the notebooks of the earlier stages
    # then share the cores with the inference notebook instead of holding this rule back one at a time.
    priority: 10
    conda:
        "../../envs/twelveways.yaml"
    threads: workflow.cores
    params:
        checkpoints=[f"results/models/{name}.pt" for name in INFER.models],
    shell:
        "python -m twelveways.infer.run --config {input.config:q} --model {params.checkpoints:q} "
        "--output {output.results:q} --environment {input.environment:q} --logs {output.logs:q} "
        "> {log:q} 2>&1"
