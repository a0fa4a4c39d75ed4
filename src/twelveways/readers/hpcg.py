"""HPCG reports: the ``HPCG-Benchmark_<version>_<date>.txt`` summary (``Section::Key=value`` lines,
also NVIDIA's and Intel's builds and competition ``.rslts`` copies) and the older indented YAML.

One file is one run of one process group: the official rating (``Final Summary::HPCG result is
VALID with a GFLOP/s rating of``) is row ``gflops`` (GFLOP/s), beside the raw GFLOP/s of each
kernel, the memory bandwidth and the benchmark time.  Validity follows HPCG's own verdict
(``VALID`` / ``INVALID``, and each V&V test's ``Result=PASSED``); whether the run is *valid for
submission* is a second verdict: HPCG says so only when the timed phase lasted the official
minimum (1800 s) -- a shorter (or QuickPath) run is correct but not an official result, which is
recorded (column ``valid_for_submission``, attr ``hpcg_result``) and flagged as a source warning.
"""

from __future__ import annotations

from pathlib import Path

from . import hpc_input
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, Format

FORMAT = "hpcg"
RATING = "Final Summary::HPCG result is VALID with a GFLOP/s rating of"
#: Deepest nesting of sections read in the YAML report (HPCG's nests 3: Multigrid Information::Coarse Grids::...).
MAX_DEPTH = 16
#: key of the report -> (metric, unit) of a row.
METRICS = {"GFLOP/s Summary::Raw DDOT": ("gflops_raw_ddot", "GFLOP/s"),
           "GFLOP/s Summary::Raw WAXPBY": ("gflops_raw_waxpby", "GFLOP/s"),
           "GFLOP/s Summary::Raw SpMV": ("gflops_raw_spmv", "GFLOP/s"),
           "GFLOP/s Summary::Raw MG": ("gflops_raw_mg", "GFLOP/s"),
           "GFLOP/s Summary::Raw Total": ("gflops_raw_total", "GFLOP/s"),
           "GB/s Summary::Raw Total B/W": ("memory_bandwidth_raw", "GB/s"),
           "Benchmark Time Summary::Total": ("time", "s")}
SETTINGS = ("Machine Summary::Distributed Processes", "Machine Summary::Threads per processes",
            "Global Problem Dimensions::Global nx", "Global Problem Dimensions::Global ny",
            "Global Problem Dimensions::Global nz", "Local Domain Dimensions::nx", "Local Domain Dimensions::ny",
            "Local Domain Dimensions::nz", "Iteration Count Information::Reference CG iterations per set",
            "Iteration Count Information::Optimized CG iterations per set",
            "Linear System Information::Number of Equations")


def _key(parts) -> str:
    """``Final Summary :: HPCG  result`` -> ``Final Summary::HPCG result`` (builds differ in spacing)."""
    return "::".join(" ".join(p.split()) for p in parts if p.strip())


def _report_pairs(lines: list[str]) -> dict:
    """``Section::Key=value`` lines (the .txt report); the first of a repeated key wins; other lines (a
    launcher's, a scheduler's) are not the report's and pass."""
    pairs: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and "::" in key:
            pairs.setdefault(_key(key.split("::")), value.strip())
        elif sep and " ".join(key.split()) in ("version", "HPCG-Benchmark version"):
            pairs.setdefault("version", value.strip())
    return pairs


def _top_version(path: list[str]) -> bool:
    """The first line's ``<name> version`` key (``HPCG-Benchmark version``, Intel's ``n104-4p-1t version``)."""
    name = path[-1] if len(path) == 1 else ""
    return name.endswith(" version") and len(name.split()) == 2


