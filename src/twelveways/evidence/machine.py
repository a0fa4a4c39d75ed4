"""Which machine a result came from: its identity apart from its software.

Two environment descriptions are one machine when they agree on every identity field both
state (host name, boot id or boot time, CPU model, CPU count) and state at least a host name
and a CPU model: a different Python build or OS string on the same booted host is a software
difference, not a second machine.  Field names follow the formats read (pyperf metadata,
Google Benchmark context, our environment capture).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: identity field -> the keys that state it, in the formats read
IDENTITY_KEYS = {
    "hostname": ("hostname", "host_name", "system.hostname", "node"),
    "boot": ("boot_id", "boot_time", "system.boot_id"),
    "cpu_model": ("cpu_model_name", "cpu_model", "hardware.cpu.model_name", "hardware.cpu.model"),
    "cpu_count": ("cpu_count", "num_cpus", "hardware.cpu.count", "hardware.cpu.logical_cpus"),
}


def dotted(facts: Mapping, path: str):
    """The value at a dotted path of nested facts (``hardware.cpu.count``), None where a part is missing."""
    value = facts
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


@dataclass(frozen=True)
class MachineIdentity:
    """The identity fields one environment description states (None where it states none)."""

    hostname: str | None = None
    boot: str | None = None
    cpu_model: str | None = None
    cpu_count: str | None = None

    @classmethod
    def of(cls, description: Mapping | None) -> "MachineIdentity":
        found = {}
        for field, keys in IDENTITY_KEYS.items():
            values = [dotted(description or {}, key) for key in keys]
            value = next((v for v in values if v not in (None, "")), None)
            found[field] = None if value is None else str(value).strip()
        return cls(**found)

    def same_machine(self, other: "MachineIdentity") -> bool:
        """True when both name host and CPU model and agree on every identity field both state."""
        if None in (self.hostname, self.cpu_model, other.hostname, other.cpu_model):
            return False
        pairs = zip((self.hostname, self.boot, self.cpu_model, self.cpu_count),
                    (other.hostname, other.boot, other.cpu_model, other.cpu_count))
        return all(a == b for a, b in pairs if a is not None and b is not None)

    def describe(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in vars(self).items() if v is not None) or "no identity fields"
