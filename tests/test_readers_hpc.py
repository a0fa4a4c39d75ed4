"""HPC benchmark outputs read by `twelveways audit` / `import`: OSU, HPL, HPCG, STREAM, IOR (docs/formats.md).

Each format is read from real public files (tests/data/formats/<format>/, sources in the README
beside them) with the publisher's printed numbers as ground truth, and from files written here
after the tool's documented output, through the CLI; the verdicts that follow are checked
through `twelveways audit`; a damaged file exits 2 with one line naming it.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from twelveways import results

sys.path.insert(0, str(Path(__file__).parent))
from readercli import DATA, run_cli  # noqa: E402  (the CLI as every reader test drives it)


def imported(capsys, tmp_path, path):
    """(frame, attrs with JSON decoded) of one file imported through the CLI."""
    out = tmp_path / f"{Path(path).stem}.nc"
    code, _, err = run_cli(capsys, "import", path, "--output", out)
    assert code == 0, err
    ds = results.open(out)
    attrs = {k: json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v for k, v in ds.attrs.items()}
    return results.to_frame(ds), attrs


def audited(capsys, tmp_path, *paths):
    """{check id: check} of `twelveways audit` on the paths (JSON report)."""
    report = tmp_path / "audit.json"
    code, _, err = run_cli(capsys, "audit", *paths, "--output", report, "--exit-zero")
    assert code == 0, err
    return {c["id"]: c for c in json.loads(report.read_text())["checks"]}


def evidence(check: dict, what: str):
    return next(e["value"] for e in check["evidence"] if e["what"].startswith(what))


def one_error(capsys, path, *needles):
    code, _, err = run_cli(capsys, "audit", path)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and str(path.name) in lines[0], err
    for needle in needles:
        assert needle in lines[0], lines[0]


# ------------------------------------------------------------------ OSU Micro-Benchmarks

def test_osu_real_latency_one_mean_per_size(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "osu" / "latency_compute001.log")
    assert len(frame) == 24 and set(frame["metric"]) == {"latency"} and set(frame["unit"]) == {"us"}
    assert list(frame["size"])[:3] == [0, 1, 2] and frame["size"].iloc[-1] == 4194304
    assert frame["value"].iloc[0] == 1.07 and frame["value"].iloc[-1] == 355.08  # the file's first and last line
    assert set(frame["workload"]) == {"MPI Latency"} and set(frame["ranks"]) == {2} and set(frame["precision"]) == {"char"}
    assert attrs["environment"]["osu_version"] == "5.3.2"
    summaries = attrs["summaries"]
    assert len(summaries) == 24 and {s["statistic"] for s in summaries} == {"arithmetic_mean"}
    assert all(s["recomputable"] == 0 and "no spread" in s["note"] for s in summaries)
    checks = audited(capsys, tmp_path, DATA / "osu" / "latency_compute001.log")
    counts = evidence(checks["R5"], "configurations")
    assert checks["R5"]["status"] == "warn" and counts["configurations"] == 24 and counts["too_few_noted"] == 24
    assert checks["R8"]["status"] == "fail"  # latency stated by its mean only
    assert evidence(checks["R3"], "stated numbers recomputed")["not_recomputed"] == 24


def test_osu_real_bibw_rates_are_harmonic(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "osu" / "bibw_compute001.log")
    assert len(frame) == 23 and set(frame["unit"]) == {"MB/s"} and set(frame["metric"]) == {"bandwidth"}
    assert frame.loc[frame["size"] == 4194304, "value"].item() == 24320.34
    assert frame.loc[frame["size"] == 65536, "value"].item() == 21665.25
    assert {s["statistic"] for s in attrs["summaries"]} == {"harmonic_mean"}
    checks = audited(capsys, tmp_path, DATA / "osu" / "bibw_compute001.log")
    assert checks["R5"]["status"] == "warn"
    assert checks["F5"]["status"] == "not_applicable"  # bytes/s are no op/s: bitwidth does not apply


OSU7_ALLREDUCE = """# OSU MPI Allreduce Latency Test v7.1
# Datatype: MPI_FLOAT.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
4                     136.08             99.29            164.85        1000
8                      93.75             55.85            123.46        1000
16                     91.33             55.75            118.85        1000
"""


def test_osu_collective_full_format(tmp_path, capsys):
    """OMB 7 ``-f``: average over ranks with its min and max over ranks, and the iteration count."""
    path = tmp_path / "allreduce.out"
    path.write_text(OSU7_ALLREDUCE)
    frame, attrs = imported(capsys, tmp_path, path)
    assert sorted(set(frame["metric"])) == ["latency", "latency_max", "latency_min"]
    avg = frame[frame["metric"] == "latency"]
    assert list(avg["value"]) == [136.08, 93.75, 91.33] and set(avg["iterations"]) == {1000}
    assert set(frame["precision"]) == {"fp32"} and set(frame["datatype"]) == {"MPI_FLOAT"}
    assert {s["n"] for s in attrs["summaries"]} == {1000} and len(attrs["summaries"]) == 3
    r5 = evidence(audited(capsys, tmp_path, path)["R5"], "configurations")
    assert r5["configurations"] == 3  # min/max over ranks are not measurements of their own


def test_osu_buffer_placement_is_kept(tmp_path, capsys):
    path = tmp_path / "cuda_latency.log"
    path.write_text("# OSU MPI-CUDA Latency Test v5.3.2\n# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)\n"
                    "# Size          Latency (us)\n0                       2.31\n1                       2.40\n")
    frame, attrs = imported(capsys, tmp_path, path)
    assert list(frame["value"]) == [2.31, 2.4] and set(frame["ranks"]) == {2}
    assert attrs["settings"]["header_lines"] == ["Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)"]


def test_osu_repeated_runs_are_replicates(tmp_path, capsys):
    """Six osu_latency runs logged one after another: each size has six values, one per process."""
    runs = []
    for scale in (1.0, 1.01, 0.99, 1.005, 0.995, 1.002):
        lines = [f"{size:<10d}{base * scale:>18.2f}" for size, base in ((0, 1.5), (8, 1.6), (1024, 2.5))]
        runs.append("# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n" + "\n".join(lines))
    path = tmp_path / "latency_x6.log"
    path.write_text("\n".join(runs) + "\n")
    frame, _ = imported(capsys, tmp_path, path)
    assert sorted(set(frame["invocation"])) == list(range(6)) and len(frame) == 18
    counts = evidence(audited(capsys, tmp_path, path)["R5"], "configurations")
    assert counts["configurations"] == 3 and counts["within_target"] == 3


@pytest.mark.parametrize("line, needle", [("8      1.20   2.0", "3 fields under a header of 2"),
                                          ("8      1.2x", "'1.2x', not a number")])
def test_osu_damaged_line_is_one_error(tmp_path, capsys, line, needle):
    path = tmp_path / "bad_osu.log"
    path.write_text("# OSU MPI Latency Test v5.3.2\n# Size          Latency (us)\n0      1.07\n" + line + "\n")
    one_error(capsys, path, "osu", needle)


# ------------------------------------------------------------------ HPL

def test_hpl_real_sweep_runs_settings_and_tally(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "hpl" / "HPL_cpu_sweep.out")
    gflops = frame[frame["metric"] == "gflops"]
    assert len(gflops) == 12 and set(gflops["unit"]) == {"GFLOP/s"} and set(frame["size"]) == {1000}
    assert gflops["value"].iloc[0] == 22.351 and gflops["value"].iloc[9] == 5.425  # 2.2351e+01, 5.4250e+00
    assert frame[frame["metric"] == "time"]["value"].iloc[9] == 0.12
    assert set(gflops["nb"]) == {32} and set(gflops["ranks"]) == {2} and set(gflops["precision"]) == {"fp64"}
    twice = gflops[gflops["variant"] == "WR00R2L4"]  # PFACT lists Left twice: the same run is made twice
    assert list(twice["repetition"]) == [0, 1] and list(twice["value"]) == [22.946, 22.929]
    assert gflops["valid"].all() and gflops["status"].iloc[0] == "residual 0.004451 PASSED"
    assert attrs["settings"]["NB"] == "32 40 44 64 128 144 180 210 256" and attrs["settings"]["PFACT"] == "Crout Left Left"
    assert attrs["environment"]["hpl_version"] == "HPLinpack 2.3" and attrs["hpl_tally"]["passed"] == 540
    assert "540 completed tests but the file holds 12" in attrs["source_warnings"][0]  # the fixture is trimmed
    r5 = audited(capsys, tmp_path, DATA / "hpl" / "HPL_cpu_sweep.out")["R5"]
    assert r5["status"] == "warn" and "540" in str(evidence(r5, "what the source itself says"))


def test_hpl_real_nvidia_single_run(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "hpl" / "HPL_nvidia_gpu.out")
    row = frame[frame["metric"] == "gflops"].iloc[0]
    assert (row["value"], row["size"], row["nb"], row["p"], row["q"], row["ranks"]) == (823.7, 140960, 288, 2, 2, 4)
    assert frame[frame["metric"] == "time"]["value"].item() == 2267.03
    assert math.isclose(row["residual"], 1.02e-05) and row["valid"]
    assert attrs["environment"] == {"hpl_version": "HPLinpack 2.1", "hpl_build": "HPL-NVIDIA 1.0.0"}
    assert attrs["source_warnings"] == []  # its tally (1 passed) matches the one run


def hpl_out(runs, passed, failed):
    """An HPL.out as HPL 2.3 writes it: header, one block per (variant, Gflops, time, residual), the tally."""
    bar, dash = "=" * 80 + "\n", "-" * 80 + "\n"
    text = bar + "HPLinpack 2.3  --  High-Performance Linpack benchmark  --   December 2, 2018\n" + bar
    text += ("\nAn explanation of the input/output parameters follows:\nT/V    : Wall time / encoded variant.\n\n"
             "The following parameter values will be used:\n\nN      :    8000 \nNB     :     192 \nP      :       2 \n"
             "Q      :       2 \n\n" + dash + "- Computational tests pass if scaled residuals are less than"
             "                16.0\n\n")
    for variant, gflops, time, residual in runs:
        verdict = "PASSED" if residual < 16 else "FAILED"
        text += (bar + "T/V                N    NB     P     Q               Time                 Gflops\n" + dash
                 + f"{variant:<8}{8000:>12d}{192:>6d}{2:>6d}{2:>6d}{time:>19.2f}{gflops:>23.4e}\n"
                 + "HPL_pdgesv() start time Mon Jan  1 10:00:00 2024\n\n" + dash
                 + f"||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   {residual:.8e} ...... {verdict}\n")
    return text + bar + (f"\nFinished {len(runs):6d} tests with the following results:\n"
                         f"       {passed:6d} tests completed and passed residual checks,\n"
                         f"       {failed:6d} tests completed and failed residual checks,\n"
                         "            0 tests skipped because of illegal input values.\n")


def test_hpl_failed_residual_makes_that_run_invalid(tmp_path, capsys):
    path = tmp_path / "HPL.out"
    path.write_text(hpl_out([("WR11C2R4", 40.1, 8.51, 3.2e-3), ("WR11C2R4", 55.0, 6.21, 2.1e+03),
                             ("WR11C2R4", 40.4, 8.45, 4.0e-3)], passed=2, failed=1))
    frame, attrs = imported(capsys, tmp_path, path)
    gflops = frame[frame["metric"] == "gflops"]
    assert list(gflops["valid"]) == [True, False, True] and "FAILED" in gflops["status"].iloc[1]
    assert attrs["hpl_tally"] == {"passed": 2, "failed": 1, "skipped": 0} and attrs["source_warnings"] == []
    r5 = audited(capsys, tmp_path, path)["R5"]
    left_out = evidence(r5, "runs their source judged invalid")
    assert left_out["runs"] == 1 and "FAILED" in left_out["reasons"][0]
    worst = next(e for e in r5["evidence"] if "metric=gflops" in e["what"])
    assert "n=2" in worst["what"]  # the failed run's 55.0 Gflop/s is not among the values judged


def test_hpl_log_of_several_processes(tmp_path, capsys):
    """Two xhpl runs appended to one log: each banner starts a process, the same configuration is a replicate."""
    path = tmp_path / "hpl.log"
    runs = [("WR11C2R4", 40.1, 8.51, 3.2e-3), ("WR11C2R4", 40.4, 8.45, 4.0e-3)]
    path.write_text(hpl_out(runs, passed=2, failed=0) + hpl_out(runs[:1], passed=1, failed=0))
    frame, attrs = imported(capsys, tmp_path, path)
    gflops = frame[frame["metric"] == "gflops"]
    assert list(gflops["invocation"]) == [0, 0, 1] and list(gflops["repetition"]) == [0, 1, 0]
    assert attrs["hpl_tally"]["passed"] == 3 and attrs["source_warnings"] == []


def test_hpl_only_failed_runs_is_not_silent(tmp_path, capsys):
    path = tmp_path / "HPL.out"
    path.write_text(hpl_out([("WR11C2R4", 55.0, 6.21, 2.1e+03)], passed=0, failed=1))
    r5 = audited(capsys, tmp_path, path)["R5"]
    assert r5["status"] == "warn" and evidence(r5, "runs their source judged invalid")["runs"] == 1


def test_hpl_without_results_is_one_error(tmp_path, capsys):
    path = tmp_path / "HPL.out"
    path.write_text(hpl_out([], passed=0, failed=0).split("Finished")[0])
    one_error(capsys, path, "hpl", "no 'T/V N NB P Q Time Gflops' result line")


# ------------------------------------------------------------------ HPCG

def test_hpcg_real_report_rating_and_verdicts(tmp_path, capsys):
    path = DATA / "hpcg" / "team4_hpcgsubmission_11152100.rslts"
    frame, attrs = imported(capsys, tmp_path, path)
    rating = frame[frame["metric"] == "gflops"].iloc[0]
    assert (rating["value"], rating["unit"], rating["ranks"], rating["size"]) == (7377.27, "GFLOP/s", 40, 2264924160)
    assert frame[frame["metric"] == "time"]["value"].item() == 1801.85
    assert frame[frame["metric"] == "gflops_raw_spmv"]["value"].item() == 7736.98
    assert rating["valid"] and rating["valid_for_submission"]
    assert attrs["hpcg_result"]["result"] == "VALID" and set(attrs["hpcg_result"]["tests"].values()) == {"PASSED"}
    assert attrs["environment"] == {"version": "3.1", "HPCG-CUDA-Benchmark version": "1.0.0"}
    assert attrs["settings"]["Global Problem Dimensions::Global nz"] == "1920" and attrs["source_warnings"] == []
    assert audited(capsys, tmp_path, path)["R5"]["status"] == "warn"  # one rating, no spread


# The CPU reports AKRR keeps as parser test data (tests/data/formats/hpcg/README.md): HPCG 3.0's
# reference build (YAML), Intel MKL's 3.0 build (YAML, the run's name before "version") and Intel
# oneAPI 2023's 3.1 build (" Final Summary ::" spacing).  Each number is followed by the line of
# the file it is read from.
HPCG_REAL = {
    "HPCG-Benchmark-3.0_2019.03.27.09.38.13.yaml": dict(
        rating=(0.773896, "HPCG result is VALID with a GFLOP/s rating of: 0.773896"),
        time=(103.563, "  Total: 103.563"), raw_ddot=(0.637654, "  Raw DDOT: 0.637654"),
        raw_total=(0.80397, "  Raw Total: 0.80397"), bandwidth=(6.0983, "  Raw Total B/W: 6.0983"),
        ranks=(4, "  Distributed Processes: 4"), size=(4499456, "  Number of Equations: 4499456"),
        dims=(("208", "208", "104"), "  Global nz: 104"), version=("3.0", "HPCG-Benchmark version: 3.0"),
        reason=("QuickPath run of 103.563 s", "Results are valid but execution time (sec) is: 103.563"), notes=4),
    "n104-4p-1t-V3.0_2019.03.27.09.42.12.yaml": dict(
        rating=(2.36085, "HPCG result is VALID with a GFLOP/s rating of: 2.36085"),
        time=(34.9641, "  Total: 34.9641"), raw_ddot=(18.2061, "  Raw DDOT: 18.2061"),
        raw_total=(2.38135, "  Raw Total: 2.38135"), bandwidth=(18.0631, "  Raw Total B/W: 18.0631"),
        ranks=(4, "  Distributed Processes: 4"), size=(4499456, "  Number of Equations: 4499456"),
        dims=(("208", "208", "104"), "  Global nz: 104"), version=("V3.0", "n104-4p-1t version: V3.0"),
        reason=("QuickPath run of 34.9641 s", "You have selected the QuickPath option:"), notes=1),
    "n104-96p-1t_V3.1_2023-08-25_16-18-10.txt": dict(
        rating=(53.8206, " Final Summary ::HPCG result is VALID with a GFLOP/s rating of=53.8206"),
        time=(74.2943, "Benchmark Time Summary::Total=74.2943"), raw_ddot=(371.319, "Raw DDOT=371.319"),
        raw_total=(54.3008, "GFLOP/s Summary::Raw Total=54.3008"), bandwidth=(411.78, "Raw Total B/W=411.78"),
        ranks=(96, "Machine Summary::Distributed Processes=96"),
        size=(107986944, "Linear System Information::Number of Equations=107986944"),
        dims=(("416", "416", "624"), "Global Problem Dimensions::Global nz=624"), version=("V3.1", "\nversion=V3.1\n"),
        reason=("execution time 74.2943 s is below the official minimum 1800 s",
                "Official results execution time (sec) must be at least=1800"), notes=1)}


@pytest.mark.parametrize("name", sorted(HPCG_REAL))
def test_hpcg_real_cpu_reports_short_runs_warn(tmp_path, capsys, name):
    path = DATA / "hpcg" / name
    expected, text = HPCG_REAL[name], path.read_text()
    assert all(v[1] in text for v in expected.values() if isinstance(v, tuple))  # each number's line is the file's
    frame, attrs = imported(capsys, tmp_path, path)
    value = dict(zip(frame["metric"], frame["value"]))
    assert (value["gflops"], value["time"], value["gflops_raw_ddot"], value["gflops_raw_total"],
            value["memory_bandwidth_raw"]) == tuple(expected[k][0] for k in
                                                    ("rating", "time", "raw_ddot", "raw_total", "bandwidth"))
    assert set(frame["unit"]) == {"GFLOP/s", "GB/s", "s"} and len(frame) == 8
    assert set(frame["ranks"]) == {expected["ranks"][0]} and set(frame["threads"]) == {1}
    assert set(frame["size"]) == {expected["size"][0]}
    assert frame["valid"].all() and not frame["valid_for_submission"].any()
    verdict = attrs["hpcg_result"]
    assert verdict["result"] == "VALID" and verdict["rating"] == str(expected["rating"][0])
    assert len(verdict["tests"]) == 4 and set(verdict["tests"].values()) == {"PASSED"}
    assert verdict["execution_time_s"] == str(expected["time"][0])  # the timed phase, as Final Summary says
    assert expected["reason"][0] in verdict["reason"] and expected["reason"][0] in attrs["source_warnings"][0]
    assert len(attrs["hpcg_notes"]) == expected["notes"] and attrs["environment"] == {"version": expected["version"][0]}
    settings = attrs["settings"]
    assert tuple(settings[f"Global Problem Dimensions::Global n{a}"] for a in "xyz") == expected["dims"][0]
    assert settings["Local Domain Dimensions::nx"] == "104"
    assert settings["Iteration Count Information::Reference CG iterations per set"] == "50"
    r5 = audited(capsys, tmp_path, path)["R5"]
    said = evidence(r5, "what the source itself says")
    assert r5["status"] == "warn" and "not valid for submission" in said[0] and expected["reason"][0] in said[0]


HPCG_TAIL = """Benchmark Time Summary::Total={time}
GFLOP/s Summary::Raw Total=9.97
GFLOP/s Summary::Total with convergence and optimization phase overhead=9.48102
Final Summary={final}
"""


def hpcg_report(final: str, time: float = 160.2, result: str = "PASSED") -> str:
    """An HPCG 3.1 reference report (``HPCG-Benchmark_3.1_<date>.txt``), as ReportResults.cpp writes it."""
    return ("HPCG-Benchmark\nversion=3.1\nRelease date=March 28, 2019\nMachine Summary=\n"
            "Machine Summary::Distributed Processes=8\nMachine Summary::Threads per processes=1\n"
            f"Spectral Convergence Tests=\nSpectral Convergence Tests::Result={result}\n"
            "Reproducibility Information::Result=PASSED\n" + HPCG_TAIL.format(time=time, final=final))


def test_hpcg_short_run_is_valid_but_not_for_submission(tmp_path, capsys):
    path = tmp_path / "HPCG-Benchmark_3.1_2020-05-01_10-00-00.txt"
    path.write_text(hpcg_report("\nFinal Summary::HPCG result is VALID with a GFLOP/s rating of=9.48102\n"
                                "Final Summary::Reference version of ComputeSPMV used=Performance results are most "
                                "likely suboptimal\nFinal Summary::Results are valid but execution time (sec) is=160.038\n"
                                "Final Summary::Official results execution time (sec) must be at least=1800"))
    frame, attrs = imported(capsys, tmp_path, path)
    rating = frame[frame["metric"] == "gflops"].iloc[0]
    assert rating["value"] == 9.48102 and rating["valid"] and not rating["valid_for_submission"]
    assert attrs["hpcg_result"]["official_minimum_s"] == "1800" and "ComputeSPMV" in " ".join(attrs["hpcg_notes"])
    r5 = audited(capsys, tmp_path, path)["R5"]
    said = evidence(r5, "what the source itself says")
    assert r5["status"] == "warn" and "not valid for submission" in said[0] and "160.038" in said[0]


@pytest.mark.parametrize("final, reason", [
    ("Final Summary::Results are valid but execution time (sec) is=300\n"
     "Final Summary::     You have selected the QuickPath option=Results are official for legacy installed systems "
     "with confirmation from the HPCG Benchmark leaders.", "QuickPath"),
    ("", "does not say the results may be uploaded")])
def test_hpcg_submission_needs_the_report_to_say_so(tmp_path, capsys, final, reason):
    path = tmp_path / "HPCG-Benchmark_3.1_quick.txt"
    path.write_text(hpcg_report("\nFinal Summary::HPCG result is VALID with a GFLOP/s rating of=9.48102\n" + final))
    frame, attrs = imported(capsys, tmp_path, path)
    assert frame["valid"].all() and not frame["valid_for_submission"].any()
    assert reason in attrs["hpcg_result"]["reason"] and reason in attrs["source_warnings"][0]


def test_hpcg_invalid_run_is_invalid(tmp_path, capsys):
    path = tmp_path / "HPCG-Benchmark_3.1_invalid.txt"
    path.write_text(hpcg_report("\nFinal Summary::HPCG result is=INVALID.\nFinal Summary::Please review the YAML "
                                "file contents=You may NOT submit these results for consideration.", result="FAILED"))
    frame, attrs = imported(capsys, tmp_path, path)
    assert not frame["valid"].any() and attrs["hpcg_result"]["result"] == "INVALID"
    assert frame[frame["metric"] == "gflops"]["value"].item() == 9.48102  # the total HPCG computed, not a rating
    r5 = audited(capsys, tmp_path, path)["R5"]
    assert r5["status"] == "warn" and "Spectral Convergence" in evidence(r5, "runs their source judged")["reasons"][0]


def test_hpcg_yaml_and_intel_spacing(tmp_path, capsys):
    """HPCG 3.0's indented YAML, and Intel's build writing ``Final Summary ::`` with spaces."""
    yaml = tmp_path / "hpcg_20151111.yaml"
    yaml.write_text("HPCG-Benchmark:\n  version: 3.0\n  Machine Summary:\n    Distributed Processes: 4\n"
                    "  Final Summary:\n    HPCG result is VALID with a GFLOP/s rating of: 2.5\n"
                    "    Please upload results from the YAML file contents to: http://hpcg-benchmark.org\n")
    frame, attrs = imported(capsys, tmp_path, yaml)
    assert frame["value"].item() == 2.5 and frame["ranks"].item() == 4 and attrs["hpcg_result"]["valid_for_submission"]
    intel = tmp_path / "n192-4p-32t_V3.1.txt"
    intel.write_text(" Final Summary =\n Final Summary ::HPCG result is VALID with a GFLOP/s rating of=109.132\n"
                     " Final Summary ::Results are valid but execution time (sec) is=65.1121\n"
                     " Final Summary ::     Official results execution time (sec) must be at least=1800\n")
    frame, attrs = imported(capsys, tmp_path, intel)
    assert frame["value"].item() == 109.132 and not attrs["hpcg_result"]["valid_for_submission"]


def test_hpcg_without_final_summary_is_one_error(tmp_path, capsys):
    path = tmp_path / "HPCG-Benchmark_3.1_cut.txt"
    path.write_text("HPCG-Benchmark\nversion=3.1\nMachine Summary=\nMachine Summary::Distributed Processes=8\n")
    one_error(capsys, path, "hpcg", "no 'Final Summary' section")


# ------------------------------------------------------------------ STREAM

@pytest.mark.parametrize("name, threads, copy, triad", [("stream_revyos_lpi4a.txt", 8, 8239.8, 6125.3),
                                                        ("stream_hpcc_tutorial.txt", 2, 10156.2, 14586.1)])
def test_stream_real_best_rates(tmp_path, capsys, name, threads, copy, triad):
    frame, attrs = imported(capsys, tmp_path, DATA / "stream" / name)
    rates = dict(zip(frame["workload"], frame["value"]))
    assert list(rates) == ["copy", "scale", "add", "triad"] and (rates["copy"], rates["triad"]) == (copy, triad)
    assert set(frame["unit"]) == {"MB/s"} and set(frame["threads"]) == {threads} and set(frame["size"]) == {10_000_000}
    assert set(frame["precision"]) == {"fp64"} and frame["valid"].all() and set(frame["status"]) == {"Solution Validates"}
    assert attrs["source_warnings"] == []  # each best rate = bytes moved / min time, as printed
    times = [s for s in attrs["summaries"] if s["metric"] == "time"]
    assert len(times) == 12 and {s["n"] for s in times} == {9}  # NTIMES 10, the first dropped
    checks = audited(capsys, tmp_path, DATA / "stream" / name)
    counts = evidence(checks["R5"], "configurations")
    assert checks["R5"]["status"] == "warn" and counts["configurations"] == 4 and counts["within_target"] == 0


def test_stream_excerpt_without_validation_says_so(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "stream" / "stream_excerpt_no_validation.txt")
    assert frame["value"].iloc[0] == 90014.1 and set(frame["status"]) == {"validation not printed"}
    assert "Solution Validates" in attrs["source_warnings"][0] and set(frame["precision"]) == {""}


def stream_output(rows: str, check: str) -> str:
    """stream.c 5.10's output for a 2e7-element double array run 10 times."""
    dash = "-" * 61 + "\n"
    return (dash + "STREAM version $Revision: 5.10 $\n" + dash + "This system uses 8 bytes per array element.\n" + dash
            + "Array size = 20000000 (elements), Offset = 0 (elements)\nEach kernel will be executed 10 times.\n"
            + dash + "Function    Best Rate MB/s  Avg time     Min time     Max time\n" + rows + dash + check + dash)


