"""The Parallel Research Kernels family: kernels, implementations, results, notebook.

Adding a kernel: its name here, its programs in kernels/c and kernels/python, its arguments in
``twelveways.prk.run.kernel_args``; the build, the sweep, the rules, the schema test and R2 follow.
"""

from .model import Family, Figures

KERNELS = ("nstream", "transpose", "stencil", "p2p", "dgemm", "sparse")
#: Kernels with MPI implementations (c-mpi, mpi4py).
MPI_KERNELS = ("nstream", "transpose", "stencil", "p2p")
IMPLEMENTATIONS = ("c-serial", "c-openmp", "c-mpi", "numpy", "mpi4py")

FAMILY = Family(
    name="prk",
    stage="prk",
    notebook="prk",
    results=("prk.nc", "bounds.nc"),  # the sweep, and the machine's measured bounds (R11)
    levels={"workload": KERNELS, "implementation": IMPLEMENTATIONS},
    analysis="twelveways.prk.analysis",
    figures=Figures("../report/prk.rst", "Parallel Research Kernels"),
    suite=True,
)
