"""The training family: models, data sets, precisions and input sizes, results, notebook.

The names repeat ``twelveways.train.models.MODELS`` and ``train.data.DATASETS`` (whose modules
import torch, which a declaration must not); tests/test_families.py holds them equal.
"""

from .model import Family, Figures, Headline

MODELS = ("mlp-small", "mlp-large", "cnn-small", "cnn-large")
DATASETS = ("digits", "synthetic")  # digits at input size 32 is an input size, not a data set
PRECISIONS = ("fp32", "mixed:bf16+fp32")
INPUT_SIZES = (8, 32)

FAMILY = Family(
    name="train",
    stage="train",
    notebook="train",
    results=("train.nc",),
    levels={"workload": MODELS, "dataset": DATASETS, "precision": PRECISIONS, "input_size": INPUT_SIZES},
    analysis="twelveways.train.analysis",
    figures=Figures("../report/train.rst", "Training"),
    title="Training to a quality target (MLPerf rules)",
    rules=("train_data", "train_sweeps", "notebook_train"),
    # one row per model: a configuration id starts with it (train.planning.RunConfig.id)
    headline=Headline(title="Training", statistics=("median",), metric="time_to_train", unit="s", figure="f1-batch-size",
                      group=lambda f: (str(f.get("config_id", "")).split("/")[0],),
                      describe="twelveways.train.planning:describe_filters"),
)
