"""Is the machine busy while we measure?  Load average, CPU steal and other processes' CPU share.

Why: on a shared or virtual machine, a neighbour's work or the hypervisor's steal slows some
invocations and not others; a comparison that does not say so blames the code.  A
:class:`Sampler` runs beside a stage (a daemon thread reading ``/proc/loadavg`` and ``/proc/stat``
every ``interval`` seconds) and summarizes: mean and largest 1-minute load, the CPU count, the
share of CPU time stolen by the hypervisor, and the share of the machine's CPU time used by
processes other than this one and its finished children (``/proc/self/stat``).  The summary is
stored in the stage's results attrs (``contention``, read back as the typed record
:class:`~twelveways.evidence.attributes.Contention`); where it is absent (older files, other
formats) it is unknown and said so.  :func:`busy_reason` names a busy machine as a cause, as in
"load 4.9 on 2 cores during the PRK stage: rerun on an idle machine".
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from .evidence.attributes import Contention

#: A machine is called busy when other processes used at least this share of its CPU time ...
BUSY_OTHERS_SHARE = 0.10
#: ... or the hypervisor stole at least this share ...
BUSY_STEAL_SHARE = 0.05
#: ... or the mean 1-minute load exceeded the CPU count by this factor (the stage itself fills the CPUs).
BUSY_LOAD_FACTOR = 1.5
UNKNOWN = "machine load unknown (not recorded with these results)"


def _cpu_times(stat: Path = Path("/proc/stat")) -> tuple[float, float, float] | None:
    """(busy, steal, total) jiffies of all CPUs, or None where /proc/stat is not readable."""
    try:
        fields = stat.read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    values = [float(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)
    steal = values[7] if len(values) > 7 else 0.0
    total = sum(values[:8])
    return total - idle - steal, steal, total


def _own_jiffies() -> float:
    """CPU time of this process and its waited-for children, in jiffies."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return sum(float(v) for v in fields[11:15])  # utime, stime, cutime, cstime


class Sampler:
    """Context manager sampling the machine's load while a stage runs (module docstring)."""

    def __init__(self, stage: str, interval: float = 1.0):
        self.stage, self.interval = stage, interval
        self.loads: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._start: tuple | None = None
        self._started_s = 0.0

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.loads.append(os.getloadavg()[0])

    def __enter__(self) -> Sampler:
        self._start = snapshot()
        self._started_s = time.perf_counter()
        self.loads.append(os.getloadavg()[0])
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.loads.append(os.getloadavg()[0])
        self.summary = summarize(self.stage, self.loads, self._start, snapshot(),
                                 time.perf_counter() - self._started_s)


def snapshot() -> tuple:
    """One reading of the machine's and this process's CPU time: what :func:`shares` takes two of."""
    return _cpu_times(), _own_jiffies()


def shares(start: tuple, end: tuple) -> dict:
    """Steal and other processes' share of the machine's CPU time between two :func:`snapshot` readings (None
    where /proc/stat is unreadable or no time passed): one invocation's load, or a whole stage's."""
    (cpu0, own0), (cpu1, own1) = start, end
    if not (cpu0 and cpu1 and cpu1[2] > cpu0[2]):
        return {"steal_share": None, "others_share": None}
    total = cpu1[2] - cpu0[2]
    return {"steal_share": round((cpu1[1] - cpu0[1]) / total, 4),
            "others_share": round(max(0.0, (cpu1[0] - cpu0[0]) - (own1 - own0)) / total, 4)}


def window_ticks(start: tuple, end: tuple) -> float:
    """CPU time (jiffies, summed over the CPUs) between two :func:`snapshot` readings: how finely a share is known
    (one jiffy is 10 ms; a window of a few jiffies gives a share of 0 % or 100 %)."""
    (cpu0, _), (cpu1, _) = start, end
    return float(cpu1[2] - cpu0[2]) if cpu0 and cpu1 else 0.0


def is_busy(share: Mapping) -> bool:
    """True when other processes or the hypervisor took a busy share (the thresholds above) of the CPU time."""
    others, steal = share.get("others_share"), share.get("steal_share")
    return (others is not None and others >= BUSY_OTHERS_SHARE) or (steal is not None and steal >= BUSY_STEAL_SHARE)


def summarize(stage: str, loads: list[float], start: tuple, end: tuple, seconds: float) -> dict:
    """The stored record: loads, steal and other processes' share between two /proc readings."""
    record = {"stage": stage, "cpus": os.cpu_count() or 1, "seconds": round(seconds, 2), "samples": len(loads),
              "load_mean": round(sum(loads) / len(loads), 2), "load_max": round(max(loads), 2),
              "steal_share": None, "others_share": None, "source": "/proc/loadavg, /proc/stat, /proc/self/stat"}
    record.update(shares(start, end))
    return record


def record_of(record: Contention | Mapping | None) -> Contention | None:
    """The typed record (:class:`~twelveways.evidence.attributes.Contention`) of a stored or just-sampled one;
    None when nothing was recorded (absent or empty)."""
    if isinstance(record, Mapping):
        record = Contention.model_validate(dict(record)) if record else None
    return record if record is not None and (record.model_fields_set or record.model_extra) else None


def busy_reason(record: Contention | Mapping | None) -> str | None:
    """"load 4.9 on 2 cores during the PRK stage: rerun on an idle machine" when the record shows a busy
    machine; None when it was quiet or nothing was recorded (see :func:`describe`)."""
    record = record_of(record)
    if record is None:
        return None
    cpus, load = record.cpus or 1, float(record.load_mean or 0.0)
    others, steal = record.others_share, record.steal_share
    causes = []
    if load > BUSY_LOAD_FACTOR * cpus:
        causes.append(f"load {load:.1f} on {cpus} cores")
    if others is not None and others >= BUSY_OTHERS_SHARE:
        causes.append(f"other processes used {others:.0%} of the CPU time")
    if steal is not None and steal >= BUSY_STEAL_SHARE:
        causes.append(f"the hypervisor stole {steal:.0%} of the CPU time")
    if not causes:
        return None
    return f"{' and '.join(causes)} during the {record.stage if 'stage' in record.model_fields_set else 'run'}: " \
           "rerun on an idle machine"


def describe(record: Contention | Mapping | None) -> str:
    """One line for any record: busy (with its cause), quiet (with its load), or unknown."""
    record = record_of(record)
    if record is None:
        return UNKNOWN
    busy = busy_reason(record)
    if busy:
        return busy
    return f"quiet: load {float(record.load_mean or 0):.1f} on {record.cpus} cores during the {record.stage}"
