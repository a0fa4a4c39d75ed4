"""Bad inputs, generated here, each refused with one line and a non-zero exit; nothing is corrupted.

Kinds: results values and attributes, infeasible or inconsistent configs, output
paths (directory, missing folder, full disk, README without markers) and NumPy kernels out of
memory.  A few cases run the real command line in a subprocess; the rest call ``cli.main`` in
this process (the same code path, without paying the start-up of a new interpreter each time).
"""

from __future__ import annotations

import errno
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import yaml

from twelveways import atomic, cli, config, configdocs, feasibility, results
from twelveways.errors import ConfigError, ResultsError

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "twelveways", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def assert_one_line(stderr: str, *words: str) -> None:
    """Exactly one ``error:`` line, no traceback, naming the problem."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Traceback" not in stderr, stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def in_process(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    return code, capsys.readouterr().err


# ---------------------------------------------------------------- results files

def sample_rows(n: int = 3, **changes) -> list[dict]:
    rows = [{"benchmark": "prk", "workload": "nstream", "implementation": "numpy", "ranks": 1, "threads": 1,
             "size": 1000, "precision": "fp64", "seed": 1, "run_id": "r1", "iteration": i, "rank": 0,
             "metric": "time", "value": 0.01 + i * 1e-3, "unit": "s", "valid": True} for i in range(n)]
    for key, value in changes.items():
        rows[1][key] = value
    return rows


def foreign_file(path: Path, rows: list[dict], **attrs) -> Path:
    """A results file written as another tool would, without twelveways' checks (plain strings, 1.0 style)."""
    frame = pd.DataFrame.from_records(rows)
    data = {name: (("sample",), frame[name].to_numpy(dtype=object if frame[name].dtype == object else None))
            for name in frame.columns}
    ds = xr.Dataset(data)
    ds.attrs.update({"schema_version": "1.1", "family": "prk", "environment_hash": "e", "config_hash": "c",
                     "git_commit": "g", "git_dirty": 0, **attrs})
    ds.to_netcdf(path, engine="h5netcdf")
    return path


@pytest.mark.parametrize("change, words", [
    ({"value": math.nan}, ("row 1", "'value'", "NaN")),
    ({"value": -0.5}, ("row 1", "'value'", "negative time")),
    ({"value": 1e308}, ("row 1", "'value'", "a year")),
    ({"value": math.inf, "metric": "rate", "unit": "MB/s"}, ("row 1", "'value'", "infinite")),
    ({"iteration": -7}, ("row 1", "'iteration'", "below -1")),
])
def test_results_refuses_bad_values(tmp_path, capsys, change, words):
    path = foreign_file(tmp_path / "bad.nc", sample_rows(**change))
    code, err = in_process(capsys, "results", str(path))
    assert code != 0
    assert_one_line(err, str(path), *words)


@pytest.mark.parametrize("attrs, words", [
    ({"git_dirty": "abc"}, ("git_dirty", "0 or 1")),
    ({"git_dirty": 7}, ("git_dirty",)),
])
def test_results_refuses_bad_attributes(tmp_path, capsys, attrs, words):
    path = foreign_file(tmp_path / "bad.nc", sample_rows(), **attrs)
    code, err = in_process(capsys, "results", str(path))
    assert code != 0
    assert_one_line(err, *words)


@pytest.mark.parametrize("categories", ["not json [", '{"a": 1}', "[1, 2]"])
def test_results_refuses_bad_category_lists(tmp_path, capsys, categories):
    path = foreign_file(tmp_path / "source.nc", sample_rows())
    with xr.open_dataset(path, engine="h5netcdf") as handle:
        ds = handle.load()
    ds["metric"] = xr.Variable(("sample",), np.zeros(3, dtype=np.int32), {results.CATEGORIES_ATTR: categories})
    path = tmp_path / "bad.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    code, err = in_process(capsys, "results", str(path))
    assert code != 0
    assert_one_line(err, "'metric'", results.CATEGORIES_ATTR, "JSON list of strings")


@pytest.mark.slow
def test_results_and_audit_subprocess_say_one_line(tmp_path):
    path = foreign_file(tmp_path / "bad.nc", sample_rows(value=math.nan))
    for command, expected in (("results", 2), ("audit", 2)):
        proc = run_cli(command, str(path))
        assert proc.returncode == expected, proc.stderr
        assert_one_line(proc.stderr, "NaN")


