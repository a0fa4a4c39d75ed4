"""One LoadGen run of one prepared variant, parsed: the building block of the stage and of ``make bench``.

A :class:`Prepared` variant holds everything a run needs (runner, QSL size, labels, calibration);
:func:`performance_run` and :func:`accuracy_run` run LoadGen in a fresh directory and return the
parsed logs; :func:`server_search` probes Server target QPS values (see :mod:`.server_search`).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from pathlib import Path

import numpy as np

from .. import atomic
from . import accuracy, calibrate, harness, parse, scenarios
from .querycount import below_statistical_minimum
from .settings import InferConfig
from .qsl import SampleLibrary
from .server_search import Probe, SearchResult, search
from .sut import PythonSUT


@dataclass
class Prepared:
    """A servable variant: ``model`` and ``variant`` carry name/parameters/precision for the results."""

    model: object
    variant: object
    runner: object
    total: int
    labels: np.ndarray | None
    calibration: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.model.name}-{self.variant.name}"


#: Length of each pilot run, seconds, and the bounds on the samples of the first Offline pilot (sized
#: from the runner-only throughput, so a slow variant's pilot lasts about PILOT_S, not 16k samples).
PILOT_S = 0.2
PILOT_OFFLINE_SAMPLES = 16384
PILOT_OFFLINE_MIN_SAMPLES = 256
#: Pilot runs' query counts: one query each, enough Offline samples to time the throughput.
PILOT_QUERIES = MappingProxyType({"single_stream": 1, "multi_stream": 1, "server": 1, "offline": PILOT_OFFLINE_MIN_SAMPLES})
OFFLINE_PILOT_ATTEMPTS = 3


def prepare(model, variant, runner, total: int, labels, cfg: InferConfig, seed: int | None = None,
            pilot_dir: Path | None = None, on_pilot=None) -> Prepared:
    """Bundle a runner with the calibration that sets LoadGen's expectations.

    The runner alone is timed first (no LoadGen); then, when ``pilot_dir`` is given, short
    SingleStream, MultiStream and Offline LoadGen runs measure what the whole harness delivers
    (Python SUT and LoadGen overheads included), and those numbers replace the runner-only ones.
    Pilot logs are kept under ``pilot_dir`` and passed to ``on_pilot(scenario, parsed)``; the pilots'
    LoadGen seed is ``seed``, else the project's (``cfg.seed``).
    """
    calib = calibrate.calibrate(runner, total, cfg.multistream_samples_per_query, cfg.offline_batch)
    prep = Prepared(model, variant, runner, total, labels, dict(calib, source="runner only"))
    if pilot_dir is None:
        return prep
    seed = cfg.seed if seed is None else seed
    pilot_cfg = dataclasses.replace(cfg, min_duration_s=PILOT_S, statistical_minimum=False, min_queries=PILOT_QUERIES)
    # LoadGen issues expected_qps * 1.1 * min_duration samples: about PILOT_S of the runner's work, at most 16k
    first = min(PILOT_OFFLINE_SAMPLES, max(PILOT_OFFLINE_MIN_SAMPLES, calib["throughput_sps"] * PILOT_S))
    prep.calibration["throughput_sps"] = first / (scenarios.EXPECTED_QPS_FACTOR * 1.1 * PILOT_S)
    measured = {"runner_only": calib, "source": "LoadGen pilot runs"}
    for name in ("SingleStream", "MultiStream"):
        parsed = performance_run(prep, name, pilot_cfg, seed, Path(pilot_dir) / name)
        if on_pilot is not None:
            on_pilot(name, parsed)
        median = parsed["summary"]["percentiles"].get(0.5)
        if median:
            measured["latency_single_s" if name == "SingleStream" else "latency_multi_s"] = median / 1e9
    # Offline: a first pilot sized above, then one sized from the rate just measured (a third if that
    # one was still too short to time).  The highest rate seen is kept: an underestimate makes the real
    # run end before its minimum duration (INVALID), an overestimate only makes it longer.
    rates = []
    for attempt in range(OFFLINE_PILOT_ATTEMPTS):
        parsed = performance_run(prep, "Offline", pilot_cfg, seed, Path(pilot_dir) / f"Offline-{attempt}")
        if on_pilot is not None:
            on_pilot("Offline", parsed)
        values = parsed["summary"]["values"]
        rate, longest = values.get("Samples per second"), values.get("Max latency (ns)")
        if not (isinstance(rate, (int, float)) and rate > 0):
            break
        rates.append(float(rate))
        prep.calibration["throughput_sps"] = max(rates)
        if attempt >= 1 and isinstance(longest, (int, float)) and longest >= 0.5 * PILOT_S * 1e9:
            break
    if rates:
        measured["throughput_sps"] = max(rates)
    prep.calibration = {**calib, **measured}
    return prep


def _max_batch(name: str, cfg: InferConfig) -> int:
    return {"Server": cfg.server_max_batch, "Offline": cfg.offline_batch}.get(name, 1)


def performance_run(prep: Prepared, name: str, cfg: InferConfig, seed: int, run_dir: Path,
                    target_qps: float | None = None, trace: bool | None = None, cap_s: float | None = None) -> dict:
    """Run one PerformanceOnly test and return its parsed logs, per-query latencies included.

    Offline has a single query, whose latency is LoadGen's "Max latency"; its trace (one event
    per sample, hundreds of MB) is not written.  Every other scenario's per-query latencies come
    from the trace and are checked against the summary's percentiles.  ``cap_s`` bounds a Server
    probe's wall time (:data:`scenarios.PROBE_ISSUE_SHARE`); samples answered after it without the
    model are counted in ``skipped_samples`` and make the probe INVALID for the search.
    """
    scenario = scenarios.get(name)
    test_settings = scenarios.settings(scenario, "PerformanceOnly", cfg, prep.calibration, seed, target_qps, cap_s)
    trace = (name != "Offline") if trace is None else bool(trace)
    meta = {"variant": prep.label, "scenario": name, "mode": "PerformanceOnly", "target_qps": target_qps,
            "calibration": prep.calibration, "max_batch": _max_batch(name, cfg), "probe_cap_s": cap_s}
    with SampleLibrary(prep.total, cfg.performance_sample_count) as qsl, \
            PythonSUT(prep.runner, queued=scenario.queued, max_batch=_max_batch(name, cfg), deadline_s=cap_s) as sut:
        run_dir = harness.run(sut, qsl, test_settings, run_dir, trace=trace, metadata=meta)
    parsed = {"summary": parse.summary(run_dir), "detail": parse.detail(run_dir), "skipped_samples": sut.skipped,
              "wall_s": json.loads((run_dir / harness.SETTINGS_FILE).read_text())["wall_s"], "run_dir": run_dir}
    if trace and name != "Offline":
        parsed["per_query"] = parse.per_query_latencies(run_dir, name, parsed["summary"])
        harness.compress_trace(run_dir)
    else:
        longest = parsed["summary"]["values"].get("Max latency (ns)")
        if isinstance(longest, (int, float)):
            parsed["per_query"] = {"query_seq": np.zeros(1, dtype=np.int64), "latency_ns": np.array([longest], dtype=np.int64),
                                   "sample_index": np.full(1, -1, dtype=np.int64)}
    parsed["valid"] = parsed["summary"].get("result") == "VALID"
    parsed["below_minimum"] = _below_minimum(scenario, cfg, parsed)
    return parsed


def _below_minimum(scenario, cfg: InferConfig, parsed: dict) -> bool:
    values = parsed["detail"]["values"]
    if scenario.name == "Offline":
        count = int(values.get("effective_samples_per_query", 0) or 0)
    else:
        count = int(values.get("effective_min_query_count", 0) or 0)
    duration = float(values.get("effective_min_duration_ms", 0) or 0) / 1000.0
    return below_statistical_minimum(count, scenarios.percentile(scenario, cfg), duration, cfg.confidence)


def accuracy_run(prep: Prepared, cfg: InferConfig, seed: int, run_dir: Path) -> dict:
    """AccuracyOnly (Offline: every QSL sample once), scored by :mod:`.accuracy`."""
    scenario = scenarios.get("Offline")
    test_settings = scenarios.settings(scenario, "AccuracyOnly", cfg, prep.calibration, seed)
    meta = {"variant": prep.label, "scenario": "Offline", "mode": "AccuracyOnly"}
    with SampleLibrary(prep.total, prep.total) as qsl, \
            PythonSUT(prep.runner, queued=True, max_batch=cfg.offline_batch) as sut:
        run_dir = harness.run(sut, qsl, test_settings, run_dir, trace=False, metadata=meta)
    harness.compress_trace(run_dir)
    np.save(run_dir / "labels.npy", np.asarray(prep.labels))
    outcomes = accuracy.item_outcomes(*parse.accuracy_log(run_dir), np.asarray(prep.labels))
    result = accuracy.summary(outcomes)
    atomic.write_text(run_dir / "accuracy.json", json.dumps(result, indent=2, sort_keys=True) + "\n", "accuracy result")
    return {"accuracy": result, "item_correct": outcomes, "detail": parse.detail(run_dir), "run_dir": run_dir,
            "valid": True}


def offline_ceiling(prep: Prepared, ceiling: float | None = None) -> float | None:
    """The highest Server target worth probing: ``ceiling`` (the Offline run's throughput) when the caller has
    it, else the Offline pilots' throughput (no latency bound beats Offline), else None."""
    if ceiling is None and prep.calibration.get("source") == "LoadGen pilot runs":
        return prep.calibration.get("throughput_sps")
    return ceiling


def start_qps(prep: Prepared, cfg: InferConfig, ceiling: float | None = None) -> float:
    """First Server probe: the configured value, or the middle, on a log scale, of two bounds of the Server
    capacity: the calibrated single-sample service rate (one query at a time, no batching) below, and the
    Offline throughput (``ceiling``, else the Offline pilots': no latency bound beats it) above.

    A small model's capacity lies far between them (a query costs far more than a sample in Offline's big
    batches), and the search bisects the range on a log scale: starting in its middle saves the probes a
    start at the lower bound spends doubling up to it.  Without a throughput, the single-sample rate."""
    configured = cfg.server_search.start_qps
    if configured > 0:
        return configured
    single = 1.0 / max(prep.calibration["latency_single_s"], 1e-7)
    ceiling = offline_ceiling(prep, ceiling)
    if not ceiling or ceiling <= 0:
        return max(1.0, single)
    return max(1.0, math.sqrt(min(single, ceiling) * ceiling))


def server_search(prep: Prepared, cfg: InferConfig, seed: int, base_dir: Path, on_probe=None,
                  start: float | None = None, ceiling: float | None = None) -> SearchResult:
    """Probe Server runs (each in ``base_dir/qps-<value>``) for the highest VALID target QPS.

    ``ceiling`` (the caller passes the Offline run's throughput) defaults to the calibrated Offline
    throughput: no latency bound beats it.  With ``server_search.probe_cap_s`` each probe is capped
    and nothing below the lowest target that fits the cap is probed.
    """
    search_cfg = cfg.server_search
    cap_s = search_cfg.probe_cap_s

    def run_at(qps: float) -> Probe:
        parsed = performance_run(prep, "Server", cfg, seed, base_dir / f"qps-{qps:.1f}", target_qps=qps, cap_s=cap_s)
        if on_probe is not None:
            on_probe(qps, parsed)
        return Probe(qps, parsed["valid"] and not parsed["skipped_samples"], {"parsed": parsed})

    ceiling = offline_ceiling(prep, ceiling)
    first = start if start is not None else start_qps(prep, cfg, ceiling)
    floor = scenarios.probe_floor_qps(cfg, cap_s) if cap_s else 1.0
    return search(run_at, first,
                  max_runs=search_cfg.max_runs, rel_tolerance=search_cfg.rel_tolerance,
                  floor_qps=floor, ceiling_qps=ceiling)