def _yaml_pairs(lines: list[str], path_of: Path) -> dict:
    """The indented YAML report (``Key: value`` under ``Section:``), as the same ``Section::Key`` pairs.

    HPCG 3.0 decorates its last section (``__________ Final Summary __________:``, earlier
    ``********** Final Summary **********:``) and indents some of its lines further than their
    neighbours; only a key without a value opens a section, so those lines stay in Final Summary.
    Its first line names the benchmark before ``version`` (``HPCG-Benchmark version: 3.0``; Intel's
    build writes the run's name there: ``n104-4p-1t version: V3.0``): key ``version``.
    """
    pairs: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        raw, sep, value = text.partition(":")
        name = raw.strip("*_ ").strip()
        if not sep or not name:
            continue
        indent = len(line) - len(line.lstrip())
        value = value.strip()
        while stack and stack[-1][0] >= indent:  # the indents on the stack only grow: amortized linear
            stack.pop()
        path = [n for _, n in stack if n != "HPCG-Benchmark"] + [name]
        if value:
            pairs.setdefault("version" if _top_version(path) else _key(path), value)
        elif len(stack) < MAX_DEPTH:
            stack.append((indent, name))
        else:
            raise ReaderError(path_of, f"{FORMAT}: line {number} nests sections deeper than {MAX_DEPTH} levels "
                                       "(HPCG's report nests 3)")
    return pairs


def _verdict(pairs: dict) -> dict:
    """HPCG's verdicts: correctness (VALID/INVALID, V&V tests) and whether the result may be submitted."""
    tests = {k.rsplit("::", 1)[0]: v for k, v in pairs.items() if k.endswith("::Result")}
    rating = pairs.get(RATING, "")
    invalid = "INVALID" in pairs.get("Final Summary::HPCG result is", "") or any(v != "PASSED" for v in tests.values())
    minimum = pairs.get("Final Summary::Official results execution time (sec) must be at least", "")
    short_time = pairs.get("Final Summary::Results are valid but execution time (sec) is", "")
    quick = any("QuickPath" in k for k in pairs)
    upload = any(k.startswith(("Final Summary::Please upload", "Final Summary::Please send")) for k in pairs)
    official = bool(rating) and not invalid and upload and not minimum and not quick
    if invalid or not rating:
        reason = "HPCG result is INVALID" + (f" (tests not PASSED: {', '.join(k for k, v in tests.items() if v != 'PASSED')})"
                                              if any(v != "PASSED" for v in tests.values()) else "")
    elif official:
        reason = "VALID and valid for submission"
    else:
        reason = ("VALID but not valid for submission: "
                  + (f"execution time {short_time} s is below the official minimum {minimum} s" if minimum
                     else f"QuickPath run{f' of {short_time} s' if short_time else ''}, official only with the HPCG "
                          "leaders' confirmation" if quick
                     else "the Final Summary does not say the results may be uploaded"))
    return {"result": "VALID" if rating and not invalid else "INVALID", "rating": rating, "valid_for_submission": official,
            "reason": reason, "tests": tests, "execution_time_s": short_time, "official_minimum_s": minimum}


def _counts(pairs: dict, path: Path) -> tuple[int, int, int]:
    """(ranks, threads, equations): whole numbers (2.5 processes is an error, not 2)."""
    def whole(key: str, default: int, low: int) -> int:
        return hpc_input.count(pairs[key], path, FORMAT, key, low=low) if key in pairs else default

    return (whole("Machine Summary::Distributed Processes", 1, 1), whole("Machine Summary::Threads per processes", 1, 1),
            whole("Linear System Information::Number of Equations", 0, 0))


def _rows(pairs: dict, verdict: dict, path: Path) -> list[dict]:
    """The official rating (or, for an INVALID run, the total with overheads), the raw rates and the time."""
    def value(key: str) -> float:
        return hpc_input.number(pairs[key], path, FORMAT, key)

    ranks, threads, size = _counts(pairs, path)
    common = dict(benchmark=FORMAT, workload="HPCG", ranks=ranks, threads=threads, size=size, precision="fp64",
                  run_id=path.stem, invocation=0, valid=verdict["result"] == "VALID", status=verdict["reason"],
                  valid_for_submission=verdict["valid_for_submission"])
    rating_key = RATING if RATING in pairs else \
        "GFLOP/s Summary::Total with convergence and optimization phase overhead"
    out = [row(**common, metric="gflops", value=value(rating_key), unit="GFLOP/s")] if rating_key in pairs else []
    out += [row(**common, metric=metric, value=value(key), unit=unit) for key, (metric, unit) in METRICS.items()
            if key in pairs]
    return out


