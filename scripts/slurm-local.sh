#!/usr/bin/env bash
# A private single-node Slurm for the fleet test (issue 20; docs/fleet.md): Debian's slurm-wlm and
# munge, run as root without systemd, its config, state and logs under DIR, on ports of its own so
# it cannot meet a real cluster's daemons.
#   scripts/slurm-local.sh start DIR   # munged (if none answers), slurmctld, slurmd; waits for the node
#   scripts/slurm-local.sh stop DIR    # stops what `start` started
# Then: SLURM_CONF=DIR/slurm.conf srun --ntasks=N ...
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a directory for the config, state and logs}
case "$cmd" in
start)
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge
    [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none;
                                     chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
    runuser -u munge -- /usr/sbin/munged
    cp /run/munge/munged.pid "$dir/munged.pid"  # munged writes its own
  fi
  host=$(hostname -s)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=gpustacktest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${GS_SLURMCTLD_PORT:-16817}
SlurmdPort=${GS_SLURMD_PORT:-16818}
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  /usr/sbin/slurmctld -f "$dir/slurm.conf"
  /usr/sbin/slurmd -f "$dir/slurm.conf"
  for _ in $(seq 1 100); do  # up to 20 s for the node to register as idle
    if SLURM_CONF="$dir/slurm.conf" sinfo -h -o %t 2>/dev/null | grep -qx idle; then exit 0; fi
    sleep 0.2
  done
  echo "slurm-local: the node did not come up; logs in $dir/log" >&2
  exit 1
  ;;
stop)
  pids=()
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -s "$pidfile" ] && pids+=("$(cat "$pidfile")")
  done
  ((${#pids[@]})) || exit 0
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 50); do  # up to 5 s to shut down, then no more asking
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || exit 0
    sleep 0.1
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
  pkill -9 -f "slurmctld -f $dir/slurm.conf" 2>/dev/null || true  # its slurmscriptd child
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
