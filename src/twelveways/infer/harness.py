"""Run LoadGen once, in its own fresh directory, and keep every log it writes.

LoadGen silently applies an ``audit.config`` found in the *current working directory* (that is
how MLPerf compliance tests inject their settings), so every run changes into a new, empty
directory first: no stray audit file can alter a result, and each run's logs stay apart
(``mlperf_log_summary.txt``, ``mlperf_log_detail.txt``, ``mlperf_log_accuracy.json`` and the
trace).  The trace is the only LoadGen output with every sample's latency; it is parsed and then
gzip-compressed (it grows by about 500 bytes per sample).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import mlperf_loadgen as lg

from .. import atomic
from ..errors import MeasurementError

TRACE = "mlperf_log_trace.json"
SETTINGS_FILE = "twelveways_run.json"


@contextmanager
def _inside(directory: Path):
    previous = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


def fresh_directory(path: str | Path) -> Path:
    """An empty directory at ``path`` (a previous run's logs there are removed first)."""
    path = Path(path).resolve()
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def run(sut, qsl, test_settings, run_dir: str | Path, *, trace: bool, metadata: dict | None = None) -> Path:
    """Run one LoadGen test writing its logs into ``run_dir`` (created fresh); return the directory."""
    run_dir = fresh_directory(run_dir)
    log_settings = lg.LogSettings()
    log_settings.log_output.outdir = str(run_dir)
    log_settings.log_output.copy_summary_to_stdout = False
    log_settings.log_output.copy_detail_to_stdout = False
    log_settings.enable_trace = bool(trace)
    with _inside(run_dir):
        if Path("audit.config").exists():  # cannot happen in a fresh directory; never run with one
            raise MeasurementError(f"{run_dir}: audit.config present, refusing to run LoadGen there")
        start = time.perf_counter()
        lg.StartTestWithLogSettings(sut.handle, qsl.handle, test_settings, log_settings)
        wall = time.perf_counter() - start
    sut.check()
    info = dict(metadata or {})
    info.update({"wall_s": wall, "trace": bool(trace), "audit_config_present": False})
    atomic.write_text(run_dir / SETTINGS_FILE, json.dumps(info, indent=2, sort_keys=True, default=str) + "\n", "run settings")
    if not (run_dir / "mlperf_log_detail.txt").is_file():
        raise MeasurementError(f"{run_dir}: LoadGen wrote no mlperf_log_detail.txt")
    return run_dir


def compress_trace(run_dir: str | Path) -> Path | None:
    """Gzip the trace in place (kept, but small); return the new path, or None when there is none."""
    source = Path(run_dir) / TRACE
    if not source.is_file():
        return None
    if source.stat().st_size == 0:
        source.unlink()
        return None
    target = source.with_name(TRACE + ".gz")
    with source.open("rb") as raw, gzip.open(target, "wb", compresslevel=3) as packed:
        shutil.copyfileobj(raw, packed, 1 << 20)
    source.unlink()
    return target
