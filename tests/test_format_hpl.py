"""HPL output: real files of three publishers, launcher lines, domain errors, a linear read, properties.

Ground truth is the numbers HPL printed (tests/data/formats/hpl/truth.yaml).  A T/V line that does
not parse (``inf`` Gflops, a field missing, 2.5 processes) is one error naming field and value.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from hpc_truth import DATA, LAUNCHER_AFTER, LAUNCHER_BEFORE, MUTATIONS, check_truth, mutated, outcome, read_one, \
    truth_cases
from twelveways.errors import AuditInputError

CASES = truth_cases("hpl")
BAR, DASH = "=" * 80 + "\n", "-" * 80 + "\n"
RESIDUAL = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   {:.8e} ...... {}\n"


def hpl_text(runs, tally=True) -> str:
    """An HPL.out as HPL 2.3 writes it: banner, one block per (variant, N, NB, P, Q, time, Gflops, residual)."""
    text = BAR + "HPLinpack 2.3  --  High-Performance Linpack benchmark  --   December 2, 2018\n" + BAR
    text += "\nAn explanation of the input/output parameters follows:\nT/V    : Wall time / encoded variant.\n\n"
    for variant, n, nb, p, q, time, gflops, residual in runs:
        text += (BAR + "T/V                N    NB     P     Q               Time                 Gflops\n" + DASH
                 + f"{variant:<8}{n:>12d}{nb:>6d}{p:>6d}{q:>6d}{time:>19.2f}{gflops:>23.4e}\n"
                 + "HPL_pdgesv() start time Mon Jan  1 10:00:00 2024\n\n" + DASH
                 + RESIDUAL.format(residual, "PASSED" if residual < 16 else "FAILED"))
    passed = sum(r[-1] < 16 for r in runs)
    return text + (BAR + f"\nFinished {len(runs):6d} tests with the following results:\n"
                   f"       {passed:6d} tests completed and passed residual checks,\n"
                   f"       {len(runs) - passed:6d} tests completed and failed residual checks,\n"
                   "            0 tests skipped because of illegal input values.\n" if tally else "")


RUN = ("WR11C2R4", 8000, 192, 2, 2, 8.51, 40.1, 3.2e-3)


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_publishers_numbers(case):
    check_truth("hpl", case)


def test_three_independent_publishers_and_launcher_lines():
    assert len({c["publisher"].split()[0] for c in CASES}) >= 3
    assert any("launcher" in c for c in CASES)


def test_interrupted_run_keeps_its_runs_and_says_so():
    """Kish29's log ends in mpiexec's Ctrl-C lines: the three runs HPL finished are read, the missing tally said."""
    _, frame, attrs = read_one(DATA / "hpl" / "HPL_interrupted_mpiexec.out")
    assert frame["valid"].all() and set(frame["status"]) == {"residual 0.01725 PASSED"}
    assert attrs["source_warnings"] == ["no closing 'Finished ... tests' tally (the run may not have ended)"]
    assert attrs["settings"]["eps"] == "1.110223e-16" and attrs["settings"]["residual_threshold"] == "16.0"


def test_launcher_lines_around_the_output_change_nothing(tmp_path):
    clean = (DATA / "hpl" / "HPL_cpu_sweep.out").read_text()
    noisy = tmp_path / "hpl.log"
    noisy.write_text(LAUNCHER_BEFORE + clean + LAUNCHER_AFTER)
    _, want, _ = read_one(DATA / "hpl" / "HPL_cpu_sweep.out")
    _, got, _ = read_one(noisy)
    assert list(got["value"]) == list(want["value"]) and list(got["variant"]) == list(want["variant"])


@pytest.mark.parametrize("old, new, needle", [
    ("4.0100e+01", "inf", "(WR11C2R4) Gflops is 'inf', not a finite number"),
    ("4.0100e+01", "nan", "Gflops is 'nan', not a finite number"),
    ("8.51", "-8.51", "Time is '-8.51', below its minimum 0"),
    ("     2     2", "   2.5     2", "P is '2.5', not a whole number"),
    ("4.0100e+01", "", "6 fields, HPL prints 7"),
    ("8000", "1e308", "N is '1e308', beyond 64 bits"),
])
def test_a_run_line_that_does_not_parse_is_one_error(tmp_path, old, new, needle):
    path = tmp_path / "HPL.out"
    path.write_text(hpl_text([RUN]).replace(old, new, 1))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line(), error.value.one_line()


def test_failed_residual_keeps_the_run_invalid_with_hpls_verdict(tmp_path):
    """The run stays in the file, invalid, its status HPL's verdict (the audit lists it once among the runs
    it leaves out); the file and its other runs are read."""
    path = tmp_path / "HPL.out"
    path.write_text(hpl_text([RUN, RUN[:-1] + (2.1e3,)]))
    _, frame, attrs = read_one(path)
    gflops = frame[frame["metric"] == "gflops"]
    assert list(gflops["valid"]) == [True, False] and gflops["status"].iloc[1] == "residual 2100 FAILED"
    assert attrs["hpl_tally"] == {"passed": 1, "failed": 1, "skipped": 0} and attrs["source_warnings"] == []


def test_nan_residual_marks_the_run_failed_not_the_file(tmp_path):
    path = tmp_path / "HPL.out"
    path.write_text(hpl_text([RUN, RUN]).replace("3.20000000e-03 ...... PASSED", "nan ...... FAILED", 1))
    _, frame, _ = read_one(path)
    gflops = frame[frame["metric"] == "gflops"]
    assert list(gflops["valid"]) == [False, True] and math.isnan(gflops["residual"].iloc[0])
    assert gflops["status"].iloc[0] == "residual nan FAILED"


def test_ten_thousand_runs_are_read(tmp_path):
    """A log of 10,000 runs of one configuration: one pass over its lines, each a repetition of the one
    before (the reader used to be quadratic in the runs; no timing is asserted here)."""
    path = tmp_path / "big.out"
    path.write_text(hpl_text([RUN] * 10_000))
    _, frame, attrs = read_one(path)
    assert len(frame) == 20_000 and attrs["hpl_tally"]["passed"] == 10_000
    assert frame["repetition"].max() == 9_999


RUNS = st.lists(st.tuples(st.sampled_from(["WR11C2R4", "WC02R2R4", "WR00L2L2"]), st.integers(1, 10 ** 7),
                          st.integers(1, 512), st.integers(1, 64), st.integers(1, 64),
                          st.floats(0, 1e6).map(lambda t: round(t, 2)),
                          st.floats(0, 1e9).map(lambda g: float(f"{g:.4e}")),
                          st.floats(0, 1e3).map(lambda r: float(f"{r:.8e}"))), min_size=1, max_size=20)


@settings(max_examples=examples(40), deadline=None)
@given(RUNS)
def test_generated_output_reads_back(runs):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "HPL.out"
        path.write_text(hpl_text(runs))
        _, frame, _ = read_one(path)
    gflops = frame[frame["metric"] == "gflops"]
    assert list(gflops["value"]) == [r[6] for r in runs]
    assert list(frame[frame["metric"] == "time"]["value"]) == [r[5] for r in runs]
    assert list(gflops["valid"]) == [r[7] < 16 for r in runs] and list(gflops["ranks"]) == [r[3] * r[4] for r in runs]


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(sorted(MUTATIONS)), st.floats(0, 0.999),
       st.sampled_from(["HPL_cpu_sweep.out", "HPL_nvidia_gpu.out", "HPL_interrupted_mpiexec.out"]))
def test_any_damage_ends_in_rows_or_one_error_line(mutation, pos, name):
    with tempfile.TemporaryDirectory() as tmp:
        outcome(mutated(Path(tmp), name, (DATA / "hpl" / name).read_text(), mutation, pos))
