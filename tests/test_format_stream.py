"""STREAM output: real files of three publishers, launcher lines, domain errors, several runs, properties.

Ground truth is the best rates STREAM printed (tests/data/formats/stream/truth.yaml).  A kernel line
with a field missing, or a negative or NaN time or rate, is one error naming field and value.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from hpc_truth import DATA, LAUNCHER_AFTER, LAUNCHER_BEFORE, MUTATIONS, check_truth, mutated, outcome, read_one, \
    truth_cases
from twelveways.errors import AuditInputError

CASES = truth_cases("stream")
KERNELS = ("Copy", "Scale", "Add", "Triad")


def stream_text(rates, times, ntimes=10, threads=4) -> str:
    """STREAM 5.10's output for the drawn best rates and (avg, min, max) times."""
    head = ("-------------------------------------------------------------\nSTREAM version $Revision: 5.10 $\n"
            "This system uses 8 bytes per array element.\n"
            "Array size = 10000000 (elements), Offset = 0 (elements)\n"
            f"Each kernel will be executed {ntimes} times.\nNumber of Threads requested = {threads}\n"
            f"Number of Threads counted = {threads}\n"
            "Function    Best Rate MB/s  Avg time     Min time     Max time\n")
    lines = "".join(f"{k + ':':<12}{r:>11.1f}  {a:>11.6f}  {lo:>11.6f}  {hi:>11.6f}\n"
                    for k, r, (a, lo, hi) in zip(KERNELS, rates, times))
    return head + lines + "Solution Validates: avg error less than 1.000000e-13 on all three arrays\n"


TUTORIAL = (DATA / "stream" / "stream_hpcc_tutorial.txt").read_text()


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_publishers_numbers(case):
    check_truth("stream", case)


def test_three_independent_publishers_and_launcher_lines():
    assert len({c["publisher"].split()[0] for c in CASES}) >= 3
    assert any("launcher" in c for c in CASES)


def test_launcher_lines_around_the_output_change_nothing(tmp_path):
    noisy = tmp_path / "stream.out"
    noisy.write_text(LAUNCHER_BEFORE + TUTORIAL + LAUNCHER_AFTER)
    _, want, want_attrs = read_one(DATA / "stream" / "stream_hpcc_tutorial.txt")
    _, got, got_attrs = read_one(noisy)
    assert list(got["value"]) == list(want["value"]) and got_attrs["settings"] == want_attrs["settings"]


@pytest.mark.parametrize("old, new, needle", [
    ("10156.2     0.015772", "10156.2", "Copy: line 27 has 3 numbers, STREAM prints 4"),
    ("10156.2", "-10156.2", "Copy: best rate (line 27) is '-10156.2', below its minimum 0"),
    ("0.015754", "nan", "Copy: min time (line 27) is 'nan', not a finite number"),
    ("0.017472", "-0.017472", "Triad: avg time (line 30) is '-0.017472', below its minimum 0"),
    ("executed 10 times", "executed 2.5 times", "NTIMES (line 9) is '2.5', not a whole number"),
    ("Array size = 10000000", "Array size = 1e308", "Array size (line 6) is '1e308', beyond 64 bits"),
    ("Threads counted = 2", "Threads counted = " + "9" * 400, "beyond 64 bits"),
])
def test_damaged_output_is_one_error_naming_field_and_value(tmp_path, old, new, needle):
    path = tmp_path / "stream.txt"
    path.write_text(TUTORIAL.replace(old, new, 1))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line(), error.value.one_line()


def test_offset_beside_the_array_size_is_read(tmp_path):
    path = tmp_path / "stream.txt"
    path.write_text(TUTORIAL.replace("Offset = 0 (elements)", "Offset = 64 (elements)"))
    _, _, attrs = read_one(path)
    assert attrs["settings"]["offset"] == 64 and attrs["settings"]["array_size"] == 10_000_000


def test_several_runs_in_one_log_are_processes(tmp_path):
    path = tmp_path / "stream_x3.log"
    path.write_text(TUTORIAL + LAUNCHER_AFTER + TUTORIAL.replace("10156.2", "10001.5") + TUTORIAL)
    _, frame, _ = read_one(path)
    copy = frame[frame["workload"] == "copy"]
    assert list(copy["invocation"]) == [0, 1, 2] and list(copy["value"]) == [10156.2, 10001.5, 10156.2]


def test_failed_validation_keeps_the_run_invalid_with_streams_words(tmp_path):
    path = tmp_path / "stream.txt"
    path.write_text(TUTORIAL.replace("Solution Validates: avg error less than 1.000000e-13 on all three arrays",
                                     "Failed Validation on array a[], AvgRelAbsErr > epsilon (1.000000e-13)"))
    _, frame, _ = read_one(path)
    assert not frame["valid"].any()
    assert set(frame["status"]) == {"STREAM validation failed: Failed Validation on array a[], AvgRelAbsErr > epsilon "
                                    "(1.000000e-13)"}


RATE = st.floats(0.1, 1e7).map(lambda v: round(v, 1))
TIME = st.floats(1e-6, 10).map(lambda v: round(v, 6))


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(RATE, min_size=4, max_size=4), st.lists(st.tuples(TIME, TIME, TIME), min_size=4, max_size=4),
       st.integers(2, 1000), st.integers(1, 512))
def test_generated_output_reads_back(rates, times, ntimes, threads):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stream.txt"
        path.write_text(stream_text(rates, times, ntimes, threads))
        _, frame, attrs = read_one(path)
    assert list(frame["value"]) == rates and set(frame["threads"]) == {threads}
    mins = [s["value"] for s in attrs["summaries"] if s["statistic"] == "min"]
    assert mins == [t[1] for t in times] and {s["n"] for s in attrs["summaries"]} == {ntimes - 1}


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(sorted(MUTATIONS)), st.floats(0, 0.999),
       st.sampled_from(["stream_hpcc_tutorial.txt", "stream_revyos_lpi4a.txt", "stream_excerpt_no_validation.txt"]))
def test_any_damage_ends_in_rows_or_one_error_line(mutation, pos, name):
    with tempfile.TemporaryDirectory() as tmp:
        outcome(mutated(Path(tmp), name, (DATA / "stream" / name).read_text(), mutation, pos))
