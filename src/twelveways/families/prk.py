"""The Parallel Research Kernels family: kernels, implementations, results, notebook.

Adding a kernel: its name here, its programs in kernels/c and kernels/python, its arguments in
``twelveways.prk.run.kernel_args``; the build, the sweep, the rules, the schema test and R2 follow.
"""

from dataclasses import dataclass

from .model import Family, Figures, Headline, by_filters

@dataclass(frozen=True)
class Kernel:
    """One kernel declared once: the work its rate counts, whether memory bounds it, the C program's size
    limit (its index arithmetic), and whether it has MPI implementations (c-mpi, mpi4py)."""

    name: str
    rate_basis: str  # "bytes" (rate in MB/s) or "flops" (rate in MFlop/s)
    memory_bound: bool
    c_size_limit: int | None
    mpi: bool


DECLARED = (
    Kernel("nstream", "bytes", True, (2 ** 63 - 1) // 64, True),
    Kernel("transpose", "bytes", True, 2 ** 30, True),
    Kernel("stencil", "flops", True, 2 ** 30, True),
    Kernel("p2p", "flops", True, 2 ** 30, True),
    Kernel("dgemm", "flops", False, 2 ** 20, False),  # BLAS-backed: compute-bound
    Kernel("sparse", "flops", True, None, False),
)
BY_NAME = {kernel.name: kernel for kernel in DECLARED}
KERNELS = tuple(BY_NAME)
#: Kernels with MPI implementations (c-mpi, mpi4py).
MPI_KERNELS = tuple(k.name for k in DECLARED if k.mpi)
IMPLEMENTATIONS = ("c-serial", "c-openmp", "c-mpi", "numpy", "mpi4py")
#: Implementations launched with mpiexec (ranks), and those that run the Python kernels.
MPI_IMPLEMENTATIONS = ("c-mpi", "mpi4py")
PYTHON_IMPLEMENTATIONS = ("numpy", "mpi4py")

FAMILY = Family(
    name="prk",
    stage="prk",
    notebook="prk",
    results=("prk.nc", "bounds.nc"),  # the sweep, and the machine's measured bounds (R11)
    levels={"workload": KERNELS, "implementation": IMPLEMENTATIONS},
    analysis="twelveways.prk.analysis",
    figures=Figures("../report/prk.rst", "Parallel Research Kernels"),
    suite=True,
    title="Parallel Research Kernels and machine bounds",
    rules=("prk_build", "prk_bounds", "prk_run", "notebook_prk"),
    headline=Headline(title="PRK", statistics=("geometric_mean", "median"), metric="time", unit="ms", figure="time-ci",
                      group=by_filters("workload"), describe=lambda f: (
                          f"{f.get('workload')} · {f.get('implementation')} · {f.get('ranks', 1)}×{f.get('threads', 1)} "
                          f"PE · size {f.get('size')}"), bounds="bounds.nc"),
)
