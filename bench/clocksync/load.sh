#!/usr/bin/env bash
# Clock sync under CPU load (docs/clock-sync.md, "Under load"): np 2 on one
# host, `reprobench clockcheck --after 0,10s --json --per-rank`, Open MPI and
# MPICH alternating, first without busy loops, then beside two
# `sh -c 'while :; do :; done'` at nice 0 (killed at the end). Per round:
# hca3 for both libraries; in the first 5 rounds also the default (twolevel)
# and Open MPI's hca3 with --mca mpi_yield_when_idle 1. It prints per cell
# how many rounds' bound held, stated none, or broke (true error from the
# shared CLOCK_MONOTONIC), with the true errors, wait shares and smallest
# RTTs.
#
#   bench/clocksync/load.sh [ROUNDS=10]     # about 2 × (ROUNDS × 2 + 15) × 12 s
#
# The loops compete with everything else on the machine: do not run it
# beside timing measurements. Output in $OUT (default
# bench/clocksync/out/load-<date>), the summary in $OUT/summary.txt.
set -euo pipefail
ROUNDS=${1:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/bench/clocksync/out/load-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -C "$root" -o "$tmp/rb-openmpi" ./cmd/reprobench
go build -C "$root" -tags mpich -o "$tmp/rb-mpich" ./cmd/reprobench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
one() { # tag library alg [mpirun args]
	local tag=$1 lib=$2 alg=$3 extra=${4:-} a=()
	[ "$alg" = default ] || a=(--alg "$alg")
	if [ "$lib" = openmpi ]; then
		# shellcheck disable=SC2086
		timeout 120 mpirun.openmpi $extra -np 2 "$tmp/rb-openmpi" clockcheck "${a[@]}" --after 0,10s --json --per-rank >"$OUT/$tag.json" 2>"$OUT/$tag.err" || true
	else
		timeout 120 mpirun.mpich -np 2 "$tmp/rb-mpich" clockcheck "${a[@]}" --after 0,10s --json --per-rank >"$OUT/$tag.json" 2>"$OUT/$tag.err" || true
	fi
	echo "$tag load $(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/log.txt"
}
block() {
	for i in $(seq 1 "$ROUNDS"); do
		one "$1-openmpi-hca3-$i" openmpi hca3
		one "$1-mpich-hca3-$i" mpich hca3
		if [ "$i" -le 5 ]; then
			one "$1-openmpi-default-$i" openmpi default
			one "$1-mpich-default-$i" mpich default
			one "$1-openmpi-yield-hca3-$i" openmpi hca3 "--mca mpi_yield_when_idle 1"
		fi
	done
}
echo "no loops: start $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/log.txt"
block quiet
sh -c 'while :; do :; done' & l1=$!
sh -c 'while :; do :; done' & l2=$!
echo "two busy loops: start $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/log.txt"
block load
kill "$l1" "$l2"
echo "end $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/log.txt"
cd "$OUT"
for cell in $(ls ./*.json | sed 's#^\./##; s/-[0-9]*\.json$//' | sort -u); do
	for f in "$cell"-*.json; do
		jq -r '(if .bound.bound_unknown then "none" elif ([.checks[]|select(.within_bound==false)]|length)>0 then "broken" else "held" end) as $k
		  | [$k, .sync_duration_s, (.checks[0].true_max_abs_error_s//"nan"), (.checks[-1].true_max_abs_error_s//"nan"),
		     ([.per_rank[]?|(.cpu_wait_s//0)/.sync_duration_s]|max), ([.per_rank[1:][]?|.min_rtt_s]|max)] | @tsv' "$f" 2>/dev/null || echo "error"
	done | awk -v c="$cell" '
	{n[$1]++; N++; if(N==1||$3>e0)e0=$3; if(N==1||$4>e10)e10=$4; if(N==1||$5<sl)sl=$5; if(N==1||$5>sh)sh=$5; if(N==1||$6<rl)rl=$6; if(N==1||$6>rh)rh=$6}
	END{printf "%-26s %2d rounds: held %2d, no bound %2d, broken %2d; true error max %.3g s at 0 s, %.3g s at 10 s; wait share %.2f-%.2f; smallest RTT %.3g-%.3g s\n", c, N, n["held"], n["none"], n["broken"], e0, e10, sl, sh, rl, rh}'
done | tee "$OUT/summary.txt"
