"""Operating system, clock and time zone, load, the timer, and the variables that steer the runs."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

from .probe import Unavailable, fail, is_unavailable, read_text, safe, unavailable

#: Environment variables worth recording: prefixes, and exact names.
ENV_PREFIXES = ("OMP_", "GOMP_", "KMP_", "OPENBLAS_", "GOTO_", "MKL_", "BLIS_", "VECLIB_", "NUMEXPR_",
                "MPICH_", "MPIR_", "MPIEXEC_", "I_MPI_", "OMPI_", "PMI_", "PMIX_", "HYDRA_", "UCX_", "FI_",
                "CUDA_", "NVIDIA_", "ROCR_", "HIP_", "SLURM_", "SBATCH_", "SRUN_", "TORCH_", "PYTORCH_",
                "MPI_LOCAL")
ENV_NAMES = ("LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHASHSEED", "TZ", "MALLOC_ARENA_MAX")


def read_os_release() -> dict:
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        if Path(path).exists():
            fields = {}
            for line in read_text(path).splitlines():
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


def _release_field(release: dict, key: str) -> str:
    if is_unavailable(release):
        raise Unavailable(release["unavailable"])
    if key not in release:
        raise Unavailable(f"os-release has no {key}")
    return release[key]


def _distribution(release: dict) -> str:
    if is_unavailable(release):
        raise Unavailable(release["unavailable"])
    return release.get("PRETTY_NAME") or f"{release.get('NAME', '?')} {release.get('VERSION', '')}".strip()


def operating_system() -> dict:
    release = safe(read_os_release)
    return {
        "distribution": safe(_distribution, release),
        "id": safe(_release_field, release, "ID"),
        "version_id": safe(_release_field, release, "VERSION_ID"),
        "kernel_release": platform.release() or unavailable("platform.release() is empty"),
        "kernel_version": platform.version() or unavailable("platform.version() is empty"),
        "glibc": safe(_glibc),
        "clocksource": safe(read_text, "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "aslr": safe(read_text, "/proc/sys/kernel/randomize_va_space"),
        "isolated_cpus": safe(read_text, "/sys/devices/system/cpu/isolated"),
        "nohz_full": safe(read_text, "/sys/devices/system/cpu/nohz_full"),
    }


def _loadavg() -> dict:
    one, five, fifteen = os.getloadavg()
    return {"1min": one, "5min": five, "15min": fifteen}


def _process_count() -> int:
    import psutil

    return len(psutil.pids())


def _running() -> int:
    fields = read_text("/proc/loadavg").split()
    return int(fields[3].split("/")[0])


def load_at(label: str) -> dict:
    """Load average and process counts now, labelled (the workflow records 'start' and 'end')."""
    return {
        "label": label,
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "loadavg": safe(_loadavg),
        "processes": safe(_process_count),
        "running": safe(_running),
        "logical_cpus": os.cpu_count() or unavailable("os.cpu_count() is None"),
    }


def _zone_name(local: datetime) -> str:
    if os.environ.get("TZ"):
        return os.environ["TZ"]
    try:
        return read_text("/etc/timezone")
    except Unavailable:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            return link.split("zoneinfo/", 1)[1]
        return local.tzname() or fail("no TZ, /etc/timezone or /etc/localtime")


def time_now() -> dict:
    """The moment of capture in UTC, with the local zone and offset."""
    now = datetime.now(timezone.utc)
    local = now.astimezone()
    return {"utc": now.isoformat(timespec="seconds"), "timezone": safe(_zone_name, local),
            "utc_offset": local.strftime("%z")}


def timer() -> dict:
    from ..measure import timer_properties

    return timer_properties()


def environment_variables(environ: Mapping[str, str] | None = None) -> dict:
    """Variables that change how the benchmarks run (threads, BLAS, MPI, CUDA, SLURM)."""
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in sorted(environ) if k.startswith(ENV_PREFIXES) or k in ENV_NAMES}