ROWS = ("Copy:           20000.0     0.016500     0.016000     0.017000\n"
        "Scale:          16000.0     0.020500     0.020000     0.021000\n"
        "Add:            20000.0     0.024500     0.024000     0.025000\n"
        "Triad:          20000.0     0.024600     0.024000     0.025500\n")


def test_stream_failed_validation_makes_the_run_invalid(tmp_path, capsys):
    path = tmp_path / "stream.out"
    path.write_text(stream_output(ROWS, "Failed Validation on array c[], AvgRelAbsErr > epsilon (1.000000e-13)\n"
                                        "     For array c[], 20000000 errors were found.\n"))
    frame, attrs = imported(capsys, tmp_path, path)
    assert not frame["valid"].any() and "Failed Validation on array c[]" in frame["status"].iloc[0]
    assert attrs["source_warnings"] == []  # 2 x 8 x 2e7 B / 0.016 s = 20000 MB/s etc.: the rates agree
    r5 = audited(capsys, tmp_path, path)["R5"]
    assert r5["status"] == "warn" and evidence(r5, "runs their source judged invalid") == {
        "runs": 1, "rows": 4, "reasons": [frame["status"].iloc[0]]}  # one process ran the four kernels


def test_stream_rate_that_contradicts_its_time_is_flagged(tmp_path, capsys):
    path = tmp_path / "stream.out"
    path.write_text(stream_output(ROWS.replace("Scale:          16000.0", "Scale:          26000.0"),
                                  "Solution Validates: avg error less than 1.000000e-13 on all three arrays\n"))
    _, attrs = imported(capsys, tmp_path, path)
    assert len(attrs["source_warnings"]) == 1 and "Scale best rate 26000 MB/s" in attrs["source_warnings"][0]


