#!/usr/bin/env bash
# Fidelity of `reprobench run` against the field's baseline, in alternating
# runs (C, Go, C, Go, …), for Open MPI and MPICH at np 2.
#
#   bench/fidelity/run.sh [PAIRS=7] [N=10000] [OUT=/tmp/rb-fidelity]
#
# Part 1, per-observation timing: fidelity.c (plain MPI_Init, MPI_Barrier;
# t0; call; t1, local completion time, CLOCK_MONOTONIC, MPI_DOUBLE) next to
# `reprobench run` with its DEFAULT flags (only --calls, --sizes, --nrep)
# over MPI_Allreduce 8 B, 1 KiB, 32 KiB; MPI_Bcast 8 B, 32 KiB;
# MPI_Alltoall 1 KiB; MPI_Alltoallv 1 KiB (uniform counts); ping-pong 8 B, 64 KiB. Each run makes N
# observations after 100 warm-up ones. Per cell: the median over pairs of
# the per-pair ratio Go/C of the medians (target <= 1.03) and of the p99s
# (target <= 1.3), with the range. A pair straddles a machine-state change
# when the C runs on either side of its Go run differ by more than 1.5x in
# median; the verdict uses the pairs that do not.
# Two extra cells show the thread level: `reprobench run --mpi-thread
# funneled` and fidelity.c with MPI_Init_thread(FUNNELED), each against the
# plain MPI_Init C loop.
#
# Part 2, the tools' own numbers: tools.c, a RE-IMPLEMENTATION of the timing
# loops of OSU (osu_latency, osu_allreduce) and IMB-MPI1 (PingPong,
# Allreduce) from their published descriptions (not the tools: they are not
# installable here), next to `reprobench run --runtime osu|imb --clock
# mpi_wtime`; each run makes R=10 measurements (one measurement = one line
# the tool prints); per pair the ratio of the medians; target within 5 %.
#
# The p2p cells (issue 17): bw at 64 KiB and MPI_Put with fence at 8 B
# against p2p.c's plain loops (part 1), and osu_bw at 64 KiB against
# p2p.c's RE-IMPLEMENTATION of osu_bw's loop (part 2; the value is the time
# per window, bandwidth = 64 × 65536 B / value). CELLS='bw|putfence' runs
# only those. putfence-8-osuwin is the Put cell again, the C loop first
# creating and freeing the windows of 1, 2 and 4 B that osu_put_latency
# creates before it measures 8 B (p2p.c osuwin): with Open
# MPI the plain loop's median depends on whether its window is the
# process's first (docs/fidelity.md, "Put with fence: the first window").
#
# Duration on the 2-core VM: 42 minutes with the defaults at a load average
# of 13-33; part 1 took 81 s and part 2 46 s at a load of 3-7 (about 450
# mpirun launches in all, most of the time is launching). Needs python3.
# Environment: FLAVORS="openmpi mpich" (default both), PARTS="1 2", CELLS=regex
# (e.g. CELLS='^pingpong' for the ping-pong cells only).
set -euo pipefail
PAIRS=${1:-7}
N=${2:-10000}
OUT=${3:-/tmp/rb-fidelity}
FLAVORS=${FLAVORS:-openmpi mpich}
PARTS=${PARTS:-1 2}
CELLS=${CELLS:-.} # an extended regex: only the cells whose name matches
W=100
R=10
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
rm -rf "$OUT" && mkdir -p "$OUT"
log="$OUT/runs.csv"
echo "flavor,part,cell,pair,side,file,load1" >"$log"
began=$(date +%s)

for fl in $FLAVORS; do
	if [ "$fl" = mpich ]; then
		CC=$(command -v mpicc.mpich); RUN=$(command -v mpiexec.mpich); TAGS="-tags mpich"
	else
		CC=$(command -v mpicc.openmpi); RUN=$(command -v mpirun.openmpi); TAGS=""
	fi
	"$CC" -O2 -Wall -o "$OUT/fidelity-$fl" "$here/fidelity.c"
	"$CC" -O2 -Wall -o "$OUT/tools-$fl" "$here/tools.c"
	"$CC" -O2 -Wall -Wno-stringop-overflow -o "$OUT/p2p-$fl" "$here/p2p.c" # p2p: bw, Put with fence, osu_bw
	(cd "$root" && go build $TAGS -o "$OUT/reprobench-$fl" ./cmd/reprobench)
done

load1() { cut -d' ' -f1 /proc/loadavg; }

# run_one FLAVOR PART CELL PAIR SIDE FILE CMD...: one launch under timeout, logged with the load.
run_one() {
	local fl=$1 part=$2 cell=$3 pair=$4 side=$5 file=$6
	shift 6
	local RUN
	if [ "$fl" = mpich ]; then RUN=$(command -v mpiexec.mpich); else RUN=$(command -v mpirun.openmpi); fi
	echo "$fl,$part,$cell,$pair,$side,$file,$(load1)" >>"$log"
	timeout 300 "$RUN" -np 2 "$@" >"$OUT/last.log" 2>&1 || { cat "$OUT/last.log" >&2; exit 1; }
}

