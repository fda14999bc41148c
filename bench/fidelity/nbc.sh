#!/usr/bin/env bash
# The published numbers of osu_iallreduce (pure, compute, total, overlap)
# next to `reprobench run --runtime osu --nbc-overlap`, in alternating runs
# (C, Go, C, Go, …), for Open MPI and MPICH at np 2 (issue #17 part 1).
#
#   bench/fidelity/nbc.sh [PAIRS=5] [R=10] [OUT=/tmp/rb-nbc]
#
# nbc.c is a RE-IMPLEMENTATION of osu_iallreduce's timing loops from the
# published source structure (the OSU micro-benchmarks are not installable
# here; see the comment at its top), not the tool. One measurement = one
# line the tool prints = one observation of reprobench (loop-reps = OSU's
# iterations, one warm-up observation standing for OSU's skip); each run
# makes R of them. Per pair and column, the ratio Go/C of the medians of
# pure_s, compute_s and total_s (target: within 5 % for pure and total) and
# the difference Go − C of the median overlap in percentage points (target:
# within 5 points; a ratio of two overlaps near 0 says nothing). A pair
# straddles a machine-state change when the pure medians of the C runs
# around its Go run differ by more than 1.5x; the verdict leaves those out.
#
# With --runtime osu reprobench runs OSU's time-targeted kernel (passes of
# compute_on_host until they add up to the rank's mean pure time per call
# of the same observation), as nbc.c does. Same definitions otherwise:
# MPI_FLOAT/MPI_SUM, MPI_Wtime, rank averages, overlap from the averages.
#
# Duration: about 15 launches per cell and library; 40 s per library at a
# load of 12 with PAIRS=2 R=3 (the smoke run); budget about 5 min for the
# defaults on a quiet machine. Needs python3.
# Environment: FLAVORS="openmpi mpich" (default both), CELLS=regex.
set -euo pipefail
PAIRS=${1:-5}
R=${2:-10}
OUT=${3:-/tmp/rb-nbc}
FLAVORS=${FLAVORS:-openmpi mpich}
CELLS=${CELLS:-.}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
rm -rf "$OUT" && mkdir -p "$OUT"
log="$OUT/runs.csv"
echo "flavor,cell,pair,side,file,load1" >"$log"
began=$(date +%s)
for fl in $FLAVORS; do
	if [ "$fl" = mpich ]; then CC=$(command -v mpicc.mpich); TAGS="-tags mpich"; else CC=$(command -v mpicc.openmpi); TAGS=""; fi
	"$CC" -O2 -Wall -o "$OUT/nbc-$fl" "$here/nbc.c"
	# shellcheck disable=SC2086
	(cd "$root" && go build $TAGS -o "$OUT/reprobench-$fl" ./cmd/reprobench)
done
load1() { cut -d' ' -f1 /proc/loadavg; }
run_one() {
	local fl=$1 cell=$2 pair=$3 side=$4 file=$5
	shift 5
	local RUN
	if [ "$fl" = mpich ]; then RUN=$(command -v mpiexec.mpich); else RUN=$(command -v mpirun.openmpi); fi
	echo "$fl,$cell,$pair,$side,$file,$(load1)" >>"$log"
	timeout 600 "$RUN" -np 2 "$@" >"$OUT/last.log" 2>&1 || { cat "$OUT/last.log" >&2; exit 1; }
}
# cell: name bytes iter skip (OSU's defaults: 1000/200 iterations up to 8 KiB, 100/10 above)
cells=(
	"osu-iallreduce-8 8 1000 200"
	"osu-iallreduce-32768 32768 100 10"
)
for fl in $FLAVORS; do
	for spec in "${cells[@]}"; do
		read -r cell bytes iter skip <<<"$spec"
		[[ $cell =~ $CELLS ]] || continue
		for p in $(seq 1 "$PAIRS"); do
			c="$OUT/$fl-$cell-c-$p.csv"
			run_one "$fl" "$cell" "$p" C "$c" "$OUT/nbc-$fl" osu "$bytes" "$iter" "$skip" "$R" "$c"
			g="$fl-$cell-go-$p"
			run_one "$fl" "$cell" "$p" G "$OUT/$g-mpirun000.csv" "$OUT/reprobench-$fl" run --out "$OUT" --run-id "$g" \
				--calls MPI_Iallreduce --sizes "$bytes" --datatype float32 --nrep "$R" --warmup 1 --loop-reps "$iter" \
				--proc-sync barrier --runtime osu --clock mpi_wtime --clock-sync none --seed 1 --nbc-overlap
		done
	done
done
echo "elapsed $(($(date +%s) - began)) s; load now $(cat /proc/loadavg)"
python3 "$here/nbc_analyze.py" "$OUT"
