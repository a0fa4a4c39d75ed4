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
if [ $rc = 3 ]; then echo "test-slurm: skipped (see the line above)"; exit 0; fi
[ $rc = 0 ] || { echo "error: could not start the one-node SLURM cluster (logs in $cluster/log)"; exit 1; }
trap 'bash "$here/cluster.sh" stop "$cluster"' EXIT
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

echo "test-slurm: first run; slurmd is killed once the environment capture is through"
"${smk[@]}" > "$work/run1.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  [ -s results/environment.json ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 1
done
sleep 3
bash "$here/cluster.sh" kill-slurmd "$cluster"
# The node goes down (SlurmdTimeout); its running jobs end NODE_FAIL, which Snakemake must report.
reported=0
for _ in $(seq 1 120); do
  if grep -q "Error in rule" "$work/run1.log"; then reported=1; break; fi
  kill -0 $pid 2>/dev/null || break
  sleep 1
done
if kill -0 $pid 2>/dev/null; then

  # Snakemake waits for the jobs still queued for the dead node: interrupt it and cancel them,
  # as a user would.
  kill -INT $pid; sleep 3
  squeue -h -o '  job %i %T %r' > "$work/queue-after-node-loss.txt" || true
  scancel --state=PENDING >/dev/null 2>&1 || true
  for _ in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  kill -0 $pid 2>/dev/null && kill -TERM $pid
fi
set +e; wait $pid; rc1=$?; set -e
if [ $reported = 1 ]; then
  echo "test-slurm: with slurmd killed, Snakemake reported:"
  grep -A2 "Error in rule" "$work/run1.log" | grep -E "Error in rule|message:" | head -6
elif [ $rc1 = 0 ]; then
  echo "note: the run finished before slurmd was killed (nothing failed to report)"
else
  # Seen with Slurm 22.05: the lost node's batch job is requeued "per user/system request" even
  # with --no-requeue, and waits PENDING for the node, so Snakemake has no failure to report.
  echo "note: Snakemake reported no failed job; Slurm's queue after the node was lost:"
  cat "$work/queue-after-node-loss.txt"
fi
scancel --state=PENDING >/dev/null 2>&1 || true
finished_before=$(find results -name '*.json' -o -name '*.nc' | sort | xargs -r stat -c '%n %Y' 2>/dev/null || true)
bash "$here/cluster.sh" restart-slurmd "$cluster"

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
echo "test-slurm: passed (work dir $work)"
