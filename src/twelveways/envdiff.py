"""Field-level difference of two environment descriptions, each field classified.

Why: "the results come from two environments" says nothing about *what* differs.  Two captures
of one machine that differ only in compiler flags or the kernel release do not compare hardware
(fallacy F8); two captures with another CPU model do.  :func:`diff` names every differing field
with its class, so a reader (the checklist, ``twelveways compare``) can judge each kind apart.

Inputs are dicts: a ``twelveways env`` capture (``results/environment.json``, nested sections
``hardware``, ``gpus``, ``os``, ``compilers``, ``python``, ...) or the flat facts another format
states (a Google Benchmark ``context``, an import-csv ``environment``: ``num_cpus``, ``cpu``,
``cflags``, ...).  Nested dicts become dotted paths, lists of dicts become ``path[i].key``; a
field that could not be read (``{"unavailable": why}``) is one leaf.  Fields that change from
moment to moment (``env.VOLATILE``: times, load, the hash, per-job thread variables) are left out.

Classes (:data:`CLASSES`): ``hardware`` (CPU/GPU model, core counts, caches, memory size, NUMA),
``system`` (OS, kernel, host, virtualization, scheduler, timer), ``toolchain`` (compilers, their
flags, build type), ``libraries`` (Python and its packages, torch, MPI, BLAS/OpenMP, LoadGen,
versions), ``settings`` (environment variables, frequency governor, turbo, cgroup limits, usable
CPUs, SMT, ASLR, isolated CPUs), else ``other``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping

from .env import VOLATILE
from .env.capture_model import Description, as_description, as_dict

CLASSES = ("hardware", "system", "toolchain", "libraries", "settings", "other")
#: Volatile fields of foreign formats (Google Benchmark's context) besides ``env.VOLATILE``.
FOREIGN_VOLATILE = ("date", "load_avg", "executable", "json_schema_version")
ABSENT = None

def _words(alternatives: str) -> str:
    """A pattern matching any of ``alternatives`` as a whole ``_``-separated word of a key."""
    return rf"(^|_)({alternatives})(_|$)"


#: (pattern on the dotted path without list indices, class): the first match wins.
_PATH_RULES = [
    (r"^hardware\.(frequency|boost)(\.|$)", "settings"),
    (r"^hardware\.memory\.(cgroup|swap_total_bytes)(\.|$)", "settings"),
    (r"^hardware\.cpu\.(usable_cpus|smt)(\.|$)", "settings"),
    (r"^hardware\..*(shared_cpu_list|cpulist)$", "settings"),
    (r"^hardware\.cpu\.cpuinfo\.cpuinfo_version", "libraries"),
    (r"^hardware\.virtualization(\.|$)", "system"),
    (r"^hardware(\.|$)", "hardware"),
    (r"^gpus\.devices\.driver_version$", "system"),
    (r"^gpus\.note$", "other"),
    (r"^gpus(\.|$)", "hardware"),
    (r"^os\.(aslr|isolated_cpus|nohz_full|clocksource)(\.|$)", "settings"),
    (r"^(os|host|scheduler|timer|time)(\.|$)", "system"),
    (r"^compilers(\.|$)", "toolchain"),
    (r"^python\.(compiler|build)$", "toolchain"),
    (r"^environment_variables(\.|$)", "settings"),
    (r"^(python|torch|mpi|blas_openmp|loadgen|twelveways_version)(\.|$)", "libraries"),
]
#: For flat foreign facts: (pattern on the last key, class), the first match wins.
_KEY_RULES = [
    (r"(cflags|cxxflags|ldflags|fflags|compile_flags|optimi[sz]ation|march|mtune|build_type)", "toolchain"),
    (r"(compiler|^cc$|^cxx$|gcc|clang|nvcc|icc|icx)", "toolchain"),
    (r"(governor|scaling_enabled|turbo|boost|^omp_|_threads$|num_threads|affinity|hugepage|aslr)", "settings"),
    (_words("kernel|os|distribution|distro|glibc|hostname|host_name|host|hypervisor|virtualization|scheduler"),
     "system"),
    (_words("cpus?|gpus?|cores?|sockets?|processors?|memory|ram|mhz|ghz|caches?|numa|devices?|accelerators?"
            "|platform|node_type"), "hardware"),
    (_words("version|library|packages?|driver|cuda|cudnn|nccl|mpi|blas|mkl|torch|loadgen"), "libraries"),
]


def classify(field: str) -> str:
    """Class of a dotted field path (see the module docstring); foreign keys by their name."""
    path = re.sub(r"\[\d+\]", "", field).lower()
    for pattern, cls in _PATH_RULES:
        if re.search(pattern, path):
            return cls
    last = path.rsplit(".", 1)[-1]
    for pattern, cls in _KEY_RULES:
        if re.search(pattern, last):
            return cls
    return "other"


def _volatile(path: str) -> bool:
    plain = re.sub(r"\[\d+\]", "", path)
    if plain in FOREIGN_VOLATILE:
        return True
    return any(fnmatch.fnmatchcase(plain, pattern) or plain.startswith(pattern + ".") for pattern in VOLATILE)


def flatten(description: Description | Mapping | None, include_volatile: bool = False) -> dict:
    """{dotted path: leaf value} of an environment description (see the module docstring)."""
    leaves: dict = {}

    def walk(value, path: str) -> None:
        if path and not include_volatile and _volatile(path):
            return
        if isinstance(value, Mapping) and set(value) != {"unavailable"} and value:
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Mapping) for v in value):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        else:
            leaves[path] = list(value) if isinstance(value, tuple) else value

    walk(as_dict(description), "")
    return leaves


def diff(a: Mapping, b: Mapping, include_volatile: bool = False) -> list[dict]:
    """Every field whose value differs: ``[{field, class, a, b}]`` sorted by class then field.

    A field present on one side only has ``None`` on the other.  Volatile fields are left out
    unless ``include_volatile``.
    """
    left, right = flatten(a, include_volatile), flatten(b, include_volatile)
    found = [{"field": path, "class": classify(path), "a": left.get(path, ABSENT), "b": right.get(path, ABSENT)}
             for path in set(left) | set(right) if left.get(path, ABSENT) != right.get(path, ABSENT)]
    return sorted(found, key=lambda d: (CLASSES.index(d["class"]), d["field"]))


def by_class(differences: list[dict]) -> dict[str, list[str]]:
    """{class: [fields]} of a :func:`diff` result, classes in :data:`CLASSES` order, empty ones left out."""
    grouped = {cls: [d["field"] for d in differences if d["class"] == cls] for cls in CLASSES}
    return {cls: fields for cls, fields in grouped.items() if fields}


def hardware_differs(differences: list[dict]) -> bool:
    """True when a hardware fact (CPU/GPU model, cores, caches, memory size, NUMA) differs."""
    return any(d["class"] == "hardware" for d in differences)


def device_name(description: Description | Mapping | None) -> str:
    """A short name of the machine a description states: CPU model (and GPU names), else ''."""
    described = as_description(description)
    if described is None:
        return ""
    return " + ".join(part for part in [described.cpu_model or "", *described.gpu_names] if part)
