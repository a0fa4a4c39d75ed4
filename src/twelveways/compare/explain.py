"""Which differences of the environment could explain a difference of performance.

Why: "3% slower" is useless without "and the other run had another OpenBLAS".  The field-level
diff (:mod:`twelveways.envdiff`) is classified (hardware / system / toolchain / libraries /
settings); each significant difference is then listed beside the fields that plausibly affect
that kind of configuration: any kernel — CPU, frequency settings, kernel release; memory-bound
kernels — memory, caches, NUMA; C kernels — compiler and flags; BLAS-backed work (dgemm,
NumPy, PyTorch) — BLAS/OpenMP libraries and thread settings; MPI runs — the MPI library and
launcher; training and inference — PyTorch and LoadGen; foreign results — the machine's name
their files state (asv's ``machine``), the Python of a Python benchmark tool (asv, pyperf,
pytest-benchmark), JMH's JVM.  The mapping names candidates, not causes: a reader confirms one
by changing it alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .. import envdiff
from ..env.capture_model import Description
from ..families import prk as prk_kernels
from .record import Difference

MEMORY_BOUND = {k.name for k in prk_kernels.DECLARED if k.memory_bound}  # declared per kernel
BLAS_BACKED = {"dgemm"}
#: Families whose every configuration runs in a Python interpreter (the formats of Python benchmark tools).
PYTHON_FAMILIES = {"pyperf", "asv", "pytest-benchmark"}

#: (name, does the configuration qualify, pattern on the differing field's dotted path)
_CANDIDATES = [
    ("another CPU or GPU", lambda c: True, r"^(hardware\.cpu\.|gpus\.|cpu|num_cpus|processor)"),
    ("another machine (by the name its results state)", lambda c: True, r"^(machine|host\.hostname|hostname|node)$"),
    ("another Python or its build (Python benchmark)", lambda c: c.get("family") in PYTHON_FAMILIES,
     r"^(python_(version|cflags|compiler|implementation|build)|python)$"),
    ("frequency, turbo or power settings", lambda c: True, r"(frequency|governor|boost|turbo|energy)"),
    ("another kernel or OS", lambda c: True, r"^os\.(kernel|distribution|glibc|version)"),
    ("memory, caches or NUMA (memory-bound kernel)", lambda c: c.get("workload") in MEMORY_BOUND,
     r"^hardware\.(memory|caches|numa)"),
    ("compiler or flags (C kernel)", lambda c: str(c.get("implementation", "")).startswith("c-"), r"^compilers\."),
    ("BLAS/OpenMP library or its threads", lambda c: c.get("workload") in BLAS_BACKED
     or c.get("implementation") in ("numpy", "torch") or c.get("benchmark") in ("train", "infer"),
     r"(blas|openmp|numpy|scipy|NUM_THREADS|python\.packages\.(numpy|scipy))"),
    ("MPI library or launcher", lambda c: "mpi" in str(c.get("implementation", "")) or _int(c.get("ranks")) > 1,
     r"^(mpi\.|python\.packages\.mpi)"),
    ("PyTorch or LoadGen", lambda c: c.get("benchmark") in ("train", "infer"),
     r"^(torch\.|loadgen[._]|python\.packages\.(torch|mlcommons))"),
    ("another JVM or its options (JMH)", lambda c: c.get("family") == "jmh", r"^(jdkVersion|vmName|vmVersion|jvm|jvmArgs)$"),
    ("thread settings", lambda c: _int(c.get("threads")) > 1, r"(_NUM_THREADS|OMP_|affinity|usable_cpus|smt)"),
]


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 1


def environment_diff(base: Description | None, new: Description | None) -> list[dict] | None:
    """The classified field-level diff, or None when a side has no environment capture."""
    if base is None or new is None:
        return None
    return envdiff.diff(base, new)


#: A verdict names at most this many causes, the most plausible first.
MAX_CAUSES = 3
#: Reasons that apply to any configuration and are less specific than the kind's own (asked last).
_GENERIC = ("frequency, turbo or power settings", "another kernel or OS")


def candidates(configuration: Mapping, differences: Sequence[Difference] | None, leading: list[str] | tuple = ()
               ) -> list[str]:
    """The most plausible causes of a difference of this configuration, at most :data:`MAX_CAUSES`:
    ``leading`` (a busy machine) first, then another CPU, then what this kind of kernel depends on
    (memory for memory-bound kernels, BLAS for dgemm, the compiler for C, MPI for several ranks),
    then frequency settings and the OS; each as 'reason: field (class)' with how many more fields."""
    found = list(leading)
    if differences:
        ordered = sorted(_CANDIDATES, key=lambda c: c[0] in _GENERIC)
        for reason, applies, pattern in ordered:
            if not applies(configuration):
                continue
            fields = [d for d in differences if re.search(pattern, d.field, re.IGNORECASE)
                      and (d.class_ == "hardware" or not reason.startswith("another CPU"))]
            if fields:
                more = f" and {len(fields) - 1} more field(s)" if len(fields) > 1 else ""
                found.append(f"{reason}: {fields[0].field} ({fields[0].class_}){more}")
    return found[:MAX_CAUSES]
