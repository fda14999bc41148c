#!/usr/bin/env bash
# slurm-up.sh DIR: starts a one-node Slurm (munged, slurmctld, slurmd) whose
# configuration, state, spool, logs and sockets all live under DIR, for
# reprobench's Slurm tests (issue #20) and for trying srun by hand:
#
#   bash scripts/slurm-up.sh /tmp/rbslurm && . /tmp/rbslurm/env
#   srun -n 2 --mpi=pmix hostname
#   bash scripts/slurm-down.sh /tmp/rbslurm
#
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge
# (make setup installs them). Nothing outside DIR is touched: no systemd, no
# /etc/slurm. The daemons run detached; their pids are in DIR/pids/, and
# scripts/slurm-down.sh DIR stops them by pid. With RB_SLURM_WATCH_PID=P a
# watcher runs slurm-down.sh as soon as process P is gone, so a test binary
# killed with SIGKILL still leaves no daemon behind.
#
# The configuration: ProctrackType=proctrack/linuxproc, TaskPlugin=task/none
# (no cgroups needed), SelectType=select/cons_tres, no accounting, the
# NodeName line from slurmd -C, free TCP ports (or SLURMCTLD_PORT and
# SLURMD_PORT; a port taken between the check and the bind gets new ports,
# at most 3 tries), MinJobAge=3600 so that finished jobs stay visible to
# scontrol (there is no accounting database to ask later).
# Exit status 3: Slurm is not installed; 4: it did not come up (see DIR/log).
set -euo pipefail

dir=${1:?usage: slurm-up.sh DIR}
for b in munged slurmctld slurmd srun sinfo scontrol; do
	if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then
		echo "slurm-up: $b not found (install slurmctld slurmd slurm-client munge: make setup)" >&2
		exit 3
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "slurm-up: needs root (slurmd starts jobs as their users)" >&2
	exit 3
fi
PATH=$PATH:/usr/sbin
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -e "$dir/pids" ]; then
	echo "slurm-up: $dir/pids exists: a cluster may run there (slurm-down.sh $dir first)" >&2
	exit 1
fi
mkdir -p "$dir"/{munge,state,spool,log,pids}
chmod 700 "$dir/munge"

# A port nothing listens on (bash's /dev/tcp: no python or ss needed).
freeport() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}
host=$(hostname -s)

# munge: its own key, socket and pid file under DIR.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
sock="$dir/munge/munge.socket.2"
munged --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
	--log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" 2>>"$dir/log/munged.log"
for _ in $(seq 100); do [ -s "$dir/munge/munged.pid" ] && break; sleep 0.1; done
cp "$dir/munge/munged.pid" "$dir/pids/munged"

node=$(slurmd -C | head -n 1)
export SLURM_CONF=$dir/slurm.conf
printf 'export SLURM_CONF=%s\n' "$SLURM_CONF" >"$dir/env"

# start: writes slurm.conf with free ports and starts the daemons.
start() {
	ctldport=${SLURMCTLD_PORT:-$(freeport)}
	slurmdport=${SLURMD_PORT:-$(freeport)}
	while [ "$slurmdport" = "$ctldport" ]; do slurmdport=$(freeport); done
	cat >"$dir/slurm.conf" <<-CONF
	ClusterName=reprobench
	SlurmctldHost=$host
	SlurmUser=root
	SlurmdUser=root
	SlurmctldPort=$ctldport
	SlurmdPort=$slurmdport
	AuthType=auth/munge
	AuthInfo=socket=$sock
	CredType=cred/munge
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool
	SlurmctldPidFile=$dir/slurmctld.pid
	SlurmdPidFile=$dir/slurmd.pid
	SlurmctldLogFile=$dir/log/slurmctld.log
	SlurmdLogFile=$dir/log/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	SchedulerType=sched/backfill
	AccountingStorageType=accounting_storage/none
	JobAcctGatherType=jobacct_gather/none
	JobCompType=jobcomp/none
	MpiDefault=none
	ReturnToService=2
	InactiveLimit=0
	KillWait=5
	MinJobAge=3600
	SlurmctldTimeout=30
	SlurmdTimeout=30
	$node State=UNKNOWN
	PartitionName=rb Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

	# The daemons in the foreground (-D), detached from this script.
	setsid slurmctld -D -c -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 </dev/null &
	echo $! >"$dir/pids/slurmctld"
	setsid slurmd -D -f "$SLURM_CONF" >>"$dir/log/slurmd.out" 2>&1 </dev/null &
	echo $! >"$dir/pids/slurmd"
}

# stop_daemons: stops slurmctld and slurmd by pid (a retry starts new ones).
stop_daemons() {
	local p
	for d in slurmctld slurmd; do
		p=$(cat "$dir/pids/$d" 2>/dev/null) || continue
		kill -TERM "$p" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
	done
}

# up: waits, at most 30 s of wall time, until the node is idle; fails at
# once when a daemon died (sinfo against a dead controller takes seconds
# per call, so the limit is a deadline, not a count of tries).
up() {
	local end=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$end" ]; do
		if [ "$(timeout 5 sinfo -h -N -o %t 2>/dev/null | head -n 1)" = idle ]; then
			return 0
		fi
		for d in slurmctld slurmd; do
			kill -0 "$(cat "$dir/pids/$d")" 2>/dev/null || return 1
		done
		sleep 0.1
	done
	return 1
}

# A watcher stops the cluster when the process that started it is gone
# (a test binary killed with SIGKILL).
if [ -n "${RB_SLURM_WATCH_PID:-}" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	setsid bash -c 'while kill -0 '"$RB_SLURM_WATCH_PID"' 2>/dev/null && [ -e "$1/pids" ]; do sleep 1; done; [ -e "$1/pids" ] && bash "$2/slurm-down.sh" "$1"' \
		watcher "$dir" "$here" >>"$dir/log/watcher.log" 2>&1 </dev/null &
	echo $! >"$dir/pids/watcher"
fi

# A port found free may be taken before the daemon binds it (other clusters
# start beside this one): then try again with new ports, at most 3 times.
for try in 1 2 3; do
	start
	if up; then
		echo "slurm-up: one-node Slurm up in $dir (node $host, ports $ctldport/$slurmdport)$([ "$try" -gt 1 ] && echo ", try $try"); . $dir/env"
		exit 0
	fi
	stop_daemons
	if [ -n "${SLURMCTLD_PORT:-}${SLURMD_PORT:-}" ] || ! grep -qs "Address already in use" "$dir"/log/slurmctld.log "$dir"/log/slurmd.log; then
		break
	fi
	echo "slurm-up: port $ctldport or $slurmdport was taken meanwhile; new ports" >&2
	for f in "$dir"/log/slurmctld.log "$dir"/log/slurmd.log; do if [ -e "$f" ]; then mv "$f" "$f.try$try"; fi; done
done
echo "slurm-up: the node did not become idle within 30 s; logs in $dir/log:" >&2
tail -n 5 "$dir"/log/*.log >&2 || true
exit 4
