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
import errno
import gzip
import json
import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest
from test_readers import GBENCH, HYPERFINE, MLLOG_T0, SUMMARY, mllog, pyperf_doc, write_loadgen, write_training

from twelveways import results
from twelveways.cli import main
from twelveways.readers import common

ROOT = Path(__file__).resolve().parents[1]

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


def gbench_aggregate(**changes) -> dict:
    doc = copy.deepcopy(GBENCH)
    doc["benchmarks"][3].update(changes)
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
    "mllog seed NaN": (lambda t: training_with(t, mllog("seed", MLLOG_T0, float("nan"))),
                       ["result_0.txt", "line 4 (seed) value is 'nan', not an integer"]),
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
                                      ["gb.json", "benchmarks[0]", "iterations is '1000', not a whole number"]),
    "gbench without time_unit": (lambda t: json_file(t, "gb.json", gbench(time_unit=None)),
                                 ["gb.json", "benchmarks[0]", "time_unit"]),
    "gbench time_unit a list": (lambda t: json_file(t, "gb.json", gbench(time_unit=["ns"])),
                                ["gb.json", "benchmarks[0]", "time_unit"]),
    "gbench negative real_time": (lambda t: json_file(t, "gb.json", gbench(real_time=-1.0)),
                                  ["gb.json", "real_time is -1, below its minimum 0"]),
    "gbench aggregate repetitions as a string": (lambda t: json_file(t, "gb.json", gbench_aggregate(repetitions="3")),
                                                 ["gb.json", "benchmarks[3]", "repetitions is '3', not a whole number"]),
    "hyperfine parameters as a list": (lambda t: json_file(t, "hf.json", hyperfine(parameters=["threads", "1"])),
                                       ["hf.json", "results[0].parameters is a list of 2, not an object"]),
    "hyperfine exit codes as strings": (lambda t: json_file(t, "hf.json", hyperfine(exit_codes=["0"] * 5)),
                                        ["hf.json", "results[0].exit_codes[0] is '0', not a whole number"]),
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
    (tree / "gone.json").symlink_to(tmp_path / "moved-away.json")
    with fifo_watched(tree / "pipe") as opened, socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tree / "sock"))
        code, _, err = run(capsys, "audit", tree, "--exit-zero", "--output", report)
    assert code == 0 and not opened and "Traceback" not in err, err
    skipped = {Path(item["path"]).name: item["why"] for item in json.loads(report.read_text())["skipped"]}
    assert skipped == {"pipe": "a FIFO (named pipe): not opened", "sock": "a socket: not opened",
                       "gone.json": "a broken symbolic link: not opened"}
    assert "Skipped 3 file(s)" in err


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


# ------------------------------------------------------------------ outputs: nothing written before is lost

def test_output_equal_to_an_input_is_refused(tmp_path, capsys):
    """``import X --output X`` would replace the input by its own conversion; audit and compare likewise."""
    path = json_file(tmp_path, "sort.json", HYPERFINE)
    before = path.read_bytes()
    for argv in (["import", path, "--output", path], ["audit", path, "--output", path],
                 ["compare", path, path, "--output", path], ["import-csv", path, "--output", path]):
        one_error(*run(capsys, *argv)[::2], f"output {path} is the input {path}")
    assert path.read_bytes() == before


def imported_twice(capsys, tmp_path, target: Path) -> tuple[bytes, str]:
    """Import once (the earlier output), then import a second result over it; (earlier bytes, second stderr)."""
    first = json_file(tmp_path, "first.json", HYPERFINE)
    second = json_file(tmp_path, "second.json", hyperfine(times=[0.1] * 400, exit_codes=[0] * 400))
    code, _, err = run(capsys, "import", first, "--output", target)
    assert code == 0, err
    before = target.read_bytes()
    code, _, err = run(capsys, "import", second, "--output", target)
    return before, one_error(code, err, str(target), "no space left on the device")


