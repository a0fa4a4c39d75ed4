"""Stall time from Linux's pressure stall information (``/proc/pressure/*``): why a timed run was slow.

Why: on a VM the disk's speed and the host's reclaim of the page cache vary by the hour (a cold
``make report`` took 206 s one morning and 281 s two hours later, the same commit and a quiet CPU,
with tasks waiting on I/O for up to half of each 10 s).  The load average does not tell a
computing task from one waiting on the disk; PSI's "some" total counts the microseconds in which at
least one task was stalled on the resource, so a bench figure can say whether its run waited.
"""

from __future__ import annotations

from pathlib import Path

PRESSURE = Path("/proc/pressure")
RESOURCES = ("io", "cpu", "memory")


def totals(folder: Path = PRESSURE) -> dict[str, int]:
    """Microseconds stalled so far per resource ("some" line); a resource the kernel does not report is left out."""
    found = {}
    for resource in RESOURCES:
        try:
            lines = (folder / resource).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
            if line.startswith("some") and fields.get("total", "").isdigit():
                found[resource] = int(fields["total"])
    return found


def stalled(start: dict[str, int], end: dict[str, int], seconds: float) -> dict:
    """Per resource, the seconds some task was stalled between two :func:`totals` and their share of ``seconds``."""
    if not start or seconds <= 0:
        return {"unavailable": "no /proc/pressure on this kernel (Linux 4.20+ with PSI enabled)"}
    return {resource: {"stalled_s": round((end[resource] - start[resource]) / 1e6, 1),
                       "share": round((end[resource] - start[resource]) / 1e6 / seconds, 3)}
            for resource in start if resource in end}
