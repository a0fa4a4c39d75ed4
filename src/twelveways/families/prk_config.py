"""The PRK family's configuration, parsed once from the validated config into frozen records.

The schema (``workflow/schemas/prk.schema.yaml`` and the ``measurement`` section of
``config.schema.yaml``) checks every key and fills every default, so nothing here has a default
of its own: a key the schema did not fill is a programming error and fails with ``KeyError``.
The sweep, the bounds, the feasibility check and the build rule (``workflow/rules/prk.smk``)
read these records instead of the config dictionary.  No numpy import: the validator reads
:class:`PrkConfig` while it checks a config.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

#: The keys of the project's ``subset_reasons`` that speak for the PRK sweep (R2).
PRK_SUBSET_KEYS = ("kernels", "resources")


@dataclass(frozen=True)
class PrkConfig:
    """Config section ``prk`` plus what the PRK stage reads beside it: the project ``seed`` (run order,
    placebo choice, NumPy inputs), the ``measurement`` section (adaptive repetition, as ``stop_rule``:
    the keywords of ``measure.repeat_until_stable``) and the ``subset_reasons`` that explain a partial
    sweep.  ``section`` is the validated ``prk`` mapping as
    given, which the results record verbatim (attr ``prk_config``)."""

    seed: int
    scaling: str
    stop_rule: Mapping[str, float]
    timeout_s: float
    mpi_launcher: str
    bounds: Bounds
    build: Build
    subset_reasons: Mapping[str, str]
    section: Mapping
    kernels: tuple[str, ...]
    implementations: tuple[str, ...]
    sizes: Mapping[str, tuple[int | tuple[int, int], ...]]
    iterations: Mapping[str, int]
    radius: int
    tiles: Mapping[str, int]
    threads: tuple[int, ...]
    ranks: tuple[int, ...]
    interleaved: bool = True

    @classmethod
    def from_config(cls, config: Mapping) -> PrkConfig:
        """Parse a validated config (``twelveways.config.validate``: every default already filled)."""
        prk = config["prk"]
        return cls(
            seed=int(config["seed"]), kernels=tuple(prk["kernels"]), implementations=tuple(prk["implementations"]),
            threads=tuple(int(t) for t in prk["threads"]), ranks=tuple(int(r) for r in prk["ranks"]),
            sizes=MappingProxyType({k: tuple(_size(v) for v in sizes) for k, sizes in prk["sizes"].items()}),
            iterations=MappingProxyType({k: int(v) for k, v in prk["iterations"].items()}),
            radius=int(prk["radius"]), tiles=MappingProxyType({k: int(v) for k, v in prk["tile"].items()}),
            scaling=str(prk["scaling"]), stop_rule=_stop_rule(prk, config["measurement"]),
            timeout_s=float(prk["timeout_s"]), mpi_launcher=str(prk["mpi_launcher"]).strip(),
            bounds=Bounds.from_section(prk["bounds"]),
            build=Build(cc=str(prk["build"]["cc"]), cflags=str(prk["build"]["cflags"]),
                        openmp_flag=str(prk["build"]["openmp_flag"])),
            subset_reasons=MappingProxyType({key: str(text) for key, text in config["subset_reasons"].items()
                                             if key in PRK_SUBSET_KEYS and str(text).strip()}),
            section=MappingProxyType(dict(prk)), interleaved=bool(prk["interleaved"]),
        )


def _size(value) -> int | tuple[int, int]:
    """One configured size: an int, or p2p's ``[m, n]`` as a tuple (a list would make the record mutable)."""
    return (int(value[0]), int(value[1])) if isinstance(value, (list, tuple)) else int(value)


def _stop_rule(prk: Mapping, measurement: Mapping) -> Mapping[str, float]:
    """When a configuration stops repeating: the CI target at the confidence, the sample budget, and the
    wall-time budget (``prk.max_seconds``, or the measurement's when that is 0), after at least
    ``prk.min_invocations`` program runs."""
    return MappingProxyType({
        "target": float(measurement["ci_target"]), "confidence": float(measurement["confidence"]),
        "min_samples": int(measurement["min_samples"]), "max_samples": int(measurement["max_samples"]),
        "max_seconds": float(prk["max_seconds"]) or float(measurement["max_seconds"]),
        "min_invocations": int(prk["min_invocations"])})


@dataclass(frozen=True)
class Bounds:
    """The bounds measurement: nstream for bandwidth, the BLAS dgemm for the peak flop rate."""

    enabled: bool
    llc_factor: float
    nstream_length: int
    nstream_iterations: int
    dgemm_order: int
    repeats: int

    @classmethod
    def from_section(cls, bounds: Mapping) -> Bounds:
        return cls(enabled=bool(bounds["enabled"]), llc_factor=float(bounds["llc_factor"]),
                   nstream_length=int(bounds["nstream_length"]), nstream_iterations=int(bounds["nstream_iterations"]),
                   dgemm_order=int(bounds["dgemm_order"]), repeats=int(bounds["repeats"]))


@dataclass(frozen=True)
class Build:
    """How the C kernels are compiled: the compiler, its optimisation flags and the OpenMP flag."""

    cc: str
    cflags: str
    openmp_flag: str
