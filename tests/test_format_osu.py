"""OSU Micro-Benchmarks text output: real files of four publishers, launcher lines, domain errors, properties.

Ground truth is the numbers OSU printed (tests/data/formats/osu/truth.yaml); a damaged file is one
error line naming the field and the value; any input ends in rows or one error line.
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

CASES = truth_cases("osu")
HEADER = "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n"


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_publishers_numbers(case):
    check_truth("osu", case)


def test_three_independent_publishers_and_launcher_lines():
    assert len({c["publisher"].split()[0] for c in CASES}) >= 3
    assert any("launcher" in c for c in CASES)


def test_launcher_lines_around_the_output_change_nothing(tmp_path):
    """The same output between an MPI launcher's and a scheduler's lines reads to the same rows."""
    clean = (DATA / "osu" / "latency_compute001.log").read_text()
    noisy = tmp_path / "latency.out"
    noisy.write_text(LAUNCHER_BEFORE + clean + LAUNCHER_AFTER)
    _, want, _ = read_one(DATA / "osu" / "latency_compute001.log")
    _, got, _ = read_one(noisy)
    assert list(got["value"]) == list(want["value"]) and list(got["size"]) == list(want["size"])


@pytest.mark.parametrize("line, needle", [
    ("8      -1.20", "MPI Latency size 8 Latency (us) is '-1.20', below its minimum 0"),
    ("8      nan", "MPI Latency size 8 Latency (us) is 'nan', not a finite number"),
    ("1e308  1.20", "MPI Latency message size is '1e308', beyond 64 bits"),
    ("8.5    1.20", "MPI Latency message size is '8.5', not a whole number"),
    ("9" * 400 + "  1.20", "beyond 64 bits"),
    ("8      1.20   2.0", "3 fields under a header of 2"),
])
def test_damaged_data_line_is_one_error_naming_field_and_value(tmp_path, line, needle):
    path = tmp_path / "osu.out"
    path.write_text(HEADER + "0      1.07\n" + line + "\n")
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line() and "\n" not in error.value.one_line()


def test_fractional_iterations_are_an_error(tmp_path):
    path = tmp_path / "allreduce.out"
    path.write_text("# OSU MPI Allreduce Latency Test v7.1\n# Size       Avg Latency(us)   Iterations\n"
                    "4                     136.08        2.5\n")
    with pytest.raises(AuditInputError, match="Iterations is '2.5', not a whole number"):
        read_one(path)


def test_failed_validation_keeps_the_size_invalid_with_osus_word(tmp_path):
    """A size OSU's data validation (``-c``) failed stays in the file, invalid, with OSU's verdict; the rest
    of the run is audited."""
    path = tmp_path / "validated.out"
    path.write_text("# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)        Validation\n"
                    "1                       1.10              Pass\n2                       1.12              Fail\n")
    _, frame, _ = read_one(path)
    assert list(frame["valid"]) == [True, False] and list(frame["status"]) == ["validation Pass", "validation Fail"]


def test_long_line_is_one_error_not_a_hang(tmp_path):
    path = tmp_path / "osu.out"
    path.write_text(HEADER + "0      1.07\n" + "1" * 1_000_000 + "\n")
    with pytest.raises(AuditInputError, match="line 4 is longer than 65,536 characters"):
        read_one(path)


SIZES = st.lists(st.integers(0, 2 ** 40), min_size=1, max_size=30, unique=True)
VALUES = st.floats(0, 1e9, allow_nan=False).map(lambda v: round(v, 2))


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_generated_output_reads_back(data):
    """A file written as osu_latency writes it (and as many runs as drawn) gives back its numbers."""
    runs = data.draw(st.lists(SIZES, min_size=1, max_size=3))
    text, expected = "", []
    for sizes in runs:
        values = data.draw(st.lists(VALUES, min_size=len(sizes), max_size=len(sizes)))
        text += HEADER + "".join(f"{s:<10d}{v:>18.2f}\n" for s, v in zip(sizes, values))
        expected += list(zip(sizes, values))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "osu.out"
        path.write_text(text)
        _, frame, _ = read_one(path)
    assert list(zip(frame["size"], frame["value"])) == expected


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(sorted(MUTATIONS)), st.floats(0, 0.999),
       st.sampled_from(["latency_compute001.log", "rfm_Osu_mbw_mr_16_job.out", "pkb_iallreduce.txt"]))
def test_any_damage_ends_in_rows_or_one_error_line(mutation, pos, name):
    with tempfile.TemporaryDirectory() as tmp:
        outcome(mutated(Path(tmp), name, (DATA / "osu" / name).read_text(), mutation, pos))
