#!/usr/bin/env bash
# Two reprobench binaries, A (new) and B (old), run the same `run` command in
# interleaved pairs on one host, np 2, so that a change can be shown to keep
# a number: each pair runs A then B, or B then A, alternating, and every
# pair is counted. Run it with A=B (the same binary twice) first: that A/A
# run shows the band the machine itself resolves.
#
#   A=BIN B=BIN bench/ab/ab.sh [PAIRS=10] [OUT=/tmp/rb-ab] [-- RUN ARGS...]
#
# FLAVOR=openmpi (default, mpirun.openmpi) or mpich (mpiexec.mpich; the
# binaries must be built with -tags mpich). Without RUN ARGS both run
# `reprobench run` with no flags (the library's defaults). COLUMN (default
# runtime_s; pure_s for --nbc-overlap) is the raw column whose median over
# the valid rows (errorcode 0) is one run's number.
# Output: OUT/pairs.csv (pair, order, load1, a, b in seconds), then
# python3 bench/ab/ab.py OUT/pairs.csv prints the per-pair ratios a/b, their
# median and its exact 95 % interval (binomial order statistics).
set -euo pipefail
PAIRS=${1:-10}
OUT=${2:-/tmp/rb-ab}
shift $(( $# >= 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd) # ab.py's run_rows reads a run's valid rows
FLAVOR=${FLAVOR:-openmpi}
COLUMN=${COLUMN:-runtime_s}
: "${A:?A=binary}" "${B:?B=binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
launch=(mpirun.openmpi -np 2)
[ "$FLAVOR" = mpich ] && launch=(mpiexec.mpich -np 2)
rm -rf "$OUT" && mkdir -p "$OUT/runs"
csv=$OUT/pairs.csv
echo "pair,order,load1,a,b" >"$csv"
args=("$@")
run() { # binary run-id
	local bin=$1 id=$2
	timeout 120 "${launch[@]}" "$bin" run "${args[@]}" --out "$OUT/runs" --run-id "$id" >"$OUT/runs/$id.log" 2>&1 || return 0
	python3 - "$here" "$OUT/runs/$id-mpirun000.csv" "$COLUMN" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[1])
from ab import run_rows
v = run_rows(sys.argv[2], sys.argv[3])
print(f"{statistics.median(v):.6e}" if v else "")
PY
}
for p in $(seq 1 "$PAIRS"); do
	if [ $((p % 2)) = 1 ]; then
		order=ab
		a=$(run "$A" "a$p")
		b=$(run "$B" "b$p")
	else
		order=ba
		b=$(run "$B" "b$p")
		a=$(run "$A" "a$p")
	fi
	echo "$p,$order,$(cut -d' ' -f1 /proc/loadavg),$a,$b" >>"$csv"
done
echo "$csv"
