"""Content sniffers for software-benchmark formats: ReFrame perflogs, asv, pytest-benchmark, criterion.rs, JMH.

:mod:`.detect` asks :func:`json_kind` (a parsed JSON value), :func:`json_guess` (the head of a
JSON file too long to parse) and :func:`text_kind` (text) before its own tests, so that a
pytest-benchmark file (``benchmarks`` + ``version``) is not taken for pyperf.  Each format is
recognized by the keys its tool writes, never by the file's name.
"""

from __future__ import annotations

import re

REFRAME, ASV, ASV_MACHINE, PYTEST_BENCHMARK, JMH = "reframe-perflog", "asv", "asv-machine", "pytest-benchmark", "jmh"
CRITERION_SAMPLE, CRITERION_ESTIMATES, CRITERION_BENCHMARK = ("criterion-sample", "criterion-estimates",
                                                              "criterion-benchmark")
#: Formats whose result spans the files of one folder (criterion's ``<bench>/new/``).
CRITERION = (CRITERION_SAMPLE, CRITERION_ESTIMATES, CRITERION_BENCHMARK)
#: Files that describe results read from other files (asv's machine.json): never results themselves.
COMPANIONS = (ASV_MACHINE,)
#: Reader module (in this package) of every single-file format.
READERS = {REFRAME: "reframe", ASV: "asv", PYTEST_BENCHMARK: "pytest_benchmark", JMH: "jmh"}
FORMATS_READ = ("ReFrame performance logs (ReFrame 3 and 4), asv results JSON, pytest-benchmark JSON, "
                "criterion.rs folders (new/sample.json, estimates.json, benchmark.json), JMH JSON (-rf json)")

REFRAME3_LINE = re.compile(r"^[^|\n]*\|reframe \d[^|\n]*\|[^|\n]+\|[^|\n]*\|[^|=\n]+=[^|\n]*\|", re.MULTILINE)


def _is_jmh(value) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(e, dict) and "benchmark" in e and "primaryMetric" in e for e in value))


def _criterion_kind(value: dict) -> str | None:
    if isinstance(value.get("iters"), list) and isinstance(value.get("times"), list):
        return CRITERION_SAMPLE
    mean = value.get("mean")
    if isinstance(mean, dict) and "point_estimate" in mean and ("std_dev" in value or "median_abs_dev" in value):
        return CRITERION_ESTIMATES
    if "group_id" in value and ("full_id" in value or "directory_name" in value):
        return CRITERION_BENCHMARK
    return None


def json_kind(value) -> str | None:
    """The software-benchmark format of a parsed JSON value, or None."""
    if _is_jmh(value):
        return JMH
    if not isinstance(value, dict):
        return None
    benchmarks = value.get("benchmarks")
    if isinstance(benchmarks, list) and ("machine_info" in value or "commit_info" in value
                                         or any(isinstance(b, dict) and "stats" in b for b in benchmarks)):
        return PYTEST_BENCHMARK
    if isinstance(value.get("results"), dict) and "result_columns" in value:
        return ASV
    if "machine" in value and "version" in value and set(value) <= {"machine", "version", "arch", "cpu", "num_cpu",
                                                                     "os", "ram"}:
        return ASV_MACHINE
    return _criterion_kind(value)


def json_guess(window: str) -> str | None:
    """The format of a JSON file too long to parse from its head, by the keys its tool writes first."""
    if window.startswith("[") and '"benchmark"' in window and ('"primaryMetric"' in window or '"jmhVersion"' in window):
        return JMH
    if '"benchmarks"' in window and ('"machine_info"' in window or '"commit_info"' in window):
        return PYTEST_BENCHMARK
    if '"result_columns"' in window and '"results"' in window:
        return ASV
    return None


def text_kind(text: str) -> str | None:
    """ReFrame 3 perflog lines (``date|reframe X.Y|check …|jobid=…|var=value|ref=…|unit``) or a ReFrame 4
    perflog (a ``|``-separated header naming ``<var>_value`` / ``<var>_unit`` columns)."""
    if REFRAME3_LINE.search(text):
        return REFRAME
    header = text.lstrip().split("\n", 1)[0].split("|")
    names = set(header)
    if len(header) > 3 and any(n.endswith("_value") and n[:-6] + "_unit" in names for n in names) \
            and names & {"job_completion_time", "result", "display_name", "name", "system"}:
        return REFRAME
    return None
