"""GPUs: NVIDIA devices through nvidia-smi, and an explicit 'none found' without it."""

from __future__ import annotations

import shutil

from .probe import Unavailable, run

_FIELDS = ["index", "name", "driver_version", "memory.total", "pci.bus_id", "compute_cap"]


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


def _no_nvidia_smi() -> dict:
    other = [tool for tool in ("rocm-smi", "xpu-smi") if shutil.which(tool)]
    note = "nvidia-smi not found on PATH: no NVIDIA GPU visible (CPU-only run)"
    if other:
        note += f"; other GPU tools present but not queried: {', '.join(other)}"
    return {"count": 0, "devices": [], "note": note}


def gpus() -> dict:
    """NVIDIA GPUs via nvidia-smi; an explicit 'none found' when there is no nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return _no_nvidia_smi()
    fields = list(_FIELDS)
    try:
        text = run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
    except Unavailable:  # older drivers lack compute_cap
        fields = fields[:-1]
        text = run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
    devices = parse_nvidia_smi(text, fields)
    return {"count": len(devices), "devices": devices, "source": "nvidia-smi (memory.total in MiB)"}
