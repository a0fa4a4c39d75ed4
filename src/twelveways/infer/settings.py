"""The inference family's configuration, parsed once from the validated config into frozen records.

The schema (``workflow/schemas/infer.schema.yaml``) checks every key and fills every default, so
nothing here has a default of its own: a key the schema did not fill is a programming error and
fails with ``KeyError``.  The stage, its runs, the LoadGen settings and the results' attributes
read these records instead of the config dictionary.  No torch or LoadGen import.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

#: Each LoadGen scenario's key in the keyed config objects (``min_queries``, ``percentiles``, ``performance_runs``).
SCENARIO_KEYS = MappingProxyType({"SingleStream": "single_stream", "MultiStream": "multi_stream", "Server": "server",
                                  "Offline": "offline"})


@dataclass(frozen=True)
class InferConfig:
    """Config section ``infer`` plus the project ``seed`` (run order, pilots, LoadGen seeds).

    ``percentiles`` (single_stream, multi_stream, server), ``min_queries`` (those and offline) and
    ``performance_runs`` (single_stream, multi_stream, offline) are keyed like the schema; ``section``
    is the validated mapping as given, which the results record verbatim (attr ``infer_config``).
    """

    models: tuple[str, ...]
    variants: tuple[str, ...]
    scenarios: tuple[str, ...]
    accuracy_mode: bool
    percentiles: Mapping[str, float]
    min_queries: Mapping[str, int]
    performance_runs: Mapping[str, int]
    seed: int
    statistical_minimum: bool
    confidence: float
    min_duration_s: float
    server_load_fractions: tuple[float, ...]
    threads: int
    multistream_samples_per_query: int
    offline_batch: int
    server_max_batch: int
    server_latency_bound_ms: float
    server_max_duration_factor: float
    server_search: ServerSearch
    max_latency_rows: int
    performance_sample_count: int
    accuracy: AccuracyRule
    section: Mapping

    @classmethod
    def from_config(cls, config: Mapping) -> InferConfig:
        """Parse a validated config (``twelveways.config.validate``: every default already filled)."""
        infer = config["infer"]
        return cls(
            threads=int(infer["threads"]), seed=int(config["seed"]), models=tuple(infer["models"]),
            variants=tuple(infer["variants"]), scenarios=tuple(infer["scenarios"]),
            accuracy_mode=bool(infer["accuracy_mode"]), min_duration_s=float(infer["min_duration_s"]),
            statistical_minimum=bool(infer["statistical_minimum"]), confidence=float(infer["confidence"]),
            min_queries=MappingProxyType({k: int(v) for k, v in infer["min_queries"].items()}),
            percentiles=MappingProxyType({k: float(v) for k, v in infer["percentiles"].items()}),
            performance_runs=MappingProxyType({k: int(v) for k, v in infer["performance_runs"].items()}),
            multistream_samples_per_query=int(infer["multistream_samples_per_query"]),
            server_latency_bound_ms=float(infer["server_latency_bound_ms"]),
            server_max_batch=int(infer["server_max_batch"]), offline_batch=int(infer["offline_batch"]),
            server_max_duration_factor=float(infer["server_max_duration_factor"]),
            server_load_fractions=tuple(float(f) for f in infer["server_load_fractions"]),
            max_latency_rows=int(infer["max_latency_rows"]),
            performance_sample_count=int(infer["performance_sample_count"]),
            server_search=ServerSearch.from_section(infer["server_search"]),
            accuracy=AccuracyRule(definition=str(infer["accuracy"]["definition"]),
                                  tolerance=float(infer["accuracy"]["tolerance"])),
            section=MappingProxyType(dict(infer)),
        )

    def runs_per_variant(self, scenario: str) -> int:
        """LoadGen performance runs of one variant in ``scenario``; Server: 1 (its search and load sweep are
        its runs, and no key repeats them)."""
        return self.performance_runs.get(SCENARIO_KEYS[scenario], 1)


@dataclass(frozen=True)
class ServerSearch:
    """The Server search: probes at most, the bracket width that stops it, the first target QPS (0: from
    the calibration) and each probe's wall-time cap (None: uncapped, MLPerf's rules; the config's 0)."""

    max_runs: int
    rel_tolerance: float
    start_qps: float
    probe_cap_s: float | None

    @classmethod
    def from_section(cls, search: Mapping) -> ServerSearch:
        return cls(max_runs=int(search["max_runs"]), rel_tolerance=float(search["rel_tolerance"]),
                   start_qps=float(search["start_qps"]), probe_cap_s=float(search["probe_cap_s"]) or None)


@dataclass(frozen=True)
class AccuracyRule:
    """Which relative accuracy decides a variant's accuracy check, and its tolerance."""

    definition: str
    tolerance: float
