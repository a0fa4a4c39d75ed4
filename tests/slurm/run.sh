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

echo "test-slurm: first run, slurmd killed once the first jobs are through"
"${smk[@]}" > "$work/run1.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  [ -s results/environment.json ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 1
done
sleep 3
bash "$here/cluster.sh" kill-slurmd "$cluster"
set +e; wait $pid; rc1=$?; set -e
echo "test-slurm: run with slurmd killed exited $rc1"
if [ $rc1 = 0 ]; then
  echo "note: the run finished before slurmd was killed"
else
  grep -E "Error in rule|failed|Exiting because a job execution failed" "$work/run1.log" | head -5 \
    || { echo "error: snakemake failed without naming the failed jobs"; tail -30 "$work/run1.log"; exit 1; }
fi
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
