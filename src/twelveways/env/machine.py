"""The hardware section: CPU, caches, NUMA, memory and cgroup limits, plus frequency, boost and
virtualization (from :mod:`.cpufreq` and :mod:`.virtualization`)."""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping
from pathlib import Path

from .cpufreq import boost, frequency
from .lscpu import lscpu_field, proc_cpuinfo_field
from .probe import Unavailable, fail, first_of, is_unavailable, parse_size, read_text, safe, unavailable
from .virtualization import virtualization


def _nonempty(mapping: Mapping, key: str):
    if is_unavailable(mapping):
        raise Unavailable(f"py-cpuinfo: {mapping['unavailable']}")
    value = mapping.get(key)
    if not value:
        raise Unavailable(f"py-cpuinfo reports no {key}")
    return value


def cpuinfo() -> dict:
    """py-cpuinfo's description of the CPU from what the OS reports (/proc/cpuinfo, lscpu, ...), without its CPUID pass.

    Why: ``get_cpu_info()`` starts a Python process that starts another to execute CPUID, which sleeps a
    second to time the TSC (``hz_actual``): 1.1 s of every capture, for fields nothing here records.  The
    fields kept (brand, arch, family, model, stepping, version) are the same either way; flags come from
    lscpu first.  py-cpuinfo has no public switch for this, so where its internals differ (another
    version) the public call is made instead."""
    import cpuinfo as py_cpuinfo

    internals = getattr(py_cpuinfo, "cpuinfo", None)
    source, gather = getattr(internals, "DataSource", None), getattr(internals, "_get_cpu_info_internal", None)
    if source is None or gather is None or not hasattr(source, "can_cpuid"):
        return py_cpuinfo.get_cpu_info()
    source.can_cpuid = False
    return gather()


def _model(info: dict) -> str:
    return first_of(lambda: lscpu_field("Model name"), lambda: _nonempty(info, "brand_raw"),
                    lambda: proc_cpuinfo_field("model name"))


def _vendor(info: dict) -> str:
    return first_of(lambda: lscpu_field("Vendor ID"), lambda: _nonempty(info, "vendor_id_raw"),
                    lambda: proc_cpuinfo_field("vendor_id"))


def _flags(info: dict) -> list[str]:
    text = first_of(lambda: lscpu_field("Flags"), lambda: " ".join(_nonempty(info, "flags")),
                    lambda: proc_cpuinfo_field("flags"))
    return sorted(set(text.split()))


def _smt() -> dict:
    active = read_text("/sys/devices/system/cpu/smt/active")
    control = safe(read_text, "/sys/devices/system/cpu/smt/control")
    return {"active": active == "1", "control": control}


def cpu(info: dict) -> dict:
    """Model, vendor, topology, affinity, SMT and flags; ``info`` is py-cpuinfo's dict."""
    import psutil

    return {
        "model": safe(_model, info),
        "vendor": safe(_vendor, info),
        "architecture": platform.machine() or unavailable("platform.machine() is empty"),
        "family_model_stepping": safe(lambda: "/".join(lscpu_field(k) for k in ("CPU family", "Model", "Stepping"))),
        "sockets": safe(lambda: int(lscpu_field("Socket(s)"))),
        "cores_per_socket": safe(lambda: int(lscpu_field("Core(s) per socket"))),
        "threads_per_core": safe(lambda: int(lscpu_field("Thread(s) per core"))),
        "physical_cores": safe(lambda: psutil.cpu_count(logical=False) or fail("psutil cannot count physical cores")),
        "logical_cpus": safe(lambda: psutil.cpu_count(logical=True) or fail("psutil cannot count CPUs")),
        "usable_cpus": safe(lambda: sorted(os.sched_getaffinity(0))),
        "smt": safe(_smt),
        "flags": safe(_flags, info),
        "cpuinfo": info if is_unavailable(info) else {
            k: info.get(k, unavailable(f"py-cpuinfo reports no {k}"))
            for k in ("brand_raw", "arch", "family", "model", "stepping", "cpuinfo_version_string")},
    }


