"""IOR output: the JSON summary (``-O summaryFormat=JSON``) and the text output (its ``Results:`` table
and ``Summary of all tests:``), also as written inside IO500 runs.

Within one ``ior`` process (one ``mpirun``) each test repeats ``-i`` times; every repetition of
every operation (write, read) is a row: ``bandwidth`` (MiB/s), ``iops`` (ops/s), ``latency`` (s,
IOR's mean per operation) and ``time`` (s, open to close), with ``repetition`` = IOR's iteration
and ``invocation`` 0.  The block size is ``size`` (bytes); operation, API, transfer size, segments,
file-per-process and test id are factors; tasks are ranks.  IOR's summary (max, min, mean and
standard deviation of the bandwidth and of the operation rate, mean time) is kept as stated
summaries the checklist recomputes from the rows, within the precision IOR printed them with.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import hpc_input
from .head import Head
from .registry import CERTAIN, LIKELY, Format
from .common import INVOCATION_LEVEL, ReaderError, build, row

FORMAT = "ior"
#: summary key (JSON) / column (text) -> (metric, statistic, unit)
STATED = {"bwMaxMIB": ("bandwidth", "max", "MiB/s"), "bwMinMIB": ("bandwidth", "min", "MiB/s"),
          "bwMeanMIB": ("bandwidth", "arithmetic_mean", "MiB/s"), "bwStdMIB": ("bandwidth", "stddev", "MiB/s"),
          "OPsMax": ("ops", "max", "ops/s"), "OPsMin": ("ops", "min", "ops/s"), "OPsMean": ("ops", "arithmetic_mean", "ops/s"),
          "OPsSD": ("ops", "stddev", "ops/s"), "MeanTime": ("time", "arithmetic_mean", "s")}
TEXT_SUMMARY = {"Max(MiB)": "bwMaxMIB", "Min(MiB)": "bwMinMIB", "Mean(MiB)": "bwMeanMIB", "StdDev": "bwStdMIB",
                "Max(OPs)": "OPsMax", "Min(OPs)": "OPsMin", "Mean(OPs)": "OPsMean", "StdDev(OPs)": "OPsSD",
                "Mean(s)": "MeanTime", "Test#": "TestID", "#Tasks": "numTasks", "reps": "repetitions",
                "fPP": "filePerProc", "segcnt": "segmentCount", "blksiz": "blockSize", "xsize": "transferSize",
                "API": "API"}
#: result entry key (JSON) / Results column (text) -> (metric, unit)
MEASURED = {"bwMiB": ("bandwidth", "MiB/s"), "iops": ("iops", "ops/s"), "latency": ("latency", "s"),
            "totalTime": ("time", "s")}
TEXT_RESULTS = {"bw(MiB/s)": "bwMiB", "IOPS": "iops", "Latency(s)": "latency", "total(s)": "totalTime",
                "block(KiB)": "blockKiB", "xfer(KiB)": "xferKiB", "iter": "iter"}
JSON_RESOLUTION = 1e-4  # IOR's JSON writer prints 4 decimals


def _result_rows(test: dict, results: list[dict]) -> list[dict]:
    """Rows of one test's result entries; ``test`` holds its id, api, tasks, segments, file-per-process."""
    seen: dict[str, int] = {}
    out = []
    for entry in results:
        operation = str(entry.get("access", ""))
        repetition = int(entry["iter"]) if "iter" in entry else seen.get(operation, 0)
        seen[operation] = repetition + 1
        common = dict(benchmark=FORMAT, workload="IOR", implementation=test["api"], ranks=test["tasks"],
                      size=int(round(float(entry.get("blockKiB", 0)) * 1024)), precision="byte",
                      run_id=f"test{test['id']}#{repetition}", invocation=0, repetition=repetition, operation=operation,
                      api=test["api"], transfer_size=int(round(float(entry.get("xferKiB", 0)) * 1024)),
                      segments=test["segments"], file_per_proc=test["file_per_proc"], test_id=test["id"])
        for key, (metric, unit) in MEASURED.items():
            if isinstance(entry.get(key), (int, float)):
                out.append(row(**common, metric=metric, value=float(entry[key]), unit=unit))
    return out


