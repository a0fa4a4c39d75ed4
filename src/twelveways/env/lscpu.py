"""CPU facts as the OS reports them: ``lscpu -J`` (read once per process) and /proc/cpuinfo."""

from __future__ import annotations

import json

from .probe import Unavailable, read_text, run

_LSCPU_CACHE: dict | None = None


def _flatten(rows: list, flat: dict) -> dict:
    for item in rows:
        flat[item["field"].rstrip(":").strip()] = item.get("data")
        _flatten(item.get("children", []), flat)
    return flat


def lscpu() -> dict:
    """``lscpu -J`` as {field: value}, read once per process."""
    global _LSCPU_CACHE
    if _LSCPU_CACHE is None:
        _LSCPU_CACHE = _flatten(json.loads(run(["lscpu", "-J"]))["lscpu"], {})
    return _LSCPU_CACHE


def lscpu_field(name: str) -> str:
    try:
        info = lscpu()
    except Unavailable as exc:
        raise Unavailable(f"lscpu: {exc}") from None
    value = info.get(name)
    if value in (None, "", "-"):
        raise Unavailable(f"lscpu reports no '{name}'")
    return value


def proc_cpuinfo_field(name: str) -> str:
    for line in read_text("/proc/cpuinfo").splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower() and value.strip():
            return value.strip()
    raise Unavailable(f"/proc/cpuinfo has no '{name}' line")
