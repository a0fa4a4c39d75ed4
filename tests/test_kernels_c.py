"""The C PRK kernels keep the kernel contract: they validate, time and report as DESIGN.md says.

Built once per session into a temporary folder. Every kernel x implementation runs at small sizes
(1 and 2 OpenMP threads; MPI on 1, 2 and 3 ranks, oversubscribed, with sizes that do not divide
evenly); the JSON object is checked key by key; the perturbation flag must make validation fail;
bad arguments must give exit 2 and one line. No timing assertions: speed is `make bench`'s job.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from twelveways.errors import KernelError
from twelveways.prk import build

pytestmark = pytest.mark.slow  # builds the C kernels (session fixture) and runs them, MPI included

MPIEXEC = str(Path(sys.executable).parent / "mpiexec")
CONTRACT_KEYS = ["kernel", "implementation", "ranks", "threads", "parameters", "size", "dtype", "timer",
                 "warmup_times", "iteration_times", "iteration_max_times", "time_summary", "bytes_per_iteration",
                 "flops_per_iteration", "validation", "valid", "rate", "rate_unit", "avg_time_s"]
RATE_UNIT = {"nstream": "MB/s", "transpose": "MB/s", "stencil": "MFlop/s", "p2p": "MFlop/s",
             "dgemm": "MFlop/s", "sparse": "MFlop/s"}
#: Small sizes, chosen not to divide evenly by 2 or 3 (ranks, threads, tiles, vector widths).
SMALL = {"nstream": [3, 1001], "transpose": [3, 1001, 32], "stencil": [3, 997, 3], "p2p": [3, 67, 101],
         "dgemm": [2, 101], "sparse": [3, 5, 2]}
#: What the size column and each parameter must say for SMALL.
EXPECTED = {
    "nstream": (1001, {"length": 1001}),
    "transpose": (1001, {"order": 1001, "tile": 32}),
    "stencil": (997, {"n": 997, "radius": 3}),
    "p2p": (67, {"m": 67, "n": 101}),
    "dgemm": (101, {"order": 101}),
    "sparse": (5, {"lsize": 5, "radius": 2}),
}
TINY = {"nstream": [1, 50], "transpose": [1, 20, 4], "stencil": [1, 20, 2], "p2p": [1, 10, 12],
        "dgemm": [1, 10], "sparse": [1, 3, 1]}
TIMEOUT = 60


@pytest.fixture(scope="session")
def kernels_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kernels")
    build.build_kernels(out)
    return out


def run_kernel(kernels_dir: Path, kernel: str, variant: str, args, *, threads: int = 1, ranks: int = 1,
               perturb: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
    env.pop("TW_PRK_PERTURB", None)
    if perturb:
        env["TW_PRK_PERTURB"] = "1"
    argv = [str(kernels_dir / f"{kernel}-{variant}"), *map(str, args)]
    if variant == "mpi":
        argv = [MPIEXEC, "-n", str(ranks), *argv]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT, check=False)


def parse(done: subprocess.CompletedProcess) -> dict:
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected exactly one line of JSON on stdout, got {done.stdout!r} / {done.stderr!r}"
    return json.loads(lines[0])


def check_contract(doc: dict, kernel: str, variant: str, ranks: int, threads: int, iterations: int) -> None:
    assert list(doc) == CONTRACT_KEYS
    assert doc["kernel"] == kernel
    assert doc["implementation"] == f"c-{variant}"
    assert doc["ranks"] == ranks and doc["threads"] == threads
    assert doc["dtype"] == "fp64"
    assert doc["parameters"]["iterations"] == iterations
    assert doc["parameters"]["prk_work_per_iteration"] > 0
    timer = doc["timer"]
    assert timer["name"] == ("MPI_Wtime" if variant == "mpi" else "clock_gettime(CLOCK_MONOTONIC)")
    assert 0 < timer["resolution_s"] < 1e-3
    assert len(doc["warmup_times"]) == ranks
    times = doc["iteration_times"]
    assert len(times) == ranks and all(len(row) == iterations for row in times)
    assert all(t > 0 for row in times for t in row) and all(t > 0 for t in doc["warmup_times"])
    maxima = [max(row[i] for row in times) for i in range(iterations)]
    assert doc["iteration_max_times"] == pytest.approx(maxima, rel=1e-15)
    mean = sum(maxima) / iterations
    assert doc["avg_time_s"] == pytest.approx(mean, rel=1e-12)
    work = doc["bytes_per_iteration"] if doc["rate_unit"] == "MB/s" else doc["flops_per_iteration"]
    assert doc["rate_unit"] == RATE_UNIT[kernel]
    # the warm-up iteration is not part of the rate
    assert doc["rate"] == pytest.approx(work / mean / 1e6, rel=1e-9)
    assert doc["bytes_per_iteration"] > 0 and doc["flops_per_iteration"] > 0
    validation = doc["validation"]
    assert validation["tolerance"] == 1e-8
    assert isinstance(validation["details"], dict)


def check_valid_run(done, doc, kernel, variant, ranks, threads, iterations):
    assert done.returncode == 0, done.stderr
    check_contract(doc, kernel, variant, ranks, threads, iterations)
    assert doc["valid"] is True
    assert doc["validation"]["error"] <= doc["validation"]["tolerance"]
    size, params = EXPECTED[kernel]
    assert doc["size"] == size
    for key, value in params.items():
        assert doc["parameters"][key] == value


@pytest.mark.parametrize("kernel", build.KERNELS)
@pytest.mark.parametrize("variant,threads", [("serial", 1), ("openmp", 1), ("openmp", 2)])
def test_shared_memory_kernels_validate(kernels_dir, kernel, variant, threads):
    args = SMALL[kernel]
    done = run_kernel(kernels_dir, kernel, variant, args, threads=threads)
    check_valid_run(done, parse(done), kernel, variant, 1, threads, args[0])


#: dgemm orders that leave partial tiles, k-panels and row blocks everywhere: 1, primes, and 263 (two
#: k-panels, several row blocks per thread, a multiple of no tile or block size).
DGEMM_AWKWARD_ORDERS = [1, 7, 13, 97, 263]


@pytest.mark.parametrize("order", DGEMM_AWKWARD_ORDERS)
@pytest.mark.parametrize("variant,threads", [("serial", 1), ("openmp", 2)])
def test_dgemm_validates_at_awkward_orders(kernels_dir, order, variant, threads):
    done = run_kernel(kernels_dir, "dgemm", variant, [2, order], threads=threads)
    doc = parse(done)
    assert done.returncode == 0, done.stderr
    check_contract(doc, "dgemm", variant, 1, threads, 2)
    assert doc["valid"] is True and doc["parameters"]["order"] == order
    details = doc["validation"]["details"]
    assert details["checksum"] == pytest.approx(details["reference_checksum"], rel=1e-12, abs=0.0)
    blocking = re.fullmatch(r"MRxNR (\d+)x(\d+) \((\d+)-double vectors\), KC (\d+), MC (\d+), NC (\d+)",
                            details["blocking"])
    assert blocking, details["blocking"]
    mr, nr, vl, kc, mc, nc = map(int, blocking.groups())
    assert nr % vl == 0 and mc % mr == 0 and nc % nr == 0
    assert 1 <= kc <= order


@pytest.mark.slow
@pytest.mark.parametrize("kernel", build.MPI_KERNELS)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_kernels_validate_on_uneven_decompositions(kernels_dir, kernel, ranks):
    args = SMALL[kernel]
    done = run_kernel(kernels_dir, kernel, "mpi", args, ranks=ranks)
    doc = parse(done)
    check_valid_run(done, doc, kernel, "mpi", ranks, 1, args[0])


@pytest.mark.slow
def test_mpi_stencil_uses_a_two_dimensional_rank_grid(kernels_dir):
    done = run_kernel(kernels_dir, "stencil", "mpi", [2, 101, 2], ranks=4)
    doc = parse(done)
    assert done.returncode == 0 and doc["valid"] is True
    assert doc["validation"]["details"]["rank_grid"] == "2x2"


@pytest.mark.parametrize("kernel,variant", [(k, v) for k in build.KERNELS for v in build.VARIANTS
                                            if v != "mpi" or k in build.MPI_KERNELS])
def test_perturbed_result_is_reported_invalid(kernels_dir, kernel, variant):
    args = TINY[kernel]
    ranks = 2 if variant == "mpi" else 1
    done = run_kernel(kernels_dir, kernel, variant, args, ranks=ranks, perturb=True)
    assert done.returncode == 1, done.stderr
    doc = parse(done)
    check_contract(doc, kernel, variant, ranks, 1, args[0])
    assert doc["valid"] is False
    assert not doc["validation"]["error"] <= doc["validation"]["tolerance"]
    # the same run without the flag validates, so it is the perturbation that is caught
    clean = run_kernel(kernels_dir, kernel, variant, args, ranks=ranks)
    assert clean.returncode == 0 and parse(clean)["valid"] is True


BAD_ARGS = {
    "nstream": [[], ["10"], ["0", "100"], ["10", "abc"], ["10", "100", "7"], ["10", "-5"]],
    "transpose": [["5"], ["5", "0"], ["5", "100", "0"], ["5", "100", "8", "9"], ["x", "100"]],
    "stencil": [["5", "4", "2"], ["5", "100", "0"], ["5", "1e3"], ["5"]],
    "p2p": [["5", "100"], ["5", "1", "100"], ["5", "100", "100", "1"], ["5", "99999999999999999999", "4"]],
    "dgemm": [["5"], ["5", "0"], ["5", "12.5"]],
    "sparse": [["5", "2"], ["5", "2", "2"], ["5", "-1", "1"], ["5", "16", "1"]],
}


@pytest.mark.parametrize("kernel,variant", [(k, v) for k in build.KERNELS for v in build.VARIANTS
                                            if v != "mpi" or k in build.MPI_KERNELS])
def test_bad_arguments_exit_2_with_one_line(kernels_dir, kernel, variant):
    cases = BAD_ARGS[kernel] if variant != "mpi" else BAD_ARGS[kernel][:2]
    for args in cases:
        done = run_kernel(kernels_dir, kernel, variant, args, ranks=2 if variant == "mpi" else 1)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, done.stderr)


@pytest.mark.slow
def test_mpi_rejects_more_ranks_than_work(kernels_dir):
    done = run_kernel(kernels_dir, "p2p", "mpi", [1, 4, 2], ranks=3)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: n 2 is smaller than the number of ranks 3"]


# ------------------------------------------------------------------------------- the build ----

def test_build_manifest_records_commands_and_skips_unchanged_targets(kernels_dir):
    manifest = json.loads((kernels_dir / "build.json").read_text())
    assert manifest["cflags"] == build.DEFAULT_CFLAGS
    assert manifest["compiler"]["version"].startswith("gcc")
    names = {f"{k}-{v}" for k in build.KERNELS for v in build.VARIANTS if v != "mpi" or k in build.MPI_KERNELS}
    assert set(manifest["targets"]) == names
    for name, target in manifest["targets"].items():
        assert (kernels_dir / name).is_file()
        assert "-O3 -march=native" in target["command"]
        assert ("-fopenmp" in target["command"]) == (target["variant"] == "openmp")
        assert ("-DPRK_MPI" in target["command"]) == (target["variant"] == "mpi")
    again = build.build_kernels(kernels_dir)
    assert again["rebuilt"] == []


def test_changed_flags_or_sources_rebuild(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(build.SOURCE_DIR, src)
    out = tmp_path / "out"
    one = dict(kernels=["nstream"], variants=["serial"], source_dir=src)
    first = build.build_kernels(out, **one)
    assert first["rebuilt"] == ["nstream-serial"]
    assert build.build_kernels(out, **one)["rebuilt"] == []
    changed = build.build_kernels(out, cflags="-O2", **one)
    assert changed["rebuilt"] == ["nstream-serial"]
    assert json.loads((out / "build.json").read_text())["targets"]["nstream-serial"]["command"].count("-O2") == 1
    (src / "prk_common.h").write_text((src / "prk_common.h").read_text() + "\n/* touched */\n")
    assert build.build_kernels(out, cflags="-O2", **one)["rebuilt"] == ["nstream-serial"]


def test_compile_error_raises_kernel_error_with_first_error_line(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(build.SOURCE_DIR, src)
    (src / "dgemm.c").write_text("int main(void) { return undefined_symbol; }\n")
    with pytest.raises(KernelError, match=r"building dgemm-serial failed: .*dgemm\.c:1:.*error: .*undefined_symbol"):
        build.build_kernels(tmp_path / "out", kernels=["dgemm"], variants=["serial"], source_dir=src)


def test_unknown_compiler_and_kernel_are_kernel_errors(tmp_path):
    with pytest.raises(KernelError, match="compiler 'no-such-cc-xyz' not found"):
        build.build_kernels(tmp_path, cc="no-such-cc-xyz", kernels=["nstream"], variants=["serial"])
    with pytest.raises(KernelError, match="unknown kernel"):
        build.build_kernels(tmp_path, kernels=["nbody"])


def test_cli_errors_are_one_line_exit_1(tmp_path):
    done = subprocess.run([sys.executable, "-m", "twelveways.prk.build", "--out", str(tmp_path), "--cc",
                           "no-such-cc-xyz", "--kernels", "nstream", "--variants", "serial"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")


def test_cli_builds_and_reports(tmp_path):
    done = subprocess.run([sys.executable, "-m", "twelveways.prk.build", "--out", str(tmp_path), "--kernels",
                           "p2p", "--variants", "serial", "--cflags", "-O1"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p2p-serial").is_file()
    assert json.loads((tmp_path / "build.json").read_text())["cflags"] == "-O1"


def test_kernel_outputs_parse_as_strict_json(kernels_dir):
    """No NaN/Infinity tokens: other tools (jq, JSON schema validators) must read the output."""
    done = run_kernel(kernels_dir, "nstream", "serial", [2, 100])
    json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"non-JSON constant {name}"))
    assert math.isfinite(parse(done)["rate"])