def test_stream_without_kernel_lines_is_one_error(tmp_path, capsys):
    path = tmp_path / "stream.out"
    path.write_text(stream_output("", "Solution Validates\n"))
    one_error(capsys, path, "stream", "no 'Copy:/Scale:/Add:/Triad:' result lines")


# ------------------------------------------------------------------ IOR

def test_ior_real_json_repetitions_and_summary(tmp_path, capsys):
    path = DATA / "ior" / "ior_mpiio_5reps.json"
    frame, attrs = imported(capsys, tmp_path, path)
    write = frame[(frame["metric"] == "bandwidth") & (frame["operation"] == "write")]
    assert list(write["value"]) == [193.2173, 350.5637, 1395.6304, 2359.1963, 2340.4196]
    assert list(write["repetition"]) == [0, 1, 2, 3, 4] and set(frame["invocation"]) == {0}
    assert set(write["ranks"]) == {16} and set(write["size"]) == {8388608} and set(write["transfer_size"]) == {2097152}
    assert set(write["api"]) == {"mpiio"} and set(write["file_per_proc"]) == {1} and len(frame) == 40
    stated = {(s["filters"]["operation"], s["metric"], s["statistic"]): s["value"] for s in attrs["summaries"]}
    assert stated[("write", "bandwidth", "arithmetic_mean")] == 1327.8055
    assert stated[("read", "time", "arithmetic_mean")] == 0.1361
    assert math.isclose(np.mean(write["value"]), 1327.8055, abs_tol=1e-4)
    r3 = audited(capsys, tmp_path, path)["R3"]
    tally = evidence(r3, "stated numbers recomputed")
    assert tally["contradicts"] == 0 and tally["agrees"] >= 6  # IOR's numbers hold, to the 4 decimals printed
    assert r3["status"] == "fail"  # but its Mean(MiB) is an arithmetic mean of rates (SC15 R3)