def _sysfs_caches(base: Path) -> dict:
    """Cache geometry of cpu0 by name (L1d, L1i, L2, L3) from /sys."""
    found: dict = {}
    for index in sorted(base.glob("index*")):
        level = read_text(index / "level")
        kind = read_text(index / "type")
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        size = read_text(index / "size")
        found[name] = {
            "size_bytes": parse_size(size),
            "size": size,
            "type": kind,
            "ways": safe(lambda i=index: int(read_text(i / "ways_of_associativity"))),
            "line_bytes": safe(lambda i=index: int(read_text(i / "coherency_line_size"))),
            "shared_cpu_list": safe(read_text, index / "shared_cpu_list"),
            "total": safe(lambda n=name: lscpu_field(f"{n} cache")),
        }
    return found


def caches() -> dict:
    """Per-level cache geometry from /sys (cpu0), with lscpu's totals."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    found = _sysfs_caches(base) if base.is_dir() else {}
    result = {}
    for name in ("L1d", "L1i", "L2", "L3"):
        if name in found:
            result[name] = found[name]
            continue
        try:
            total = lscpu_field(f"{name} cache")
            result[name] = {"total": total}
        except Unavailable as exc:
            where = "" if base.is_dir() else f"{base} does not exist; "
            result[name] = unavailable(f"{where}{exc}")
    return result


def numa() -> dict:
    base = Path("/sys/devices/system/node")
    nodes = sorted(base.glob("node[0-9]*"), key=lambda p: int(p.name[4:]))
    if not nodes:
        count = int(lscpu_field("NUMA node(s)"))
        return {"count": count, "nodes": unavailable(f"{base} lists no nodes")}
    described = {}
    for node in nodes:
        meminfo = safe(read_text, node / "meminfo")
        mem = unavailable("no MemTotal in node meminfo")
        if isinstance(meminfo, str):
            match = re.search(r"MemTotal:\s+(\d+)\s*kB", meminfo)
            if match:
                mem = int(match.group(1)) * 1024
        described[node.name] = {"cpulist": safe(read_text, node / "cpulist"), "memory_bytes": mem}
    return {"count": len(nodes), "nodes": described}


def memory() -> dict:
    import psutil

    vm = psutil.virtual_memory()
    return {
        "total_bytes": int(vm.total),
        "available_bytes": int(vm.available),
        "swap_total_bytes": safe(lambda: int(psutil.swap_memory().total)),
        "cgroup": safe(cgroup_limits),
    }


def cgroup_limits() -> dict:
    """Memory and CPU limits of this process's cgroup (containers and SLURM jobs set them)."""
    v2 = Path("/sys/fs/cgroup/cgroup.controllers")
    if v2.exists():
        mem = safe(read_text, "/sys/fs/cgroup/memory.max")
        cpu_max = safe(read_text, "/sys/fs/cgroup/cpu.max")
        return {"version": 2, "memory_max": mem, "cpu_max": cpu_max,
                "cpuset": safe(read_text, "/sys/fs/cgroup/cpuset.cpus.effective")}
    mem_file = Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    if mem_file.exists():
        raw = int(read_text(mem_file))
        quota = safe(lambda: int(read_text("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")))
        period = safe(lambda: int(read_text("/sys/fs/cgroup/cpu/cpu.cfs_period_us")))
        return {"version": 1, "memory_max": "max" if raw >= 2**62 else raw,
                "cpu_max": "max" if quota == -1 else (f"{quota} {period}" if isinstance(quota, int) else quota),
                "cpuset": safe(read_text, "/sys/fs/cgroup/cpuset/cpuset.cpus")}
    raise Unavailable("no cgroup v1 or v2 hierarchy under /sys/fs/cgroup")


def hardware(info: dict | None = None) -> dict:
    """Hardware section; ``info`` is py-cpuinfo's dict (read once by :func:`.record.capture`)."""
    info = info if info is not None else safe(cpuinfo)
    return {
        "cpu": safe(cpu, info),
        "caches": safe(caches),
        "numa": safe(numa),
        "memory": safe(memory),
        "frequency": safe(frequency),
        "boost": safe(boost),
        "virtualization": safe(virtualization),
    }
