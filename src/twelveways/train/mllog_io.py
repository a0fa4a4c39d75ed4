"""One MLPerf ``mllog`` log per run, read back with MLPerf's own parser, checked with its checker.

Every run writes its events through ``mlperf_logging.mllog.MLLogger`` into its own file.  The
timestamps (``time_ms``) come from one clock per run: the wall-clock time at the log's creation
plus ``time.perf_counter_ns`` offsets, kept as floats, so (a) the log is the primary record and
(b) ``time_to_train`` is computed from exactly the ``run_start``/``run_stop`` values logged, which
lets anyone recompute the score from the logs alone.

The compliance ruleset for this benchmark ships as ``mlperf_compliance.yaml`` beside this module
(MLPerf's checker format: KEY records with REQ/CHECK/POST, BEGIN and END blocks).  It is run by
``python -m mlperf_logging.compliance_checker --config <absolute path> ...`` (see
:func:`checker_command`) or in process by :func:`check` with the same checker classes.
"""

from __future__ import annotations

import itertools
import logging
import sys
import time
from pathlib import Path

from ..errors import ResultsError

RULESET = Path(__file__).with_name("mlperf_compliance.yaml").resolve()
#: The checker needs a "usage" and "ruleset" to pick its log parser; ours uses the 6.1.0 parser only.
CHECKER_USAGE = "training"
CHECKER_PARSER_RULESET = "6.1.0"
BENCHMARK = "twelveways_train"

_counter = itertools.count()


class RunLog:
    """An ``MLLogger`` writing one run's events to ``path``; every call returns the ``time_ms`` it logged."""

    def __init__(self, path: str | Path):
        from mlperf_logging.mllog import mllog

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._logger = logging.getLogger(f"twelveways.mllog.run{next(_counter)}")
        self._logger.propagate = False
        self._logger.setLevel(logging.INFO)
        self._handler = logging.FileHandler(self.path, mode="w")
        self._handler.setFormatter(logging.Formatter("%(message)s"))
        self._logger.addHandler(self._handler)
        self._mllog = mllog.MLLogger(logger=self._logger, default_stack_offset=3,
                                     root_dir=str(Path(__file__).resolve().parents[3]))
        self._wall0_ms = time.time() * 1e3
        self._perf0 = time.perf_counter_ns()

    def now_ms(self) -> float:
        return self._wall0_ms + (time.perf_counter_ns() - self._perf0) / 1e6

    def _log(self, method: str, key: str, value=None, metadata=None) -> float:
        stamp = self.now_ms()
        getattr(self._mllog, method)(key=key, value=value, metadata=metadata, time_ms=stamp)
        return stamp

    def start(self, key, value=None, metadata=None) -> float:
        return self._log("start", key, value, metadata)

    def end(self, key, value=None, metadata=None) -> float:
        return self._log("end", key, value, metadata)

    def event(self, key, value=None, metadata=None) -> float:
        return self._log("event", key, value, metadata)

    def close(self) -> None:
        self._handler.flush()
        self._handler.close()
        self._logger.removeHandler(self._handler)


class NullLog(RunLog):
    """Same clock, no file: what ranks other than 0 use in a data-parallel run."""

    def __init__(self):  # noqa: D401 - no file on purpose
        self.path = None
        self._wall0_ms = time.time() * 1e3
        self._perf0 = time.perf_counter_ns()

    def _log(self, method, key, value=None, metadata=None) -> float:
        return self.now_ms()

    def close(self) -> None:
        return None


# --------------------------------------------------------------------------- reading logs back

def parse(path: str | Path) -> list:
    """The log's lines, parsed by MLPerf's own parser (``LogLine``: timestamp, key, value, lineno)."""
    from mlperf_logging.compliance_checker import mlp_parser

    lines, errors = mlp_parser.parse_file(str(path), ruleset=CHECKER_PARSER_RULESET)
    if errors:
        raise ResultsError(f"{path}: {len(errors)} mllog line(s) do not parse ({errors[0][1]})")
    return lines


def run_summary(path: str | Path) -> dict:
    """What a reader of the log alone gets: config id, seed, run_start/run_stop, status, time to train."""
    lines = parse(path)
    first = {}
    for line in lines:
        first.setdefault(line.key, line)
    for key in ("run_start", "run_stop"):
        if key not in first:
            raise ResultsError(f"{path}: no {key} line")
    start = first["run_start"].timestamp
    stop = first["run_stop"].timestamp
    return {
        "config_id": first["tw_config_id"].value["value"] if "tw_config_id" in first else "",
        "seed": first["seed"].value["value"] if "seed" in first else None,
        "run_start_ms": start,
        "run_stop_ms": stop,
        "status": first["run_stop"].value["metadata"].get("status", ""),
        "time_to_train_s": (stop - start) / 1e3,
    }


# --------------------------------------------------------------------------- compliance

def checker_command(log_path: str | Path, log_output: str | Path) -> list[str]:
    """The MLPerf compliance checker's command line for one log with this benchmark's ruleset."""
    return [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", CHECKER_USAGE,
            "--ruleset", CHECKER_PARSER_RULESET, "--config", str(RULESET), "--log_output", str(log_output),
            str(log_path)]


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def check(log_path: str | Path) -> tuple[bool, list[str]]:
    """Run MLPerf's compliance checker in this process (same classes as its CLI): (passed, messages).

    In process because a checker subprocess per run would cost more than the runs themselves;
    the tests run the CLI (:func:`checker_command`) on the same logs.
    """
    from mlperf_logging.compliance_checker import mlp_compliance

    root = logging.getLogger()
    collect = _Collect()
    root.addHandler(collect)  # also keeps logging.warning from installing a stderr handler
    try:
        checker = mlp_compliance.make_checker(CHECKER_USAGE, CHECKER_PARSER_RULESET, quiet=False, werror=False)
        valid, *_ = mlp_compliance.main(str(log_path), str(RULESET), checker)
    finally:
        root.removeHandler(collect)
        mlp_compliance.enqueued_configs.clear()
    return bool(valid), [" ".join(m.split()) for m in collect.messages]


# --------------------------------------------------------------------------- CLI

def main(argv=None) -> int:
    """``python -m twelveways.train.mllog_io check LOG_OR_DIR... [--cli]``: check logs, one line each."""
    import argparse
    import subprocess
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m twelveways.train.mllog_io",
                                     description="Check training mllog logs with MLPerf's compliance checker.")
    sub = parser.add_subparsers(dest="command", required=True)
    chk = sub.add_parser("check", help="run the compliance checker with this benchmark's ruleset")
    chk.add_argument("paths", nargs="+", help="log files or folders of *.log")
    chk.add_argument("--cli", action="store_true", help="run `python -m mlperf_logging.compliance_checker` per log")
    args = parser.parse_args(argv)
    logs = []
    for raw in args.paths:
        path = Path(raw)
        logs.extend(sorted(path.glob("*.log")) if path.is_dir() else [path])
    if not logs:
        print("error: no mllog logs found", file=sys.stderr)
        return 1
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for log in logs:
            if args.cli:
                proc = subprocess.run(checker_command(log, Path(tmp) / "checker.log"), capture_output=True, text=True)
                ok, why = proc.returncode == 0, (proc.stderr.strip().splitlines() or [""])[-1]
            else:
                ok, messages = check(log)
                why = messages[0] if messages else ""
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'} {log}" + ("" if ok else f": {why[:300]}"))
    print(f"{len(logs) - failed} of {len(logs)} logs pass", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
