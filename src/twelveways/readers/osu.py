"""OSU Micro-Benchmarks text output (``osu_latency``, ``osu_bw``, ``osu_bibw``, ``osu_mbw_mr``, collectives).

Each test prints a header ``# OSU MPI Latency Test v5.3.2``, optional comment lines (``#
Datatype: MPI_CHAR.``), a column header ``# Size  Latency (us)`` and one line per message size.
Every number on such a line is a statistic OSU computed over the timed iterations (``-i``) of one
run after discarding the warm-up iterations (``-x``): latency is the mean time per iteration
(collectives: averaged over ranks, with the min/max over ranks beside it), bandwidth and message
rate are the bytes (messages) moved divided by the total time, i.e. the harmonic mean of the
per-iteration rates.  The per-iteration times are never printed, so each size has one number and
no spread; those numbers are rows (message size in column ``size``) and also stated summaries
that cannot be recomputed.  Several tests in one log are several runs (``invocation``).
"""

from __future__ import annotations

from pathlib import Path

from . import hpc_input
from .common import INVOCATION_LEVEL, ReaderError, build, row
from .head import Head
from .registry import CERTAIN, Format

FORMAT = "osu"
#: OMB tests that run on exactly two processes (their source refuses any other count).
TWO_PROCESS_TESTS = {"mpi latency", "mpi bandwidth", "mpi bi-directional bandwidth", "mpi-cuda latency",
                     "mpi-cuda bandwidth", "mpi-cuda bi-directional bandwidth"}
#: MPI datatype named in OMB 7's "# Datatype:" line -> number format of the data moved.
DATATYPES = {"mpi_char": "char", "mpi_byte": "byte", "mpi_int": "int32", "mpi_float": "fp32", "mpi_double": "fp64"}
#: Words naming a collective test; the other MPI tests are point-to-point and move MPI_CHAR buffers
#: (OMB before 7.0 prints no datatype for them).
COLLECTIVE_WORDS = ("all", "reduce", "bcast", "broadcast", "gather", "scatter", "barrier", "neighbor")
CENTRES = {"latency": ("arithmetic_mean", "the mean time per iteration over the timed iterations"),
           "bandwidth": ("harmonic_mean", "bytes moved / total time of the timed iterations (the harmonic "
                                          "mean of the per-iteration rates)"),
           "message_rate": ("harmonic_mean", "messages / total time of the timed iterations")}


def header(line: str) -> dict | None:
    """{name, version} of an OSU test header (``# OSU MPI Latency Test v5.3.2``), None for any other line.

    Tokens, not a pattern: the name is what stands between ``OSU`` and ``Test``."""
    text = line.strip()
    if not text.startswith("#"):
        return None
    words = text[1:].split()
    if len(words) < 3 or words[0].upper() != "OSU":
        return None
    lowered = [w.lower() for w in words]
    if "test" not in lowered[2:]:
        return None
    at = lowered.index("test", 2)
    version = words[at + 1][1:] if at + 1 < len(words) and words[at + 1][:1] in "vV" else ""
    return {"name": " ".join(words[1:at]), "version": version}


def _squeeze(text: str) -> str:
    """Lower case, parenthesized parts dropped, spaces collapsed: ``Avg Latency(us)`` -> ``avg latency``."""
    out, depth = [], 0
    for char in text:
        depth += char == "("
        if not depth:
            out.append(char)
        depth -= char == ")" and depth > 0
    return " ".join("".join(out).lower().split())


def _column(name: str) -> tuple[str, str]:
    """(metric, unit) of a column header such as ``Avg Latency(us)``, ``Bandwidth (MB/s)``, ``Messages/s``."""
    _, paren, rest = name.partition("(")
    unit = rest.partition(")")[0].strip() if paren else ""
    base = _squeeze(name)
    if base in ("mb/s", "gb/s"):
        return "bandwidth", name.strip()
    if base == "messages/s":
        return "message_rate", "messages/s"
    for stat, suffix in (("avg", ""), ("min", "_min"), ("max", "_max")):
        if base.startswith(stat + " "):
            base = base[len(stat) + 1:] + suffix
            break
    metric = "_".join("".join(c if c.isalnum() else " " for c in base).split()) or "value"
    return metric, unit or "1"


def _blocks(lines: list[str]) -> list[tuple[dict, list[str]]]:
    """(header facts, lines) of each test printed in the file; lines before the first header (a launcher's,
    a scheduler's) belong to no test."""
    blocks: list[tuple[dict, list[str]]] = []
    for line in lines:
        facts = header(line)
        if facts is not None:
            blocks.append((facts, []))
        elif blocks:
            blocks[-1][1].append(line)
    return blocks


def _note(text: str, notes: dict) -> None:
    """One ``#`` line that is not the column header: ``Datatype: MPI_FLOAT.``, ``[ pairs: 8 ] [ window size: 64 ]``."""
    if text.startswith("["):
        for part in text.split("["):
            key, sep, value = part.rstrip("] ").partition(":")
            if sep and key.strip():
                notes[key.strip().lower()] = value.strip()
    elif ":" in text:
        key, _, value = text.partition(":")
        notes[key.strip().lower()] = value.strip().rstrip(".")
    else:
        notes.setdefault("header_lines", []).append(text)  # e.g. "Send Buffer on DEVICE (D) and ..."


