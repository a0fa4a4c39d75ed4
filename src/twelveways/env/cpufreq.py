"""Frequency scaling and turbo/boost: what makes a CPU's clock speed vary between runs."""

from __future__ import annotations

from pathlib import Path

from .lscpu import lscpu_field
from .probe import Unavailable, first_of, read_text, safe

_POLICY = Path("/sys/devices/system/cpu/cpu0/cpufreq")
_MISSING = f"{_POLICY} does not exist: the kernel exposes no frequency scaling (usual in VMs and containers)"


def _sysfs(name: str) -> str:
    if not _POLICY.is_dir():
        raise Unavailable(_MISSING)
    return read_text(_POLICY / name)


def _governors() -> dict:
    seen: dict = {}
    for path in sorted(Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor")):
        seen.setdefault(read_text(path), []).append(path.parent.parent.name)
    if not seen:
        raise Unavailable(_MISSING)
    return seen


def _khz_to_mhz(name: str, lscpu_name: str) -> float:
    return first_of(lambda: int(_sysfs(name)) / 1000.0, lambda: float(lscpu_field(lscpu_name)))


def frequency() -> dict:
    """Governor, scaling driver and min/max frequency (cpufreq in /sys, lscpu as a fallback)."""
    return {
        "governor": safe(_sysfs, "scaling_governor"),
        "governors_by_cpu": safe(_governors),
        "scaling_driver": safe(_sysfs, "scaling_driver"),
        "energy_performance_preference": safe(_sysfs, "energy_performance_preference"),
        "min_mhz": safe(_khz_to_mhz, "cpuinfo_min_freq", "CPU min MHz"),
        "max_mhz": safe(_khz_to_mhz, "cpuinfo_max_freq", "CPU max MHz"),
        "scaling_min_mhz": safe(lambda: int(_sysfs("scaling_min_freq")) / 1000.0),
        "scaling_max_mhz": safe(lambda: int(_sysfs("scaling_max_freq")) / 1000.0),
    }


def boost() -> dict:
    """Turbo/boost state from whichever interface the driver offers."""
    checked = []
    for path, enabled_when in (("/sys/devices/system/cpu/intel_pstate/no_turbo", "0"),
                               ("/sys/devices/system/cpu/cpufreq/boost", "1"),
                               ("/sys/devices/system/cpu/cpu0/cpufreq/boost", "1")):
        checked.append(path)
        if Path(path).exists():
            value = read_text(path)
            return {"enabled": value == enabled_when, "source": path, "raw": value}
    raise Unavailable("no boost control found (checked " + ", ".join(checked) + ")")
