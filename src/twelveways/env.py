"""Environment capture: everything about the machine and software a result depends on (SC15 R9).

``capture()`` returns one JSON-serialisable dict; ``write()`` stores it atomically as
``results/environment.json``; ``env_render`` turns it into a summary and an SC-style Artifact
Description.  Two principles:

* **Never silently missing.**  Every field is always present; a field that cannot be read holds
  ``{"unavailable": "<why>"}`` (see :func:`unavailable`), so a reader can tell "absent on this
  machine" from "we forgot to look".
* **A stable content hash.**  ``capture["hash"]`` is the sha256 of the canonical JSON of the
  capture *without* the fields in :data:`VOLATILE` (times, load, process counts, timer
  measurements, job ids ...), with the project's path replaced by ``$PROJECT``.  Two captures of
  the same machine and software stack give the same hash; results files carry it as
  ``environment_hash`` so results from different environments are never merged unawares.

Slow probes (py-cpuinfo, the torch/BLAS runtime probe in a child process, compilers) run
concurrently so a capture takes a few seconds.  The runtime probe runs in a child process so that
importing torch neither slows nor changes the calling process (torch loads its own OpenMP).
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .errors import ConfigError, ResultsError, TwelveWaysError

FORMAT = "twelveways-environment/1"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUT = "results/environment.json"
DEFAULT_CC = "gcc"
DEFAULT_CFLAGS = "-O3 -march=native"

#: Fields left out of the content hash, as dotted paths (fnmatch patterns), and why.
VOLATILE: dict[str, str] = {
    "hash": "the hash itself",
    "hash_excludes": "documentation of the hash",
    "time.utc": "the moment of capture",
    "capture_seconds": "how long the capture took",
    "load": "load average and process counts change from moment to moment (recorded at start and end)",
    "timer.resolution_ns": "measured: varies slightly between runs",
    "timer.overhead_ns": "measured: varies with load",
    "hardware.memory.available_bytes": "free memory changes from moment to moment",
    "host.hostname": "container hostnames change per start; nodes of one type share an environment",
    "scheduler": "per job: job ids, node list, allocation and the launcher of this particular job",
    "mpi.launcher_in_use": "per job: how this particular process was started",
    "environment_variables.SLURM_*": "set per job by SLURM (job id, node list, ...)",
    "environment_variables.SBATCH_*": "set per job submission",
    "environment_variables.SRUN_*": "set per job step",
    "environment_variables.PMI_*": "set per process by the MPI launcher (rank, size, fd)",
    "environment_variables.PMIX_*": "set per process by the MPI launcher",
    "environment_variables.OMPI_COMM_WORLD_*": "set per process by Open MPI's launcher",
    "environment_variables.MPI_LOCAL*": "set per process by the MPI launcher",
    "environment_variables.*_NUM_THREADS": "per job: Snakemake sets the thread variables of every job to its "
                                           "threads; each result records its own thread count",
    "environment_variables.VECLIB_MAXIMUM_THREADS": "per job, as *_NUM_THREADS",
    "blas_openmp.threadpools.num_threads": "follows the per-job thread variables",
    "torch.num_threads": "follows the per-job thread variables",
    "torch.num_interop_threads": "follows the per-job thread variables",
    "torch.parallel_info": "lists the per-job thread settings",
    "git": "the project's own version is provenance, not environment: every results file carries "
           "git_commit and git_dirty separately",
    "comparison": "only in an end-of-run capture: how it differs from the start",
}

#: Environment variables worth recording: prefixes, and exact names.
ENV_PREFIXES = ("OMP_", "GOMP_", "KMP_", "OPENBLAS_", "GOTO_", "MKL_", "BLIS_", "VECLIB_", "NUMEXPR_",
                "MPICH_", "MPIR_", "MPIEXEC_", "I_MPI_", "OMPI_", "PMI_", "PMIX_", "HYDRA_", "UCX_", "FI_",
                "CUDA_", "NVIDIA_", "ROCR_", "HIP_", "SLURM_", "SBATCH_", "SRUN_", "TORCH_", "PYTORCH_",
                "MPI_LOCAL")
ENV_NAMES = ("LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHASHSEED", "TZ", "MALLOC_ARENA_MAX")

#: Packages named in the summary and the artifact description (all packages are captured).
KEY_PACKAGES = ("numpy", "scipy", "pandas", "xarray", "h5netcdf", "statsmodels", "scikit-learn", "torch",
                "mpi4py", "mpich", "mlcommons-loadgen", "mlperf-logging", "snakemake",
                "snakemake-executor-plugin-slurm", "papermill", "nbconvert", "jupytext", "psutil",
                "py-cpuinfo", "threadpoolctl", "matplotlib", "seaborn", "twelveways")


# --------------------------------------------------------------------------- unavailable fields

class Unavailable(Exception):
    """Raised by a reader that cannot read its field; the message says why."""


def unavailable(reason: str) -> dict:
    """The value of a field that could not be read: ``{"unavailable": reason}``."""
    return {"unavailable": " ".join(str(reason).split()) or "unknown reason"}


def is_unavailable(value) -> bool:
    return isinstance(value, Mapping) and set(value) == {"unavailable"}


def _safe(reader: Callable, *args):
    """Run one reader; any failure becomes an ``unavailable`` value naming the cause."""
    try:
        return reader(*args)
    except Unavailable as exc:
        return unavailable(str(exc))
    except Exception as exc:  # noqa: BLE001 - a capture must explain, never crash
        return unavailable(f"{type(exc).__name__}: {exc}")


def unavailable_fields(capture: Mapping, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted path, reason) of every unavailable field, for reports and tests."""
    found = []
    for key, value in capture.items():
        path = f"{prefix}{key}"
        if is_unavailable(value):
            found.append((path, value["unavailable"]))
        elif isinstance(value, Mapping):
            found.extend(unavailable_fields(value, path + "."))
    return found


