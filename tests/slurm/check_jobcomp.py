"""Check from Slurm's own job-completion log that the workflow's jobs ran through SLURM,
including an MPI job whose 2 ranks saw a communicator of size 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from twelveways import results


def parse_jobcomp(path: Path) -> list[dict]:
    jobs = []
    for line in path.read_text().splitlines():
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if fields:
            jobs.append(fields)
    return jobs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobcomp", required=True, type=Path)
    parser.add_argument("--project", required=True, type=Path)
    args = parser.parse_args()
    jobs = parse_jobcomp(args.jobcomp)
    completed = {job["JobId"]: job for job in jobs if job.get("JobState") == "COMPLETED"}
    if len(completed) < 3:
        print(f"error: only {len(completed)} completed jobs in {args.jobcomp}", file=sys.stderr)
        return 1
    prk = results.open(args.project / "results" / "prk.nc")
    job_id = str(prk.attrs.get("scheduler_job_id", ""))
    if prk.attrs.get("scheduler") != "slurm" or job_id not in completed:
        print(f"error: results/prk.nc was not written by a completed SLURM job (job id {job_id!r})", file=sys.stderr)
        return 1
    if int(completed[job_id].get("ProcCnt", "0")) < 2:
        print(f"error: PRK job {job_id} had ProcCnt {completed[job_id].get('ProcCnt')}, expected >= 2", file=sys.stderr)
        return 1
    frame = results.to_frame(prk)
    mpi = frame[frame["implementation"].isin(["c-mpi", "mpi4py"]) & (frame["ranks"] == 2) & frame["valid"]]
    if mpi.empty or set(mpi["rank"].unique()) - {-1} != {0, 1}:
        print("error: no valid 2-rank MPI samples with both ranks' times in results/prk.nc", file=sys.stderr)
        return 1
    print(f"jobcomp: {len(completed)} completed SLURM jobs; PRK job {job_id} ProcCnt={completed[job_id]['ProcCnt']}, "
          f"2-rank MPI samples from ranks {sorted(set(mpi['rank']) - {-1})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
