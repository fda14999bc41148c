#!/usr/bin/env bash
# Paired clock-sync rounds: for rounds FIRST..LAST, each library, each
# algorithm of ALGS (the order rotated by round), one
# `reprobench clockcheck --after 0,10s --json --per-rank` on the layout
# WHERE, optionally beside two busy loops (LOAD=1). The two ranks' clocks are
# one CLOCK_MONOTONIC (across virtual-cluster nodes: up to a known namespace
# offset and skew), so every error is exact. rounds.py summarizes a
# directory of such runs: per cell how many rounds stated a bound, held it
# or broke it, the true error after 10 s, and per round the ratio of each
# algorithm's true error to the first algorithm's.
#
#   bench/clocksync/rounds.sh FIRST LAST
#   WHERE=host|2x1|2x2  (default host: np 2 on this machine; AxB: A virtual-
#                        cluster nodes × B ranks, new offsets and skews per
#                        round, seed = round, skews up to ±NODE_SKEW_PPM,
#                        default 100)
#   ALGS="default hca3" (default = no --alg flag); LIBS="openmpi mpich"
#   LOAD=1              two `sh -c 'while :; do :; done'` beside every run
#   OUT=DIR             (default bench/clocksync/out/rounds); BIN=DIR with
#                       rb-openmpi, rb-mpich and vcluster, built if absent
#
# Running one round per invocation lets a driver pause between rounds. Each
# run takes about 12 s (10 s of waiting).
set -euo pipefail
FIRST=${1:?first round} LAST=${2:?last round}
WHERE=${WHERE:-host} ALGS=${ALGS:-default hca3} LIBS=${LIBS:-openmpi mpich} LOAD=${LOAD:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/bench/clocksync/out/rounds}
BIN=${BIN:-$OUT/bin}
mkdir -p "$OUT" "$BIN"
[ -x "$BIN/rb-openmpi" ] || go build -C "$root" -o "$BIN/rb-openmpi" ./cmd/reprobench
[ -x "$BIN/rb-mpich" ] || go build -C "$root" -tags mpich -o "$BIN/rb-mpich" ./cmd/reprobench
[ -x "$BIN/vcluster" ] || go build -C "$root" -o "$BIN/vcluster" ./internal/vcluster/cmd/vcluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
loops=()
stop() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true; }
trap stop EXIT
if [ "$LOAD" = 1 ]; then
	sh -c 'while :; do :; done' & loops+=($!)
	sh -c 'while :; do :; done' & loops+=($!)
fi
read -r -a algs <<<"$ALGS"
for i in $(seq "$FIRST" "$LAST"); do
	for lib in $LIBS; do
		case $WHERE in
		host) if [ "$lib" = mpich ]; then run=(mpiexec.mpich -np 2); else run=(mpirun.openmpi -np 2); fi ;;
		*x*) run=("$BIN/vcluster" mpirun -flavor "$lib" -nodes "${WHERE%x*}" -per-node "${WHERE#*x}" -seed "$i" -skew-ppm "${NODE_SKEW_PPM:-100}" --) ;;
		*) echo "WHERE=$WHERE: want host or NODESxPER" >&2; exit 2 ;;
		esac
		n=${#algs[@]}
		for k in $(seq 0 $((n - 1))); do
			alg=${algs[$(((k + i) % n))]}
			a=()
			[ "$alg" = default ] || a=(--alg "$alg")
			f="$OUT/$WHERE-load$LOAD-$lib-$alg-$i"
			timeout 180 "${run[@]}" "$BIN/rb-$lib" clockcheck "${a[@]}" --after 0,10s --json --per-rank >"$f.json" 2>"$f.err" ||
				echo "$f: clockcheck failed: $(tail -1 "$f.err")" >&2
			cut -d' ' -f1 /proc/loadavg >"$f.load"
		done
	done
done