def _environment(pairs: dict, lines: list[str]) -> dict:
    """HPCG's version and, for NVIDIA's build, its own version line (``HPCG-CUDA-Benchmark version=...``)."""
    environment = {k: pairs[k] for k in ("version", "HPCG-CUDA-Benchmark version") if k in pairs}
    cuda = next((line for line in lines if line.startswith("HPCG-CUDA-Benchmark version=")), "")
    if cuda and "HPCG-CUDA-Benchmark version" not in environment:
        environment["HPCG-CUDA-Benchmark version"] = hpc_input.first_token(cuda.partition("=")[2])
    return environment


def read(path: Path) -> list:
    """The rating, the raw kernel rates and the time of one HPCG run, with HPCG's verdicts."""
    lines = hpc_input.read_lines(path, FORMAT)
    pairs = _report_pairs(lines) or _yaml_pairs(lines, path)
    if not any(k.startswith("Final Summary") for k in pairs):
        raise ReaderError(path, f"{FORMAT}: no 'Final Summary' section (the run did not finish, or this is the "
                                f"console output rather than the HPCG-Benchmark_*.txt report)")
    verdict = _verdict(pairs)
    records = _rows(pairs, verdict, path)
    if not records:
        raise ReaderError(path, f"{FORMAT}: neither a GFLOP/s rating nor a 'GFLOP/s Summary' in the report")
    notes = {k.split("::", 1)[1]: v for k, v in pairs.items()
             if k.startswith("Final Summary::") and "suboptimal" in v}
    attrs = {"factors": [], "hpcg_result": verdict, "hpcg_notes": notes,
             "source_warnings": [] if verdict["valid_for_submission"] or verdict["result"] != "VALID"
             else [f"HPCG: {verdict['reason']}"],
             "op_count": "formula: HPCG's count of the reference algorithm's operations (optimized iterations "
                         "beyond the reference count are not credited)",
             "levels": {"invocation": INVOCATION_LEVEL + " (HPCG: one run; its rating covers every CG set it timed)"}}
    return [build(path, FORMAT, FORMAT, records, environment=_environment(pairs, lines) or None,
                  config={k: pairs[k] for k in SETTINGS if k in pairs}, attrs=attrs)]


def _report_line(line: str) -> bool:
    """A ``Final Summary::...`` or ``Machine Summary::...`` line (Intel's build writes ``Final Summary ::``)."""
    text = line.lstrip()
    for section in ("Final Summary", "Machine Summary"):
        if text.startswith(section) and text[len(section):].lstrip().startswith("::"):
            return True
    return False


def _recognize(head: Head) -> int:
    """HPCG's report (``Section::Key=value`` lines) or its YAML (a ``Final Summary`` section holding HPCG's
    verdict, or an ``HPCG-Benchmark:`` document with a Final Summary), on any lines of the head."""
    lines = head.text.splitlines()
    if any(_report_line(line) for line in lines):
        return CERTAIN
    for line, following in zip(lines, lines[1:]):
        text = line.rstrip()
        if text.endswith(":") and text[:-1].strip(" \t_*") == "Final Summary" and following[:1] in (" ", "\t") \
                and following.strip().startswith("HPCG result is"):
            return CERTAIN
    yaml = any(line.rstrip() == "HPCG-Benchmark:" for line in lines)
    return CERTAIN if yaml and "Final Summary" in head.text else 0


READER = Format(name=FORMAT, title="HPCG reports", reads="HPCG 3.0 and 3.1 (.txt report and .yaml; NVIDIA's and "
                "Intel's builds; launcher and scheduler lines around them)", recognize=_recognize, read=read)
