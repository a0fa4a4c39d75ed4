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

from pathlib import Path
from typing import Any

from pydantic import Field

from . import decode, hpc_input, ior_text
from .common import INVOCATION_LEVEL, ReaderError, build
from .head import Head
from .ior_rows import FORMAT, STATED, result_rows, stated_summaries
from .registry import CERTAIN, LIKELY, Format

JSON_RESOLUTION = 1e-4  # IOR's JSON writer prints 4 decimals


class TestParameters(decode.Model):
    """The ``Parameters`` of one JSON test: the fields the rows name (the others are kept as settings)."""

    api: str = ""
    nodes: decode.Count = 1
    tasksPerNode: decode.Count = 1
    segmentCount: decode.Count = 1
    filePerProc: decode.Count = 0


class Result(decode.Model):
    """One repetition of one operation (``tests[].Results[]``)."""

    access: decode.Name
    bwMiB: decode.NonNegative
    iops: decode.NonNegative | None = None
    latency: decode.NonNegative | None = None
    totalTime: decode.NonNegative | None = None
    blockKiB: decode.NonNegative = 0.0
    xferKiB: decode.NonNegative = 0.0
    iter: decode.Count | None = None


class Summary(decode.Model):
    """One ``summary[]`` entry: IOR's statistics over the repetitions of one operation of one test."""

    operation: str = ""
    TestID: decode.Count = 0
    repetitions: decode.Count | None = None
    bwMaxMIB: decode.NonNegative | None = None
    bwMinMIB: decode.NonNegative | None = None
    bwMeanMIB: decode.NonNegative | None = None
    bwStdMIB: decode.NonNegative | None = None
    OPsMax: decode.NonNegative | None = None
    OPsMin: decode.NonNegative | None = None
    OPsMean: decode.NonNegative | None = None
    OPsSD: decode.NonNegative | None = None
    MeanTime: decode.NonNegative | None = None


class Test(decode.Model):
    TestID: decode.Count | None = None
    Parameters: dict = Field(default_factory=dict)
    Results: list[Any] = Field(default_factory=list)


class Document(decode.Model):
    """IOR's ``-O summaryFormat=JSON`` document (keys IOR adds between versions are kept)."""

    tests: list[Any]
    summary: list[Any] = Field(default_factory=list)
    Version: str = ""
    Machine: str = ""
    command_line: str = Field("", alias="Command line")


def _flat_results(results: list, index: int, path: Path) -> list[dict]:
    """Each entry of ``tests[i].Results`` (one list per repetition, IOR 3.3+, or flat, 3.2) validated where it is."""
    out = []
    for j, item in enumerate(results):
        entries = [(f"[{j}][{k}]", e) for k, e in enumerate(item)] if isinstance(item, list) else [(f"[{j}]", item)]
        out += [decode.validate(path, FORMAT, Result, entry, where=f"tests[{index}].Results{at}").model_dump()
                for at, entry in entries]
    return out


def _json_tests(document: Document, path: Path) -> list[dict]:
    """Rows of every JSON test, each entry validated where it stands (``tests[1].Results[2][0].bwMiB``)."""
    records = []
    for index, raw in enumerate(document.tests):
        test = decode.validate(path, FORMAT, Test, raw, where=f"tests[{index}]")
        params = decode.validate(path, FORMAT, TestParameters, test.Parameters, where=f"tests[{index}].Parameters")
        tasks = params.nodes * params.tasksPerNode
        if tasks > hpc_input.MAX_COUNT:
            raise ReaderError(path, f"{FORMAT}: tests[{index}].Parameters: nodes x tasksPerNode is beyond 64 bits")
        facts = {"id": index if test.TestID is None else test.TestID, "api": params.api, "tasks": tasks,
                 "segments": params.segmentCount, "file_per_proc": params.filePerProc}
        records += result_rows(facts, _flat_results(test.Results, index, path), path)
    return records


def _read_json(path: Path) -> tuple[list, list, dict, dict]:
    """IOR's JSON summary through the input layer: bounded, after any launcher lines, 64-bit integers."""
    data = decode.load_json(path, FORMAT)
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ReaderError(path, f"{FORMAT}: no 'tests' list")
    document = decode.validate(path, FORMAT, Document, data)
    summary = [decode.validate(path, FORMAT, Summary, entry, where=f"summary[{k}]").model_dump()
               for k, entry in enumerate(document.summary)]
    params = next((t.get("Parameters") for t in document.tests if isinstance(t, dict)), {}) or {}
    settings = {"command_line": document.command_line,
                **{k: v for k, v in (params.items() if isinstance(params, dict) else ())
                   if k not in ("platform", "testFileName")}}
    environment = {"ior_version": document.Version, "machine": document.Machine}
    return (_json_tests(document, path), stated_summaries(summary, {k: JSON_RESOLUTION for k in STATED}), settings,
            environment)


def _is_text(lines: list[str]) -> bool:
    """True for IOR's text output (its banner, its Results table or its summary), False for JSON."""
    for line in lines:
        if (line.startswith("IOR-") and ": MPI Coordinated Test of Parallel I/O" in line) \
                or line.strip() == "Summary of all tests:" or line.split()[:2] == ["access", "bw(MiB/s)"]:
            return True
    return False


def read(path: Path) -> list:
    """Every repetition of every IOR operation as rows; IOR's summary as stated summaries."""
    text = hpc_input.read_text(path, FORMAT)
    lines = text.splitlines()
    if not _is_text(lines) and decode.json_start(text) is not None:
        records, summaries, settings, environment = _read_json(path)
    else:
        records, summaries, settings, environment = ior_text.parse(path, hpc_input.capped(lines, path, FORMAT))
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


def _recognize(head: Head) -> int:
    """IOR's JSON (``tests`` beside ``summary``, ``Command line`` or ``Began``; a ``tests`` that is no list is
    still IOR's, so that its reader names the problem) or its text (banner, summary table), past launcher lines."""
    value = head.document
    if isinstance(value, dict) and "tests" in value and ("summary" in value or "Command line" in value
                                                         or "Began" in value):
        return CERTAIN if isinstance(value["tests"], list) else LIKELY
    if value is None and head.json_keys("tests") and (head.json_keys("Command line") or head.json_keys("Began")):
        return LIKELY
    text = head.text
    banner = any(line.startswith("IOR-") and ": MPI Coordinated Test of Parallel I/O" in line
                 for line in text.splitlines())
    return CERTAIN if banner or ("Summary of all tests:" in text and "Max(MiB)" in text) else 0


READER = Format(name=FORMAT, title="IOR (text or JSON summary)", reads="IOR 3.x and 4.x text output; -O summaryFormat=JSON "
                "(launcher and scheduler lines around either)",
                recognize=_recognize, read=read)
