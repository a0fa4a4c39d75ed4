"""Check domains: the kind of results a check is about (training, inference, parallel, rates, ...).

A check registered with a domain (``model.check(..., domain=...)``) is not applicable to results
outside it, whatever the data lack.  Only rows outside the excluded runs (``ResultSet.kept``) put results
inside a domain: a LoadGen pilot alone makes no inference results.
"""

from __future__ import annotations

import pandas as pd

from ..evidence.kinds import MetricKind, rate_kind
from ..resultset import INFER_BENCHMARKS, TRAIN_BENCHMARKS, TRAIN_METRICS, ResultSet


def _distinct(data: ResultSet, column: str) -> pd.Series:
    """The distinct values of a column: "is there any row that ..." asks each value once, not each row."""
    return pd.Series(data.frame[column][data.kept.to_numpy()].unique(), dtype=object).astype(str)


def _has_training(data: ResultSet) -> bool:
    return bool(_distinct(data, "benchmark").str.lower().isin(TRAIN_BENCHMARKS).any()
                or _distinct(data, "metric").isin(TRAIN_METRICS).any())


def _has_inference(data: ResultSet) -> bool:
    return bool(_distinct(data, "benchmark").str.lower().isin(INFER_BENCHMARKS).any()
                or _distinct(data, "metric").str.lower().str.contains("latency").any())


def _has_parallel(data: ResultSet) -> bool:
    fr = data.frame
    return bool((((fr["ranks"] > 1) | (fr["threads"] > 1)) & data.kept).any())


def _has_rates(data: ResultSet) -> bool:
    return bool(((data.kinds == "rate") & data.kept).any())


def _has_op_rates(data: ResultSet) -> bool:
    valid = data.frame[data.frame["valid"].astype(bool)]
    return any(rate_kind(unit) is MetricKind.OP_RATE for unit in valid["unit"].astype(str).unique())


#: Domain name -> (what the results must hold, test).  A check declared with a domain is not
#: applicable to results outside it (e.g. F2, a training fallacy, on inference-only results).
DOMAINS = {
    "training": ("training rows (benchmark train/training or a training metric)", _has_training),
    "inference": ("inference rows (benchmark infer/inference or a latency metric)", _has_inference),
    "ml": ("training or inference rows", lambda data: _has_training(data) or _has_inference(data)),
    "parallel": ("rows with ranks > 1 or threads > 1", _has_parallel),
    "rates": ("rate rows (unit ending in /s)", _has_rates),
    "op_rates": ("valid operation-rate rows (op/s, flop/s; bytes/s and samples, queries or items per second are not "
                 "operation rates)", _has_op_rates),
}
