"""HPCG reports: real files, launcher lines, domain errors, a linear read, properties.

Ground truth is the numbers each report states (tests/data/formats/hpcg/truth.yaml).  A negative or
NaN rate or time, or 2.5 processes, is one error naming field and value.
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

CASES = truth_cases("hpcg")
REPORT = (DATA / "hpcg" / "team4_hpcgsubmission_11152100.rslts").read_text()


def report_text(ranks, threads, equations, rating, seconds) -> str:
    """The lines of an HPCG 3.1 ``.txt`` report that the reader takes (after HPCG's ReportResults.cpp)."""
    return (f"HPCG-Benchmark\nversion=3.1\nMachine Summary=\nMachine Summary::Distributed Processes={ranks}\n"
            f"Machine Summary::Threads per processes={threads}\n"
            f"Linear System Information::Number of Equations={equations}\n"
            f"Benchmark Time Summary::Total={seconds}\nGFLOP/s Summary::Raw Total={rating}\n"
            f"Final Summary::HPCG result is=VALID\n"
            f"Final Summary::HPCG result is VALID with a GFLOP/s rating of={rating}\n"
            f"Final Summary::Please upload results from the YAML file contents to=http://hpcg-benchmark.org\n")


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_publishers_numbers(case):
    check_truth("hpcg", case)


def test_publishers_and_launcher_lines():
    """Reports of three independent publishers (repositories), one of them wrapped in launcher lines."""
    assert {c["publisher"].split()[0] for c in CASES} >= {"buhpc/SC21-submissions", "ubccr/akrr",
                                                          "gonzalop72/HPCG_for_Arm"}
    assert any("launcher" in c for c in CASES)


@pytest.mark.parametrize("case", [c for c in CASES if "result" in c], ids=lambda c: c["file"])
def test_hpcgs_own_verdict_and_rating(case):
    """The Final Summary's verdict and rating as HPCG printed them; official only when long enough and no QuickPath."""
    _, frame, attrs = read_one(DATA / "hpcg" / case["file"])
    stated, verdict = case["result"], attrs["hpcg_result"]
    assert verdict["result"] == stated["result"] and float(verdict["rating"]) == stated["rating"]
    assert verdict["valid_for_submission"] is stated["valid_for_submission"]
    assert frame.loc[frame["metric"] == "gflops", "value"].item() == stated["rating"]
    assert bool(frame["valid"].all()) is (stated["result"] == "VALID")


def test_a_report_named_for_its_run_with_sections_after_the_final_summary():
    """gonzalop72/HPCG_for_Arm's build names the report for its run (``fj005-1ranks-12threads`` where HPCG writes
    ``HPCG-Benchmark``, ``version=HPCG-Benchmark_3.0``) and appends indented MG counters, its ARM configuration
    and Slurm variables after the Final Summary: the publisher's numbers are read and nothing after it becomes a row."""
    _, frame, attrs = read_one(DATA / "hpcg" / "fj005-1ranks-12threads_HPCG-Benchmark_3.0_2023-08-03_03-19-58.txt")
    assert len(frame) == 8 and not frame["metric"].str.contains("MG Counter|SLURM|ARM", regex=True).any()
    assert attrs["hpcg_result"]["reason"] == ("VALID but not valid for submission: execution time 1799.17 s is below "
                                              "the official minimum 1800 s")


def test_launcher_lines_around_the_report_change_nothing(tmp_path):
    noisy = tmp_path / "hpcg.out"
    noisy.write_text(LAUNCHER_BEFORE + REPORT + LAUNCHER_AFTER)
    _, want, _ = read_one(DATA / "hpcg" / "team4_hpcgsubmission_11152100.rslts")
    _, got, got_attrs = read_one(noisy)
    assert list(got["value"]) == list(want["value"]) and got_attrs["hpcg_result"]["valid_for_submission"]


@pytest.mark.parametrize("old, new, needle", [
    ("rating of=7377.27", "rating of=-7377.27", "rating of is '-7377.27', below its minimum 0"),
    ("rating of=7377.27", "rating of=nan", "rating of is 'nan', not a finite number"),
    ("Benchmark Time Summary::Total=1801.85", "Benchmark Time Summary::Total=-1", "Total is '-1', below its minimum 0"),
    ("Distributed Processes=40", "Distributed Processes=2.5", "Distributed Processes is '2.5', not a whole number"),
    ("Number of Equations=2264924160", "Number of Equations=1e308", "Number of Equations is '1e308', beyond 64 bits"),
    ("Threads per processes=1", "Threads per processes=" + "9" * 400, "beyond 64 bits"),
    ("Raw Total B/W=63425", "Raw Total B/W=lots", "Raw Total B/W is 'lots', not a number"),
])
def test_damaged_report_is_one_error_naming_field_and_value(tmp_path, old, new, needle):
    path = tmp_path / "hpcg.txt"
    path.write_text(REPORT.replace(old, new, 1))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line(), error.value.one_line()


def test_invalid_run_keeps_its_rows_invalid_with_hpcgs_verdict(tmp_path):
    path = tmp_path / "hpcg.txt"
    path.write_text(REPORT.replace("Reproducibility Information::Result=PASSED", "Reproducibility Information::Result=FAILED"))
    _, frame, attrs = read_one(path)
    assert not frame["valid"].any() and attrs["hpcg_result"]["result"] == "INVALID"
    assert set(frame["status"]) == {"HPCG result is INVALID (tests not PASSED: Reproducibility Information)"}


def test_long_whitespace_line_is_one_error_not_a_hang(tmp_path):
    path = tmp_path / "hpcg.txt"
    path.write_text(REPORT.replace("Final Summary::HPCG result is VALID", " " * 200_000 + "Final Summary::HPCG "
                                   "result is VALID", 1))
    with pytest.raises(AuditInputError, match="is longer than 65,536 characters"):
        read_one(path)


def test_yaml_nested_deeper_than_hpcg_writes_is_one_error(tmp_path):
    """Sections indented ever deeper: one error (the sections are kept on a stack that cannot grow past 16)."""
    path = tmp_path / "hpcg.yaml"
    path.write_text("HPCG-Benchmark:\nFinal Summary:\n  HPCG result is: VALID with a GFLOP/s rating of: 1.5\n"
                    + "".join(" " * i + "Section:\n" for i in range(1, 300)))
    with pytest.raises(AuditInputError, match="nests sections deeper than 16 levels"):
        read_one(path)


COUNTS = st.integers(1, 10 ** 6)


@settings(max_examples=examples(40), deadline=None)
@given(COUNTS, COUNTS, st.integers(0, 2 ** 62), st.floats(0, 1e9).map(lambda v: float(f"{v:.6g}")),
       st.floats(0, 1e6).map(lambda v: float(f"{v:.6g}")))
def test_generated_report_reads_back(ranks, threads, equations, rating, seconds):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "HPCG-Benchmark_3.1.txt"
        path.write_text(report_text(ranks, threads, equations, rating, seconds))
        _, frame, _ = read_one(path)
    gflops = frame[frame["metric"] == "gflops"].iloc[0]
    assert (gflops["value"], gflops["ranks"], gflops["threads"], gflops["size"]) == (rating, ranks, threads, equations)
    assert frame.loc[frame["metric"] == "time", "value"].item() == seconds


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(sorted(MUTATIONS)), st.floats(0, 0.999),
       st.sampled_from(["team4_hpcgsubmission_11152100.rslts", "HPCG-Benchmark-3.0_2019.03.27.09.38.13.yaml",
                        "n104-96p-1t_V3.1_2023-08-25_16-18-10.txt",
                        "fj005-1ranks-12threads_HPCG-Benchmark_3.0_2023-08-03_03-19-58.txt"]))
def test_any_damage_ends_in_rows_or_one_error_line(mutation, pos, name):
    with tempfile.TemporaryDirectory() as tmp:
        outcome(mutated(Path(tmp), name, (DATA / "hpcg" / name).read_text(), mutation, pos))
