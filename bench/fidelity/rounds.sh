#!/usr/bin/env bash
# Rounds of several programs, each an mpirun of np 2, in a rotating order
# (round p starts with command p mod k), every round counted: per run the
# median of its runtime_s column, then each command's ratio to the first
# command, paired (median over rounds of the per-round ratio, with the exact
# order-statistic 95 % interval) and unpaired (Hodges-Lehmann: the shift of
# its runs' logs from the first command's, with the rank-sum 95 %
# interval), printed by `bench/fidelity/report -rounds` with the statistics
# of the fidelity tables. It is how issue 30's causes were located: the C
# loop with and without a communicator made before it, reprobench run
# before and after a change, in the same rounds.
#
#   bench/fidelity/rounds.sh ROUNDS OUT 'CMD0' 'CMD1' [...]
#
# In a command, @CSV@ is replaced by a file the run writes (fidelity.c's or
# nbc.c's OUTFILE) and @DIR@ by a directory (reprobench run --out @DIR@: its
# first CSV is read); of that CSV the median of column COL is taken
# (default runtime_s; pure_s for the overlap measurement and nbc.c). A
# command with neither is an OSU benchmark: its standard output is OSU's
# table, and the column OSUCOL (default "Avg Latency", in µs) of its row for
# BYTES (default 8) is read. Each run is read by `bench/fidelity/report
# -value`, the same code that reads run.sh's runs; COL and OSUCOL name time
# columns, kept in ns.
# FLAVOR=mpich runs mpiexec.mpich instead of Open MPI's mpirun.
# Example (Open MPI, 100 rounds, about 3 min):
#
#   mpicc.openmpi -O2 -o /tmp/fid bench/fidelity/fidelity.c
#   go build -o /tmp/rb ./cmd/reprobench
#   bench/fidelity/rounds.sh 100 /tmp/rounds '/tmp/fid allreduce 10000 100 8 @CSV@' \
#       '/tmp/fid allreduce 10000 100 8 @CSV@ split' \
#       '/tmp/rb run --out @DIR@ --calls MPI_Allreduce --sizes 8 --nrep 10000'
#
# MPICH, osu_iallreduce's pure time against nbc.c (OSU's loops in a plain C
# program) and the overlap measurement (docs/fidelity.md, about 1 min):
#
#   FLAVOR=mpich COL=pure_s OSUCOL="Pure Comm." bench/fidelity/rounds.sh 60 /tmp/rounds \
#       '/tmp/nbc osu 8 1000 100 1 @CSV@' "$OSU/collective/non_blocking/osu_iallreduce -m 8:8 -T mpi_float" \
#       '/tmp/rb run --out @DIR@ --calls MPI_Iallreduce --sizes 8 --datatype float32 --runtime osu
#        --nbc-overlap --loop-reps 1000 --nrep 1 --warmup 1 --clock mpi_wtime --clock-sync none --seed 1'
#
# Output: OUT/runs.txt (round, command, median ns, in launch order) and the
# table on standard output (again from the file: `report -rounds
# OUT/runs.txt`, report built at OUT/report).
set -euo pipefail
if [ $# -lt 4 ]; then
	echo "usage: $0 ROUNDS OUT 'CMD0' 'CMD1' [...]" >&2
	exit 2
fi
rounds=$1 out=$2
shift 2
cmds=("$@")
k=${#cmds[@]}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
run=mpirun.openmpi
[ "${FLAVOR:-openmpi}" = mpich ] && run=mpiexec.mpich
rm -rf "$out" && mkdir -p "$out"
# Each run is read by bench/fidelity/report -value, as the fidelity tables
# read it, and the rounds' table is its -rounds; built once here, before the
# first round.
report=$(cd "$out" && pwd)/report
(cd "$(dirname "$0")/../.." && go -C bench build -o "$report" ./fidelity/report)
for p in $(seq 1 "$rounds"); do
	for j in $(seq 0 $((k - 1))); do
		i=$(((j + p) % k))
		csv=$out/r$p-c$i.csv dir=$out/r$p-c$i
		cmd=${cmds[$i]//@CSV@/$csv}
		cmd=${cmd//@DIR@/$dir}
		# shellcheck disable=SC2086
		if ! timeout 300 $run -np 2 $cmd >"$out/last.log" 2>"$out/last.err"; then
			echo "rounds.sh: failed: $run -np 2 $cmd" >&2
			cat "$out/last.err" "$out/last.log" >&2
			exit 1
		fi
		src=$out/last.log # an OSU table
		if [ "$cmd" != "${cmds[$i]}" ]; then
			src=$csv
			[ -f "$src" ] || src=$(find "$dir" -name '*.csv' | head -1)
		fi
		kind="col:${COL:-runtime_s}"
		[ "$src" = "$out/last.log" ] && kind="osu:${OSUCOL:-Avg Latency}"
		if ! v=$("$report" -value "$kind" -bytes "${BYTES:-8}" "$src"); then
			echo "rounds.sh: round $p, command $i: no value ($kind) in $src" >&2
			exit 1
		fi
		awk -v p="$p" -v i="$i" -v v="$v" 'BEGIN { printf "%d %d %.1f\n", p, i, v * 1e9 }' >>"$out/runs.txt"
		rm -rf "$out/r$p-c$i.csv" "$out/r$p-c$i"
	done
done
"$report" -rounds "$out/runs.txt"
