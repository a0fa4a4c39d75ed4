"""Python PRK kernels (NumPy, mpi4py): self-validation, the JSON contract, perturbation, bad arguments.

Small sizes only (shared 2-core machine); MPI kernels on 1, 2 and 3 ranks (oversubscribed),
including sizes that do not divide evenly among the ranks.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from twelveways import results
from twelveways.prk import records

pytestmark = pytest.mark.slow  # each kernel runs as its own process, mpi4py ones under mpiexec

ROOT = Path(__file__).resolve().parents[1]
PYDIR = ROOT / "kernels" / "python"
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")

NUMPY_CASES = {
    "nstream": [4, 100003],
    "transpose": [4, 203, 32],
    "stencil": [4, 97, 3],
    "p2p": [4, 61, 47],
    "dgemm": [3, 67],
    "sparse": [4, 5, 2],
}
MPI_CASES = {
    "nstream": [3, 10007],
    "transpose": [3, 1001, 64],
    "stencil": [3, 997, 3],
    "p2p": [3, 97, 53],
}
CONTRACT_KEYS = set(records.REQUIRED)


def run_kernel(name: str, args, ranks: int | None = None, env_extra: dict | None = None, timeout: float = 120):
    program = PYDIR / name
    argv = [sys.executable, str(program), *map(str, args)]
    if ranks is not None:
        argv = [MPIEXEC, "-n", str(ranks), *argv]
    env = {**os.environ, **env_extra} if env_extra else None
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def load(filename: str):
    spec = importlib.util.spec_from_file_location(filename.replace("-", "_").removesuffix(".py"), PYDIR / filename)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(PYDIR))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(PYDIR))
    return module


def check_contract(proc, kernel: str, implementation: str, ranks: int, iterations: int, valid: bool = True) -> dict:
    assert proc.returncode == (0 if valid else 1), proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout must hold exactly one JSON object: {proc.stdout!r}"
    doc = json.loads(lines[0])
    assert CONTRACT_KEYS <= set(doc)
    records.check(doc, kernel=kernel, implementation=implementation, ranks=ranks)
    assert doc["valid"] is valid
    assert doc["dtype"] == "fp64"
    assert len(doc["warmup_times"]) == ranks
    assert [len(row) for row in doc["iteration_times"]] == [iterations] * ranks
    assert doc["iteration_max_times"] == pytest.approx([max(col) for col in zip(*doc["iteration_times"])])
    assert doc["avg_time_s"] == pytest.approx(np.mean(doc["iteration_max_times"]))
    work = doc["bytes_per_iteration"] if doc["rate_unit"] == "MB/s" else doc["flops_per_iteration"]
    assert doc["rate"] == pytest.approx(1e-6 * work / doc["avg_time_s"])
    expected_timer = "MPI_Wtime" if implementation == "mpi4py" else "time.perf_counter_ns"
    assert doc["timer"]["name"] == expected_timer and doc["timer"]["resolution_s"] > 0
    assert doc["validation"]["tolerance"] == 1e-8
    if valid:
        assert doc["validation"]["error"] <= 1e-8
    else:
        assert doc["validation"]["error"] > 1e-8
    return doc


@pytest.mark.parametrize("kernel", sorted(NUMPY_CASES))
def test_numpy_kernel_validates(kernel):
    args = NUMPY_CASES[kernel]
    proc = run_kernel(f"{kernel}-numpy.py", args)
    doc = check_contract(proc, kernel, "numpy", 1, args[0])
    assert doc["parameters"]["iterations"] == args[0]
    assert doc["size"] == args[1]


@pytest.mark.parametrize("ranks", [1, 2, 3])
@pytest.mark.parametrize("kernel", sorted(MPI_CASES))
def test_mpi4py_kernel_validates(kernel, ranks):
    args = MPI_CASES[kernel]
    proc = run_kernel(f"{kernel}-mpi4py.py", args, ranks=ranks)
    doc = check_contract(proc, kernel, "mpi4py", ranks, args[0])
    assert doc["size"] == args[1]


@pytest.mark.parametrize("kernel,args", [("transpose", [2, 5]), ("stencil", [2, 9, 3]), ("p2p", [2, 4, 3])])
def test_mpi4py_tiny_uneven_blocks_on_three_ranks(kernel, args):
    """Blocks of one or two columns/rows (and exactly radius wide) still validate."""
    proc = run_kernel(f"{kernel}-mpi4py.py", args, ranks=3)
    check_contract(proc, kernel, "mpi4py", 3, args[0])


def _perturbed_frame(doc: dict):
    rows = records.to_records(doc, run_id="perturbed", seed=1)
    return results.to_frame(results.from_records(rows, family="prk"))


@pytest.mark.parametrize("kernel", sorted(NUMPY_CASES))
def test_numpy_perturbation_is_invalid_and_never_summarized(kernel):
    args = NUMPY_CASES[kernel]
    proc = run_kernel(f"{kernel}-numpy.py", args, env_extra={"TW_PRK_PERTURB": "1"})
    doc = check_contract(proc, kernel, "numpy", 1, args[0], valid=False)
    frame = _perturbed_frame(doc)
    assert len(frame) == args[0] + 2  # warm-up, N iterations, the rate row: all kept
    assert not frame["valid"].any()
    assert results.summarizable(frame).empty


@pytest.mark.parametrize("kernel", sorted(MPI_CASES))
def test_mpi4py_perturbation_is_invalid_on_every_rank(kernel):
    args = MPI_CASES[kernel]
    proc = run_kernel(f"{kernel}-mpi4py.py", args, ranks=2, env_extra={"TW_PRK_PERTURB": "1"})
    doc = check_contract(proc, kernel, "mpi4py", 2, args[0], valid=False)
    assert results.summarizable(_perturbed_frame(doc)).empty


BAD_ARGS = [
    ("nstream-numpy.py", []),
    ("nstream-numpy.py", ["0", "100"]),
    ("transpose-numpy.py", ["2", "x"]),
    ("stencil-numpy.py", ["2", "5", "3"]),
    ("p2p-numpy.py", ["2", "1", "5"]),
    ("dgemm-numpy.py", ["2", "10", "7"]),
    ("sparse-numpy.py", ["2", "2", "3"]),
    ("sparse-numpy.py", ["2", "-1", "1"]),
]


@pytest.mark.parametrize("program,args", BAD_ARGS)
def test_bad_arguments_one_line_exit_2(program, args):
    proc = run_kernel(program, args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr


@pytest.mark.parametrize("program,args", [("transpose-mpi4py.py", ["2", "2"]), ("stencil-mpi4py.py", ["2", "7", "3"]),
                                          ("p2p-mpi4py.py", ["2", "5"])])
def test_mpi4py_bad_arguments_one_line_exit_2(program, args):
    proc = run_kernel(program, args, ranks=3)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr


@pytest.mark.parametrize("m, n", [(7, 5), (5, 9), (2, 6), (6, 2)])
def test_p2p_wavefront_matches_the_plain_recurrence(m, n):
    p2p = load("p2p-numpy.py")
    skewed = p2p.skewed_grid(m, n)
    ref = np.zeros((m, n))
    ref[0, :], ref[:, 0] = np.arange(n), np.arange(m)
    np.testing.assert_array_equal(p2p.unskewed(skewed, m, n), ref)
    step = p2p.make_step(skewed, m, n)
    for k in range(3):
        step(k)
        for i in range(1, m):
            for j in range(1, n):
                ref[i, j] = ref[i - 1, j] + ref[i, j - 1] - ref[i - 1, j - 1]
        ref[0, 0] = -ref[m - 1, n - 1]
        np.testing.assert_array_equal(p2p.unskewed(skewed, m, n), ref)


def test_stencil_step_matches_a_direct_star_stencil():
    st = load("stencil-numpy.py")
    n, r = 41, 3  # 35 interior rows: two row blocks
    a = np.add.outer(np.arange(n, dtype=float), np.arange(n, dtype=float)) + np.random.default_rng(0).random((n, n))
    b = np.zeros((n, n))
    ref_in, ref_out = a.copy(), b.copy()
    st.make_step(a, b, r)(0)
    for di, dj, w in st.star_weights(r):
        ref_out[r:n - r, r:n - r] += w * ref_in[r + di:n - r + di, r + dj:n - r + dj]
    np.testing.assert_allclose(b, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a, ref_in + 1.0)


@pytest.mark.parametrize("tile, rows", [(8, None), (8, 5), (37, 37), (40, 3), (1, 2)])
def test_transpose_blocks_cover_uneven_orders(tile, rows):
    tr = load("transpose-numpy.py")
    n = 37
    a = np.random.default_rng(tile).random((n, n))
    b = np.random.default_rng(rows).random((n, n))
    expected_b, expected_a = b + a.T, a + 1.0
    step = tr.make_step(a, b, tile, rows)
    step(0)
    np.testing.assert_array_equal(b, expected_b)
    np.testing.assert_array_equal(a, expected_a)
    step(1)
    np.testing.assert_array_equal(b, expected_b + expected_a.T)


@pytest.mark.parametrize("tile, rows", [(4, None), (3, 2), (11, 7), (20, 1)])
def test_transposed_add_blocks_handle_non_square_blocks(tile, rows):
    """The mpi4py transpose adds the transpose of a received (width x rows) block."""
    sys.path.insert(0, str(PYDIR))
    try:
        import _prk_common as prk
    finally:
        sys.path.remove(str(PYDIR))
    rng = np.random.default_rng(tile)
    src, dst = rng.random((7, 11)), rng.random((11, 7))
    expected = dst + src.T
    for src_block, buf, buf_t, dst_block in prk.transposed_add_blocks(dst, src, tile, rows):
        np.copyto(buf, src_block)
        np.add(dst_block, buf_t, out=dst_block)
    np.testing.assert_array_equal(dst, expected)
    assert prk.transposed_add_blocks(np.empty((0, 3)), np.empty((3, 0)), tile) == []


def test_sparse_matrix_is_a_scrambled_star_stencil():
    sp = load("sparse-numpy.py")
    cols, values = sp.build_matrix(3, 2)
    assert cols.shape == (64, 9)
    assert all(len(set(row)) == 9 for row in cols.tolist())  # no duplicate columns when size >= 2r+1
    assert (np.diff(cols, axis=1) > 0).all()  # sorted within each row
    np.testing.assert_array_equal(values, 1.0 / (cols + 1.0))
    assert sorted(sp.bit_reverse(np.arange(64), 6).tolist()) == list(range(64))
    assert sp.bit_reverse(np.array([6]), 8)[0] == 96  # PRK's own example
