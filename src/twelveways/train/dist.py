"""Data-parallel worker: ``mpiexec -n R python -m twelveways.train.dist SPEC.json OUT.json``.

Runs every run of the spec on ``MPI.COMM_WORLD`` (see :func:`.loop.train_run`: gradients are
averaged with mpi4py ``Allreduce``, or exchanged top-k sparsified with ``Allgather``), in the
order given (the caller already shuffled it with the seed).  Rank 0 writes the mllog logs and
OUT.json.  The communicator size must equal the ``ranks`` of every run: a launcher that starts
R separate one-rank jobs (e.g. ``srun`` without ``--mpi=pmi2``) is detected and refused.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2:
        print("error: usage: python -m twelveways.train.dist SPEC.json OUT.json", file=sys.stderr)
        return 2
    spec_path, out_path = argv
    import torch
    from mpi4py import MPI

    from .loop import train_run, warm_up

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    try:
        spec = json.loads(Path(spec_path).read_text())
        torch.set_num_threads(int(spec["threads"]))
        wanted = {int(run["ranks"]) for run in spec["runs"]}
        if wanted != {size}:
            raise RuntimeError(f"the launcher started a communicator of size {size}, the runs need {sorted(wanted)} "
                               "(does the launcher wire ranks together? with SLURM use srun --mpi=pmi2)")
        combos = sorted({(r["model"], tuple(r["input_shape"]), r["n_classes"], r["precision"]) for r in spec["runs"]})
        warmup_s = warm_up(combos, comm)
        outputs = []
        for run in spec["runs"]:
            result = train_run(run, comm=comm)
            result.pop("model", None)
            outputs.append({"config_id": run["config_id"], "seed": run["seed"], "result": result})
        if rank == 0:
            payload = {"comm_size": size, "mpi_library": MPI.Get_library_version().strip().splitlines()[0],
                       "mpi_vendor": list(MPI.get_vendor()), "warmup_s": warmup_s, "runs": outputs}
            tmp = Path(out_path).with_suffix(".partial")
            tmp.write_text(json.dumps(payload))
            tmp.replace(out_path)
    except Exception as exc:  # a rank that fails must not leave the other ranks waiting forever
        print(f"error: rank {rank}: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr, flush=True)
        traceback.print_exc(file=sys.stderr)
        comm.Abort(1)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
