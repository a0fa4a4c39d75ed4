"""Environment capture: everything about the machine and software a result depends on (SC15 R9).

``capture()`` returns one JSON-serialisable dict; ``write()`` stores it atomically as
``results/environment.json``; :mod:`.render` turns it into a summary and an SC-style Artifact
Description.  Two principles:

* **Never silently missing.**  Every field is always present; a field that cannot be read holds
  ``{"unavailable": "<why>"}`` (see :func:`unavailable`), so a reader can tell "absent on this
  machine" from "we forgot to look".
* **A stable content hash.**  ``capture["hash"]`` is the sha256 of the canonical JSON of the
  capture *without* the fields in :data:`VOLATILE` (times, load, process counts, timer
  measurements, job ids ...), with the project's path replaced by ``$PROJECT``.  Two captures of
  the same machine and software stack give the same hash; results files carry it as
  ``environment_hash`` so results from different environments are never merged unawares.

Layout, bottom up (each module imports only the ones above it, so there is no import loop):

* :mod:`.probe` - unavailable values, reading files, running commands with a timeout;
* probes by area - :mod:`.lscpu`, :mod:`.cpufreq`, :mod:`.virtualization`, :mod:`.machine`
  (hardware), :mod:`.system` (OS, time, load, timer, variables), :mod:`.toolchain` (compilers),
  :mod:`.runtimes` (BLAS/OpenMP/torch/MPI library in a child process), :mod:`.batch`
  (scheduler), :mod:`.mpilib`, :mod:`.interpreter` (Python, packages, LoadGen), :mod:`.gpu`,
  :mod:`.vcs` (git);
* :mod:`.hashing` (volatile fields, stable view, hash) and :mod:`.store` (read, write, config);
* :mod:`.record` assembles the capture; :mod:`.render` presents it; :mod:`.cli` is the command.

No module is named after a function re-exported here (``hardware``, ``mpi``, ``packages``,
``scheduler``, ``capture``), so ``twelveways.env.<name>`` always means one thing.
"""

from .batch import launcher_in_use, scheduler
from .cli import main
from .gpu import gpus, parse_nvidia_smi
from .hashing import VOLATILE, differences, environment_hash, stable_view
from .interpreter import loadgen, packages, python
from .machine import hardware
from .mpilib import mpi
from .probe import PROJECT_ROOT, Unavailable, is_unavailable, unavailable, unavailable_fields
from .record import capture
from .render import KEY_PACKAGES
from .store import DEFAULT_OUTPUT, FORMAT, read, write
from .system import ENV_NAMES, ENV_PREFIXES, environment_variables, load_at, operating_system, timer
from .toolchain import DEFAULT_CC, DEFAULT_CFLAGS, build_settings, compilers
from .vcs import git

__all__ = [
    "DEFAULT_CC", "DEFAULT_CFLAGS", "DEFAULT_OUTPUT", "ENV_NAMES", "ENV_PREFIXES", "FORMAT", "KEY_PACKAGES",
    "PROJECT_ROOT", "VOLATILE", "Unavailable", "build_settings", "capture", "compilers", "differences",
    "environment_hash", "environment_variables", "git", "gpus", "hardware", "is_unavailable", "launcher_in_use",
    "load_at", "loadgen", "main", "mpi", "operating_system", "packages", "parse_nvidia_smi", "python", "read",
    "scheduler", "stable_view", "timer", "unavailable", "unavailable_fields", "write",
]
