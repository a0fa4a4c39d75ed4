"""IOR's rows and stated summaries, built the same way from its JSON and its text output.

Why a module of its own: :mod:`.ior` (JSON, and the reader's entry) and :mod:`.ior_text` (the text
tables) both build from these; kept apart, the text parser does not import the reader that calls it.
"""

from __future__ import annotations

from pathlib import Path

from . import hpc_input
from .common import row

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


def result_rows(test: dict, results: list[dict], path: Path) -> list[dict]:
    """Rows of one test's result entries; ``test`` holds its id, api, tasks, segments, file-per-process."""
    seen: dict[str, int] = {}
    out = []
    for entry in results:
        operation = str(entry.get("access", ""))
        repetition = int(entry["iter"]) if entry.get("iter") is not None else seen.get(operation, 0)
        seen[operation] = repetition + 1
        where = f"test {test['id']} {operation} repetition {repetition}"
        common = dict(benchmark=FORMAT, workload="IOR", implementation=test["api"], ranks=test["tasks"],
                      size=hpc_input.in_bytes(float(entry.get("blockKiB") or 0), 1024, path, FORMAT,
                                              f"{where} block size (KiB)"),
                      precision="byte", run_id=f"test{test['id']}#{repetition}", invocation=0, repetition=repetition,
                      operation=operation, api=test["api"],
                      transfer_size=hpc_input.in_bytes(float(entry.get("xferKiB") or 0), 1024, path, FORMAT,
                                                       f"{where} transfer size (KiB)"),
                      segments=test["segments"], file_per_proc=test["file_per_proc"], test_id=test["id"])
        for key, (metric, unit) in MEASURED.items():
            if entry.get(key) is not None:
                out.append(row(**common, metric=metric, value=float(entry[key]), unit=unit))
    return out


def stated_summaries(entries: list[dict], resolution: dict) -> list[dict]:
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
