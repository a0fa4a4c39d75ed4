"""An environment capture as a typed, immutable model, checked once when it is read.

Why: the capture (``results/environment.json``, ``environment-end.json``, a ``--environment`` file) crosses a
file boundary, and the checks, the comparison and the report each used to walk it by raw keys
(``env["hardware"]["cpu"]["model"]``), each with its own guard.  Here every section the readers use is a
model with its fields' domains (counts positive whole numbers, sizes and frequencies finite and not
negative), :func:`load` is the one way from a file to a model, and a wrong type is one line naming the field
path and the file.  Readers then ask the model (:attr:`Capture.cpu_model`, :attr:`Capture.hash`, ...).

Three rules of the format hold in the model:

* **Every field may say why it is missing**: a probe that failed wrote ``{"unavailable": "<why>"}`` in
  place of its value (:mod:`.probe`); a section model then holds only ``unavailable``, a value is an
  :class:`Unavailable`.
* **Keys are kept**: captures of other versions and other machines add keys, so every model allows extra
  keys, and :meth:`Capture.to_dict` gives back exactly what was read; the content hash
  (``environment_hash``, :mod:`.hashing`) of ``to_dict()`` is the hash of the file.
* **Partial captures load**: every section is optional (a test or a hand-made file may hold only a hash).

The environment another format states (attr ``environment`` of an imported file: pyperf metadata, a Google
Benchmark context, ...) is flat facts under that format's own names: :class:`StatedEnvironment` keeps them
as they are.  :func:`description_of` gives the right one of the two for a value read from anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, ValidationError

from .. import inputs
from ..errors import ResultsError, TwelveWaysError
from ..evidence.machine import dotted
from ..oneline import error_line, shown
from .probe import is_unavailable

#: The capture's format, as ``twelveways env`` writes it.
FORMAT = "twelveways-environment/1"

#: The tags of the two branches of a field that may be unavailable (left out of error lines' field paths).
_KNOWN, _UNAVAILABLE = "<known>", "<unavailable>"


class Record(BaseModel):
    """Base: keys other versions add are kept; nothing changes after load."""

    model_config = ConfigDict(extra="allow", frozen=True)


class Unavailable(BaseModel):
    """A value the capture could not read, and why (``{"unavailable": "<why>"}`` in the file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unavailable: Annotated[str, Field(strict=True)]


class Section(Record):
    """A section of the capture; one its probe could not read holds only ``unavailable`` (the reason)."""

    unavailable: Annotated[str, Field(strict=True)] | None = None


def _finite_number(value):
    """A JSON number kept as written (an int stays an int: the content hash depends on it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{shown(value)} is not a number")
    if not math.isfinite(value):
        raise ValueError(f"{shown(value)} is not a finite number")
    return value


def _or_unavailable(value) -> str:
    """The branch of a value that may be unavailable: as read (a dict) or as held (the model, when written)."""
    return _UNAVAILABLE if isinstance(value, Unavailable) or is_unavailable(value) else _KNOWN


def maybe(kind):
    """``kind``, or :class:`Unavailable` where the file says why the value is missing."""
    return Annotated[Union[Annotated[kind, Tag(_KNOWN)], Annotated[Unavailable, Tag(_UNAVAILABLE)]],
                     Discriminator(_or_unavailable)]


#: A text as written (no number or null in its place).
Text = Annotated[str, Field(strict=True)]
#: A finite number zero or more, int or float as written (sizes in MiB, frequencies, times).
NonNegative = Annotated[Union[int, float], BeforeValidator(_finite_number), Field(ge=0)]
#: A whole number zero or more (a JSON integer: 2.0 is not a count).
Count = Annotated[int, Field(strict=True, ge=0)]
#: A whole number one or more (CPUs, sockets, NUMA nodes: a machine has at least one).
PositiveCount = Annotated[int, Field(strict=True, ge=1)]
#: A size in bytes.
Bytes = Count


def known(value):
    """``value``, or None where the capture says it is unavailable."""
    return None if isinstance(value, Unavailable) else value


class Host(Section):
    """Which running machine: its host name and the id of its boot."""

    hostname: maybe(Text) | None = None
    boot_id: maybe(Text) | None = None


class Cpu(Section):
    """The processor: model, vendor and counts."""

    model: maybe(Text) | None = None
    vendor: maybe(Text) | None = None
    architecture: maybe(Text) | None = None
    logical_cpus: maybe(PositiveCount) | None = None
    physical_cores: maybe(PositiveCount) | None = None
    sockets: maybe(PositiveCount) | None = None
    cores_per_socket: maybe(PositiveCount) | None = None
    threads_per_core: maybe(PositiveCount) | None = None
    usable_cpus: maybe(tuple[Count, ...]) | None = None


class Cache(Section):
    """One cache level (L1d, L2, ...): its size, line and associativity (0 ways: fully associative)."""

    size_bytes: maybe(Bytes) | None = None
    line_bytes: maybe(PositiveCount) | None = None
    ways: maybe(Count) | None = None


class Memory(Section):
    """Main memory: total, free at the capture, swap."""

    total_bytes: maybe(Bytes) | None = None
    available_bytes: maybe(Bytes) | None = None
    swap_total_bytes: maybe(Bytes) | None = None


class NumaNode(Section):
    """One NUMA node's memory."""

    memory_bytes: maybe(Bytes) | None = None


class Numa(Section):
    """NUMA nodes: how many, and each one's memory."""

    count: maybe(PositiveCount) | None = None
    nodes: maybe(dict[str, NumaNode]) | None = None


class Frequency(Section):
    """Frequency limits (MHz) and the scaling governor, each possibly unreadable (VMs, containers)."""

    governor: maybe(Text) | None = None
    max_mhz: maybe(NonNegative) | None = None
    min_mhz: maybe(NonNegative) | None = None
    scaling_max_mhz: maybe(NonNegative) | None = None
    scaling_min_mhz: maybe(NonNegative) | None = None


class Hardware(Section):
    """The machine: CPU, caches (by level name), memory, NUMA, frequency."""

    cpu: Cpu | None = None
    caches: maybe(dict[str, Cache]) | None = None
    memory: Memory | None = None
    numa: Numa | None = None
    frequency: Frequency | None = None


class GpuDevice(Section):
    """One GPU as nvidia-smi names it."""

    name: maybe(Text) | None = None


class Gpus(Section):
    """GPUs seen (none on a CPU-only machine)."""

    count: Count | None = None
    devices: tuple[GpuDevice, ...] | None = None


class Git(Section):
    """The project's own commit when the capture was made (provenance; left out of the hash)."""

    commit: maybe(Text) | None = None
    dirty: maybe(Annotated[bool, Field(strict=True)]) | None = None


class Timer(Section):
    """The clock the measurements use: resolution and overhead measured at the capture."""

    resolution_ns: maybe(NonNegative) | None = None
    overhead_ns: maybe(NonNegative) | None = None
    declared_resolution_s: maybe(NonNegative) | None = None


class LoadSample(Section):
    """The machine's load at one moment of the run (start, end)."""

    logical_cpus: maybe(PositiveCount) | None = None
    processes: maybe(Count) | None = None
    running: maybe(Count) | None = None
    loadavg: maybe(dict[str, NonNegative]) | None = None


class Python(Section):
    """The interpreter and its installed packages (name -> version)."""

    version: maybe(Text) | None = None
    packages: maybe(dict[str, Text]) | None = None


class Capture(Record):
    """A ``twelveways env`` capture; sections this model does not name (compilers, mpi, torch, ...) are kept
    as read."""

    format: Text | None = None
    twelveways_version: maybe(Text) | None = None
    hash: Text | None = None
    capture_seconds: NonNegative | None = None
    host: Host | None = None
    hardware: Hardware | None = None
    gpus: Gpus | None = None
    git: Git | None = None
    timer: Timer | None = None
    python: Python | None = None
    os: Section | None = None
    compilers: Section | None = None
    mpi: Section | None = None
    scheduler: Section | None = None
    blas_openmp: Section | None = None
    torch: Section | None = None
    loadgen: Section | None = None
    time: Section | None = None
    load: dict[str, LoadSample] | None = None
    environment_variables: maybe(dict[str, Text]) | None = None
    hash_excludes: dict[str, Text] | None = None

    kind: Literal["capture"] = Field(default="capture", exclude=True)

    def to_dict(self) -> dict:
        """The capture as it was read (or would be written): its content hash is the file's."""
        return self.model_dump(mode="json", exclude_unset=True)

    @property
    def cpu_model(self) -> str | None:
        cpu = self.hardware.cpu if self.hardware else None
        return _stated(known(cpu.model)) if cpu else None

    @property
    def logical_cpus(self) -> int | None:
        cpu = self.hardware.cpu if self.hardware else None
        return known(cpu.logical_cpus) if cpu else None

    @property
    def hostname(self) -> str | None:
        return _stated(known(self.host.hostname)) if self.host else None

    @property
    def boot_id(self) -> str | None:
        return _stated(known(self.host.boot_id)) if self.host else None

    @property
    def gpu_names(self) -> list[str]:
        """The names of the GPUs the capture lists (none on a CPU-only machine)."""
        devices = self.gpus.devices if self.gpus and self.gpus.devices else ()
        return sorted({str(known(device.name)) for device in devices if known(device.name) is not None})

    @property
    def git_commit(self) -> str | None:
        return _stated(known(self.git.commit)) if self.git else None

    @property
    def git_dirty(self) -> bool | None:
        return known(self.git.dirty) if self.git else None

    @property
    def last_level_cache_bytes(self) -> int | None:
        """The largest cache of the captured CPU (None where no cache size was captured)."""
        caches = known(self.hardware.caches) if self.hardware else None
        sizes = [known(cache.size_bytes) for cache in (caches or {}).values()]
        sizes = [size for size in sizes if size]
        return max(sizes) if sizes else None


def _stated(value):
    """None for an empty text: a field that states nothing."""
    return None if value in (None, "") else value


#: Where other formats state each identity fact (dotted paths into their flat or nested facts), first found wins.
STATED_KEYS = {
    "hostname": ("host.hostname", "hostname"),
    "boot_id": ("host.boot_id", "boot_id"),
    "cpu_model": ("hardware.cpu.model", "cpu_model", "cpu", "processor", "hardware.cpu"),
    "logical_cpus": ("hardware.cpu.logical_cpus", "num_cpus", "cpu_count"),
}


class StatedEnvironment(Record):
    """The environment facts another format states (attr ``environment`` of an imported file), under that
    format's own names (``hostname``, ``num_cpus``, ``cpu_model_name``, ...): kept as stated."""

    kind: Literal["stated"] = Field(default="stated", exclude=True)

    def to_dict(self) -> dict:
        return self.model_dump(mode="json", exclude_unset=True)

    def _first(self, fact: str, usable) -> Any:
        facts = self.to_dict()
        values = (dotted(facts, path) for path in STATED_KEYS[fact])
        return next((value for value in values if usable(value)), None)

    @property
    def hash(self) -> str | None:
        """A stated description carries no capture hash of its own."""
        return None

    @property
    def hostname(self):
        return self._first("hostname", _stated_value)

    @property
    def boot_id(self):
        return self._first("boot_id", _stated_value)

    @property
    def logical_cpus(self):
        return self._first("logical_cpus", _stated_value)

    @property
    def cpu_model(self) -> str | None:
        value = self._first("cpu_model", lambda v: isinstance(v, (str, int, float)) and str(v).strip())
        return None if value is None else str(value)

    @property
    def gpu_names(self) -> list[str]:
        devices = dotted(self.to_dict(), "gpus.devices")
        devices = devices if isinstance(devices, list) and all(isinstance(d, Mapping) for d in devices) else []
        return sorted({str(d["name"]) for d in devices if "name" in d and not isinstance(d["name"], (Mapping, list))})


def _stated_value(value) -> bool:
    """A fact that states something: present, not empty, not a reason why it is missing."""
    return value not in (None, "") and not is_unavailable(value)


#: A description of one environment: a capture, or the facts another format states.
Description = Union[Capture, StatedEnvironment]


def from_dict(data: Any, where: str, error: type[TwelveWaysError] = ResultsError) -> Capture:
    """The capture in ``data`` (parsed JSON), typed; else one ``error`` line naming the file and the field."""
    if not isinstance(data, Mapping):
        raise error(f"{where}: environment capture: the top level is {shown(data)}, not an object")
    try:
        return Capture.model_validate(data)
    except ValidationError as exc:
        line = error_line(exc, hide=(_KNOWN, _UNAVAILABLE))
        raise error(f"{where}: environment capture: {line}"[:400]) from None


def load(path, label: str = "environment capture", error: type[TwelveWaysError] = ResultsError) -> Capture:
    """The capture stored at ``path`` (``results/environment.json``, a ``--environment`` file), checked; the
    one way from a file to a capture (``error``: the type the caller's command reports unusable input with)."""
    return from_dict(inputs.read_json_object(path, label, error), str(path), error)


def description_of(value: Any, where: str, error: type[TwelveWaysError] = ResultsError) -> Description | None:
    """A description read from a results file's attributes: a ``twelveways env`` capture (it names its
    format) as :class:`Capture`, other facts as :class:`StatedEnvironment`; None where nothing is stated."""
    if not isinstance(value, Mapping) or not value:
        return None
    if value.get("format") == FORMAT:
        return from_dict(value, where, error)
    return StatedEnvironment.model_validate(value)


def as_description(description: Description | Mapping | None) -> Description | None:
    """A description as a model (a mapping given by a caller that builds facts itself, e.g. the A/B run's)."""
    if description is None or isinstance(description, (Capture, StatedEnvironment)):
        return description
    return description_of(description, "environment description")


def as_dict(description: Description | Mapping | None) -> Mapping:
    """The description's facts as a mapping (for field-by-field diffs), ``{}`` for none."""
    if isinstance(description, (Capture, StatedEnvironment)):
        return description.to_dict()
    return description or {}
