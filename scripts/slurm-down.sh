#!/usr/bin/env bash
# slurm-down.sh DIR: stops the one-node Slurm that slurm-up.sh DIR started:
# cancels every job of that cluster, then stops its daemons by the pids in
# DIR/pids (SIGTERM, up to 10 s, then SIGKILL), and kills any slurmstepd
# (and its job's processes) whose spool directory is DIR/spool. Never by
# name. Safe to run twice.
set -uo pipefail

dir=${1:?usage: slurm-down.sh DIR}
[ -d "$dir/pids" ] || exit 0
dir=$(cd "$dir" && pwd)
PATH=$PATH:/usr/sbin
export SLURM_CONF=$dir/slurm.conf
# Jobs first, while slurmctld can still cancel them.
timeout 10 scancel --full --quiet --user=root 2>/dev/null
for _ in $(seq 50); do
	[ -z "$(timeout 5 squeue -h -t running,completing 2>/dev/null)" ] && break
	sleep 0.1
done

# The step daemons of this cluster (their cwd or open files are in
# DIR/spool) and the processes under them.
steps=()
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	case "$(tr '\0' ' ' 2>/dev/null <"$p/cmdline")" in
	slurmstepd*)
		if ls -l "$p/fd" 2>/dev/null | grep -q -- "$dir/spool"; then steps+=("$pid"); fi
		;;
	esac
done
kill_tree() { # pid: SIGKILL to it and every descendant
	local kids
	kids=$(ps -o pid= --ppid "$1" 2>/dev/null)
	kill -KILL "$1" 2>/dev/null
	for k in $kids; do kill_tree "$k"; done
}
for s in "${steps[@]}"; do kill_tree "$s"; done

pids=()
for f in slurmd slurmctld munged; do
	[ -s "$dir/pids/$f" ] && pids+=("$(cat "$dir/pids/$f")")
done
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
for _ in $(seq 100); do
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
	[ $alive = 0 ] && break
	sleep 0.1
done
for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
w=$(cat "$dir/pids/watcher" 2>/dev/null)
rm -rf "$dir/pids"
# The watcher last (it may be what runs this script).
[ -n "$w" ] && [ "$w" != "$PPID" ] && kill "$w" 2>/dev/null
exit 0