@pytest.mark.parametrize("size", [1e30, 10 ** 30, 2.5, "big"])
def test_integer_overflow_is_an_error_never_a_wrap(size):
    with pytest.raises(ResultsError) as info:
        results.from_records(sample_rows(size=size), "prk")
    message = info.value.one_line()
    assert "row 1, column 'size'" in message and "-9223372036854775808" not in message, message


def test_big_integers_within_range_are_kept_exactly():
    ds = results.from_records(sample_rows(size=2 ** 62 + 1), "prk")
    assert int(ds["size"].values[1]) == 2 ** 62 + 1


def test_an_empty_results_set_has_no_samples(tmp_path):
    path = results.write(results.from_records([], "bounds"), tmp_path / "empty.nc")
    with pytest.raises(ResultsError, match="no samples"):
        results.require_samples(results.open(path), str(path))


def test_empty_results_set_is_exit_2_in_the_cli(tmp_path, capsys):
    from twelveways import cli

    path = results.write(results.from_records([], "bounds"), tmp_path / "empty.nc")
    before = path.read_bytes()
    for command in (["results", str(path)], ["audit", str(path)]):
        assert cli.main(command) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and "no samples" in err[0]
    assert path.read_bytes() == before


def test_reference_results_still_open(root):
    ds = results.open(root / "data" / "reference" / "results" / "prk.nc")
    assert ds.sizes["sample"] > 0 and ds.attrs["git_dirty"] in (0, 1)


# ---------------------------------------------------------------- configs

def config_file(tmp_path: Path, text: str = "", **sections) -> Path:
    """config/config.yaml with ``sections`` merged in (or extra YAML ``text`` appended)."""
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config.deep_update(base, sections)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(base) + text)
    return path


CONFIG_CASES = {
    "nstream 10^12": ({"prk": {"sizes": {"nstream": [10 ** 12]}}}, ("prk.sizes.nstream", "needs about", "memory")),
    "nstream 2^70": ({"prk": {"sizes": {"nstream": [2 ** 70]}}}, ("prk.sizes.nstream", "64-bit")),
    "dgemm 2e6": ({"prk": {"sizes": {"dgemm": [2_000_000]}}}, ("prk.sizes.dgemm", "96,000.0 GB")),
    "min > max": ({"measurement": {"min_samples": 50, "max_samples": 10}}, ("measurement.min_samples", "max_samples")),
    "4096 ranks, order 64": ({"prk": {"kernels": ["transpose"], "scaling": "strong", "ranks": [1, 4096],
                                       "sizes": {"transpose": [64]}}}, ("prk.ranks", "4096", "64")),
    "grid = 2r": ({"prk": {"sizes": {"stencil": [4]}}}, ("prk.sizes.stencil", "2*radius")),
    "stencil tiles": ({"prk": {"kernels": ["stencil"], "scaling": "strong", "ranks": [1, 64],
                               "sizes": {"stencil": [9]}}}, ("prk.ranks", "narrower than prk.radius")),
    "sparse grid": ({"prk": {"sizes": {"sparse": [1]}}}, ("prk.sizes.sparse", "2*radius")),
}


@pytest.mark.parametrize("name", list(CONFIG_CASES))
def test_infeasible_configs_are_refused(tmp_path, capsys, name):
    sections, words = CONFIG_CASES[name]
    code, err = in_process(capsys, "check-config", str(config_file(tmp_path, **sections)))
    assert code == 1
    assert_one_line(err, "config key", *words)


@pytest.mark.parametrize("text, key", [("\nmeasurement: {max_seconds: .nan}\n", "measurement.max_seconds"),
                                       ("\nprk: {timeout_s: .inf}\n", "prk.timeout_s")])
def test_nan_and_infinity_are_refused(tmp_path, capsys, text, key):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    code, err = in_process(capsys, "check-config", str(path))
    assert code == 1
    assert_one_line(err, key, "finite")


@pytest.mark.slow
def test_memory_message_states_both_numbers_in_a_subprocess(tmp_path):
    proc = run_cli("check-config", str(config_file(tmp_path, prk={"sizes": {"nstream": [10 ** 12]}})))
    assert proc.returncode == 1
    assert_one_line(proc.stderr, "24,000.0 GB", f"{feasibility.machine_memory() / 1e9:,.1f} GB")