def test_ior_real_json_single_repetition(tmp_path, capsys):
    frame, attrs = imported(capsys, tmp_path, DATA / "ior" / "ior_posix_laptop.json")
    bw = dict(zip(frame.loc[frame["metric"] == "bandwidth", "operation"], frame.loc[frame["metric"] == "bandwidth", "value"]))
    assert bw == {"write": 2545.0874, "read": 9258.9492} and attrs["environment"]["ior_version"] == "3.4.0+dev"
    assert attrs["settings"]["command_line"] == "ior -O summaryFormat=json"


@pytest.mark.parametrize("name, value, tasks", [("io500_ior_easy_write_sc21.txt", 2928.02, 80),
                                                ("io500_ior_easy_write_goethe.txt", 4655.0, 40)])
def test_ior_real_text_io500(tmp_path, capsys, name, value, tasks):
    frame, attrs = imported(capsys, tmp_path, DATA / "ior" / name)
    bw = frame[frame["metric"] == "bandwidth"].iloc[0]
    assert (bw["value"], bw["unit"], bw["operation"], bw["ranks"]) == (value, "MiB/s", "write", tasks)
    assert bw["size"] == 10158080000 * 1024 and bw["transfer_size"] == 2048 * 1024 and bw["file_per_proc"] == 1
    assert attrs["settings"]["blocksize"] == "9.46 TiB" and attrs["environment"]["ior_version"] == "3.4.0+dev"
    assert audited(capsys, tmp_path, DATA / "ior" / name)["R5"]["status"] == "warn"  # one repetition