# --------------------------------------------------------------------------- low-level readers

def _read(path: str | os.PathLike) -> str:
    try:
        return Path(path).read_text().strip()
    except FileNotFoundError:
        raise Unavailable(f"{path} does not exist") from None
    except OSError as exc:
        raise Unavailable(f"cannot read {path}: {exc.strerror or exc}") from None


def _run(cmd: list[str], timeout: float = 15, both: bool = False) -> str:
    """stdout of a command (stdout+stderr with ``both``); Unavailable when missing or failing."""
    exe = shutil.which(cmd[0]) if os.sep not in cmd[0] else (cmd[0] if os.access(cmd[0], os.X_OK) else None)
    if exe is None:
        raise Unavailable(f"{cmd[0]} not found")
    try:
        done = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"`{shlex.join(cmd)}` did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise Unavailable(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        first = (done.stderr.strip() or done.stdout.strip()).splitlines()[:1]
        raise Unavailable(f"`{shlex.join(cmd)}` exited {done.returncode}" + (f": {first[0]}" if first else ""))
    return (done.stdout + done.stderr) if both else done.stdout


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    raise Unavailable("empty output")


def _parse_size(text: str) -> int:
    """'32K' / '1024K' / '32 MiB' -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise Unavailable(f"cannot parse size {text!r}")
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[match.group(2).upper()]
    return int(float(match.group(1)) * scale)


_LSCPU_CACHE: dict | None = None


def _lscpu() -> dict:
    """``lscpu -J`` as {field: value}, read once per process."""
    global _LSCPU_CACHE
    if _LSCPU_CACHE is None:
        rows = json.loads(_run(["lscpu", "-J"]))["lscpu"]
        flat: dict = {}

        def walk(items):
            for item in items:
                flat[item["field"].rstrip(":").strip()] = item.get("data")
                walk(item.get("children", []))

        walk(rows)
        _LSCPU_CACHE = flat
    return _LSCPU_CACHE


def _lscpu_field(name: str) -> str:
    try:
        info = _lscpu()
    except Unavailable as exc:
        raise Unavailable(f"lscpu: {exc}") from None
    value = info.get(name)
    if value in (None, "", "-"):
        raise Unavailable(f"lscpu reports no '{name}'")
    return value


def _proc_cpuinfo_field(name: str) -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower() and value.strip():
            return value.strip()
    raise Unavailable(f"/proc/cpuinfo has no '{name}' line")


def _first_of(*readers: Callable[[], object]):
    """The first reader that succeeds; Unavailable listing every reason otherwise."""
    reasons = []
    for reader in readers:
        try:
            return reader()
        except Unavailable as exc:
            reasons.append(str(exc))
    raise Unavailable("; ".join(reasons))


# --------------------------------------------------------------------------- hardware

def _cpu(cpuinfo: dict) -> dict:
    def model():
        return _first_of(lambda: _lscpu_field("Model name"), lambda: _nonempty(cpuinfo, "brand_raw"),
                         lambda: _proc_cpuinfo_field("model name"))

    def vendor():
        return _first_of(lambda: _lscpu_field("Vendor ID"), lambda: _nonempty(cpuinfo, "vendor_id_raw"),
                         lambda: _proc_cpuinfo_field("vendor_id"))

    def flags():
        text = _first_of(lambda: _lscpu_field("Flags"), lambda: " ".join(_nonempty(cpuinfo, "flags")),
                         lambda: _proc_cpuinfo_field("flags"))
        return sorted(set(text.split()))

    def smt():
        active = _read("/sys/devices/system/cpu/smt/active")
        control = _safe(_read, "/sys/devices/system/cpu/smt/control")
        return {"active": active == "1", "control": control}

    import psutil

    return {
        "model": _safe(model),
        "vendor": _safe(vendor),
        "architecture": platform.machine() or unavailable("platform.machine() is empty"),
        "family_model_stepping": _safe(lambda: "/".join(_lscpu_field(k) for k in ("CPU family", "Model", "Stepping"))),
        "sockets": _safe(lambda: int(_lscpu_field("Socket(s)"))),
        "cores_per_socket": _safe(lambda: int(_lscpu_field("Core(s) per socket"))),
        "threads_per_core": _safe(lambda: int(_lscpu_field("Thread(s) per core"))),
        "physical_cores": _safe(lambda: psutil.cpu_count(logical=False) or _raise("psutil cannot count physical cores")),
        "logical_cpus": _safe(lambda: psutil.cpu_count(logical=True) or _raise("psutil cannot count CPUs")),
        "usable_cpus": _safe(lambda: sorted(os.sched_getaffinity(0))),
        "smt": _safe(smt),
        "flags": _safe(flags),
        "cpuinfo": cpuinfo if is_unavailable(cpuinfo) else {
            k: cpuinfo.get(k, unavailable(f"py-cpuinfo reports no {k}"))
            for k in ("brand_raw", "arch", "family", "model", "stepping", "cpuinfo_version_string")},
    }


def _nonempty(mapping: Mapping, key: str):
    if is_unavailable(mapping):
        raise Unavailable(f"py-cpuinfo: {mapping['unavailable']}")
    value = mapping.get(key)
    if not value:
        raise Unavailable(f"py-cpuinfo reports no {key}")
    return value


def _raise(reason: str):
    raise Unavailable(reason)


def _cpuinfo() -> dict:
    import cpuinfo

    return cpuinfo.get_cpu_info()


def _caches() -> dict:
    """Per-level cache geometry from /sys (cpu0), with lscpu's totals."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    found: dict = {}
    if base.is_dir():
        for index in sorted(base.glob("index*")):
            level = _read(index / "level")
            kind = _read(index / "type")
            name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
            size = _read(index / "size")
            found[name] = {
                "size_bytes": _parse_size(size),
                "size": size,
                "type": kind,
                "ways": _safe(lambda i=index: int(_read(i / "ways_of_associativity"))),
                "line_bytes": _safe(lambda i=index: int(_read(i / "coherency_line_size"))),
                "shared_cpu_list": _safe(_read, index / "shared_cpu_list"),
                "total": _safe(lambda n=name: _lscpu_field(f"{n} cache")),
            }
    result = {}
    for name in ("L1d", "L1i", "L2", "L3"):
        if name in found:
            result[name] = found[name]
            continue
        try:
            total = _lscpu_field(f"{name} cache")
            result[name] = {"total": total}
        except Unavailable as exc:
            where = "" if base.is_dir() else f"{base} does not exist; "
            result[name] = unavailable(f"{where}{exc}")
    return result


