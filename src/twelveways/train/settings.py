"""The training family's configuration, parsed once from the validated config into frozen records.

The schema (``workflow/schemas/train.schema.yaml``) checks every key and fills every default, so
nothing here has a default of its own: a key the schema did not fill is a programming error and
fails with ``KeyError``.  The plan, the runs, the data preparation and the Snakemake rules all
read these records instead of the config dictionary.  No torch or numpy import: the Snakefile
reads :meth:`TrainConfig.datasets_to_prepare` when it parses the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

#: The data set the input-size sweep uses at 32x32: the digits upsampled (``data.digits_arrays``).
UPSAMPLED_DIGITS = "digits32"


@dataclass(frozen=True)
class TrainConfig:
    """Config section ``train`` plus the project ``seed`` (data splits, run seeds and run order use it)."""

    seed: int
    data_dir: str
    datasets: tuple[str, ...]
    targets: Mapping[str, float]
    models: tuple[str, ...]
    reference: Reference
    seeds: int
    max_epochs: int
    batch_size: int
    base_batch_size: int
    batch_sizes: tuple[int, ...]
    lr: float
    lr_rule: str
    momentum: float
    threads: int
    studies: tuple[str, ...]
    precisions: tuple[str, ...]
    input_sizes: tuple[int, ...]
    parallel: Parallel
    lr_search: LrSearch
    synthetic: Mapping[str, float]
    split: Split

    @classmethod
    def from_config(cls, config: Mapping) -> TrainConfig:
        """Parse a validated config (``twelveways.config.validate``: every default already filled)."""
        train = config["train"]
        par = train["parallel"]
        return cls(
            seed=int(config["seed"]), data_dir=str(train["data_dir"]), datasets=tuple(train["datasets"]),
            targets=MappingProxyType(dict(train["targets"])), models=tuple(train["models"]),
            reference=Reference(model=train["reference"]["model"], dataset=train["reference"]["dataset"]),
            seeds=int(train["seeds"]), max_epochs=int(train["max_epochs"]), batch_size=int(train["batch_size"]),
            base_batch_size=int(train["base_batch_size"]), batch_sizes=tuple(train["batch_sizes"]),
            lr=float(train["lr"]), lr_rule=train["lr_rule"], momentum=float(train["momentum"]),
            threads=int(train["threads"]), studies=tuple(train["studies"]), precisions=tuple(train["precisions"]),
            input_sizes=tuple(train["input_sizes"]),
            parallel=Parallel(ranks=tuple(par["ranks"]), scaling=tuple(par["scaling"]), model=par["model"],
                              batch_size=int(par["batch_size"]), topk_ratio=float(par["topk_ratio"]),
                              error_feedback=bool(par["error_feedback"]), launcher=par["launcher"],
                              timeout_s=float(par["timeout_s"])),
            lr_search=LrSearch(lrs=tuple(float(lr) for lr in train["lr_search"]["lrs"]),
                               seeds=int(train["lr_search"]["seeds"])),
            synthetic=MappingProxyType(dict(train["synthetic"])),
            split=Split(val=float(train["split"]["val"]), test=float(train["split"]["test"])),
        )

    def datasets_to_prepare(self) -> tuple[str, ...]:
        """Every data set a run of this config reads, sorted: the one place that list is stated.

        The configured tasks, the reference data set (the reference model and the inference
        benchmark's test data come from it), and the upsampled digits when the input-size sweep
        asks for 32x32 inputs.  ``train_data`` writes these, the study verifies them.
        """
        wanted = set(self.datasets) | {self.reference.dataset}
        if 32 in self.input_sizes:
            wanted.add(UPSAMPLED_DIGITS)
        return tuple(sorted(wanted))


@dataclass(frozen=True)
class Parallel:
    """The data-parallel study: rank counts, scaling modes, its model and batch, top-k, the launcher."""

    ranks: tuple[int, ...]
    scaling: tuple[str, ...]
    model: str
    batch_size: int
    topk_ratio: float
    error_feedback: bool
    launcher: str
    timeout_s: float


@dataclass(frozen=True)
class LrSearch:
    """The learning rates tried on the reference configuration and the seeds per trial (F4)."""

    lrs: tuple[float, ...]
    seeds: int


@dataclass(frozen=True)
class Reference:
    """The reference configuration's model and data set (every sweep varies one factor away from it)."""

    model: str
    dataset: str


@dataclass(frozen=True)
class Split:
    """Validation and test fractions of the fixed, stratified split."""

    val: float
    test: float


def load_config(path: str) -> dict:
    """Read and validate a config JSON (``results/config.json``), defaults filled; one-line error otherwise."""
    import json
    from pathlib import Path

    from ..config import validate
    from ..errors import ConfigError

    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the config {path}", cause=exc) from exc
    return validate(data)
