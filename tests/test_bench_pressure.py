"""make bench's stall figures (bench/pressure.py): Linux PSI files read as the kernel writes them."""

from __future__ import annotations

import pytest
from benchload import bench_module

# /proc/pressure/io as Linux 6.1 writes it (cpu has the same two lines; some kernels give cpu only "some")
IO = ("some avg10=27.45 avg60=11.92 avg300=12.16 total=1998399610\n"
      "full avg10=25.46 avg60=11.28 avg300=10.61 total=1249389514\n")


@pytest.fixture(scope="module")
def pressure():
    return bench_module("pressure")


def test_the_some_total_of_each_reported_resource_is_read(pressure, tmp_path):
    (tmp_path / "io").write_text(IO)
    (tmp_path / "cpu").write_text("some avg10=0.81 avg60=2.52 avg300=7.56 total=26722291234\n")
    assert pressure.totals(tmp_path) == {"io": 1998399610, "cpu": 26722291234}  # no memory file: left out


def test_stalled_seconds_and_share_over_the_run(pressure):
    start, end = {"io": 1_000_000, "cpu": 0}, {"io": 31_000_000, "cpu": 500_000}
    assert pressure.stalled(start, end, 60.0) == {"io": {"stalled_s": 30.0, "share": 0.5},
                                                  "cpu": {"stalled_s": 0.5, "share": 0.008}}


def test_a_kernel_without_psi_says_so(pressure, tmp_path):
    assert pressure.totals(tmp_path) == {}
    assert "no /proc/pressure" in pressure.stalled({}, {}, 10.0)["unavailable"]