def _numa() -> dict:
    base = Path("/sys/devices/system/node")
    nodes = sorted(base.glob("node[0-9]*"), key=lambda p: int(p.name[4:]))
    if not nodes:
        count = int(_lscpu_field("NUMA node(s)"))
        return {"count": count, "nodes": unavailable(f"{base} lists no nodes")}
    described = {}
    for node in nodes:
        meminfo = _safe(_read, node / "meminfo")
        mem = unavailable("no MemTotal in node meminfo")
        if isinstance(meminfo, str):
            match = re.search(r"MemTotal:\s+(\d+)\s*kB", meminfo)
            if match:
                mem = int(match.group(1)) * 1024
        described[node.name] = {"cpulist": _safe(_read, node / "cpulist"), "memory_bytes": mem}
    return {"count": len(nodes), "nodes": described}


def _memory() -> dict:
    import psutil

    vm = psutil.virtual_memory()
    return {
        "total_bytes": int(vm.total),
        "available_bytes": int(vm.available),
        "swap_total_bytes": _safe(lambda: int(psutil.swap_memory().total)),
        "cgroup": _safe(_cgroup_limits),
    }


def _cgroup_limits() -> dict:
    """Memory and CPU limits of this process's cgroup (containers and SLURM jobs set them)."""
    v2 = Path("/sys/fs/cgroup/cgroup.controllers")
    if v2.exists():
        mem = _safe(_read, "/sys/fs/cgroup/memory.max")
        cpu = _safe(_read, "/sys/fs/cgroup/cpu.max")
        return {"version": 2, "memory_max": mem, "cpu_max": cpu,
                "cpuset": _safe(_read, "/sys/fs/cgroup/cpuset.cpus.effective")}
    mem_file = Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    if mem_file.exists():
        raw = int(_read(mem_file))
        quota = _safe(lambda: int(_read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")))
        period = _safe(lambda: int(_read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")))
        return {"version": 1, "memory_max": "max" if raw >= 2**62 else raw,
                "cpu_max": "max" if quota == -1 else (f"{quota} {period}" if isinstance(quota, int) else quota),
                "cpuset": _safe(_read, "/sys/fs/cgroup/cpuset/cpuset.cpus")}
    raise Unavailable("no cgroup v1 or v2 hierarchy under /sys/fs/cgroup")


def _frequency() -> dict:
    """Governor, scaling driver and min/max frequency (cpufreq in /sys, lscpu as a fallback)."""
    policy = Path("/sys/devices/system/cpu/cpu0/cpufreq")
    missing = f"{policy} does not exist: the kernel exposes no frequency scaling (usual in VMs and containers)"

    def sysfs(name):
        if not policy.is_dir():
            raise Unavailable(missing)
        return _read(policy / name)

    def governors():
        seen = {}
        for path in sorted(Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor")):
            seen.setdefault(_read(path), []).append(path.parent.parent.name)
        if not seen:
            raise Unavailable(missing)
        return seen

    def khz_to_mhz(name, lscpu_name):
        return _first_of(lambda: int(sysfs(name)) / 1000.0, lambda: float(_lscpu_field(lscpu_name)))

    return {
        "governor": _safe(sysfs, "scaling_governor"),
        "governors_by_cpu": _safe(governors),
        "scaling_driver": _safe(sysfs, "scaling_driver"),
        "energy_performance_preference": _safe(sysfs, "energy_performance_preference"),
        "min_mhz": _safe(khz_to_mhz, "cpuinfo_min_freq", "CPU min MHz"),
        "max_mhz": _safe(khz_to_mhz, "cpuinfo_max_freq", "CPU max MHz"),
        "scaling_min_mhz": _safe(lambda: int(sysfs("scaling_min_freq")) / 1000.0),
        "scaling_max_mhz": _safe(lambda: int(sysfs("scaling_max_freq")) / 1000.0),
    }


def _boost() -> dict:
    """Turbo/boost state from whichever interface the driver offers."""
    checked = []
    for path, enabled_when in (("/sys/devices/system/cpu/intel_pstate/no_turbo", "0"),
                               ("/sys/devices/system/cpu/cpufreq/boost", "1"),
                               ("/sys/devices/system/cpu/cpu0/cpufreq/boost", "1")):
        checked.append(path)
        if Path(path).exists():
            value = _read(path)
            return {"enabled": value == enabled_when, "source": path, "raw": value}
    raise Unavailable("no boost control found (checked " + ", ".join(checked) + ")")


def _virtualization() -> dict:
    """Virtual machine and container detection, with the evidence used."""
    evidence = []

    def detect(flag):
        out = _run(["systemd-detect-virt", flag], timeout=5) if shutil.which("systemd-detect-virt") else None
        return out.strip() if out else None

    def detect_safe(flag):
        try:
            return detect(flag)
        except Unavailable as exc:  # exits 1 with "none" when nothing is detected
            return "none" if "exited 1" in str(exc) else None

    vm = detect_safe("--vm")
    if vm is not None:
        evidence.append(f"systemd-detect-virt --vm: {vm}")
    try:
        hyper = _lscpu_field("Hypervisor vendor")
        evidence.append(f"lscpu hypervisor vendor: {hyper}")
    except Unavailable:
        hyper = None
    if vm is None:
        flags = _safe(lambda: _lscpu_field("Flags").split())
        vm = (hyper or "unknown hypervisor") if (hyper or (isinstance(flags, list) and "hypervisor" in flags)) else "none"

    container = detect_safe("--container")
    if container is not None:
        evidence.append(f"systemd-detect-virt --container: {container}")
    markers = {"/.dockerenv": "docker", "/run/.containerenv": "podman"}
    for path, name in markers.items():
        if Path(path).exists():
            evidence.append(f"{path} exists")
            if container in (None, "none"):
                container = name
    if os.environ.get("container"):
        evidence.append(f"$container={os.environ['container']}")
        if container in (None, "none"):
            container = os.environ["container"]
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        evidence.append("$KUBERNETES_SERVICE_HOST is set")
        if container in (None, "none"):
            container = "kubernetes"
    cgroup = _safe(_read, "/proc/1/cgroup")
    if isinstance(cgroup, str):
        for word in ("docker", "kubepods", "lxc", "containerd", "libpod"):
            if word in cgroup:
                evidence.append(f"/proc/1/cgroup mentions {word}")
                if container in (None, "none"):
                    container = word
                break
    return {
        "vm": vm,
        "container": container or "none",
        "hypervisor_vendor": hyper or "none",
        "virtualization_type": _safe(lambda: _lscpu_field("Virtualization type")) if hyper else "none",
        "evidence": evidence,
    }


def hardware(cpuinfo: dict | None = None) -> dict:
    """Hardware section; ``cpuinfo`` is py-cpuinfo's dict (read once by :func:`capture`)."""
    cpuinfo = cpuinfo if cpuinfo is not None else _safe(_cpuinfo)
    return {
        "cpu": _safe(_cpu, cpuinfo),
        "caches": _safe(_caches),
        "numa": _safe(_numa),
        "memory": _safe(_memory),
        "frequency": _safe(_frequency),
        "boost": _safe(_boost),
        "virtualization": _safe(_virtualization),
    }


# --------------------------------------------------------------------------- operating system

def _read_os_release() -> dict:
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        if Path(path).exists():
            fields = {}
            for line in _read(path).splitlines():
                key, sep, value = line.partition("=")
                if sep:
                    fields[key.strip()] = value.strip().strip('"').strip("'")
            return fields
    raise Unavailable("neither /etc/os-release nor /usr/lib/os-release exists")


def _glibc() -> str:
    try:
        value = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        value = None
    if value:
        return value.replace("glibc ", "")
    name, version = platform.libc_ver()
    if name == "glibc" and version:
        return version
    raise Unavailable("not a glibc system (os.confstr and platform.libc_ver report none)")


def operating_system() -> dict:
    release = _safe(_read_os_release)

    def distribution():
        if is_unavailable(release):
            raise Unavailable(release["unavailable"])
        return release.get("PRETTY_NAME") or f"{release.get('NAME', '?')} {release.get('VERSION', '')}".strip()

    def field(key):
        if is_unavailable(release):
            raise Unavailable(release["unavailable"])
        if key not in release:
            raise Unavailable(f"os-release has no {key}")
        return release[key]

    return {
        "distribution": _safe(distribution),
        "id": _safe(field, "ID"),
        "version_id": _safe(field, "VERSION_ID"),
        "kernel_release": platform.release() or unavailable("platform.release() is empty"),
        "kernel_version": platform.version() or unavailable("platform.version() is empty"),
        "glibc": _safe(_glibc),
        "clocksource": _safe(_read, "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "aslr": _safe(_read, "/proc/sys/kernel/randomize_va_space"),
        "isolated_cpus": _safe(_read, "/sys/devices/system/cpu/isolated"),
        "nohz_full": _safe(_read, "/sys/devices/system/cpu/nohz_full"),
    }


# --------------------------------------------------------------------------- load

def load_at(label: str) -> dict:
    """Load average and process counts now, labelled (the workflow records 'start' and 'end')."""
    def loadavg():
        one, five, fifteen = os.getloadavg()
        return {"1min": one, "5min": five, "15min": fifteen}

    def processes():
        import psutil

        return len(psutil.pids())

    def running():
        fields = _read("/proc/loadavg").split()
        return int(fields[3].split("/")[0])

    return {
        "label": label,
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "loadavg": _safe(loadavg),
        "processes": _safe(processes),
        "running": _safe(running),
        "logical_cpus": os.cpu_count() or unavailable("os.cpu_count() is None"),
    }


# --------------------------------------------------------------------------- compilers and MPI

def _venv_tool(name: str) -> str:
    """A tool from this Python's environment (.venv/bin) first, else from PATH."""
    local = Path(sys.prefix) / "bin" / name
    if local.exists() and os.access(local, os.X_OK):
        return str(local)
    found = shutil.which(name)
    if not found:
        raise Unavailable(f"{name} not found in {local.parent} or on PATH")
    return found


def build_settings(config: Mapping | None) -> dict:
    """The C compiler and flags the PRK build uses (config['prk'] if it says, else the defaults)."""
    prk = (config or {}).get("prk") if isinstance(config, Mapping) else None
    prk = prk if isinstance(prk, Mapping) else {}
    build = prk.get("build") if isinstance(prk.get("build"), Mapping) else {}
    cc = prk.get("cc") or build.get("cc")
    cflags = prk.get("cflags") if prk.get("cflags") is not None else build.get("cflags")
    extra = {k: v for k, v in {**build, **prk}.items()
             if isinstance(v, (str, int, float)) and ("flags" in k or k in ("mpicc", "ldflags", "openmp")) and k != "cflags"}
    return {
        "cc": str(cc) if cc else DEFAULT_CC,
        "cflags": str(cflags) if cflags is not None else DEFAULT_CFLAGS,
        "source": "config prk" if (cc or cflags is not None) else "defaults (config has no prk.cc / prk.cflags)",
        "extra": extra,
    }


def _compiler(name: str) -> dict:
    path = shutil.which(name)
    if path is None:
        raise Unavailable(f"{name} not found on PATH")
    return {"path": path, "realpath": os.path.realpath(path),
            "version": _safe(lambda: _first_line(_run([name, "--version"])))}


def _march_native(cc: str, cflags: str) -> dict | str:
    """What -march=native resolves to on this CPU (gcc/clang print it with -Q --help=target)."""
    if "-march=native" not in cflags and "-mcpu=native" not in cflags:
        return "not used"
    out = _run([cc, "-march=native", "-Q", "--help=target"], timeout=15)
    found = {}
    for line in out.splitlines():
        match = re.match(r"\s+-(march|mtune)=\s+(\S+)\s*$", line)
        if match:
            found[match.group(1)] = match.group(2)
    if not found:
        raise Unavailable(f"{cc} -Q --help=target printed no -march line")
    return found


def _openmp_version(cc: str) -> str:
    out = subprocess.run([shutil.which(cc) or cc, "-fopenmp", "-dM", "-E", "-"], input="", capture_output=True,
                         text=True, timeout=15)
    match = re.search(r"#define _OPENMP (\d+)", out.stdout)
    if not match:
        raise Unavailable(f"{cc} -fopenmp defines no _OPENMP (exit {out.returncode})")
    return match.group(1)


def compilers(config: Mapping | None = None) -> dict:
    settings = build_settings(config)
    cc = settings["cc"]

    def used():
        cflags = settings["cflags"]
        return {
            **settings,
            "version": _safe(lambda: _first_line(_run([cc, "--version"]))),
            "full_version": _safe(lambda: _run([cc, "-dumpfullversion", "-dumpversion"]).strip()),
            "march_native": _safe(_march_native, cc, cflags),
            "openmp_version": _safe(_openmp_version, cc),
        }

    def mpicc():
        path = _venv_tool("mpicc")
        return {
            "path": path,
            "show": _safe(lambda: _run([path, "-show"]).strip()),
            "version": _safe(lambda: _first_line(_run([path, "-v"], both=True))),
        }

    return {"gcc": _safe(_compiler, "gcc"), "cc": _safe(_compiler, "cc"), "used": _safe(used), "mpicc": _safe(mpicc)}


def _mpiexec() -> dict:
    path = _venv_tool("mpiexec")
    text = _run([path, "--version"], timeout=15, both=True)
    match = re.search(r"Version:\s*(\S+)", text)
    kind = "hydra" if "HYDRA" in text.upper() else ("Open MPI" if "Open MPI" in text else "unknown")
    return {"path": path, "process_manager": kind,
            "version": match.group(1) if match else _first_line(text)}


def mpi(config: Mapping | None = None, library: dict | None = None) -> dict:
    """MPI library (from the runtime probe: mpi4py is never imported here) and launcher."""
    prk = (config or {}).get("prk") if isinstance(config, Mapping) else None
    configured = (prk or {}).get("launcher") if isinstance(prk, Mapping) else None
    if library is None:
        library = _safe(lambda: _runtimes().get("mpi") or _raise("runtime probe returned no MPI section"))
    return {"library": library, "launcher": _safe(_mpiexec),
            "configured_launcher": configured or "mpiexec (default)",
            "launcher_in_use": launcher_in_use()}


# --------------------------------------------------------------------------- runtimes (child process)

_RUNTIME_PROBE = r"""
import json, sys
out = {"imported": []}
for name in ("numpy", "scipy.linalg", "torch"):
    try:
        __import__(name)
        out["imported"].append(name)
    except Exception as exc:
        out.setdefault("import_errors", {})[name] = f"{type(exc).__name__}: {exc}"
try:
    from threadpoolctl import threadpool_info
    out["threadpools"] = threadpool_info()
except Exception as exc:
    out["threadpools"] = {"unavailable": f"threadpoolctl: {type(exc).__name__}: {exc}"}
if "torch" in out["imported"]:
    import torch
    t = {"version": torch.__version__, "git_version": torch.version.git_version}
    for key, get in (("config", lambda: torch.__config__.show()),
                     ("parallel_info", lambda: torch.__config__.parallel_info()),
                     ("num_threads", torch.get_num_threads),
                     ("num_interop_threads", torch.get_num_interop_threads),
                     ("cpu_capability", lambda: torch.backends.cpu.get_cpu_capability()),
                     ("mkldnn_available", lambda: torch.backends.mkldnn.is_available()),
                     ("cuda_available", torch.cuda.is_available),
                     ("cuda_version", lambda: torch.version.cuda or "none (CPU build)"),
                     ("cuda_devices", torch.cuda.device_count)):
        try:
            t[key] = get()
        except Exception as exc:
            t[key] = {"unavailable": f"{type(exc).__name__}: {exc}"}
    out["torch"] = t
else:
    out["torch"] = {"unavailable": "cannot import torch: " + out.get("import_errors", {}).get("torch", "?")}
try:  # library facts only: MPI is not initialised (these calls are allowed before MPI_Init)
    import mpi4py
    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI
    text = MPI.Get_library_version().strip()
    vendor = MPI.get_vendor()
    out["mpi"] = {"library_version": " ".join(text.splitlines()[0].split()) if text else "",
                  "library_version_full": text,
                  "standard": "{}.{}".format(*MPI.Get_version()),
                  "vendor": vendor[0] + " " + ".".join(map(str, vendor[1])),
                  "mpi4py_version": mpi4py.__version__}
except Exception as exc:
    out["mpi"] = {"unavailable": f"mpi4py: {type(exc).__name__}: {exc}"}
json.dump(out, sys.stdout, default=str)
"""


def _runtimes() -> dict:
    """BLAS/OpenMP thread pools (numpy, scipy, torch loaded), torch's build and the MPI library.

    In a child process: importing torch is slow and loads its own OpenMP, and importing mpi4py
    here would decide, for the rest of the calling process, whether MPI initialises.
    """
    try:
        done = subprocess.run([sys.executable, "-c", _RUNTIME_PROBE], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Unavailable("runtime probe (importing numpy, scipy, torch) took over 120 s") from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise Unavailable(f"runtime probe exited {done.returncode}: {tail}")
    return json.loads(done.stdout)


# --------------------------------------------------------------------------- Python and packages

def packages() -> dict:
    """Every installed distribution visible to this Python, name -> version."""
    found = {}
    for dist in importlib.metadata.distributions():
        # only the header lines: dist.metadata runs the full e-mail parser (seconds for ~200 packages)
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        header = text.split("\n\n", 1)[0]
        name = re.search(r"^Name:\s*(\S+)", header, re.MULTILINE)
        version = re.search(r"^Version:\s*(\S+)", header, re.MULTILINE)
        if name and version:
            found.setdefault(re.sub(r"[-_.]+", "-", name.group(1)).lower(), version.group(1))
    if not found:
        raise Unavailable("importlib.metadata lists no distributions")
    return dict(sorted(found.items()))


def python() -> dict:
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "build": " ".join(platform.python_build()),
        "compiler": platform.python_compiler(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "packages": _safe(packages),
    }


def _metadata_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        raise Unavailable(f"package {name} is not installed") from None


def loadgen() -> dict:
    spec = importlib.util.find_spec("mlperf_loadgen")
    return {
        "version": _safe(_metadata_version, "mlcommons-loadgen"),
        "module": spec.origin if spec and spec.origin else unavailable("module mlperf_loadgen not found"),
        "mlperf_logging": _safe(_metadata_version, "mlperf-logging"),
    }


# --------------------------------------------------------------------------- scheduler, GPUs, misc

def environment_variables(environ: Mapping[str, str] | None = None) -> dict:
    """Variables that change how the benchmarks run (threads, BLAS, MPI, CUDA, SLURM)."""
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in sorted(environ) if k.startswith(ENV_PREFIXES) or k in ENV_NAMES}


def launcher_in_use(environ: Mapping[str, str] | None = None) -> str:
    """How this process was started: srun, an MPI launcher, a batch script, or 'none'."""
    env = os.environ if environ is None else environ
    if ("SLURM_STEP_ID" in env or "SLURM_STEPID" in env) and "SLURM_STEP_NUM_TASKS" in env:
        return "srun"
    if "OMPI_COMM_WORLD_SIZE" in env:
        return "mpirun (Open MPI)"
    if "PMI_RANK" in env or "PMI_SIZE" in env:
        return "mpiexec (hydra/PMI)"
    if "PMIX_RANK" in env:
        return "PMIx launcher"
    if "SLURM_JOB_ID" in env:
        return "sbatch (batch step)"
    return "none"


def scheduler(environ: Mapping[str, str] | None = None) -> dict:
    """Scheduler, job ids, node list and launcher of *this* job (cheap: environment only).

    Call it in every job and store it with the job's results (issue 8: per job); outside a
    batch system every field says "none".
    """
    env = os.environ if environ is None else environ
    launcher = launcher_in_use(env)
    if "SLURM_JOB_ID" in env:
        get = lambda *names: next((env[n] for n in names if n in env), "none")  # noqa: E731
        return {
            "name": "slurm",
            "job_id": get("SLURM_JOB_ID"),
            "array_job_id": get("SLURM_ARRAY_JOB_ID"),
            "array_task_id": get("SLURM_ARRAY_TASK_ID"),
            "step_id": get("SLURM_STEP_ID", "SLURM_STEPID"),
            "job_name": get("SLURM_JOB_NAME"),
            "node_list": get("SLURM_JOB_NODELIST", "SLURM_NODELIST"),
            "num_nodes": get("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
            "ntasks": get("SLURM_NTASKS", "SLURM_NPROCS"),
            "cpus_per_task": get("SLURM_CPUS_PER_TASK"),
            "partition": get("SLURM_JOB_PARTITION"),
            "cluster": get("SLURM_CLUSTER_NAME"),
            "launcher": launcher,
        }
    for name, var in (("pbs", "PBS_JOBID"), ("lsf", "LSB_JOBID"), ("sge", "SGE_TASK_ID"), ("flux", "FLUX_JOB_ID")):
        if var in env:
            return {"name": name, "job_id": env[var], "node_list": env.get("PBS_NODEFILE", "not recorded"),
                    "launcher": launcher}
    return {"name": "none", "job_id": "none", "node_list": "none", "launcher": launcher}


def _slurm_version() -> str:
    if "SLURM_JOB_ID" not in os.environ:
        return "none (not running under SLURM)"
    if not shutil.which("srun"):
        return "none (srun not on PATH)"
    return _first_line(_run(["srun", "--version"], timeout=10))


def parse_nvidia_smi(text: str, fields: list[str]) -> list[dict]:
    """Rows of ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits`` as dicts."""
    devices = []
    for line in text.splitlines():
        if not line.strip():
            continue
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(fields):
            raise Unavailable(f"nvidia-smi printed {len(values)} columns, expected {len(fields)}: {line!r}")
        row = dict(zip(fields, values))
        for key in ("index", "memory.total"):
            if key in row and row[key].isdigit():
                row[key] = int(row[key])
        devices.append(row)
    return devices


def gpus() -> dict:
    """NVIDIA GPUs via nvidia-smi; an explicit 'none found' when there is no nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        other = [tool for tool in ("rocm-smi", "xpu-smi") if shutil.which(tool)]
        note = "nvidia-smi not found on PATH: no NVIDIA GPU visible (CPU-only run)"
        if other:
            note += f"; other GPU tools present but not queried: {', '.join(other)}"
        return {"count": 0, "devices": [], "note": note}
    fields = ["index", "name", "driver_version", "memory.total", "pci.bus_id", "compute_cap"]
    try:
        text = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
    except Unavailable:  # older drivers lack compute_cap
        fields = fields[:-1]
        text = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
    devices = parse_nvidia_smi(text, fields)
    return {"count": len(devices), "devices": devices, "source": "nvidia-smi (memory.total in MiB)"}


def timer() -> dict:
    from .measure import timer_properties

    return timer_properties()


def git() -> dict:
    from .results import git_state

    commit, dirty = git_state(PROJECT_ROOT)
    if commit == "unknown":
        return {"commit": unavailable(f"{PROJECT_ROOT} is not a git checkout with a commit (or git is missing)"),
                "dirty": unavailable("no commit to compare against"), "root": str(PROJECT_ROOT)}
    return {"commit": commit, "dirty": dirty, "root": str(PROJECT_ROOT)}


def _time() -> dict:
    now = datetime.now(timezone.utc)
    local = now.astimezone()

    def zone_name():
        if os.environ.get("TZ"):
            return os.environ["TZ"]
        try:
            return _read("/etc/timezone")
        except Unavailable:
            link = os.path.realpath("/etc/localtime")
            if "zoneinfo/" in link:
                return link.split("zoneinfo/", 1)[1]
            return local.tzname() or _raise("no TZ, /etc/timezone or /etc/localtime")

    return {"utc": now.isoformat(timespec="seconds"), "timezone": _safe(zone_name),
            "utc_offset": local.strftime("%z")}


# --------------------------------------------------------------------------- capture, hash, write

def _preload() -> None:
    """Import what the worker threads need, here in the calling thread.

    Two threads importing modules that share dependencies can deadlock on Python's per-module
    import locks (seen with cpuinfo -> ctypes beside importlib.metadata -> email), so the worker
    threads must find everything already imported.
    """
    import ctypes  # noqa: F401  (cpuinfo imports it)
    import email.parser  # noqa: F401  (importlib.metadata imports it lazily)

    for name in ("psutil", "cpuinfo"):
        try:
            __import__(name)
        except ImportError:
            pass  # the reader reports it as unavailable
    from . import measure, results  # noqa: F401


def capture(config: Mapping | None = None, label: str = "start") -> dict:
    """Capture the whole environment; every field present, unreadable ones say why (see module doc)."""
    started = time.perf_counter()
    load = {label: load_at(label)}
    variables = _safe(environment_variables, dict(os.environ))  # before imports can set any (joblib does)
    with ThreadPoolExecutor(max_workers=6) as pool:
        runtimes_future = pool.submit(_safe, _runtimes)  # the slowest probe (imports torch): first
        _preload()
        cpuinfo_future = pool.submit(_safe, _cpuinfo)
        compilers_future = pool.submit(_safe, compilers, config)
        gpus_future = pool.submit(_safe, gpus)
        slurm_future = pool.submit(_safe, _slurm_version)
        result = {
            "format": FORMAT,
            "twelveways_version": __version__,
            "time": _safe(_time),
            "host": {"hostname": _safe(socket.gethostname)},
            "os": _safe(operating_system),
            "python": _safe(python),
            "loadgen": _safe(loadgen),
            "environment_variables": variables,
            "git": _safe(git),
        }
        result["hardware"] = _safe(hardware, cpuinfo_future.result())
        result["compilers"] = compilers_future.result()
        runtimes = runtimes_future.result()
        result["mpi"] = _safe(mpi, config, runtimes if is_unavailable(runtimes) else runtimes.get(
            "mpi", unavailable("runtime probe returned no MPI section")))
        result["gpus"] = gpus_future.result()
        sched = _safe(scheduler)
        if isinstance(sched, dict):
            sched["slurm_version"] = slurm_future.result()
        result["scheduler"] = sched
    result["blas_openmp"] = runtimes if is_unavailable(runtimes) else runtimes.get(
        "threadpools", unavailable("runtime probe returned no threadpools"))
    if isinstance(result["blas_openmp"], list):
        pools = sorted(result["blas_openmp"], key=lambda p: json.dumps(p, sort_keys=True, default=str))
        result["blas_openmp"] = {"imported_before_inspection": runtimes.get("imported", []),
                                 "threadpools": pools}  # sorted: the loader's order varies between runs
    result["torch"] = runtimes if is_unavailable(runtimes) else runtimes.get(
        "torch", unavailable("runtime probe returned no torch section"))
    result["timer"] = _safe(timer)  # measured last, when the probes no longer compete for the CPU
    result["load"] = load
    result["capture_seconds"] = round(time.perf_counter() - started, 3)
    result["hash_excludes"] = dict(VOLATILE)
    result["hash"] = environment_hash(result)
    return result


def _excluded(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in VOLATILE)


def stable_view(capture: Mapping) -> dict:
    """The capture without volatile fields, the project path replaced by ``$PROJECT``."""
    root = str(PROJECT_ROOT)

    def clean(value, path):
        if isinstance(value, Mapping):
            return {k: clean(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()
                    if not _excluded(f"{path}.{k}" if path else str(k))}
        if isinstance(value, (list, tuple)):
            return [clean(v, path) for v in value]
        if isinstance(value, str) and root in value:
            return value.replace(root, "$PROJECT")
        return value

    return clean(capture, "")


def environment_hash(capture: Mapping) -> str:
    """sha256 of the canonical JSON of :func:`stable_view` (see :data:`VOLATILE`)."""
    from .results import canonical_hash

    return canonical_hash(stable_view(capture))


def differences(a: Mapping, b: Mapping, limit: int = 50) -> list[str]:
    """Dotted paths whose stable values differ between two captures."""
    found: list[str] = []

    def walk(x, y, path):
        if len(found) >= limit:
            return
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            for key in sorted(set(x) | set(y), key=str):
                walk(x.get(key, "<absent>"), y.get(key, "<absent>"), f"{path}.{key}" if path else str(key))
        elif x != y:
            found.append(path)

    walk(stable_view(a), stable_view(b), "")
    return found


def write(capture: Mapping, path: str | os.PathLike = DEFAULT_OUTPUT) -> Path:
    """Write atomically (temporary file in the same folder, then ``os.replace``)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise ResultsError(f"cannot write {path}", cause=exc) from exc
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the usual permissions
        with os.fdopen(fd, "w") as handle:
            json.dump(capture, handle, indent=2, sort_keys=True, default=str)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ResultsError(f"cannot write {path}", cause=exc) from exc
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read(path: str | os.PathLike) -> dict:
    """Read a capture written by :func:`write`."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ResultsError(f"cannot read environment capture {path}", cause=exc) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or "hash" not in data:
        raise ResultsError(f"{path} is not a twelveways environment capture ({FORMAT})")
    return data


def _load_config(path: str) -> dict:
    """The validated config from results/config.json (already validated) or a YAML file."""
    if path.endswith((".yaml", ".yml")):
        from .config import load

        return load(path)
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read config {path}", cause=exc) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
    return data


# --------------------------------------------------------------------------- command line

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="twelveways env",
        description="Capture the machine's hardware and software environment (SC15 rule 9).")
    parser.add_argument("--json", action="store_true", help="print the full capture as JSON (default: a summary)")
    parser.add_argument("--output", metavar="PATH", help="also write the capture here atomically (e.g. results/environment.json)")
    parser.add_argument("--artifact", metavar="PATH", help="also render the Artifact Description here (Markdown)")
    parser.add_argument("--config", metavar="PATH", help="validated config (results/config.json) or a YAML config")
    parser.add_argument("--label", default="start", help="label of the load snapshot (start, end); default start")
    parser.add_argument("--compare", metavar="PATH",
                        help="an earlier capture (the start of the run): copy its load snapshots and record what changed")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``twelveways env`` / ``python -m twelveways.env``; expected problems print one line, exit 1."""
    args = _parser().parse_args(argv)
    try:
        config = _load_config(args.config) if args.config else None
        earlier = read(args.compare) if args.compare else None
        result = capture(config, label=args.label)
        if earlier is not None:
            result["load"] = {**earlier.get("load", {}), **result["load"]}
            changed = differences(earlier, result)
            result["comparison"] = {"against": str(args.compare), "earlier_hash": earlier["hash"],
                                    "same_environment": earlier["hash"] == result["hash"], "differences": changed}
        if args.output:
            write(result, args.output)
            print(f"wrote {args.output} (environment hash {result['hash'][:16]})", file=sys.stderr)
        if args.artifact:
            from .env_render import write_artifact_description

            write_artifact_description(result, args.artifact, config)
            print(f"wrote {args.artifact}", file=sys.stderr)
        if args.json:
            json.dump(result, sys.stdout, indent=2, sort_keys=True, default=str)
            sys.stdout.write("\n")
        else:
            from .env_render import print_summary

            print_summary(result)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `twelveways env --json | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


main_env = main


if __name__ == "__main__":
    sys.exit(main())
