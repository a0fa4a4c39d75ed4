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

from collections.abc import Mapping

from .. import envdiff

SAME_MACHINE, SAME_HARDWARE, OTHER_HARDWARE, UNKNOWN = ("same machine", "same hardware", "different hardware",
                                                        "unknown")
#: Kinds of metric that are absolute (depend on the machine) rather than portable ratios.
ABSOLUTE_KINDS = ("cost", "rate")


def identity(description: Mapping | None) -> dict:
    """Host name, boot id, CPU model and logical CPU count of one capture (None where not stated)."""
    leaves = envdiff.flatten(description or {}, include_volatile=True)

    def pick(*keys):
        return next((leaves[k] for k in keys if leaves.get(k) not in (None, "")), None)

    return {"hostname": pick("host.hostname", "hostname"), "boot_id": pick("host.boot_id", "boot_id"),
            "cpu": envdiff.device_name(description or {}) or None,
            "cpus": pick("hardware.cpu.logical_cpus", "num_cpus", "cpu_count")}


def relation(base: Mapping | None, new: Mapping | None) -> tuple[str, str]:
    """(relation, why) of two captures: same machine, same hardware, different hardware or unknown."""
    a, b = identity(base), identity(new)
    if not a["cpu"] or not b["cpu"]:
        return UNKNOWN, "a side has no environment capture stating its CPU"
    if (a["cpu"], a["cpus"]) != (b["cpu"], b["cpus"]):
        return OTHER_HARDWARE, f"different CPU: {a['cpu']} ({a['cpus']} CPUs) and {b['cpu']} ({b['cpus']} CPUs)"
    if a["boot_id"] and a["boot_id"] == b["boot_id"]:
        return SAME_MACHINE, f"same running machine (host {a['hostname']}, boot {str(a['boot_id'])[:8]}, {a['cpu']})"
    where = "another boot or host" if a["boot_id"] and b["boot_id"] else "boot id not recorded on both sides"
    return SAME_HARDWARE, f"same CPU {a['cpu']} ({a['cpus']} CPUs; {where})"


def not_comparable(why: str) -> str:
    """The outcome of an absolute value on different hardware."""
    return f"Not comparable: {why.split(':')[0]}"