def _summaries(entries: list[dict], resolution: dict) -> list[dict]:
    """IOR's summary lines as stated summaries of the rows of their operation and test."""
    out = []
    for entry in entries:
        filters = {"operation": str(entry.get("operation", "")), "test_id": int(entry.get("TestID", 0))}
        for key, (metric, statistic, unit) in STATED.items():
            if not isinstance(entry.get(key), (int, float)):
                continue
            summary = {"metric": metric, "statistic": statistic, "value": float(entry[key]), "unit": unit,
                       "filters": filters, "n": entry.get("repetitions"), "resolution": resolution.get(key, 0.0),
                       "note": f"stated by IOR ({key}) over the repetitions of one ior process"}
            if statistic == "stddev":
                summary["kind"] = "dispersion"
            if metric == "ops":
                summary.update(recomputable=0, note="IOR's OPs = bandwidth / transfer size per repetition; the "
                                                    "IOPS column of each repetition is computed otherwise")
            out.append(summary)
    return out


def _json_tests(data: dict, path: Path) -> list[dict]:
    records = []
    for index, test in enumerate(data["tests"]):
        if not isinstance(test, dict):
            raise ReaderError(path, f"{FORMAT}: tests[{index}] is not an object")
        params = test.get("Parameters") if isinstance(test.get("Parameters"), dict) else {}
        results = test.get("Results", [])
        flat = [e for item in results for e in (item if isinstance(item, list) else [item])] \
            if isinstance(results, list) else []
        if any(not isinstance(e, dict) or not isinstance(e.get("bwMiB"), (int, float)) for e in flat):
            raise ReaderError(path, f"{FORMAT}: tests[{index}].Results holds an entry without a numeric bwMiB")
        facts = {"id": int(test.get("TestID", index)), "api": str(params.get("api", "")),
                 "tasks": int(params.get("nodes", 1)) * int(params.get("tasksPerNode", 1)),
                 "segments": int(params.get("segmentCount", 1)), "file_per_proc": int(params.get("filePerProc", 0))}
        records += _result_rows(facts, flat)
    return records


def _read_json(path: Path, text: str) -> tuple[list, list, dict, dict]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ReaderError(path, f"{FORMAT}: JSON that does not parse ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ReaderError(path, f"{FORMAT}: no 'tests' list")
    summary = [e for e in data.get("summary", []) if isinstance(e, dict)]
    params = next((t.get("Parameters") for t in data["tests"] if isinstance(t, dict)), {}) or {}
    settings = {"command_line": data.get("Command line", ""), **{k: v for k, v in params.items()
                                                                 if k not in ("platform", "testFileName")}}
    environment = {"ior_version": data.get("Version", ""), "machine": data.get("Machine", "")}
    return (_json_tests(data, path), _summaries(summary, {k: JSON_RESOLUTION for k in STATED}), settings,
            environment)


def read(path: Path) -> list:
    """Every repetition of every IOR operation as rows; IOR's summary as stated summaries."""
    text = hpc_input.read_text(path, FORMAT)
    if text.lstrip().startswith("{"):
        records, summaries, settings, environment = _read_json(path, text)
    else:
        from . import ior_text

        records, summaries, settings, environment = ior_text.parse(path, text)
    if not records:
        raise ReaderError(path, f"{FORMAT}: no write or read results (neither a 'Results' table nor JSON 'Results')")
    attrs = {"summaries": summaries, "factors": ["operation", "api", "transfer_size", "segments", "file_per_proc",
                                                 "test_id"],
             "levels": {"invocation": INVOCATION_LEVEL + " (IOR: every repetition (-i) runs in one ior process)",
                        "repetition": "IOR's iteration number within its test"},
             "nesting": ["invocation", "repetition"],
             "op_count": "executed"}  # IOR's operations are the transfer-size requests it issued
    return [build(path, FORMAT, FORMAT, records, environment={k: v for k, v in environment.items() if v} or None,
                  config={k: v for k, v in settings.items() if v not in ("", None)}, attrs=attrs)]


_BANNER = re.compile(r"^IOR-\d+\.\d+\S*: MPI Coordinated Test of Parallel I/O", re.MULTILINE)


def _recognize(head: Head) -> int:
    value = head.document
    if isinstance(value, dict) and isinstance(value.get("tests"), list) and (
            "summary" in value or "Command line" in value or "Began" in value):
        return CERTAIN
    if value is None and head.json_keys("tests") and (head.json_keys("Command line") or head.json_keys("Began")):
        return LIKELY
    text = head.text
    return CERTAIN if _BANNER.search(text) or ("Summary of all tests:" in text and "Max(MiB)" in text) else 0


READER = Format(name=FORMAT, title="IOR (text or JSON summary)", reads="IOR 3.x and 4.x text output; -O summaryFormat=JSON",
                recognize=_recognize, read=read)
