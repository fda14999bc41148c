#!/usr/bin/env bash
# Two reprobench binaries against one tool, interleaved in one sitting: each
# round runs the tool, binary A and binary B once each, in an order that
# rotates through the six permutations, so that no side always follows
# another. Every round is counted. Open MPI or MPICH, np 2.
#
#   TOOLS=DIR A=BIN B=BIN bench/fidelity/binaries.sh CELL [ROUNDS=120] [OUT=/tmp/rb-binaries]
#
# CELL is osu-allreduce-8 (osu_allreduce -m 8:8 -T mpi_float, its "Avg
# Latency", against `run --runtime osu --loop-reps 1000`) or imb-allreduce-8
# (IMB-MPI1 Allreduce -msglog 3:3, its t_avg, against `run --runtime imb
# --proc-sync double_barrier --loop-reps 1000`); both binaries take one
# observation after one warm-up observation, with MPI_Wtime, as run.sh's
# tool parts do. FLAVOR=openmpi (default) or mpich picks the library and
# DIR/FLAVOR the tools (bench/fidelity/build-tools.sh). Use it to show what
# a change of the engine does to a tool cell: A the new binary, B the old.
# Output: OUT/CELL.csv (round, order, load1, tool_us, a_us, b_us), then
# the per-round ratios a/tool, b/tool and a/b with their exact 95 %
# intervals: go -C bench run ./fidelity/binaries OUT/CELL.csv.
set -euo pipefail
CELL=${1:?cell: osu-allreduce-8 or imb-allreduce-8}
ROUNDS=${2:-120}
OUT=${3:-/tmp/rb-binaries}
FLAVOR=${FLAVOR:-openmpi}
: "${TOOLS:?TOOLS=DIR}" "${A:?A=binary}" "${B:?B=binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
launch=(mpirun.openmpi -np 2)
[ "$FLAVOR" = mpich ] && launch=(mpiexec.mpich -np 2)
T=$TOOLS/$FLAVOR
common=(--clock mpi_wtime --clock-sync none --nrep 1 --warmup 1 --seed 1 --calls MPI_Allreduce --sizes 8 --datatype float32 --loop-reps 1000)
case $CELL in
osu-allreduce-8)
	tool() { "${launch[@]}" "$T/osu/c/mpi/collective/blocking/osu_allreduce" -m 8:8 -T mpi_float 2>/dev/null | awk '$1=="8"{print $2}'; }
	ours=("${common[@]}" --runtime osu) ;;
imb-allreduce-8)
	tool() { "${launch[@]}" "$T/imb/IMB-MPI1" Allreduce -msglog 3:3 -npmin 2 2>/dev/null | awk '$1=="8"{print $5}'; }
	ours=("${common[@]}" --runtime imb --proc-sync double_barrier) ;;
*) echo "binaries.sh: unknown cell $CELL" >&2; exit 2 ;;
esac
mkdir -p "$OUT/runs"
csv=$OUT/$CELL.csv
echo "round,order,load1,tool_us,a_us,b_us" > "$csv"
one() { # binary run-id: prints the observation in µs, or nothing
	timeout 60 "${launch[@]}" "$1" run "${ours[@]}" --out "$OUT/runs" --run-id "$2" >/dev/null 2>&1 || return 0
	awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="runtime_s") c=i} NR==2{printf "%.4f", $c*1e6}' "$OUT/runs/$2-mpirun000.csv"
}
perms=("t a b" "t b a" "a t b" "a b t" "b t a" "b a t")
for r in $(seq 1 "$ROUNDS"); do
	order=${perms[$(((r - 1) % 6))]}
	t="" a="" b=""
	for s in $order; do
		case $s in
		t) t=$(timeout 60 bash -c "$(declare -f tool); $(declare -p launch T); tool" || true) ;;
		a) a=$(one "$A" "$CELL-a-$r") ;;
		b) b=$(one "$B" "$CELL-b-$r") ;;
		esac
	done
	echo "$r,${order// /-},$(cut -d' ' -f1 /proc/loadavg),$t,$a,$b" >> "$csv"
done
echo "$csv"