def test_ior_real_text_with_its_summary_of_all_tests(tmp_path, capsys):
    """IOR 3.3.0+dev on Stampede2 (AKRR's parser test data): write then read, one repetition, summary block."""
    path = DATA / "ior" / "ior_posix_akrr_stampede2.txt"
    text = path.read_text()
    frame, attrs = imported(capsys, tmp_path, path)
    value = {(op, m): v for op, m, v in zip(frame["operation"], frame["metric"], frame["value"])}
    # the file's result lines: "write     426.77     21.38      0.093502 ... 0.937271   0", "read      332.55 ... 1.20"
    assert "write     426.77     21.38      0.093502" in text and "read      332.55     16.65      0.088386" in text
    assert value == {("write", "bandwidth"): 426.77, ("write", "iops"): 21.38, ("write", "latency"): 0.093502,
                     ("write", "time"): 0.937271, ("read", "bandwidth"): 332.55, ("read", "iops"): 16.65,
                     ("read", "latency"): 0.088386, ("read", "time"): 1.20}
    assert set(frame["ranks"]) == {2} and set(frame["size"]) == {200 * 1024 * 1024}
    assert set(frame["transfer_size"]) == {20 * 1024 * 1024} and set(frame["file_per_proc"]) == {0}
    assert set(frame["api"]) == {"POSIX"} and set(frame["repetition"]) == {0} and frame["valid"].all()
    stated = {(s["filters"]["operation"], s["metric"], s["statistic"]): s["value"] for s in attrs["summaries"]}
    assert stated[("write", "bandwidth", "arithmetic_mean")] == 426.77 and stated[("read", "bandwidth", "max")] == 332.55
    assert stated[("write", "bandwidth", "stddev")] == 0.0 and stated[("read", "time", "arithmetic_mean")] == 1.20283
    assert attrs["environment"]["ior_version"] == "3.3.0+dev" and attrs["settings"]["access"] == "single-shared-file"
    checks = audited(capsys, tmp_path, path)
    tally = evidence(checks["R3"], "stated numbers recomputed")
    assert tally["contradicts"] == 0 and tally["agrees"] == 8  # max, min, mean bandwidth and mean time, per operation
    assert checks["R5"]["status"] == "warn"  # one repetition per operation


