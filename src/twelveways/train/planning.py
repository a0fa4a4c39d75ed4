"""The training study's plan: which configurations run, which studies share each, and their seeds.

Every sweep varies ONE factor away from the reference configuration (config ``train.reference``,
``batch_size``, ``lr``, fp32, data read inside the timed region, 1 process), so each fallacy's
evidence is a clean comparison.  A configuration that several sweeps share runs once and lists
all of them in its ``study`` factor.

=============  =====================================================================  =========
study          levels (factor)                                                        fallacy
=============  =====================================================================  =========
families       models x data sets (``workload``, ``dataset``)                         F3, F7
batch_size     global batch sizes, lr scaled by ``lr_rule`` (``batch_size``, ``lr``)  F1
precision      fp32 vs bf16 autocast, ops counted per dtype (``precision``)           F5
parallel       1 vs R MPI ranks, strong/weak (``ranks``, ``scaling``), top-k           F1, F2
               sparsification with error feedback (``sparsification``)
lr_search      every trial (``role=tuning``) and the final runs at the chosen lr      F4
input_size     8x8 vs 32x32 digits (``input_size``)                                   F11
io             data read inside vs before the timed region (``variant``)              F10
=============  =====================================================================  =========

Each run's seed is ``1000 * seed + i`` (final runs) or ``1000 * seed + 500 + j`` (tuning trials).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..errors import ConfigError
from . import models
from .settings import UPSAMPLED_DIGITS, TrainConfig


@dataclass(frozen=True)
class RunConfig:
    """The factors of one configuration (all runs of it differ only in the seed)."""

    model: str
    dataset: str
    input_size: int
    batch_size: int
    lr: float
    lr_rule: str
    precision: str
    variant: str
    ranks: int = 1
    scaling: str = "none"
    sparsification: str = "none"
    role: str = "final"

    @property
    def config_id(self) -> str:
        return (f"{self.model}/{self.dataset}{self.input_size}/b{self.batch_size}/lr{self.lr:g}-{self.lr_rule}/"
                f"{self.precision}/{self.variant}/r{self.ranks}-{self.scaling}/{self.sparsification}/{self.role}")

    def describe(self) -> str:
        """The configuration in words, each factor named (what a table or the report's headline shows)."""
        parts = [f"model {self.model}", f"data {self.dataset} {self.input_size}×{self.input_size}",
                 f"batch {self.batch_size}", f"lr {self.lr:g} ({self.lr_rule} rule)", f"precision {self.precision}",
                 {"io": "data read in the timed region", "preloaded": "data preloaded"}.get(self.variant,
                                                                                           f"variant {self.variant}"),
                 f"{self.ranks} rank{'s' if self.ranks != 1 else ''}" + (f" ({self.scaling} scaling)"
                                                                          if self.scaling != "none" else "")]
        if self.sparsification != "none":
            parts.append(f"gradients {self.sparsification}")
        if self.role != "final":
            parts.append(f"{self.role} run")
        return ", ".join(parts)

    def short_factors(self) -> list[str]:
        """The factors in a few characters each, in :meth:`describe`'s order (a table cell; the words go in
        its hover text): a table drops the ones every row shares, so a cell names what sets it apart."""
        ranks = f"{self.ranks} rank{'s' if self.ranks != 1 else ''}" + (
            f" {self.scaling}" if self.scaling not in ("none", "base") else "")
        parts = [self.model, f"{self.dataset} {self.input_size}×{self.input_size}", f"batch {self.batch_size}",
                 f"lr {self.lr:g} {self.lr_rule}", self.precision,
                 {"io": "I/O timed", "preloaded": "preloaded"}.get(self.variant, self.variant), ranks]
        return parts + ([self.sparsification] if self.sparsification != "none" else []) + (
            [self.role] if self.role != "final" else [])

    @classmethod
    def from_id(cls, config_id: str) -> RunConfig:
        """The configuration a :attr:`config_id` names; ConfigError when the text is not one."""
        import re

        match = re.fullmatch(r"(?P<model>[^/]+)/(?P<dataset>[a-z_]+?)(?P<input_size>\d+)/b(?P<batch_size>\d+)/"
                             r"lr(?P<lr>[^-/]+)-(?P<lr_rule>[^/]+)/(?P<precision>[^/]+)/(?P<variant>[^/]+)/"
                             r"r(?P<ranks>\d+)-(?P<scaling>[^/]+)/(?P<sparsification>[^/]+)/(?P<role>[^/]+)", config_id)
        if match is None:
            raise ConfigError(f"not a training configuration id: {config_id!r}")
        f = match.groupdict()
        return cls(f["model"], f["dataset"], int(f["input_size"]), int(f["batch_size"]), float(f["lr"]), f["lr_rule"],
                   f["precision"], f["variant"], int(f["ranks"]), f["scaling"], f["sparsification"], f["role"])

    @property
    def data_name(self) -> str:
        return UPSAMPLED_DIGITS if (self.dataset == "digits" and self.input_size == 32) else self.dataset

    @property
    def topk_ratio(self) -> float:
        return float(self.sparsification.split(":")[1].split("+")[0]) if self.sparsification.startswith("topk:") else 1.0


def describe_config_id(config_id: str) -> str:
    """A training configuration id in words (:meth:`RunConfig.describe`); any other text unchanged."""
    try:
        return RunConfig.from_id(str(config_id)).describe()
    except (ConfigError, ValueError):
        return str(config_id)


def describe_filters(filters: Mapping) -> str | None:
    """A training summary's configuration in words (the report's headline row), None without a configuration id."""
    return describe_config_id(filters["config_id"]) if filters.get("config_id") else None


class Planned(NamedTuple):
    """A configuration and every study that shares it (its ``study`` factor)."""

    config: RunConfig
    studies: frozenset[str]


@dataclass(frozen=True)
class Plan:
    """What the study runs: final single-process configurations, MPI configurations, lr trials."""

    reference: RunConfig
    finals: Mapping[RunConfig, frozenset[str]]  # in plan order
    parallel: tuple[Planned, ...]
    trials: tuple[RunConfig, ...]

    def with_final(self, config: RunConfig, study: str) -> Plan:
        """The plan with ``config`` added to the final runs (or ``study`` added to it, if planned)."""
        return replace(self, finals=_merge([*_pairs(self.finals), (config, study)]))


def reference_config(settings: TrainConfig) -> RunConfig:
    ref = settings.reference
    return RunConfig(model=ref.model, dataset=ref.dataset, input_size=8, batch_size=settings.batch_size,
                     lr=_lr_at(settings, settings.batch_size), lr_rule=settings.lr_rule, precision="fp32",
                     variant="io")


def plan(settings: TrainConfig, manifest: dict) -> Plan:
    """Every configuration of the studies in ``settings`` (input shapes from the data manifest)."""
    ref = reference_config(settings)
    trials = ()
    if "lr_search" in settings.studies:
        trials = tuple(replace(ref, lr=lr, role="tuning") for lr in settings.lr_search.lrs)
    parallel = _merge(_parallel_configs(settings, ref)) if "parallel" in settings.studies else {}
    return Plan(reference=ref, finals=_merge(_final_configs(settings, manifest, ref)),
                parallel=tuple(Planned(cfg, studies) for cfg, studies in parallel.items()), trials=trials)


def run_seeds(seed: int, n: int, tuning: bool = False) -> list[int]:
    base = 1000 * seed + (500 if tuning else 0)
    return [base + i for i in range(n)]


def scaled_lr(lr: float, batch_size: int, base_batch_size: int, rule: str) -> float:
    """The learning rate at ``batch_size`` under a scaling rule (recorded with every run, F1).

    Here, not in the training loop: planning (``twelveways plan``, the report's runtime sentence) names
    every configuration's rate, and the loop imports PyTorch (seconds) that planning never needs."""
    ratio = batch_size / base_batch_size
    if rule == "linear":
        return lr * ratio
    if rule == "sqrt":
        return lr * math.sqrt(ratio)
    return lr


def _lr_at(settings: TrainConfig, batch_size: int) -> float:
    return scaled_lr(settings.lr, batch_size, settings.base_batch_size, settings.lr_rule)


def _merge(pairs: Iterable[tuple[RunConfig, str]]) -> dict[RunConfig, frozenset[str]]:
    """(config, study) pairs -> config -> studies, in order of first appearance."""
    merged: dict[RunConfig, frozenset[str]] = {}
    for config, study in pairs:
        merged[config] = merged.get(config, frozenset()) | {study}
    return merged


def _pairs(finals: Mapping[RunConfig, frozenset[str]]) -> Iterator[tuple[RunConfig, str]]:
    for config, studies in finals.items():
        for study in sorted(studies):
            yield config, study


def _final_configs(settings: TrainConfig, manifest: dict, ref: RunConfig) -> Iterator[tuple[RunConfig, str]]:
    """(config, study) of every single-process final run, reference first."""
    studies = settings.studies
    yield ref, "reference"
    if "families" in studies:
        for dataset in settings.datasets:
            shape = manifest["datasets"][dataset]["input_shape"]
            for model in settings.models:
                if models.applicable(model, shape):
                    yield replace(ref, model=model, dataset=dataset, input_size=int(shape[-1])), "families"
    if "batch_size" in studies:
        for batch in settings.batch_sizes:
            yield replace(ref, batch_size=batch, lr=_lr_at(settings, batch)), "batch_size"
    if "precision" in studies:
        for precision in settings.precisions:
            yield replace(ref, precision=precision), "precision"
    if "io" in studies:
        for variant in ("io", "preloaded"):
            yield replace(ref, variant=variant), "io"
    if "input_size" in studies:
        for size in settings.input_sizes:
            yield replace(ref, input_size=size), "input_size"


def _parallel_configs(settings: TrainConfig, ref: RunConfig) -> Iterator[tuple[RunConfig, str]]:
    """(config, "parallel") per rank count and scaling mode, plus the top-k run beside strong scaling."""
    par = settings.parallel
    base = replace(ref, model=par.model, batch_size=par.batch_size, lr=_lr_at(settings, par.batch_size))
    for ranks in par.ranks:
        if ranks == 1:
            yield replace(base, ranks=1, scaling="base"), "parallel"
            continue
        for scaling in par.scaling:
            if scaling == "strong":
                if par.batch_size < ranks:
                    raise ConfigError(f"config key 'train.parallel.batch_size': {par.batch_size} "
                                      f"cannot be split over {ranks} ranks")
                yield replace(base, ranks=ranks, scaling="strong"), "parallel"
            else:
                glob = par.batch_size * ranks
                yield replace(base, ranks=ranks, scaling="weak", batch_size=glob, lr=_lr_at(settings, glob)), "parallel"
        if par.topk_ratio < 1 and "strong" in par.scaling:
            tag = f"topk:{par.topk_ratio:g}" + ("+ef" if par.error_feedback else "")
            yield replace(base, ranks=ranks, scaling="strong", sparsification=tag), "parallel"
