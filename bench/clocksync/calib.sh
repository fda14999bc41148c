#!/usr/bin/env bash
# Collect the records of bench/clocksync/calib (issue 28): RUNS mpiruns per
# library, alternating Open MPI and MPICH, each with SYNCS synchronizations
# of 2 ranks whose Spread learner records its fit points and the exact true
# offset, then replay them (calib replay) to compare candidate bounds.
#
#   bench/clocksync/calib.sh [RUNS=30] [SYNCS=2]        # 2 ranks on one host
#   NODES=2 bench/clocksync/calib.sh 10                 # 2 nodes of a virtual cluster (root)
#
# Records go to $OUT (default bench/clocksync/out/calib-<date>); the replay
# table to $OUT/replay.txt. Run it on a quiet machine (/work/tools/quiet).
set -euo pipefail
RUNS=${1:-30}
SYNCS=${2:-2}
LIBS=${LIBS:-"openmpi mpich"}
NODES=${NODES:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/bench/clocksync/out/calib-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$NODES" -gt 0 ] && go build -C "$root" -o "$tmp/vcluster" ./internal/vcluster/cmd/vcluster
for lib in $LIBS; do
	tags=()
	[ "$lib" = mpich ] && tags=(-tags mpich)
	go build -C "$root/bench" "${tags[@]}" -o "$tmp/calib-$lib" ./clocksync/calib
done
echo "load average before: $(cat /proc/loadavg); $RUNS mpiruns × $SYNCS syncs per library; nodes $NODES; records in $OUT" | tee "$OUT/log.txt"
for i in $(seq 1 "$RUNS"); do
	for lib in $LIBS; do
		if [ "$lib" = mpich ]; then RUN=(mpiexec.mpich -np 2); else RUN=(mpirun.openmpi -np 2); fi
		[ "$NODES" -gt 0 ] && RUN=("$tmp/vcluster" mpirun -flavor "$lib" -nodes "$NODES" -per-node 1 -seed "$i" -skew-ppm "${NODE_SKEW_PPM:-100}" --)
		timeout 120 "${RUN[@]}" "$tmp/calib-$lib" collect -out "$OUT" -syncs "$SYNCS" -tag "$lib" ||
			echo "$lib run $i failed" | tee -a "$OUT/log.txt"
	done
done
echo "load average after: $(cat /proc/loadavg)" | tee -a "$OUT/log.txt"
"$tmp/calib-openmpi" replay "$OUT"/*.json | tee "$OUT/replay.txt"
