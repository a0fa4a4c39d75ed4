"""dgemm's blocking follows the build machine's caches (build.cache_defines) and its threads split rows evenly.

The cache layouts are written as sysfs folders in tmp_path: a Zen 4 core (32 KiB 8-way L1d, 1 MiB
L2, no SMT) and an Intel core whose two SMT siblings share a 48 KiB 12-way L1d and a 2 MiB L2.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from twelveways.prk import build

ZEN4 = [(1, "Data", "32K", 8, "0"), (1, "Instruction", "32K", 8, "0"), (2, "Unified", "1024K", 8, "0"),
        (3, "Unified", "32768K", 16, "0-1")]
INTEL_SMT = [(1, "Data", "48K", 12, "0,8"), (2, "Unified", "2048K", 16, "0,8"), (3, "Unified", "105M", 15, "0-15")]


def sysfs(root, caches):
    for i, (level, kind, size, ways, shared) in enumerate(caches):
        folder = root / f"index{i}"
        folder.mkdir(parents=True)
        for name, value in [("level", level), ("type", kind), ("size", size), ("ways_of_associativity", ways),
                            ("shared_cpu_list", shared)]:
            (folder / name).write_text(f"{value}\n")
    return root


def test_cache_sizes_become_defines(tmp_path):
    assert build.cache_defines(sysfs(tmp_path / "zen4", ZEN4)) == [
        "-DPRK_L1D_BYTES=32768", "-DPRK_L1D_WAYS=8", "-DPRK_CORE_CPUS=1", "-DPRK_L2_BYTES=1048576",
        "-DPRK_L3_BYTES=33554432"]
    assert build.cache_defines(sysfs(tmp_path / "intel", INTEL_SMT)) == [
        "-DPRK_L1D_BYTES=49152", "-DPRK_L1D_WAYS=12", "-DPRK_CORE_CPUS=2", "-DPRK_L2_BYTES=2097152",
        "-DPRK_L3_BYTES=110100480"]
    assert build.cache_defines(tmp_path / "missing") == []  # the kernel's own defaults then apply


def test_only_dgemm_is_built_with_the_cache_defines(tmp_path):
    manifest = build.build_kernels(tmp_path, kernels=["dgemm", "nstream"], variants=["serial"])
    commands = {name: target["command"] for name, target in manifest["targets"].items()}
    assert ("-DPRK_L1D_BYTES=" in commands["dgemm-serial"]) == bool(build.cache_defines())
    assert "-DPRK_" not in commands["nstream-serial"]


def run(binary, order, threads):
    done = subprocess.run([str(binary), "2", str(order)], capture_output=True, text=True, check=True,
                          env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    doc = json.loads(done.stdout.splitlines()[-1])
    assert doc["valid"] is True and doc["threads"] == threads, doc["validation"]
    return doc["validation"]["details"]["blocking"]


def build_details(binary):
    done = subprocess.run([str(binary), "1", "8"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])["validation"]["details"]


@pytest.mark.parametrize("caches, l1, ways, smt", [(ZEN4, 32768, 8, 1), (INTEL_SMT, 49152, 12, 2)])
def test_blocking_follows_the_caches_and_smt_siblings_split_them(tmp_path, caches, l1, ways, smt):
    defines = build.cache_defines(sysfs(tmp_path / "cache", caches))
    binary = tmp_path / "dgemm"
    subprocess.run(["gcc", "-O2", "-march=native", "-fopenmp", *defines, "-I", str(build.SOURCE_DIR), "-o",
                    str(binary), str(build.SOURCE_DIR / "dgemm.c"), "-lm"], check=True)
    assert "L1d" in build_details(binary)["blocking_caches"]
    for order in (1, 13, 263, 1000):
        for threads in (1, 2, 3):
            text = run(binary, order, threads)
            nr, kc = (int(re.search(pattern, text).group(1)) for pattern in (r"MRxNR \d+x(\d+)", r"KC (\d+)"))
            # a KC x NR panel of B in (ways - 2) / ways of the L1d share of each thread on the core
            panel = min(1024, l1 // min(threads, smt) * (ways - 2) // ways // (nr * 8) // 8 * 8)
            assert kc == -(-order // -(-order // panel)), text  # the order split evenly into panels