IOR_RESULTS = [("write", "2919.08", "5.61", "0"), ("read", "3589.55", "4.56", "0"),
               ("write", "2514.20", "6.52", "1"), ("read", "3255.40", "5.03", "1"),
               ("write", "2714.66", "6.04", "2"), ("read", "3373.59", "4.86", "2")]
IOR_SUMMARY_HEADER = ("Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev"
                      "    Mean(s) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize"
                      " aggs(MiB)   API RefNum")
IOR_SUMMARY = {"write": "2919.08 2514.20 2715.98 165.28 2919.08 2514.20 2715.98 165.28 6.05667",
               "read": "3589.55 3255.40 3406.18 138.36 3589.55 3255.40 3406.18 138.36 4.81667"}


def ior_text(summary: dict = IOR_SUMMARY) -> str:
    """IOR 3.3's text output (-i 3, 64 tasks, file per process), laid out as its README shows it."""
    results = "\n".join(f"{op:<10}{bw:<11}{bw:<11}0.020000    65536      1024.00    0.010000   {total:<11}0.100000   "
                         f"{total:<11}{it}" for op, bw, total, it in IOR_RESULTS)
    tail = "0     64  16    3   1     1        1         0    0      4 67108864  1048576   16384.0 POSIX      0"
    return ("IOR-3.3.0: MPI Coordinated Test of Parallel I/O\nBegan               : Mon Jan  1 10:00:00 2024\n"
            "Command line        : ior -t 1m -b 64m -s 4 -F -C -e -i 3\nMachine             : Linux node1\n"
            "Options:\napi                 : POSIX\naccess              : file-per-process\n"
            "segments            : 4\ntasks               : 64\nrepetitions         : 3\n\nResults:\n\n"
            "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   "
            "total(s)   iter\n------    ---------  ----       ----------  ---------- ---------  --------   --------"
            "   --------   --------   ----\n" + results + "\nMax Write: 2919.08 MiB/sec (3060.88 MB/sec)\n\n"
            "Summary of all tests:\n" + IOR_SUMMARY_HEADER + "\n"
            + "\n".join(f"{op:<12}{stats} {tail}" for op, stats in summary.items())
            + "\nFinished            : Mon Jan  1 10:01:00 2024\n")


