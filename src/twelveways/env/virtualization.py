"""Virtual machine and container detection, with the evidence each verdict rests on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .lscpu import lscpu_field
from .probe import Unavailable, read_text, run, safe

_CONTAINER_FILES = {"/.dockerenv": "docker", "/run/.containerenv": "podman"}
_CGROUP_WORDS = ("docker", "kubepods", "lxc", "containerd", "libpod")


def _detect_virt(flag: str) -> str | None:
    """systemd-detect-virt's verdict; None when it is missing or fails for another reason."""
    try:
        out = run(["systemd-detect-virt", flag], timeout=5) if shutil.which("systemd-detect-virt") else None
        return out.strip() if out else None
    except Unavailable as exc:  # exits 1 with "none" when nothing is detected
        return "none" if "exited 1" in str(exc) else None


def _vm(evidence: list[str]) -> tuple[str, str | None]:
    """(virtual machine, hypervisor vendor or None), appending what was seen to ``evidence``."""
    vm = _detect_virt("--vm")
    if vm is not None:
        evidence.append(f"systemd-detect-virt --vm: {vm}")
    try:
        hyper = lscpu_field("Hypervisor vendor")
        evidence.append(f"lscpu hypervisor vendor: {hyper}")
    except Unavailable:
        hyper = None
    if vm is None:
        flags = safe(lambda: lscpu_field("Flags").split())
        vm = (hyper or "unknown hypervisor") if (hyper or (isinstance(flags, list) and "hypervisor" in flags)) else "none"
    return vm, hyper


def _container(evidence: list[str]) -> str | None:
    """The container runtime (or None), appending what was seen to ``evidence``."""
    container = _detect_virt("--container")
    if container is not None:
        evidence.append(f"systemd-detect-virt --container: {container}")
    for path, name in _CONTAINER_FILES.items():
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
    cgroup = safe(read_text, "/proc/1/cgroup")
    if isinstance(cgroup, str):
        for word in _CGROUP_WORDS:
            if word in cgroup:
                evidence.append(f"/proc/1/cgroup mentions {word}")
                if container in (None, "none"):
                    container = word
                break
    return container


def virtualization() -> dict:
    """Virtual machine and container detection, with the evidence used."""
    evidence: list[str] = []
    vm, hyper = _vm(evidence)
    container = _container(evidence)
    return {
        "vm": vm,
        "container": container or "none",
        "hypervisor_vendor": hyper or "none",
        "virtualization_type": safe(lambda: lscpu_field("Virtualization type")) if hyper else "none",
        "evidence": evidence,
    }
