"""Runtime libraries seen from a child process: BLAS/OpenMP thread pools, torch's build and the
MPI library.  A child process because importing torch is slow and loads its own OpenMP, and
importing mpi4py here would decide, for the rest of the calling process, whether MPI initialises.
"""

from __future__ import annotations

import json
import subprocess
import sys

from .probe import Unavailable

_RUNTIME_PROBE = r"""
import json, sys
out = {"imported": []}
for name in ("numpy", "scipy.linalg", "torch"):
    try:
        __import__(name)
        out["imported"].append(name)
    except Exception as exc:
        out.setdefault("import_errors", {})[name] = f"{type(exc).__name__}: {exc}"
try:
    from threadpoolctl import threadpool_info
    out["threadpools"] = threadpool_info()
except Exception as exc:
    out["threadpools"] = {"unavailable": f"threadpoolctl: {type(exc).__name__}: {exc}"}
if "torch" in out["imported"]:
    import torch
    t = {"version": torch.__version__, "git_version": torch.version.git_version}
    for key, get in (("config", lambda: torch.__config__.show()),
                     ("parallel_info", lambda: torch.__config__.parallel_info()),
                     ("num_threads", torch.get_num_threads),
                     ("num_interop_threads", torch.get_num_interop_threads),
                     ("cpu_capability", lambda: torch.backends.cpu.get_cpu_capability()),
                     ("mkldnn_available", lambda: torch.backends.mkldnn.is_available()),
                     ("cuda_available", torch.cuda.is_available),
                     ("cuda_version", lambda: torch.version.cuda or "none (CPU build)"),
                     ("cuda_devices", torch.cuda.device_count)):
        try:
            t[key] = get()
        except Exception as exc:
            t[key] = {"unavailable": f"{type(exc).__name__}: {exc}"}
    out["torch"] = t
else:
    out["torch"] = {"unavailable": "cannot import torch: " + out.get("import_errors", {}).get("torch", "?")}
try:  # library facts only: MPI is not initialised (these calls are allowed before MPI_Init)
    import mpi4py
    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI
    text = MPI.Get_library_version().strip()
    vendor = MPI.get_vendor()
    out["mpi"] = {"library_version": " ".join(text.splitlines()[0].split()) if text else "",
                  "library_version_full": text,
                  "standard": "{}.{}".format(*MPI.Get_version()),
                  "vendor": vendor[0] + " " + ".".join(map(str, vendor[1])),
                  "mpi4py_version": mpi4py.__version__}
except Exception as exc:
    out["mpi"] = {"unavailable": f"mpi4py: {type(exc).__name__}: {exc}"}
json.dump(out, sys.stdout, default=str)
"""


def probe() -> dict:
    """BLAS/OpenMP thread pools (numpy, scipy, torch loaded), torch's build and the MPI library."""
    try:
        done = subprocess.run([sys.executable, "-c", _RUNTIME_PROBE], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Unavailable("runtime probe (importing numpy, scipy, torch) took over 120 s") from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise Unavailable(f"runtime probe exited {done.returncode}: {tail}")
    return json.loads(done.stdout)
