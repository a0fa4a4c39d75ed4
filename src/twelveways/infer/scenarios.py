"""The four MLPerf scenarios: how queries arrive, what LoadGen measures, and the number reported.

Each scenario is declared once here with the definition of its final number (LoadGen's style:
"each scenario and metric defined where it is declared"), and :func:`settings` turns the
validated ``infer`` config plus an untimed calibration into LoadGen ``TestSettings``.

Calibration only sets LoadGen's *expectations* (how many queries to pre-generate): an expected
latency that is too high, or an expected Offline QPS that is too low, makes LoadGen run out of
queries before the minimum duration and call the run INVALID.  So expected latencies are set
below the calibrated latency and the expected Offline QPS above the calibrated throughput.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from .querycount import min_query_count
from .settings import SCENARIO_KEYS, InferConfig


@dataclass(frozen=True)
class Scenario:
    """One LoadGen scenario and the definition of what we report for it."""

    name: str
    arrival: str
    latency_kind: str  # "sample" or "query": what LoadGen's percentiles are computed over
    reported: str  # the final number and how it is defined
    reported_metric: str  # metric name of that number in results/inference.nc
    percentile_key: str | None  # key under infer.percentiles (None: no latency percentile criterion)
    queued: bool  # SUT issue path: worker queue (True) or inline in the issue callback


SCENARIOS: dict[str, Scenario] = {
    "SingleStream": Scenario(
        "SingleStream", "one 1-sample query at a time; the next is issued when the previous completes",
        "sample", "early-stopping estimate of the p-th percentile latency (LoadGen's summary value; MLPerf's "
        "reported SingleStream result), beside the plain percentile", "early_stopping_latency", "single_stream", False),
    "MultiStream": Scenario(
        "MultiStream", "one query of N contiguous samples at a time; the next is issued when the previous completes",
        "query", "early-stopping estimate of the p-th percentile per-query latency (a query completes with its "
        "last sample)", "early_stopping_latency", "multi_stream", False),
    "Server": Scenario(
        "Server", "1-sample queries with Poisson arrivals at the target QPS",
        "sample", "latency-bounded throughput: the highest target QPS whose run LoadGen calls VALID (p-th "
        "percentile latency within the bound, early stopping, minimum duration and query count met)",
        "latency_bounded_qps", "server", True),
    "Offline": Scenario(
        "Offline", "one query holding every sample, issued at the start",
        "sample", "samples per second: samples / time until the last sample completed (LoadGen's "
        "'Samples per second')", "samples_per_second", None, True),
}

#: Safety margins on a shared machine, where speed drifts between calibration and run: LoadGen is
#: told to expect latencies half the calibrated ones (it pre-generates 2x the queries it expects
#: to need, so a 4x faster SUT still meets the minimum duration) and an Offline rate three times the
#: calibrated one (the query then holds ~3.3x min_duration worth of samples at the calibrated rate).
#: Why three: a tiny model's full-size Offline query runs faster than its small pilots (per-query
#: overhead amortized): the test suite's tiny MLP measured 1.98x and 2.2x its pilots' rate in two runs,
#: and the second ended before its minimum duration (INVALID) under twice the rate.
EXPECTED_LATENCY_FACTOR = 0.5
EXPECTED_QPS_FACTOR = 3.0

#: Percentile that sizes the Offline sample count in the full profile (MLPerf: 24,576 samples).
OFFLINE_SIZING_PERCENTILE = 0.90

#: A capped Server probe (``infer.server_search.probe_cap_s``, the quick profile) schedules its queries
#: within this share of the cap, LoadGen stops issuing at PROBE_ISSUE_SHARE of it, and at the cap itself
#: the SUT answers what is left without the model (:mod:`.sut`): the last share is the grace that makes
#: every such sample later than the latency bound, so LoadGen's verdict stays right.
PROBE_SCHEDULE_SHARE = 0.7
PROBE_ISSUE_SHARE = 0.85


def get(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ConfigError(f"unknown LoadGen scenario {name!r} (known: {', '.join(SCENARIOS)})") from None


def percentile(scenario: Scenario, cfg: InferConfig) -> float:
    """The latency percentile LoadGen checks for this scenario (Offline: the one used for sizing)."""
    if scenario.percentile_key is None:
        return OFFLINE_SIZING_PERCENTILE
    return cfg.percentiles[scenario.percentile_key]


def min_queries(scenario: Scenario, cfg: InferConfig) -> int:
    """Query (Offline: sample) count for a run: MLPerf's statistical minimum or the configured small one."""
    if cfg.statistical_minimum:
        return min_query_count(percentile(scenario, cfg), cfg.confidence)
    return cfg.min_queries[SCENARIO_KEYS[scenario.name]]


