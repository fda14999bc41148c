#!/usr/bin/env bash
# Fidelity of reprobench against the programs users check it against, in
# pairs of mpiruns launched A B B A (baseline then ours in odd pairs, ours
# then baseline in even ones), np 2, Open MPI and MPICH; every pair is
# counted (go -C bench run ./fidelity/report).
#
#   TOOLS=DIR bench/fidelity/run.sh [PAIRS=30] [N=10000] [OUT=/tmp/rb-fidelity]
#
# Parts (PARTS="cloop reprompi osu imb" by default; aa, split and toolaa only when named; the tool
# parts need TOOLS, the directory bench/fidelity/build-tools.sh filled):
#
#   cloop     allreduce-8: fidelity.c (MPI_Init, MPI_Barrier; t0; call; t1,
#             CLOCK_MONOTONIC, max over ranks, MPI_DOUBLE) next to
#             `reprobench run --proc-sync barrier` (the C loop's own
#             synchronization; run's default is a window); N observations
#             after 100 warm-up ones, per run the median (and the p99,
#             informative). Target (issue 30): median per-pair ratio
#             <= 1.05, upper end of its 95 % interval <= 1.10, over all
#             pairs and in each mode both sides show.
#   aa        aa-allreduce-8: fidelity.c against itself, in alternating
#             pairs as cloop, judged by cloop's target: an A/A test of how
#             far that target's statistics reach on this machine when both
#             sides are the same program.
#   split     split-allreduce-8: fidelity.c against itself with one
#             communicator created and freed before its loop (fidelity.c's
#             "split"), in alternating pairs as aa (informative): what
#             reprobench's launch check cost before it stopped creating one
#             (issue 30; Open MPI 4.1.4 3-6 % slower).
#   reprompi  reprompi-allreduce-8: ReproMPI's mpibenchmark with barrier
#             sync (--proc-sync=MPI_Barrier, MPI_Wtime, local runtime,
#             MPI_DOUBLE) next to `reprobench run --clock mpi_wtime`, N
#             observations each; per run the median.
#   osu       OSU 7.4, each with -m SIZE:SIZE, next to `reprobench run
#             --runtime osu --clock mpi_wtime --nrep 1`, one observation of
#             OSU's iteration count after one warm-up observation:
#             osu_latency 8 B (10000 iterations), osu_allreduce 8 B -T
#             mpi_float (1000), osu_bcast 1 KiB (1000), osu_bw 64 KiB (20
#             windows of 64), osu_iallreduce 8 B -T mpi_float (1000; pure,
#             overall and overlap); and the tail: osu_allreduce -z's
#             P50/P90/P99 next to `--runtime osu --loop-reps 1 --nrep 1000`
#             whose rows are OSU's per-iteration averages over ranks, taken
#             with OSU's nearest-rank rule (analysis.QuantileNearestRank).
#   imb       IMB-MPI1 Allreduce (MPI_FLOAT) and PingPong at 8 B, as shipped
#             (-O0), next to `--runtime imb --proc-sync double_barrier` (IMB's
#             two barriers before its loop), 1000 calls; the same sources
#             at -O2 (imb-O2-*, informative).
#   toolaa    each tool against itself (aa-osu-latency-8, aa-osu-allreduce-8,
#             aa-osu-bcast-1024, aa-osu-iallreduce-8-*, aa-imb-allreduce-8,
#             aa-imb-pingpong-8), in alternating pairs, judged by the tool
#             targets: how far those targets reach on this machine when
#             both sides are the same binary (only when named).
#   Tool targets: median per-pair ratio in [0.95, 1.05] over >= 15 pairs;
#   osu_iallreduce's overlap: median difference within 5 points.
#
# OSU prints two decimals in µs: at 0.3–0.7 µs one digit of 0.01 µs is 1.4–
# 3.3 % of the value, so a single OSU number carries up to ±1.7 % of
# rounding; the report's per-pair ratios inherit it (the median over pairs
# averages it out only partly, since the rounding is the same for every
# pair at a steady latency).
#
# Environment: FLAVORS="openmpi mpich", PARTS as above, TOOLS=DIR; BIN=DIR
# with BUILD_ONLY=1 builds the programs there and stops, BIN=DIR alone
# uses them (so that no compiler runs inside a quiet section); REPORT=0
# skips the tables; OURS_FLAGS adds flags to the cloop part's `reprobench
# run` (to test a suspected factor, e.g. OURS_FLAGS="--cache cold").
# Output: OUT/runs.csv (one line per run and metric, in launch order, with
# the 1-minute load) and the files it names; the tables: go run
# ./bench/fidelity/report OUT. Duration on the 2-vCPU VM (about 0.25 s
# per launch, 22 launches per pair and library with every part): 30
# pairs, both libraries, every part 330-345 s (2026-11-27); PARTS=cloop
# alone about 30 s.
set -euo pipefail
PAIRS=${1:-30}
N=${2:-10000}
OUT=${3:-/tmp/rb-fidelity}
FLAVORS=${FLAVORS:-openmpi mpich}
PARTS=${PARTS:-cloop reprompi osu imb}
W=100
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
needs_tools=0
for g in $PARTS; do
	case $g in
	cloop | aa | split) ;;
	reprompi | osu | imb | toolaa) needs_tools=1 ;;
	*)
		echo "run.sh: unknown part $g (want cloop, aa, split, reprompi, osu, imb, toolaa)" >&2
		exit 2
		;;
	esac
