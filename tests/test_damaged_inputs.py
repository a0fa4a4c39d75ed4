"""Damaged files of other people's formats, each written here from the format's documentation.

Every case goes through the real command line (``cli.main`` in this process, or a subprocess where
the failure would hang or kill the interpreter) and must give ONE line ``error: <file>: <what>``
and exit 2, never a traceback; where an output existed before, it is byte-identical afterwards.
Formats: MLPerf logging (``:::MLLOG`` + JSON object with key, value, time_ms, event_type,
metadata), LoadGen's summary and detail logs, Google Benchmark's JSON reporter, hyperfine's
``--export-json``, pyperf JSON (gzip), and the project's own noise-floor record.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import json
import os
import socket
import threading
from pathlib import Path

import pytest
from test_readers import GBENCH, HYPERFINE, MLLOG_T0, SUMMARY, mllog, pyperf_doc, write_loadgen, write_training

from twelveways import results
from twelveways.cli import main
from twelveways.readers import common

def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error(code: int, err: str, *needles: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, (code, err)
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# ------------------------------------------------------------------ builders: one damaged input each

def training_with(tmp: Path, extra_line: str | None = None, **eval_meta) -> Path:
    """A valid MLPerf Training folder, then run 0 damaged: a line appended, or the eval line's metadata changed."""
    folder = write_training(tmp / "resnet")
    log = folder / "result_0.txt"
    lines = log.read_text().splitlines()
    if eval_meta:
        at = next(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
        lines[at] = mllog("eval_accuracy", MLLOG_T0 + 100, 0.76, eval_meta)
    if extra_line is not None:
        lines.insert(3, extra_line)
    log.write_text("\n".join(lines) + "\n")
    return folder


def loadgen_with(tmp: Path, summary: str | None = None, detail_line: str | None = None,
                 encoding: str = "utf-8") -> Path:
    folder = write_loadgen(tmp / "run_1")
    if summary is not None:
        (folder / "mlperf_log_summary.txt").write_bytes(summary.encode(encoding))
    if detail_line is not None:
        with (folder / "mlperf_log_detail.txt").open("a") as handle:
            handle.write(detail_line + "\n")
    return folder


def json_file(tmp: Path, name: str, doc) -> Path:
    path = tmp / name
    path.write_text(json.dumps(doc))
    return path


def gbench(**changes) -> dict:
    doc = copy.deepcopy(GBENCH)
    for key, value in changes.items():
        if value is None:
            del doc["benchmarks"][0][key]
        else:
            doc["benchmarks"][0][key] = value
    return doc


def hyperfine(**changes) -> dict:
    doc = copy.deepcopy(HYPERFINE)
    doc["results"][0].update(changes)
    return doc


NO_KEY = ":::MLLOG " + json.dumps({"namespace": "", "time_ms": MLLOG_T0, "event_type": "POINT_IN_TIME",
                                   "value": 1, "metadata": {}})
STATS_P90 = "90.00 percentile latency (ns)   : {p90}"

CASES = {
    "mllog line without key": (lambda t: training_with(t, NO_KEY), ["result_0.txt", "line 4", "no 'key'"]),
    "mllog line that is a list": (lambda t: training_with(t, ":::MLLOG [1, 2, 3]"),
                                  ["result_0.txt", "line 4", "a list of 3 item(s), not an object"]),
    "mllog line not json": (lambda t: training_with(t, ":::MLLOG {\"key\": "), ["line 4", "not valid JSON"]),
    "mllog epoch_num as a string": (lambda t: training_with(t, epoch_num="forty"),
                                    ["result_0.txt", "epoch_num is 'forty', not a number"]),
    "mllog epoch_num 1e30": (lambda t: training_with(t, epoch_num=1e30), ["epoch_num is 1e+30, above its maximum"]),
    "mllog negative epoch_num": (lambda t: training_with(t, epoch_num=-3), ["epoch_num is -3, below its minimum 0"]),
    "mllog time_ms as a string": (
        lambda t: training_with(t, mllog("seed", MLLOG_T0, 1).replace(f'"time_ms": {MLLOG_T0}', '"time_ms": "soon"')),
        ["line 4 (seed) time_ms is 'soon', not a number"]),
    "mllog line of 1 MiB": (lambda t: training_with(t, mllog("note", MLLOG_T0, "x" * (1 << 20))),
                            ["result_0.txt", "line 4 is longer than 65,536 bytes"]),
    "loadgen detail line that is a list": (lambda t: loadgen_with(t, detail_line=":::MLLOG [1, 2]"),
                                           ["mlperf_log_detail.txt", "line 6", "not an MLLOG object"]),
    "loadgen latin-1 summary": (lambda t: loadgen_with(t, SUMMARY.replace("PySUT", "PySUT café").format(
        p90=2000000, result="VALID", duration="Yes"), encoding="latin-1"),
        ["mlperf_log_summary.txt", "line 4 is not UTF-8"]),
    "loadgen negative qps": (lambda t: loadgen_with(t, SUMMARY.replace(": 500.00", ": -500.00").format(
        p90=2000000, result="VALID", duration="Yes")), ["mlperf_log_summary.txt", "qps_w_loadgen_overhead is -500"]),
    "loadgen nan qps": (lambda t: loadgen_with(t, SUMMARY.replace(": 510.00", ": nan").format(
        p90=2000000, result="VALID", duration="Yes")), ["mlperf_log_summary.txt", "qps_w_o_loadgen_overhead is 'nan'"]),
    "loadgen percentile not a number": (lambda t: loadgen_with(t, SUMMARY.format(
        p90="soon", result="VALID", duration="Yes")), ["mlperf_log_summary.txt", "not a non-negative number"]),
    "gbench iterations as a string": (lambda t: json_file(t, "gb.json", gbench(iterations="1000")),
                                      ["gb.json", "benchmarks[0]", "iterations is '1000', not an integer"]),
    "gbench without time_unit": (lambda t: json_file(t, "gb.json", gbench(time_unit=None)),
                                 ["gb.json", "benchmarks[0]", "time_unit"]),
    "gbench negative real_time": (lambda t: json_file(t, "gb.json", gbench(real_time=-1.0)),
                                  ["gb.json", "real_time is -1, below its minimum 0"]),
    "hyperfine parameters as a list": (lambda t: json_file(t, "hf.json", hyperfine(parameters=["threads", "1"])),
                                       ["hf.json", "results[0].parameters is a list of 2 item(s), not an object"]),
    "hyperfine exit codes as strings": (lambda t: json_file(t, "hf.json", hyperfine(exit_codes=["0"] * 5)),
                                        ["hf.json", "results[0].exit_codes[0] is '0', not an integer"]),
    "hyperfine negative time": (lambda t: json_file(t, "hf.json", hyperfine(times=[0.1, -0.2, 0.1, 0.1, 0.1])),
                                ["hf.json", "results[0].times[1] is -0.2, below its minimum 0"]),
}


@pytest.mark.parametrize("command", ["audit", "import"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_damaged_input_is_one_line(tmp_path, capsys, case, command):
    build, needles = CASES[case]
    target = build(tmp_path)
    extra = ["--output", tmp_path / "out.nc"] if command == "import" else []
    one_error(*run(capsys, command, target, *extra)[::2], *needles)
    assert not (tmp_path / "out.nc").exists()


def test_damaged_input_through_compare(tmp_path, capsys):
    good = json_file(tmp_path, "good.json", HYPERFINE)
    bad = json_file(tmp_path, "bad.json", hyperfine(exit_codes=["0"] * 5))
    one_error(*run(capsys, "compare", good, bad)[::2], "bad.json", "exit_codes[0]")


def test_loadgen_percentiles_in_exponent_notation_are_read(tmp_path, capsys):
    """``5.4e6`` is a number (LoadGen's summary writes integers, other tools floats): read, not refused."""
    folder = loadgen_with(tmp_path, SUMMARY.format(p90="5.4e6", result="VALID", duration="Yes"))
    code, _, err = run(capsys, "import", folder, "--output", tmp_path / "lg.nc")
    assert code == 0, err
    frame = results.to_frame(results.open(tmp_path / "lg.nc"))
    assert frame.loc[frame["metric"] == "latency_p90", "value"].tolist() == [5.4e6]


def test_hyperfine_run_killed_by_a_signal_is_invalid(tmp_path, capsys):
    """hyperfine writes ``exit_codes`` as ``Option<i32>``: null means a signal ended the run, not success."""
    path = json_file(tmp_path, "hf.json", hyperfine(exit_codes=[0, None, 0, 0, 0]))
    code, _, err = run(capsys, "import", path, "--output", tmp_path / "hf.nc")
    assert code == 0, err
    frame = results.to_frame(results.open(tmp_path / "hf.nc"))
    killed = frame[(frame["implementation"] == "sort -n data.txt") & (frame["invocation"] == 1)]
    assert not killed["valid"].any() and killed["status"].tolist() == ["killed by a signal (exit code null)"]
    assert frame[frame["implementation"] == "sort -n data.txt"]["valid"].sum() == 4


def test_gzip_that_expands_past_the_cap_is_refused(tmp_path, capsys, monkeypatch):
    """A small .json.gz expanding to more than the cap is refused after reading just past the cap."""
    monkeypatch.setattr(common, "MAX_DECOMPRESSED_BYTES", 1 << 20)
    doc = pyperf_doc([[0.01, 0.02]])
    doc["padding"] = " " * (4 << 20)
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert path.stat().st_size < 64 << 10
    one_error(*run(capsys, "audit", path)[::2], "bomb.json.gz", "more than 1,048,576 bytes once decompressed")


# ------------------------------------------------------------------ special files: never opened

@contextlib.contextmanager
def fifo_watched(path: Path):
    """A FIFO at ``path``; yields a list that gets True if anyone opens it for reading.  A watcher opens the
    write end as soon as a reader appears, so a regression fails the test instead of hanging the suite."""
    os.mkfifo(path)
    opened, done = [], threading.Event()

    def watch():
        while not done.wait(0.02):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO while no reader has it open
            except OSError:
                continue
            opened.append(True)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield opened
    finally:
        done.set()
        thread.join()


def test_fifo_as_an_argument_is_refused(tmp_path, capsys):
    with fifo_watched(tmp_path / "results.json") as opened:
        code, _, err = run(capsys, "audit", tmp_path / "results.json")
    one_error(code, err, "results.json", "a FIFO (named pipe), not a regular file")
    assert not opened


def test_device_as_an_argument_is_refused(capsys):
    one_error(*run(capsys, "audit", "/dev/zero")[::2], "/dev/zero", "a character device, not a regular file")


def test_fifo_and_socket_in_a_tree_are_skipped_and_listed(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    json_file(tree, "sort.json", HYPERFINE)
    report = tmp_path / "audit.json"
    with fifo_watched(tree / "pipe") as opened, socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tree / "sock"))
        code, _, err = run(capsys, "audit", tree, "--exit-zero", "--output", report)
    assert code == 0 and not opened and "Traceback" not in err, err
    skipped = {Path(item["path"]).name: item["why"] for item in json.loads(report.read_text())["skipped"]}
    assert skipped == {"pipe": "a FIFO (named pipe): not opened", "sock": "a socket: not opened"}
    assert "Skipped 2 file(s)" in err


def test_unrecognized_files_in_a_tree_are_skipped_and_listed(tmp_path, capsys):
    """A stray note or the tool's own comparison.html beside the results: listed, the rest audited."""
    tree = tmp_path / "tree"
    tree.mkdir()
    json_file(tree, "sort.json", HYPERFINE)
    (tree / "notes.txt").write_text("ran on box1, see lab book p. 12\n")
    (tree / "comparison.html").write_text('<!doctype html><html lang="en"><body>a, b, c</body></html>\n')
    (tree / "header-only.csv").write_text("benchmark,time_s\n")
    code, out, err = run(capsys, "audit", tree, "--exit-zero")
    assert code == 0, err
    assert "sort.json" in out and "Skipped 3 file(s) of the input trees (not audited)" in out
    for name in ("notes.txt", "comparison.html", "header-only.csv"):
        assert f"{tree / name}: not a format twelveways reads" in out
    one_error(*run(capsys, "audit", tree / "notes.txt")[::2], "notes.txt", "not a format twelveways reads")