# The Go side runs with reprobench's DEFAULT flags: float64, 100 warm-up
# observations, barrier sync, local completion time, CLOCK_MONOTONIC, no
# clock sync, thread level SINGLE; W above matches the warm-up.
rbflags_local=""
# cell: name call bytes gocall [go extra flags] [c extra arg]
cells=(
	"allreduce-8 allreduce 8 MPI_Allreduce"
	"allreduce-1024 allreduce 1024 MPI_Allreduce"
	"allreduce-32768 allreduce 32768 MPI_Allreduce"
	"bcast-8 bcast 8 MPI_Bcast"
	"bcast-32768 bcast 32768 MPI_Bcast"
	"alltoall-1024 alltoall 1024 MPI_Alltoall"
	"alltoallv-1024 alltoallv 1024 MPI_Alltoallv" # vcoll (issue 17 target: median ratio <= 1.05)
	"pingpong-8 pingpong 8 pingpong"
	"pingpong-65536 pingpong 65536 pingpong"
	"iallreduce-8 iallreduce 8 MPI_Iallreduce" # nbc (#17): post, then wait
	"bw-65536 bw 65536 bw"             # p2p: one window of 64 (p2p.c)
	"putfence-8 putfence 8 MPI_Put"    # p2p: fence; put; fence (p2p.c)
	"putfence-8-osuwin putfence 8 MPI_Put" # the same after osu_put_latency's windows of 1, 2, 4 B (p2p.c osuwin)
)
# cbin CALL: the C program of a call (p2p.c for the bandwidth and one-sided cells).
cbin() { case $1 in bw | putfence) echo p2p ;; *) echo "$2" ;; esac; }
if [[ " $PARTS " == *" 1 "* ]]; then
	for fl in $FLAVORS; do
		for spec in "${cells[@]}" "allreduce-8-gofunneled allreduce 8 MPI_Allreduce" "allreduce-8-cfunneled allreduce 8 MPI_Allreduce"; do
			read -r cell call bytes gocall <<<"$spec"
			[[ $cell =~ $CELLS ]] || continue
			for p in $(seq 1 "$PAIRS"); do
				c="$OUT/$fl-$cell-c-$p.csv"
				cextra=""
				[ "$cell" = putfence-8-osuwin ] && cextra=osuwin
				# shellcheck disable=SC2086
				run_one "$fl" 1 "$cell" "$p" C "$c" "$OUT/$(cbin "$call" fidelity)-$fl" "$call" "$N" "$W" "$bytes" "$c" $cextra
				g="$fl-$cell-go-$p"
				if [ "$cell" = allreduce-8-cfunneled ]; then
					# The "engine" side is the C loop with FUNNELED.
					run_one "$fl" 1 "$cell" "$p" G "$OUT/$g.csv" "$OUT/fidelity-$fl" "$call" "$N" "$W" "$bytes" "$OUT/$g.csv" funneled
					continue
				fi
				extra=""
				[ "$cell" = allreduce-8-gofunneled ] && extra="--mpi-thread funneled"
				# shellcheck disable=SC2086
				run_one "$fl" 1 "$cell" "$p" G "$OUT/$g-mpirun000.csv" "$OUT/reprobench-$fl" run --out "$OUT" --run-id "$g" \
					--calls "$gocall" --sizes "$bytes" --nrep "$N" $rbflags_local $extra
			done
		done
	done
fi

# tool cells: name tool call bytes iter skip gocall datatype
tcells=(
	"osu-allreduce-8 osu allreduce 8 1000 200 MPI_Allreduce float32"
	"osu-allreduce-32768 osu allreduce 32768 100 10 MPI_Allreduce float32"
	"osu-latency-8 osu pingpong 8 10000 100 pingpong byte"
	"imb-allreduce-8 imb allreduce 8 1000 200 MPI_Allreduce float32"
	"imb-allreduce-32768 imb allreduce 32768 100 10 MPI_Allreduce float32"
	"imb-pingpong-8 imb pingpong 8 1000 100 pingpong byte"
	"osu-bw-65536 osu bw 65536 100 10 bw byte" # p2p: osu_bw re-implemented in p2p.c
)
if [[ " $PARTS " == *" 2 "* ]]; then
	for fl in $FLAVORS; do
		for spec in "${tcells[@]}"; do
			read -r cell tool call bytes iter skip gocall dt <<<"$spec"
			[[ $cell =~ $CELLS ]] || continue
			for p in $(seq 1 "$PAIRS"); do
				c="$OUT/$fl-$cell-c-$p.csv"
				run_one "$fl" 2 "$cell" "$p" C "$c" "$OUT/$(cbin "$call" tools)-$fl" "$tool" "$call" "$bytes" "$iter" "$skip" "$R" "$c"
				g="$fl-$cell-go-$p"
				run_one "$fl" 2 "$cell" "$p" G "$OUT/$g-mpirun000.csv" "$OUT/reprobench-$fl" run --out "$OUT" --run-id "$g" \
					--calls "$gocall" --sizes "$bytes" --datatype "$dt" --nrep "$R" --warmup 1 --loop-reps "$iter" \
					--proc-sync barrier --runtime "$tool" --clock mpi_wtime --clock-sync none --seed 1
			done
		done
	done
fi
echo "elapsed $(($(date +%s) - began)) s; load now $(cat /proc/loadavg)"
python3 "$here/analyze.py" "$OUT"