def probe_floor_qps(cfg: InferConfig, cap_s: float) -> float:
    """Lowest Server target QPS whose minimum query count fits a probe capped at ``cap_s`` seconds."""
    check_probe_cap(cfg, cap_s)
    return min_queries(SCENARIOS["Server"], cfg) / (cap_s * PROBE_SCHEDULE_SHARE)


def check_probe_cap(cfg: InferConfig, cap_s: float) -> None:
    """A probe cap must leave a grace longer than the latency bound (see PROBE_ISSUE_SHARE)."""
    grace_ms = cap_s * (1 - PROBE_ISSUE_SHARE) * 1000
    if grace_ms <= cfg.server_latency_bound_ms:
        raise ConfigError(f"infer.server_search.probe_cap_s = {cap_s:g} s is too short: its last "
                          f"{1 - PROBE_ISSUE_SHARE:.0%} ({grace_ms:.1f} ms) must exceed server_latency_bound_ms")


def settings(scenario: Scenario, mode: str, cfg: InferConfig, calibration: dict, seed: int,
             target_qps: float | None = None, cap_s: float | None = None):
    """LoadGen TestSettings for one run (``mode``: PerformanceOnly or AccuracyOnly).

    ``cap_s`` (Server probes only): the run is scheduled within PROBE_SCHEDULE_SHARE of it and LoadGen
    stops issuing at PROBE_ISSUE_SHARE of it.
    """
    import mlperf_loadgen as lg

    s = lg.TestSettings()
    s.scenario = getattr(lg.TestScenario, scenario.name)
    s.mode = getattr(lg.TestMode, mode)
    min_duration_ms = int(round(cfg.min_duration_s * 1000))
    if cap_s and scenario.name == "Server":
        check_probe_cap(cfg, cap_s)
        min_duration_ms = min(min_duration_ms, int(cap_s * PROBE_SCHEDULE_SHARE * 1000))
    s.min_duration_ms = min_duration_ms
    count, target_percentile = min_queries(scenario, cfg), percentile(scenario, cfg)
    s.qsl_rng_seed = seed
    s.sample_index_rng_seed = seed + 1
    s.schedule_rng_seed = seed + 2
    if scenario.name == "SingleStream":
        s.single_stream_expected_latency_ns = max(1000, int(calibration["latency_single_s"] * 1e9 * EXPECTED_LATENCY_FACTOR))
        s.single_stream_target_latency_percentile = target_percentile
        s.min_query_count = count
    elif scenario.name == "MultiStream":
        s.multi_stream_samples_per_query = cfg.multistream_samples_per_query
        s.multi_stream_expected_latency_ns = max(1000, int(calibration["latency_multi_s"] * 1e9 * EXPECTED_LATENCY_FACTOR))
        s.multi_stream_target_latency_percentile = target_percentile
        s.min_query_count = count
    elif scenario.name == "Server":
        if target_qps is None or target_qps <= 0:
            raise ConfigError("a Server run needs a positive target QPS")
        s.server_target_qps = float(target_qps)
        s.server_target_latency_ns = int(cfg.server_latency_bound_ms * 1e6)
        s.server_target_latency_percentile = target_percentile
        s.min_query_count = count
        # Guard: an overloaded run stops issuing here (LoadGen then reports it INVALID itself).  The
        # scheduled run lasts max(min_duration, min_queries / target_qps); the guard is a multiple of that.
        natural_ms = max(min_duration_ms, 1000.0 * count / float(target_qps))
        s.max_duration_ms = int(natural_ms * cfg.server_max_duration_factor)
        if cap_s:
            s.max_duration_ms = min(s.max_duration_ms, int(cap_s * PROBE_ISSUE_SHARE * 1000))
    elif scenario.name == "Offline":
        expected = calibration["throughput_sps"] * EXPECTED_QPS_FACTOR
        floor = count / (1.1 * max(cfg.min_duration_s, 1e-3))  # LoadGen issues expected*duration*1.1 samples
        s.offline_expected_qps = float(max(expected, floor, 1.0))
        s.min_query_count = 1
    return s