def test_ior_text_summary_recomputed_within_its_printed_digits(tmp_path, capsys):
    path = tmp_path / "ior.out"
    path.write_text(ior_text())
    frame, attrs = imported(capsys, tmp_path, path)
    write = frame[(frame["metric"] == "bandwidth") & (frame["operation"] == "write")]
    assert list(write["value"]) == [2919.08, 2514.20, 2714.66] and list(write["repetition"]) == [0, 1, 2]
    assert set(write["ranks"]) == {64} and set(write["size"]) == {64 * 1024 * 1024} and set(write["segments"]) == {4}
    means = [s for s in attrs["summaries"] if s["statistic"] == "arithmetic_mean" and s["metric"] == "bandwidth"]
    assert [s["value"] for s in means] == [2715.98, 3406.18] and {s["resolution"] for s in means} == {0.01}
    tally = evidence(audited(capsys, tmp_path, path)["R3"], "stated numbers recomputed")
    assert tally["contradicts"] == 0 and tally["agrees"] == 8  # max, min, mean bandwidth and mean time, per operation


def test_ior_text_summary_that_its_rows_contradict(tmp_path, capsys):
    path = tmp_path / "ior.out"
    path.write_text(ior_text({**IOR_SUMMARY, "write": IOR_SUMMARY["write"].replace("2715.98", "2815.98", 1)}))
    r3 = audited(capsys, tmp_path, path)["R3"]
    assert evidence(r3, "stated numbers recomputed")["contradicts"] == 1


def test_ior_damaged_json_is_one_error(tmp_path, capsys):
    path = tmp_path / "ior.json"
    doc = json.loads((DATA / "ior" / "ior_posix_laptop.json").read_text())
    del doc["tests"][0]["Results"][1]["bwMiB"]
    path.write_text(json.dumps(doc))
    one_error(capsys, path, "ior", "tests[0].Results[1].bwMiB is missing")
    path.write_text('{"Version": "3.3.0", "Command line": "ior", "tests": [ {"TestID": 0,')
    one_error(capsys, path, "ior", "not valid JSON")