def test_weak_scaling_sizes_are_estimated_too():
    cfg = config.load(ROOT / "config" / "config.yaml")
    needed = 3 * 4_000_000 * 2 * 8  # nstream weak scaling at P = 2 doubles the length
    feasibility.check(cfg, memory_bytes=needed)
    with pytest.raises(ConfigError, match="weak scaling at P=2"):
        feasibility.check(cfg, memory_bytes=needed - 1)


def test_profiles_shipped_are_feasible(root):
    for name in ("config/config.yaml", "config/full.yaml"):
        config.load(root / name)


@pytest.mark.parametrize("kernel, implementation, size, expected", [
    ("nstream", "c-serial", 10, 240), ("transpose", "numpy", 10, 1600), ("dgemm", "numpy", 10, 3200),
    ("dgemm", "c-openmp", 10, 2400), ("p2p", "numpy", (4, 6), 288), ("p2p", "c-serial", (4, 6), 192),
    ("sparse", "c-serial", 1, 4 * 9 * 12 + 64)])
def test_footprints_follow_the_kernels(kernel, implementation, size, expected):
    assert feasibility.footprint(kernel, implementation, size, 1, 2)[0] == expected


# ---------------------------------------------------------------- outputs

@pytest.fixture()
def earlier(tmp_path) -> Path:
    path = tmp_path / "keys.md"
    path.write_text("earlier output\n")
    return path


@pytest.mark.parametrize("target, words", [(".", "is a directory"), ("nope/keys.md", "does not exist")])
def test_config_docs_writer_refuses_bad_paths(tmp_path, earlier, target, words):
    with pytest.raises(atomic.OutputError, match=words):
        configdocs.main(["--output", str(tmp_path / target)])
    assert earlier.read_text() == "earlier output\n" and leftovers(tmp_path) == []


@pytest.mark.slow
def test_config_docs_output_to_a_directory_or_missing_folder(tmp_path, earlier):
    """Needs cli's config-docs to call ``configdocs.main`` (its own ``open(..., "w")`` gives a traceback)."""
    for target, words in ((tmp_path, "is a directory"), (tmp_path / "nope" / "keys.md", "does not exist")):
        proc = run_cli("config-docs", "--output", str(target))
        assert proc.returncode == 1
        assert_one_line(proc.stderr, str(target), words)
    assert earlier.read_text() == "earlier output\n"