done
if [ $needs_tools = 1 ] && [ ! -d "${TOOLS:-}" ]; then
	echo "run.sh: PARTS=\"$PARTS\" needs TOOLS=DIR, built by bench/fidelity/build-tools.sh (or PARTS=cloop)" >&2
	exit 2
fi
# BIN=DIR: the programs are already built there (fidelity-FLAVOR and
# reprobench-FLAVOR; build them with BUILD_ONLY=1 outside the quiet section).
BIN=${BIN:-$OUT}
[ "${BUILD_ONLY:-0}" = 1 ] || { rm -rf "$OUT" && mkdir -p "$OUT"; }
if [ "$BIN" = "$OUT" ] || [ "${BUILD_ONLY:-0}" = 1 ]; then
	mkdir -p "$BIN"
	for fl in $FLAVORS; do
		if [ "$fl" = mpich ]; then CC=mpicc.mpich TAGS="-tags mpich"; else CC=mpicc.openmpi TAGS=""; fi
		"$CC" -O2 -Wall -o "$BIN/fidelity-$fl" "$here/fidelity.c"
		# shellcheck disable=SC2086
		(cd "$root" && go build $TAGS -o "$BIN/reprobench-$fl" ./cmd/reprobench)
	done
	[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
fi
log=$OUT/runs.csv
echo "flavor,cell,target,bytes,pair,side,kind,file,load1" >"$log"
began=$(date +%s)

# launch FLAVOR FILE|- CMD...: one mpirun -np 2 under timeout; with a FILE
# its standard output goes there (the tools print their tables).
launch() {
	local fl=$1 file=$2 run=mpirun.openmpi
	shift 2
	[ "$fl" = mpich ] && run=mpiexec.mpich
	local dest=$OUT/last.log
	[ "$file" != - ] && dest=$file
	if ! timeout 300 "$run" -np 2 "$@" >"$dest" 2>"$OUT/last.err"; then
		echo "run.sh: failed: $run -np 2 $*" >&2
		cat "$OUT/last.err" "$dest" >&2
		exit 1
	fi
}

# record FLAVOR PAIR SIDE FILE BYTES "CELL:TARGET:KIND;…": one line of
# runs.csv per metric the run FILE gives (a KIND may hold ':' and spaces).
record() {
	local fl=$1 p=$2 side=$3 file=$4 bytes=$5 load spec cell target kind specs
	load=$(cut -d' ' -f1 /proc/loadavg)
	IFS=';' read -ra specs <<<"$6"
	for spec in "${specs[@]}"; do
		IFS=: read -r cell target kind <<<"$spec"
		echo "$fl,$cell,$target,$bytes,$p,$side,$kind,${file#"$OUT"/},$load" >>"$log"
	done
}

# ours FLAVOR PAIR NAME BYTES SPECS -- RUNFLAGS...: `reprobench run` as one side of a pair.
ours() {
	local fl=$1 p=$2 name=$3 bytes=$4 specs=$5
	shift 6
	local id=$fl-$name-ours-$p
	launch "$fl" - "$BIN/reprobench-$fl" run --out "$OUT" --run-id "$id" "$@"
	record "$fl" "$p" ours "$OUT/$id-mpirun000.csv" "$bytes" "$specs"
}

# base FLAVOR PAIR NAME BYTES SPECS -- CMD...: the baseline side; the output
# of CMD (or the CSV fidelity.c writes to @OUT@) is the run's file.
base() {
	local fl=$1 p=$2 name=$3 bytes=$4 specs=$5
	shift 6
	local file=$OUT/$fl-$name-base-$p.txt args=() a
	for a in "$@"; do
		if [ "$a" = @OUT@ ]; then
			file=${file%.txt}.csv
			a=$file
		fi
		args+=("$a")
	done
	if [[ $file == *.csv ]]; then launch "$fl" - "${args[@]}"; else launch "$fl" "$file" "${args[@]}"; fi
	record "$fl" "$p" base "$file" "$bytes" "$specs"
}

# toolaa FLAVOR PAIR NAME BYTES SPECS -- CMD...: the tool CMD on both sides
# of a pair (A/A), each run's output its file.
toolaa() {
	local fl=$1 p=$2 name=$3 bytes=$4 specs=$5 side
	shift 6
	for side in base ours; do
		launch "$fl" "$OUT/$fl-$name-$side-$p.txt" "$@"
		record "$fl" "$p" $side "$OUT/$fl-$name-$side-$p.txt" "$bytes" "$specs"
	done
}

# cloopaa FLAVOR PAIR NAME TARGET [OPTION]: fidelity.c's 8-byte allreduce
# on both sides of a pair (cell NAME-allreduce-8, judged by TARGET), the
# second side with fidelity.c's OPTION when one is given.
cloopaa() {
	local fl=$1 p=$2 name=$3 target=$4 side f extra=()
	local s="$name-allreduce-8:$target:median;$name-allreduce-8-p99:info:p99"
	for side in base ours; do
		f=$OUT/$fl-$name-allreduce-8-$side-$p.csv
		[ $side = ours ] && extra=("${@:5}")
		launch "$fl" - "$BIN/fidelity-$fl" allreduce "$N" "$W" 8 "$f" "${extra[@]}"
		record "$fl" "$p" $side "$f" 8 "$s"
	done
}

# ab PAIR FIRST... :: SECOND...: the two sides of a pair, FIRST then SECOND
# in odd pairs and SECOND then FIRST in even ones (A B B A …), so that a
# drift or a carry-over from one mpirun to the next cannot favour one side.
# The tool parts launched the baseline first until 2026-11-28; ten runs in
# this order then read the same (Open MPI's osu_allreduce 1.064 with the
# baseline first, 1.068 with ours first), and the report's by-order table
# keeps showing it.
ab() {
	local p=$1 a=() b=()
	shift
	while [ $# -gt 0 ] && [ "$1" != :: ]; do
		a+=("$1")
		shift
	done
	[ $# -gt 0 ] || { echo "run.sh: ab without ::" >&2; exit 2; }
	shift
	b=("$@")
	if [ $((p % 2)) = 1 ]; then "${a[@]}"; "${b[@]}"; else "${b[@]}"; "${a[@]}"; fi
}

# imbbase FLAVOR PAIR O2: the IMB-MPI1 baselines (O2 is imb-O2 when that
# build exists, empty otherwise); imbours FLAVOR PAIR O2: ours.
imbbase() {
	local fl=$1 p=$2 o2=$3 v t
	for v in imb $o2; do
		t=tool
		[ "$v" = imb-O2 ] && t=info
		base "$fl" "$p" "$v-allreduce-8" 8 "$v-allreduce-8:$t:imb:t_avg[usec]" -- "$T/$v/IMB-MPI1" Allreduce -msglog 3:3 -npmin 2
		base "$fl" "$p" "$v-pingpong-8" 8 "$v-pingpong-8:$t:imb:t[usec]" -- "$T/$v/IMB-MPI1" PingPong -msglog 3:3
	done
}
imbours() {
	local fl=$1 p=$2 o2=$3
	# shellcheck disable=SC2046
	ours "$fl" "$p" imb-allreduce-8 8 "imb-allreduce-8:tool:median${o2:+;imb-O2-allreduce-8:info:median}" -- \
		$(rbtool --calls MPI_Allreduce --sizes 8 --datatype float32 --runtime imb --proc-sync double_barrier --loop-reps 1000)
	# shellcheck disable=SC2046
	ours "$fl" "$p" imb-pingpong-8 8 "imb-pingpong-8:tool:median${o2:+;imb-O2-pingpong-8:info:median}" -- \
		$(rbtool --calls pingpong --sizes 8 --datatype byte --runtime imb --proc-sync double_barrier --loop-reps 1000)
}

rbtool() { echo --clock mpi_wtime --clock-sync none --nrep 1 --warmup 1 --seed 1 "$@"; }

for p in $(seq 1 "$PAIRS"); do
	for fl in $FLAVORS; do
		T=${TOOLS:-}/$fl
		OSU=$T/osu/c/mpi
		for g in $PARTS; do
			case $g in
			cloop)
				s="allreduce-8:cloop:median;allreduce-8-p99:info:p99"
				# shellcheck disable=SC2086
				ab "$p" base "$fl" "$p" allreduce-8 8 "$s" -- "$BIN/fidelity-$fl" allreduce "$N" "$W" 8 @OUT@ \
					:: ours "$fl" "$p" allreduce-8 8 "$s" -- --calls MPI_Allreduce --sizes 8 --nrep "$N" --proc-sync barrier ${OURS_FLAGS:-}
				;;
			aa) cloopaa "$fl" "$p" aa cloop ;;
			split) cloopaa "$fl" "$p" split info split ;;
			toolaa)
				toolaa "$fl" "$p" aa-osu-latency-8 8 "aa-osu-latency-8:tool:osu:Avg Latency" -- "$OSU/pt2pt/standard/osu_latency" -m 8:8
				toolaa "$fl" "$p" aa-osu-allreduce-8 8 "aa-osu-allreduce-8:tool:osu:Avg Latency" -- \
					"$OSU/collective/blocking/osu_allreduce" -m 8:8 -T mpi_float
				toolaa "$fl" "$p" aa-osu-bcast-1024 1024 "aa-osu-bcast-1024:tool:osu:Avg Latency" -- "$OSU/collective/blocking/osu_bcast" -m 1024:1024
				toolaa "$fl" "$p" aa-osu-iallreduce-8 8 "aa-osu-iallreduce-8-pure:tool:osu:Pure Comm.;aa-osu-iallreduce-8-overall:tool:osu:Overall;aa-osu-iallreduce-8-overlap:diff:osu:Overlap" -- \
					"$OSU/collective/non_blocking/osu_iallreduce" -m 8:8 -T mpi_float
				toolaa "$fl" "$p" aa-imb-allreduce-8 8 "aa-imb-allreduce-8:tool:imb:t_avg[usec]" -- "$T/imb/IMB-MPI1" Allreduce -msglog 3:3 -npmin 2
				toolaa "$fl" "$p" aa-imb-pingpong-8 8 "aa-imb-pingpong-8:tool:imb:t[usec]" -- "$T/imb/IMB-MPI1" PingPong -msglog 3:3
				;;
			reprompi)
				ab "$p" base "$fl" "$p" reprompi-allreduce-8 8 "reprompi-allreduce-8:tool:reprompi" -- \
					"$T/reprompi/bin/mpibenchmark" --calls-list=MPI_Allreduce --msizes-list=8 --nrep="$N" \
					--proc-sync=MPI_Barrier --datatype=MPI_DOUBLE --operation=MPI_SUM \
					:: ours "$fl" "$p" reprompi-allreduce-8 8 "reprompi-allreduce-8:tool:median" -- --calls MPI_Allreduce --sizes 8 \
					--nrep "$N" --clock mpi_wtime --proc-sync barrier
				;;
			osu)
				# shellcheck disable=SC2046
				ab "$p" base "$fl" "$p" osu-latency-8 8 "osu-latency-8:tool:osu:Avg Latency" -- "$OSU/pt2pt/standard/osu_latency" -m 8:8 \
					:: ours "$fl" "$p" osu-latency-8 8 "osu-latency-8:tool:median" -- $(rbtool --calls pingpong --sizes 8 --datatype byte \
					--runtime osu --loop-reps 10000)
				# shellcheck disable=SC2046
				ab "$p" base "$fl" "$p" osu-allreduce-8 8 "osu-allreduce-8:tool:osu:Avg Latency" -- \
					"$OSU/collective/blocking/osu_allreduce" -m 8:8 -T mpi_float \
					:: ours "$fl" "$p" osu-allreduce-8 8 "osu-allreduce-8:tool:median" -- $(rbtool --calls MPI_Allreduce --sizes 8 \
					--datatype float32 --runtime osu --loop-reps 1000)
				ab "$p" base "$fl" "$p" osu-allreduce-8-z 8 "osu-allreduce-8-p50:info:osu:P50;osu-allreduce-8-p90:info:osu:P90;osu-allreduce-8-p99:info:osu:P99" -- \
					"$OSU/collective/blocking/osu_allreduce" -m 8:8 -T mpi_float -z \
					:: ours "$fl" "$p" osu-allreduce-8-z 8 "osu-allreduce-8-p50:info:nearest:50;osu-allreduce-8-p90:info:nearest:90;osu-allreduce-8-p99:info:nearest:99" -- \
					--calls MPI_Allreduce --sizes 8 --datatype float32 --runtime osu --loop-reps 1 --nrep 1000 --warmup 100 \
					--clock mpi_wtime --clock-sync none --seed 1
				# shellcheck disable=SC2046
				ab "$p" base "$fl" "$p" osu-bcast-1024 1024 "osu-bcast-1024:tool:osu:Avg Latency" -- "$OSU/collective/blocking/osu_bcast" -m 1024:1024 \
					:: ours "$fl" "$p" osu-bcast-1024 1024 "osu-bcast-1024:tool:median" -- $(rbtool --calls MPI_Bcast --sizes 1024 \
					--datatype byte --runtime osu --loop-reps 1000)
				# shellcheck disable=SC2046
				ab "$p" base "$fl" "$p" osu-bw-65536 65536 "osu-bw-65536:tool:osu:Bandwidth" -- "$OSU/pt2pt/standard/osu_bw" -m 65536:65536 \
					:: ours "$fl" "$p" osu-bw-65536 65536 "osu-bw-65536:tool:bw:65536:64" -- $(rbtool --calls bw --sizes 65536 \
					--datatype byte --runtime osu --loop-reps 20)
				# shellcheck disable=SC2046
				ab "$p" base "$fl" "$p" osu-iallreduce-8 8 "osu-iallreduce-8-pure:tool:osu:Pure Comm.;osu-iallreduce-8-overall:tool:osu:Overall;osu-iallreduce-8-overlap:diff:osu:Overlap" -- \
					"$OSU/collective/non_blocking/osu_iallreduce" -m 8:8 -T mpi_float \
					:: ours "$fl" "$p" osu-iallreduce-8 8 "osu-iallreduce-8-pure:tool:col:pure_s;osu-iallreduce-8-overall:tool:col:total_s;osu-iallreduce-8-overlap:diff:col:overlap_frac*100" -- \
					$(rbtool --calls MPI_Iallreduce --sizes 8 --datatype float32 --runtime osu --nbc-overlap --loop-reps 1000)
				;;
			imb)
				o2=""
				[ -x "$T/imb-O2/IMB-MPI1" ] && o2=imb-O2 # informative; left out when not built
				ab "$p" imbbase "$fl" "$p" "$o2" :: imbours "$fl" "$p" "$o2"
				;;
			esac
		done
	done
done
echo "elapsed $(($(date +%s) - began)) s; load now $(cat /proc/loadavg)"
# REPORT=0: leave the tables to `go -C bench run ./fidelity/report OUT` (outside the quiet section).
[ "${REPORT:-1}" = 0 ] || { cd "$root/bench" && go run ./fidelity/report "$OUT"; }
