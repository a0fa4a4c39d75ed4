"""make bench's dgemm topic: ratios paired within rounds, the printed table, and runs on the wrong thread count.

The topic's timings are measured by `make bench`, never asserted here; these tests feed it made-up rates.
"""

from __future__ import annotations

import stat

import pytest
from benchload import bench_module


@pytest.fixture(scope="module")
def dgemm_bench():
    return bench_module("dgemm")


def samples_with(bench, ours_rates, blas_rates):
    """Every configuration with the given per-round rates (ours for all of ours, OpenBLAS's for both threads)."""
    samples = {}
    for order in bench.ORDERS:
        for impl, threads in bench.OURS:
            samples[(impl, threads, order)] = [{"rate": r, "round": i, "blocking": "12x16"}
                                               for i, r in enumerate(ours_rates) if r is not None]
        for impl, threads in bench.OPENBLAS:
            samples[(impl, threads, order)] = [{"rate": r, "round": i, "corename": "X", "config": "c"}
                                               for i, r in enumerate(blas_rates)]
    return samples


def test_ratio_is_of_medians_and_its_range_pairs_each_round(dgemm_bench):
    # drift: OpenBLAS slows from 100 to 50 while ours keeps 0.9x of it in every round
    rows = dgemm_bench.compare(samples_with(dgemm_bench, [90, 72, 45], [100, 80, 50]))
    row = rows[0]
    assert row["ratio"] == pytest.approx(72 / 80, abs=1e-3)
    assert row["ratio_per_round"] == [0.9, 0.9, 0.9] and row["ratio_range"] == [0.9, 0.9]
    assert row["meets_target"] is True


def test_a_round_without_our_run_is_left_out_of_the_pairs(dgemm_bench):
    rows = dgemm_bench.compare(samples_with(dgemm_bench, [80, None, 40], [100, 80, 50]))
    assert rows[0]["ratio_per_round"] == [0.8, 0.8]
    assert rows[0]["meets_target"] is False


def test_table_prints_ratio_range_and_a_busy_machine(dgemm_bench):
    rows = dgemm_bench.compare(samples_with(dgemm_bench, [90, 60, 85], [100, 100, 100]))
    quiet = {"round": 0, "load_1min": 0.1, "steal_share": 0.0, "others_share": 0.01}
    busy = {"round": 1, "load_1min": 4.0, "steal_share": 0.0, "others_share": 0.4}
    text = dgemm_bench.table(rows, [quiet, busy])
    line = next(x for x in text.splitlines() if x.split()[:3] == ["1000", "c-openmp", "2"])
    assert line.split()[3:] == ["85", "100", "0.85", "0.60-0.90"]
    assert "median of 3 interleaved rounds" in text
    assert "1 of 2 rounds busy" in text and "rerun on a quiet machine" in text
    assert "rerun" not in dgemm_bench.table(rows, [quiet])


def test_table_says_whether_a_thread_idled_or_two_shared_a_cpu(dgemm_bench):
    samples = samples_with(dgemm_bench, [90, 90, 90], [100, 100, 100])
    for runs in samples.values():
        for i, run in enumerate(runs):
            run.update(thread_busy_share_min=[0.5, 0.6, 0.97][i], thread_start_delay_share=[0.2, 0.01, 0.02][i],
                       iterations_threads_ended_on_one_cpu=i)
    text = dgemm_bench.table(dgemm_bench.compare(samples), [])
    order_1000 = text.split("2000")[0]
    assert order_1000.count("least busy thread at work 60% of the timed time, last thread started after 2% of it; "
                            "threads ended on one CPU in 3 of 30 timed iterations") == 1  # the 2-thread row only
    samples[("c-openmp", 2, 1000)][0]["iterations_threads_ended_on_one_cpu"] = -1
    assert "CPUs of the threads unknown" in dgemm_bench.table(dgemm_bench.compare(samples), [])


def fake_program(tmp_path, threads):
    """A stand-in for a dgemm program that reports running on `threads` threads."""
    script = tmp_path / "dgemm-openmp"
    script.write_text("#!/bin/sh\necho '{\"valid\": true, \"rate\": 5.0, \"threads\": %d, "
                      "\"validation\": {\"details\": {\"blocking\": \"b\", \"thread_busy_share_min\": 0.9, "
                      "\"iterations_threads_ended_on_one_cpu\": 0}}}'\n" % threads)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_a_run_on_another_thread_count_is_an_error(dgemm_bench, tmp_path):
    fake_program(tmp_path, 1)
    result = dgemm_bench.run_config(tmp_path, "unused", "c-openmp", 2, 1000)
    assert result == {"error": "ran on 1 threads, not 2"}
    fake_program(tmp_path, 2)
    assert dgemm_bench.run_config(tmp_path, "unused", "c-openmp", 2, 1000)["rate"] == 5.0
