"""The inference family: LoadGen scenarios and precision variants, results, notebook.

The names repeat ``twelveways.infer.scenarios.SCENARIOS`` and ``infer.variants.VARIANTS``
(modules that import LoadGen and torch); tests/test_families.py holds them equal.
"""

from .model import Family, Figures, Headline, by_filters

SCENARIOS = ("SingleStream", "MultiStream", "Server", "Offline")
VARIANTS = ("fp32", "bf16", "int8")

FAMILY = Family(
    name="infer",
    stage="infer",
    notebook="inference",
    results=("inference.nc",),
    levels={"scenario": SCENARIOS, "precision": VARIANTS},
    analysis="twelveways.infer.analysis",
    figures=Figures("../report/inference.rst", "Inference"),
    title="Inference on MLPerf LoadGen",
    rules=("infer", "notebook_inference"),
    needs="the checkpoints of train_sweeps (the training experiment runs first)",
    headline=Headline(title="Inference", statistics=("p90",), metric="latency", unit="ms", figure="latency_cdf",
                      group=by_filters("scenario"), describe=lambda f: f"{f.get('scenario')} · {f.get('variant')}",
                      table="twelveways.report.inference_table:table_html"),
)
