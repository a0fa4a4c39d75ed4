#!/usr/bin/env bash
# `make test-slurm`: the tiny .test workflow through the Snakemake SLURM executor on a one-node
# SLURM cluster started here, checked against Slurm's own job-completion log (jobcomp/filetxt).
# Also: slurmd killed mid-run -> Snakemake reports the failed jobs; after slurmd restarts, the
# rerun completes without redoing finished results. The daemons it starts are stopped after.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/.venv/bin"
here="$root/tests/slurm"
work=$(mktemp -d /tmp/twelveways-slurm.XXXXXX)
cluster="$work/cluster"
project="$work/project"

set +e
bash "$here/cluster.sh" start "$cluster"
rc=$?
set -e
if [ $rc = 3 ]; then rm -rf "$work"; echo "test-slurm: skipped (see the line above)"; exit 0; fi
[ $rc = 0 ] || { echo "error: could not start the one-node SLURM cluster (logs in $cluster/log)"; exit 1; }
# On any exit, also on a failed check: stop the Snakemake this script started, cancel the jobs
# it left in Slurm, then stop exactly the daemons cluster.sh started.  The work folder (a copy of
# the project, the cluster's state and both runs' logs, ~45 MB) is kept only when a check failed.
pid=""
cleanup() {
  local status=$?
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null; sleep 5; kill -TERM "$pid" 2>/dev/null || true
  fi
  scancel --user "$(id -un)" >/dev/null 2>&1 || true
  bash "$here/cluster.sh" stop "$cluster"
  if [ "$status" = 0 ]; then rm -rf "$work"; else echo "test-slurm: logs kept in $work"; fi
}
trap cleanup EXIT
export SLURM_CONF="$cluster/slurm.conf"

# a copy of the project (committed and working-tree files, no outputs), sharing the venv
mkdir -p "$project"
(cd "$root" && tar --exclude=./.venv --exclude=./.git --exclude=./results --exclude=./build --exclude=./logs \
   --exclude=./.snakemake --exclude='./reports/*' --exclude=./data/digits* -cf - .) | (cd "$project" && tar -xf -)
ln -s "$root/.venv" "$project/.venv"
cd "$project"
export PATH="$bin:$PATH"

smk=(snakemake --profile profiles/slurm --configfile .test/config.yaml --slurm-no-account
     --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2
     --default-resources slurm_partition=debug runtime=30 mem_mb=1000 cpus_per_task=1)

echo "test-slurm: first run; slurmd is killed while a job step is running"
"${smk[@]}" > "$work/run1.log" 2>&1 &
pid=$!
# Kill slurmd while an MPI rule's job is running: its rule step (.0) has launched ranks through
# srun (step .1 onwards), so the job has more steps to launch. (A job whose batch launch is still
# in flight when slurmd dies never started: Slurm requeues it, rightly, and nothing has failed.)
victim=""
for _ in $(seq 1 600); do
  kill -0 $pid 2>/dev/null || break
  victim=$(squeue -h -s -o '%i' 2>/dev/null | grep -E '^[0-9]+\.[1-9][0-9]*$' | head -n1 || true)
  [ -n "$victim" ] && break
  sleep 0.5
done
[ -n "$victim" ] || { echo "error: no job step ran before the first run ended"; tail -20 "$work/run1.log"; exit 1; }
bash "$here/cluster.sh" kill-slurmd "$cluster"
echo "test-slurm: killed slurmd while step $victim was running"
# The running job fails: its next srun cannot reach slurmd, or the node is set DOWN after
# SlurmdTimeout and the job ends NODE_FAIL (--no-requeue). Snakemake must report it.
reported=0
for _ in $(seq 1 180); do
  if grep -q "Error in rule" "$work/run1.log"; then reported=1; break; fi
  kill -0 $pid 2>/dev/null || break
  sleep 1
done
# Bring the node back: jobs still pending for it run; Snakemake then exits non-zero.
bash "$here/cluster.sh" restart-slurmd "$cluster"
for _ in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then kill -INT $pid; sleep 5; kill -0 $pid 2>/dev/null && kill -TERM $pid; fi
set +e; wait $pid; rc1=$?; set -e
squeue -h -o '  job %i %T %r' > "$work/queue-after-node-loss.txt" || true
if [ $reported != 1 ]; then
  echo "error: with slurmd killed, Snakemake reported no failed job (exit $rc1); Slurm's queue:"
  cat "$work/queue-after-node-loss.txt"; tail -30 "$work/run1.log"; exit 1
fi
[ $rc1 != 0 ] || { echo "error: the first run failed a job but Snakemake exited 0"; exit 1; }
echo "test-slurm: with slurmd killed, Snakemake reported (exit $rc1):"
grep -A12 "Error in rule" "$work/run1.log" | grep -E "Error in rule|message:|SLURM|NODE_FAIL|FAILED|status" | head -8
scancel --state=PENDING >/dev/null 2>&1 || true
finished_before=$(find results -name '*.json' -o -name '*.nc' | sort | xargs -r stat -c '%n %Y' 2>/dev/null || true)
echo "test-slurm: rerun after slurmd restart"
snakemake --unlock --configfile .test/config.yaml >/dev/null 2>&1 || true
"${smk[@]}" > "$work/run2.log" 2>&1 || { echo "error: rerun failed"; tail -40 "$work/run2.log"; exit 1; }
# finished results were not redone
while read -r name mtime; do
  [ -n "$name" ] || continue
  now=$(stat -c '%Y' "$name")
  [ "$now" = "$mtime" ] || { echo "error: $name was redone by the rerun"; exit 1; }
done <<< "$finished_before"

"$bin/python" "$here/check_jobcomp.py" --jobcomp "$cluster/jobcomp.txt" --project "$project"
echo "test-slurm: passed"