def test_full_disk_is_one_line_and_the_earlier_output_stays(tmp_path, capsys, monkeypatch):
    """A write that fails as a full disk does (ENOSPC on the flush): one line, earlier file intact, no partial."""
    from twelveways import atomic

    target = tmp_path / "out" / "sort.nc"
    real_fsync = os.fsync
    calls = []

    def fsync_on_a_full_disk(fd):
        calls.append(fd)
        if len(calls) > 1:  # the first import succeeds; the second meets a full disk
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync_on_a_full_disk)
    before, _ = imported_twice(capsys, tmp_path, target)
    assert target.read_bytes() == before and sorted(p.name for p in target.parent.iterdir()) == ["sort.nc"]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_really_full_disk_is_one_line_and_the_earlier_output_stays(tmp_path, capsys):
    """The same on a real 256 KiB tmpfs filled up: no HDF5 traceback, no crash of the interpreter."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        target = disk / "sort.nc"
        code, _, err = run(capsys, "import", json_file(tmp_path, "first.json", HYPERFINE), "--output", target)
        assert code == 0, err
        before = target.read_bytes()
        with contextlib.suppress(OSError), (disk / "filler").open("wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
        second = json_file(tmp_path, "second.json", hyperfine(times=[0.1] * 400, exit_codes=[0] * 400))
        one_error(*run(capsys, "import", second, "--output", target)[::2], str(target), "no space left on the device")
        assert target.read_bytes() == before and sorted(p.name for p in disk.iterdir()) == ["filler", "sort.nc"]
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_killed_writers_partial_file_is_removed_by_the_next_write(tmp_path, capsys):
    target = tmp_path / "sort.nc"
    stale = tmp_path / ".sort.nc.4194999.x1y2z3.partial"  # above Linux's largest pid (4194304): its writer is gone
    live = tmp_path / f".sort.nc.{os.getpid()}.abcdef.partial"  # this process: a writer still at work
    stale.write_bytes(b"\x89HDF half")
    live.write_bytes(b"\x89HDF half")
    code, _, err = run(capsys, "import", json_file(tmp_path, "sort.json", HYPERFINE), "--output", target)
    assert code == 0, err
    assert not stale.exists() and live.exists() and results.open(target).sizes["sample"] == 10


# ------------------------------------------------------------------ noise floors: stated and recorded

def compare_folders(tmp_path: Path, record: dict | None = None) -> tuple[Path, Path]:
    base, new = tmp_path / "base", tmp_path / "new"
    for folder, scale in ((base, 1.0), (new, 10.0)):  # new is ten times slower
        folder.mkdir()
        doc = copy.deepcopy(HYPERFINE)
        for entry in doc["results"]:
            entry["times"] = [t * scale for t in entry["times"]]
        json_file(folder, "sort.json", doc)
    if record is not None:
        json_file(base, "noise_floor.json", record)
    return base, new


@pytest.mark.parametrize("given, needles", [
    ("10", ["--noise-floor", "'10' is not a fraction 0 <= f < 1", "for 10% write 10%"]),
    ("-0.1", ["--noise-floor", "'-0.1' is not a fraction"]),
    ("nan", ["--noise-floor", "'nan' is not a fraction"]),
    ("ten", ["--noise-floor", "'ten' is not a number"]),
])
def test_a_stated_noise_floor_must_read_as_a_fraction(tmp_path, capsys, given, needles):
    base, new = compare_folders(tmp_path)
    one_error(*run(capsys, "compare", base, new, f"--noise-floor={given}")[::2], *needles)


def test_a_noise_floor_in_percent_is_read_as_a_percentage(tmp_path, capsys):
    base, new = compare_folders(tmp_path)
    code, out, err = run(capsys, "compare", base, new, "--noise-floor", "10%", "--format", "json")
    assert code == 0, err
    record = json.loads(out)
    assert record["noise_floor"]["margin"] == pytest.approx(0.1) and "±10.0%" in record["noise_floor"]["margin_text"]
    assert {r["verdict"] for r in record["rows"] if r["p_adjusted"] is not None} <= {"slower", "inconclusive"}


FLOOR = {"format": "twelveways-noise-floor/1", "configurations": 2, "confidence": 0.95, "floor": 0.04,
         "floor_configuration": "sort -n data.txt", "floor_source": "largest A/A CI bound", "false_positives": 0,
         "false_positive_rate": 0.0, "median_detectable_ratio": 1.1}


@pytest.mark.parametrize("change, needles", [
    ({"floor_configuration": None}, ["no 'floor_configuration'"]),
    ({"floor": -0.5}, ["floor is -0.5, below its minimum 0"]),
    ({"floor": "4%"}, ["floor is '4%', not a number"]),
    ({"false_positive_rate": 3}, ["false_positive_rate is 3, above its maximum 1"]),
    ({"false_positive_rate": None, "false_positives": None, "confidence": float("inf")}, ["confidence is"]),
    ({"median_detectable_ratio": "big"}, ["median_detectable_ratio is 'big', not a number"]),
    ({"false_positives": None}, ["'false_positive_rate' without the count 'false_positives'"]),
])
def test_an_older_recorded_noise_floor_is_checked_before_it_is_named(tmp_path, capsys, change, needles):
    record = {k: v for k, v in {**FLOOR, **change}.items() if v is not None}
    base, new = compare_folders(tmp_path, record)
    one_error(*run(capsys, "compare", base, new)[::2], "noise_floor.json: noise floor record", *needles)


AA_RECORD = {"format": "twelveways-noise-floor/2", "configurations": 2, "confidence": 0.95, "false_positives": 0,
             "false_positive_rate": 0.0, "run_levels": [{"group": ["sort -n data.txt"], "name": "sort -n data.txt",
                                                         "variance": 0.0004, "relative_sd": 0.02, "df": 1.0,
                                                         "configurations": 2}]}


@pytest.mark.parametrize("change, needle", [
    ({"run_levels": {"a": 1}}, "run_levels is an object, not a list"),
    ({"run_levels": [{"group": ["x"], "name": "x", "variance": -1.0, "relative_sd": 0.1, "df": 1}]},
     "run_levels[0].variance is -1, below its minimum 0"),
    ({"run_levels": [{"group": ["x"], "name": "x", "variance": 0.1, "relative_sd": float("nan"), "df": 1}]},
     "run_levels[0].relative_sd is nan, not a finite number"),
    ({"run_levels": [["x"]]}, "run_levels[0] is a list of 1, not an object"),
    ({"run_levels": [{"name": "x", "variance": 0.1, "relative_sd": 0.1, "df": 1, "configurations": 2}]},
     "run_levels[0].group is missing"),
    ({"configurations": 2.5}, "configurations is 2.5"),
])
def test_a_recorded_aa_run_level_is_checked_before_use(tmp_path, capsys, change, needle):
    base, new = compare_folders(tmp_path, {**AA_RECORD, **change})
    one_error(*run(capsys, "compare", base, new)[::2], "noise_floor.json: noise floor record", needle)


def test_a_valid_recorded_noise_floor_is_used(tmp_path, capsys):
    base, new = compare_folders(tmp_path, AA_RECORD)
    (new / "notes.txt").write_text("second run, after the BIOS update\n")
    code, out, err = run(capsys, "compare", base, new, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["noise_floor"]["measured"] is True
    assert err.splitlines() == [f"skipped (new) {new / 'notes.txt'}: not a format twelveways reads (text starting "
                                "'second run, after the BIOS update')"]


# ------------------------------------------------------------------ other commands' inputs

@pytest.mark.slow  # a whole reference set re-read or re-audited: make test, not the unit tier
def test_damaged_derived_results_stop_reproduce(tmp_path, capsys):
    """A run whose derived results are damaged is not "a run without derived results"."""
    reference = ROOT / "data" / "reference"
    run_dir = tmp_path / "results"
    (run_dir / "derived").mkdir(parents=True)
    for nc in (reference / "results").glob("*.nc"):
        (run_dir / nc.name).write_bytes(nc.read_bytes())
    (run_dir / "derived" / "prk.nc").write_bytes(b"\x89HDF\r\n\x1a\n damaged")
    code, _, err = run(capsys, "reproduce", "--reference", reference, "--results", run_dir, "--claims", "",
                       "--output", tmp_path / "reproduction")
    one_error(code, err, "derived/prk.nc: damaged derived results")
    assert not list(tmp_path.glob("reproduction.*"))


def test_import_csv_with_an_integer_attribute_wider_than_64_bits(tmp_path, capsys):
    csv = tmp_path / "a.csv"
    csv.write_text("benchmark,workload,implementation,ranks,threads,size,precision,seed,run_id,iteration,rank,"
                   "metric,value,unit,valid\nb,w,i,1,1,10,fp64,1,r,1,0,time,0.1,s,true\n")
    meta = tmp_path / "meta.yaml"
    meta.write_text("attrs:\n  serial: 123456789012345678901234567890\n")
    one_error(*run(capsys, "import-csv", csv, "--metadata", meta, "--output", tmp_path / "o.nc")[::2],
              "a.csv: attribute 'serial' is an integer wider than 64 bits")
    csv.write_text(csv.read_text().replace(",1,r,", ",123456789012345678901234567890,r,"))
    one_error(*run(capsys, "import-csv", csv, "--output", tmp_path / "o.nc")[::2],
              "column 'seed' line 2", "not an integer of at most 64 bits")
    assert not (tmp_path / "o.nc").exists()


def test_config_docs_with_a_readme_without_markers_fails(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# mine\n")
    code, _, err = run(capsys, "config-docs", "--readme", readme)
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and "no generated key block" in lines[0], err
    assert readme.read_text() == "# mine\n"


def test_snapshot_onto_a_file_is_one_line(tmp_path, capsys):
    target = tmp_path / "reference"
    target.write_text("mine")
    code, _, err = run(capsys, "report", "snapshot", "--results", ROOT / "data" / "reference", "--output", target)
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and "is a file, not a folder" in lines[0] and "Traceback" not in err, err
    assert target.read_text() == "mine"