def _layout(lines: list[str]) -> tuple[list[str], dict]:
    """The column names (``# Size ...`` line: columns are set apart by two spaces or a tab) and the other
    ``#`` lines."""
    columns, notes = [], {}
    for line in lines:
        text = line.strip().lstrip("#").strip()
        if not line.strip().startswith("#") or not text:
            continue
        if text.lower().startswith("size"):
            columns = [c.strip() for c in text.replace("\t", "  ").split("  ") if c.strip()]
        else:
            _note(text, notes)
    return columns, notes


def _precision(name: str, datatype: str) -> str:
    """The number format of the data: the printed datatype, else char for point-to-point tests, else unknown."""
    if datatype:
        return DATATYPES.get(datatype.lower(), datatype)
    lowered = name.lower()
    pt2pt = lowered.startswith("mpi") and not any(word in lowered for word in COLLECTIVE_WORDS)
    return "char" if pt2pt else ""


def _values(line: str, columns: list[str], path: Path, where: str) -> dict | None:
    """{column: text} of a data line (its first field a number, as OSU prints a message size), None for a line
    that is not one (``2024-05-01T12:00:00 ...`` of a scheduler is not a size)."""
    fields = line.split()
    if not fields or not hpc_input.looks_numeric(fields[0]) or not hpc_input.parses(fields[0]):
        return None
    if len(fields) != len(columns):
        raise ReaderError(path, f"{FORMAT}: {where}: {len(fields)} fields under a header of {len(columns)} "
                                f"({' | '.join(columns)})")
    return dict(zip(columns, fields))


def _block_rows(index: int, facts: dict, lines: list[str], path: Path) -> list[dict]:
    """Rows of one test: one per number printed (message size in ``size``), its datatype a factor."""
    columns, notes = _layout(lines)
    if not columns:
        return []
    name = facts["name"]
    ranks = 2 if name.lower() in TWO_PROCESS_TESTS else 1
    datatype = notes.get("datatype", "")
    common = dict(benchmark=FORMAT, workload=name, ranks=ranks, run_id=f"{name}#{index}", invocation=index,
                  datatype=datatype, precision=_precision(name, datatype))
    out = []
    for number, line in enumerate(lines, start=1):
        values = _values(line, columns, path, f"test {index + 1} ({name}) data line {number}")
        if values is None:
            continue
        size = hpc_input.count(values.pop(columns[0]), path, FORMAT, f"{name} message size")
        iterations = values.pop("Iterations", None)
        iterations = -1 if iterations is None else hpc_input.count(iterations, path, FORMAT,
                                                                  f"{name} size {size} Iterations")
        check = values.pop("Validation", "")
        for column, text in values.items():
            metric, unit = _column(column)
            value = hpc_input.number(text, path, FORMAT, f"{name} size {size} {column}")
            out.append(row(**common, size=size, metric=metric, value=value, unit=unit, iterations=iterations,
                           valid=check.lower() != "fail", status=f"validation {check}" if check else ""))
    return out


def _summaries(records: list[dict]) -> list[dict]:
    """Each printed centre as OSU's own statistic (n = the iterations when printed)."""
    out = []
    for r in records:
        if r["metric"] not in CENTRES:
            continue
        statistic, how = CENTRES[r["metric"]]
        out.append({"metric": r["metric"], "statistic": statistic, "value": r["value"], "unit": r["unit"],
                    "filters": {"workload": r["workload"], "size": r["size"], "invocation": r["invocation"]},
                    "n": r["iterations"] if r["iterations"] > 0 else None, "recomputable": 0,
                    "note": f"stated by OSU: {how} of one run; the per-iteration times are not printed, so this "
                            f"size has one number and no spread"})
    return out


def read(path: Path) -> list:
    """Every size of every test in the file as rows; OSU's centres as stated summaries."""
    blocks = _blocks(hpc_input.read_lines(path, FORMAT))
    records = [r for index, (facts, lines) in enumerate(blocks) for r in _block_rows(index, facts, lines, path)]
    if not records:
        raise ReaderError(path, f"{FORMAT}: no '# Size ...' column header with data lines under an OSU test header")
    versions = sorted({facts["version"] for facts, _ in blocks if facts["version"]})
    notes = {k: v for facts, lines in blocks for k, v in _layout(lines)[1].items()}
    attrs = {"summaries": _summaries(records), "factors": ["datatype"],
             "levels": {"invocation": INVOCATION_LEVEL + " (OSU: each test header in the file starts a run)"},
             "osu_tests": sorted({facts["name"] for facts, _ in blocks}),
             "per_iteration_values": "not printed (OSU prints one statistic per message size)",
             "iterations_printed": int(any(r["iterations"] > 0 for r in records))}
    environment = {"osu_version": ", ".join(versions)} if versions else None
    return [build(path, FORMAT, FORMAT, records, environment=environment,
                  config={"tests": attrs["osu_tests"], **notes},
                  attrs=attrs)]


def _recognize(head: Head) -> int:
    """An OSU test header and its ``# Size`` column header on lines of the head (launcher or scheduler lines
    may come first; a note whose title merely names OSU has no column header)."""
    if "OSU" not in head.text:
        return 0
    lines = head.text.splitlines()
    found = any(header(line) for line in lines)
    return CERTAIN if found and any(line.lstrip("# \t")[:4].lower() == "size" for line in lines) else 0


READER = Format(name=FORMAT, title="OSU Micro-Benchmarks text",
                reads="OSU 5.x to 7.x point-to-point, collective and non-blocking tests (several tests in one log; "
                "launcher and scheduler lines around them)", recognize=_recognize, read=read)
