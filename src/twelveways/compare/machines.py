"""Same machine, same hardware, or another CPU?  What may be compared between two runs.

Why: absolute times from two CPUs differ for reasons that say nothing about the artifact, so
"Reproduced" or "Not reproduced" on them is chance; what carries across machines are the
claims and the portable quantities (speedups, efficiencies, ratios between implementations).
Identity comes from the environment captures: the boot id (``host.boot_id``: the same running
machine; host names of containers and VMs repeat), CPU model and logical CPU count (the same
hardware).  Same machine or same hardware: every number is compared; different hardware: claims
and portable quantities are judged and absolute values are "not comparable".  A capture without these facts leaves the
relation unknown, and the comparison says so rather than guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import envdiff
from ..env.capture_model import Description

SAME_MACHINE, SAME_HARDWARE, OTHER_HARDWARE, UNKNOWN = ("same machine", "same hardware", "different hardware",
                                                        "unknown")
#: Kinds of metric that are absolute (depend on the machine) rather than portable ratios.
ABSOLUTE_KINDS = ("cost", "rate")


@dataclass(frozen=True)
class Identity:
    """Host name, boot id, CPU (and GPU) names and logical CPU count of one side (None where not stated)."""

    hostname: str | None = None
    boot_id: str | None = None
    cpu: str | None = None
    cpus: int | None = None


def identity(description: Description | None) -> Identity:
    """The identity one side's environment description states."""
    if description is None:
        return Identity()
    return Identity(description.hostname, description.boot_id, envdiff.device_name(description) or None,
                    description.logical_cpus)


def relation(base: Description | None, new: Description | None) -> tuple[str, str]:
    """(relation, why) of two captures: same machine, same hardware, different hardware or unknown."""
    a, b = identity(base), identity(new)
    if not a.cpu or not b.cpu:
        return UNKNOWN, "a side has no environment capture stating its CPU"
    if (a.cpu, a.cpus) != (b.cpu, b.cpus):
        return OTHER_HARDWARE, f"different CPU: {a.cpu} ({a.cpus} CPUs) and {b.cpu} ({b.cpus} CPUs)"
    if a.boot_id and a.boot_id == b.boot_id:
        return SAME_MACHINE, f"same running machine (host {a.hostname}, boot {str(a.boot_id)[:8]}, {a.cpu})"
    where = "another boot or host" if a.boot_id and b.boot_id else "boot id not recorded on both sides"
    return SAME_HARDWARE, f"same CPU {a.cpu} ({a.cpus} CPUs; {where})"


def not_comparable(why: str) -> str:
    """The outcome of an absolute value on different hardware."""
    return f"Not comparable: {why.split(':')[0]}"