def test_config_docs_readme_without_markers_is_left_untouched(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_bytes(b"# My project\n\nno markers here\n")
    proc = run_cli("config-docs", "--readme", str(readme))
    assert proc.returncode == 1
    assert_one_line(proc.stderr, str(readme), "no generated key block")
    assert readme.read_bytes() == b"# My project\n\nno markers here\n"


def disk_full_after(nbytes: int):
    """A ``Path.write_bytes`` that writes ``nbytes`` then fails as a full disk does."""

    def write_bytes(self, data):
        with open(self, "wb") as handle:
            handle.write(data[:nbytes])
        raise OSError(errno.ENOSPC, "No space left on device")

    return write_bytes


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_full_disk_leaves_the_earlier_output_and_no_temporary(monkeypatch, capsys, earlier):
    monkeypatch.setattr(Path, "write_bytes", disk_full_after(10))
    with pytest.raises(atomic.OutputError, match="no space left"):
        configdocs.main(["--output", str(earlier)])
    monkeypatch.undo()
    assert earlier.read_text() == "earlier output\n"
    assert leftovers(earlier.parent) == []


def test_full_disk_during_a_results_write(monkeypatch, tmp_path):
    path = results.write(results.from_records(sample_rows(), "prk"), tmp_path / "prk.nc")
    before = path.read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(atomic.OutputError, match="no space left"):
        results.write(results.from_records(sample_rows(5), "prk"), path)
    monkeypatch.undo()
    assert path.read_bytes() == before and leftovers(tmp_path) == []


def test_atomic_write_replaces_and_shares(tmp_path):
    path = atomic.write_text(tmp_path / "out.txt", "new\n")
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o644
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------- kernels

@pytest.mark.parametrize("program, args", [("nstream-numpy.py", ["1", str(10 ** 13)]),
                                           ("dgemm-numpy.py", ["1", "4000000"])])
def test_numpy_kernels_out_of_memory_exit_3_with_one_line(program, args):
    proc = subprocess.run([sys.executable, str(ROOT / "kernels" / "python" / program), *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and proc.stdout == ""
    assert_one_line(proc.stderr, "cannot allocate")


# ---------------------------------------------------------------- claims, metadata, audit outputs

@pytest.mark.parametrize("field, words", [
    ("confidence: abc", ("confidence must be a number", "'abc'")),
    ("confidence: .nan", ("confidence must be a finite number",)),
    ("match: 3", ("match must be a column name",)),
    ("match: {a: 1}", ("match must be a column name", "a dict of 1 item")),
    ("at_least: [1, 2]", ("at_least must be a number", "a list of 2 item")),
    ("a: {workload: {x: 1}}", ("filter 'workload' must map",)),
])
def test_claim_fields_are_type_checked(tmp_path, capsys, field, words):
    good = results.write(results.from_records(sample_rows(), "prk"), tmp_path / "prk.nc")
    base = {"id": "c1", "kind": "speedup", "metric": "time", "a": {"workload": "nstream"},
            "b": {"workload": "nstream"}, "at_least": 1.0}
    key = field.split(":", 1)[0]
    base.pop(key, None)
    text = yaml.safe_dump({"claims": [base]}).replace("- ", f"- {field}\n  ", 1)
    claims = tmp_path / "claims.yaml"
    claims.write_text(text)
    code, err = in_process(capsys, "audit", str(good), "--claims", str(claims))
    assert code == 2
    assert_one_line(err, *words)


@pytest.mark.parametrize("content", [b"\xff\xfe\x00\x01", ("[" * 100_000).encode()])
def test_binary_or_deep_claims_and_metadata_are_one_line(tmp_path, capsys, content):
    good = results.write(results.from_records(sample_rows(), "prk"), tmp_path / "prk.nc")
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(content)
    code, err = in_process(capsys, "audit", str(good), "--claims", str(bad))
    assert code == 2
    assert_one_line(err, "bad.yaml")
    csv = tmp_path / "s.csv"
    csv.write_text("benchmark,workload,metric,value,unit\nx,y,time,1.0,s\n")
    code, err = in_process(capsys, "import-csv", str(csv), "--metadata", str(bad), "--output", str(tmp_path / "o.nc"))
    assert code == 2
    assert_one_line(err, "bad.yaml")


def test_audit_output_to_a_directory_or_full_disk_keeps_earlier_output(tmp_path, capsys, monkeypatch):
    good = results.write(results.from_records(sample_rows(), "prk"), tmp_path / "prk.nc")
    out = tmp_path / "out" / "checklist.md"
    assert in_process(capsys, "audit", str(good), "--output", str(out), "--exit-zero")[0] == 0
    before = out.read_bytes()
    code, err = in_process(capsys, "audit", str(good), "--output", str(tmp_path), "--exit-zero")
    assert code == 2 and "directory" in err
    monkeypatch.setattr(Path, "write_bytes", disk_full_after(10))
    code, err = in_process(capsys, "audit", str(good), "--output", str(out), "--exit-zero")
    monkeypatch.undo()
    assert code == 2
    assert_one_line(err, "no space left")
    assert out.read_bytes() == before and leftovers(out.parent) == []


def test_a_pipe_named_as_output_is_written_into_not_replaced(tmp_path):
    """``--output /dev/stdout`` or a named pipe: the bytes go through it and it stays a pipe (a rename over it
    would leave a regular file in its place, as it once did to /dev/null)."""
    import stat

    pipe = tmp_path / "out.pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there before the write, as a shell's would be
    try:
        atomic.write_text(pipe, "through the pipe\n", "report")
        received = os.read(reader, 1000)
    finally:
        os.close(reader)
    assert received == b"through the pipe\n" and stat.S_ISFIFO(pipe.stat().st_mode)


def test_a_pipe_without_reader_is_one_line_not_a_hang(tmp_path):
    pipe = tmp_path / "nobody.pipe"
    os.mkfifo(pipe)
    with pytest.raises(atomic.OutputError, match="no process reads the pipe"):
        atomic.write_text(pipe, "x", "report")
    assert pipe.is_fifo()


def test_a_character_device_named_as_output_stays_a_device(tmp_path):
    """A copy of /dev/null (made where root may make device nodes): written into, and still a device after."""
    import stat

    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        device.write_bytes(b"")  # a folder mounted nodev refuses device nodes
    except OSError:
        pytest.skip("cannot make or open a device node here (not root, or a nodev folder)")
    atomic.write_text(device, "discarded\n", "report")
    assert stat.S_ISCHR(device.stat().st_mode)
