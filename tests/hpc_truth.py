"""What the tests of the HPC text formats share (tests/test_format_{osu,hpl,stream,hpcg,ior}.py).

* :func:`truth_cases` / :func:`check_truth`: each real file of a format's folder read through the
  reader framework (recognition by content, then the reader) against its manifest ``truth.yaml``:
  the publisher's printed numbers, row counts, units.
* :func:`outcome`: the one contract every input must meet: parsed rows, or ONE error line.
* :data:`MUTATIONS` and :func:`mutated`: the damage a file may carry (truncation, a number swapped for
  a word, 400 digits, 1e308, negative and NaN numbers, a 1 MB line, latin-1 bytes, launcher noise).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import yaml

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import read_paths

DATA = Path(__file__).parent / "data" / "formats"

#: Lines a launcher or scheduler writes around a tool's output (Intel MPI's I_MPI_DEBUG lines, srun's
#: queue messages, ssh's host-key warning, TACC's ibrun, a module banner, an epilogue).
LAUNCHER_BEFORE = ("[0] MPI startup(): Intel(R) MPI Library, Version 2021.9  Build 20230307 (id: d82b3071db)\n"
                   "[0] MPI startup(): libfabric provider: tcp;ofi_rxm\n"
                   "srun: job 6113411 queued and waiting for resources\n"
                   "srun: job 6113411 has been allocated resources\n"
                   "Warning: Permanently added 'c457-011,129.114.0.1' (ECDSA) to the list of known hosts.\n"
                   "Lmod: loading module openmpi/4.1.5 (default)\n"
                   "TACC:  Starting up job 6113411 \n")
LAUNCHER_AFTER = ("TACC:  Shutdown complete. Exiting. \n"
                  "srun: error: c457-011: task 1: Exited with exit code 0\n"
                  "Job 6113411 epilogue: cleaning /tmp on c457-011\n"
                  "2024-05-01T12:00:00 job 6113411 completed\n")


def truth_cases(fmt: str) -> list[dict]:
    """The entries of ``tests/data/formats/<fmt>/truth.yaml``."""
    return yaml.safe_load((DATA / fmt / "truth.yaml").read_text())["files"]


def read_one(path: Path):
    """(format read, frame, attrs with JSON decoded) of one file named as on the command line."""
    loaded = read_paths([path])
    assert len(loaded) == 1
    attrs = {k: json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v for k, v in loaded[0].ds.attrs.items()}
    return loaded[0].format, results.to_frame(loaded[0].ds), attrs


def check_truth(fmt: str, case: dict) -> None:
    """The file's rows hold the publisher's numbers, as its manifest entry lists them."""
    read_as, frame, attrs = read_one(DATA / fmt / case["file"])
    assert read_as == fmt
    assert len(frame) == case["rows"], f"{case['file']}: {len(frame)} rows"
    for metric, unit in case.get("units", {}).items():
        assert set(frame.loc[frame["metric"] == metric, "unit"]) == {unit}, (case["file"], metric)
    for wanted in case.get("values", []):
        keys = {k: v for k, v in wanted.items() if k != "value"}
        picked = frame
        for key, value in keys.items():
            picked = picked[picked[key] == value]
        assert len(picked), f"{case['file']}: no row with {keys}"
        assert math.isclose(picked["value"].iloc[0], wanted["value"], rel_tol=1e-12), (case["file"], wanted)
    for key, value in case.get("environment", {}).items():
        assert attrs["environment"][key] == value, (case["file"], key)
    for key, value in case.get("settings", {}).items():
        assert attrs["settings"][key] == value, (case["file"], key)
    if "tally" in case:
        assert attrs.get("hpl_tally", {}) == case["tally"]
    for wanted in case.get("summaries", []):
        found = [s for s in attrs["summaries"] if s["metric"] == wanted["metric"]
                 and s["statistic"] == wanted["statistic"] and s["filters"].get("operation") == wanted["operation"]]
        assert found and math.isclose(found[0]["value"], wanted["value"]), (case["file"], wanted)


def outcome(path: Path):
    """The frame of the rows read, or the one error line; anything else (a traceback, a second line) fails."""
    try:
        _, frame, _ = read_one(path)
    except AuditInputError as exc:
        line = exc.one_line()
        assert line and "\n" not in line and "Traceback" not in line, line
        return line
    assert len(frame) > 0
    return frame


def _replace_number(text: str, at: int, by: str) -> str:
    """``text`` with the number starting at or after character ``at`` replaced by ``by``."""
    start = next((i for i in range(at, len(text)) if text[i].isdigit()), -1)
    if start < 0:
        return text
    end = start
    while end < len(text) and (text[end].isdigit() or text[end] in ".eE+-"):
        end += 1
    return text[:start] + by + text[end:]


#: Each mutation: (name, function of (file text, a position in [0, 1)) -> bytes).
MUTATIONS = {
    "truncate": lambda text, pos: text.encode()[:int(len(text.encode()) * pos)],
    "word": lambda text, pos: _replace_number(text, int(len(text) * pos), "two").encode(),
    "digits400": lambda text, pos: _replace_number(text, int(len(text) * pos), "9" * 400).encode(),
    "huge": lambda text, pos: _replace_number(text, int(len(text) * pos), "1e308").encode(),
    "negative": lambda text, pos: _replace_number(text, int(len(text) * pos), "-12.5").encode(),
    "nan": lambda text, pos: _replace_number(text, int(len(text) * pos), "nan").encode(),
    "fraction": lambda text, pos: _replace_number(text, int(len(text) * pos), "2.5").encode(),
    "long_line": lambda text, pos: (text[:int(len(text) * pos)] + "7" * 1_000_000 + "\n"
                                    + text[int(len(text) * pos):]).encode(),
    "spaces": lambda text, pos: (text[:int(len(text) * pos)] + " " * 200_000 + text[int(len(text) * pos):]).encode(),
    "latin1": lambda text, pos: text[:int(len(text) * pos)].encode() + "é Größe".encode("latin-1")
    + text[int(len(text) * pos):].encode(),
    "launcher": lambda text, pos: (LAUNCHER_BEFORE + text + LAUNCHER_AFTER).encode(),
    "deep": lambda text, pos: _replace_number(text, int(len(text) * pos), "[" * 100_000 + "]" * 100_000).encode(),
}


def mutated(tmp: Path, name: str, text: str, mutation: str, pos: float) -> Path:
    """A file holding ``text`` damaged by ``mutation`` at relative position ``pos``."""
    path = tmp / name
    path.write_bytes(MUTATIONS[mutation](text, pos))
    return path
