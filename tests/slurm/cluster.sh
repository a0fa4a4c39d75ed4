#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for tests: `cluster.sh start DIR` / `cluster.sh stop DIR`.
# start: installs Debian's slurm-wlm and munge when missing (root + apt), writes a one-node
# configuration for this host under DIR, starts munged, slurmctld and slurmd (recording their
# pids), waits until the node is idle. stop: stops exactly the daemons start recorded.
# Exit 3 with one line "skip: ..." when this machine cannot host the cluster.
set -euo pipefail

action=${1:?usage: cluster.sh start|stop|restart-slurmd|kill-slurmd DIR}
dir=$(realpath -m "${2:?usage: cluster.sh start|stop DIR}")
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

skip() { echo "skip: $*"; exit 3; }

install_if_missing() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then return; fi
  [ "$(id -u)" = 0 ] || skip "SLURM is not installed and installing it needs root"
  command -v apt-get >/dev/null || skip "SLURM is not installed and this machine has no apt-get"
  echo "installing slurm-wlm and munge" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null) \
    || skip "apt-get could not install slurm-wlm and munge"
}

write_conf() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  cat > "$conf" <<CONF
ClusterName=twelveways-test
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
JobRequeue=0
DefMemPerCPU=1024
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
}

# A process that is gone or a zombie (its parent, here often init, has not reaped it) is not running.
running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null || true)
  [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

# Wait until the node takes work: `idle` for a fresh cluster; after slurmd restarts, pending jobs
# may start at once, so `busy` also accepts allocated, mixed and completing.
wait_node() {
  local accept="idle"
  [ "${1:-}" = busy ] && accept="idle allocated mixed completing"
  for _ in $(seq 1 60); do
    state=$(sinfo -h -o '%T' 2>/dev/null | head -n1 || true)
    for ok in $accept; do case "$state" in "$ok"|"$ok"[+~#]) return 0 ;; esac; done
    if [ "$state" = "down" ] || [ "$state" = "drained" ] || [ "$state" = "down*" ]; then
      scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
    fi
    sleep 1
  done
  echo "error: node did not come up ($accept; state: ${state:-none}); see $dir/log" >&2
  return 1
}

case "$action" in
  start)
    install_if_missing
    write_conf
    # Jobs' own srun calls read the default location (the job environment does not carry
    # SLURM_CONF): link it there when free, and remove the link on stop.
    if [ ! -e /etc/slurm/slurm.conf ]; then
      mkdir -p /etc/slurm && ln -s "$conf" /etc/slurm/slurm.conf && echo /etc/slurm/slurm.conf > "$dir/etc-link"
    elif [ "$(readlink -f /etc/slurm/slurm.conf)" != "$conf" ]; then
      skip "/etc/slurm/slurm.conf already exists (a real SLURM installation?); not touching it"
    fi
    # A live munged answers `munge -n`; pgrep would also count a dead daemon's zombie.
    if ! munge -n >/dev/null 2>&1; then
      mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
      [ -s /etc/munge/munge.key ] || skip "no /etc/munge/munge.key"
      rm -f /run/munge/munged.pid
      munged --force >/dev/null 2>&1 || runuser -u munge -- munged --force
      # munged forks into the background and writes the daemon's pid itself: record that one.
      for _ in $(seq 1 40); do munge -n >/dev/null 2>&1 && [ -s /run/munge/munged.pid ] && break; sleep 0.25; done
      [ -s /run/munge/munged.pid ] || { echo "error: munged did not start" >&2; exit 1; }
      cp /run/munge/munged.pid "$dir/munged.pid"
    fi
    slurmctld -f "$conf"
    slurmd -f "$conf"
    wait_node
    echo "slurm: one-node cluster up (SLURM_CONF=$conf)" >&2
    ;;
  stop)
    stopped=""
    for daemon in slurmd slurmctld munged; do
      pidfile="$dir/$daemon.pid"
      [ -s "$pidfile" ] || continue
      pid=$(head -n1 "$pidfile")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do running "$pid" || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
      running "$pid" && { echo "error: $daemon (pid $pid) is still running" >&2; exit 1; }
      stopped="$stopped $daemon"
      rm -f "$pidfile"
    done
    echo "slurm: stopped the daemons this script started:${stopped:- none}" >&2
    if [ -s "$dir/etc-link" ]; then rm -f "$(cat "$dir/etc-link")" "$dir/etc-link"; fi
    ;;
  kill-slurmd)
    [ -s "$dir/slurmd.pid" ] && kill -9 "$(cat "$dir/slurmd.pid")" 2>/dev/null || true
    rm -f "$dir/slurmd.pid"
    ;;
  restart-slurmd)
    slurmd -f "$conf"
    wait_node busy
    ;;
  *) echo "error: unknown action $action" >&2; exit 2 ;;
esac
