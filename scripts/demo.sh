#!/usr/bin/env bash
# The main job (make demo): the full method on an embedded default, Open MPI
# against MPICH, in a few minutes on a 2-core machine.
#
#   1. one randomized design: MPI_Bcast, MPI_Allreduce and MPI_Alltoall at
#      8 B, 1 KiB and 32 KiB, 5 mpiruns of 2 ranks, shuffled per mpirun;
#   2. the same design launched against Open MPI and against MPICH (the same
#      code built twice) with run's defaults: the default clock
#      synchronization and a fixed window, each observation timed from the
#      earliest start to the latest end on the synchronized clock;
#   3. the analysis table, the Wilcoxon comparison of the two libraries on
#      per-mpirun medians with stars, and plots, all under demo-out/;
#   4. one self-contained HTML page of both campaigns (reprobench report):
#      demo-out/report.html, with the 12 rules of Hoefler and Belli checked.
#
# Earlier demo output is moved to demo-out.<time>/, never deleted.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-demo-out}
BIN=${BIN:-bin}
SEED=${SEED:-20261122}
MPIRUNS=${MPIRUNS:-5}
NREP=${NREP:-300}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

ompi_run=$(command -v mpirun.openmpi || command -v mpirun)
mpich_run=$(command -v mpiexec.mpich || true)

if [ -e "$OUT" ]; then
	old="$OUT.$(date -u +%Y%m%dT%H%M%SZ)"
	echo "demo: moving the previous $OUT to $old"
	mv "$OUT" "$old"
fi
mkdir -p "$OUT" "$BIN"

echo "demo: building reprobench against Open MPI and against MPICH"
go build -o "$BIN/reprobench" ./cmd/reprobench
[ -n "$mpich_run" ] && go build -tags mpich -o "$BIN/reprobench-mpich" ./cmd/reprobench
rb="$BIN/reprobench"

echo
echo "== 1. design =="
"$rb" design --calls MPI_Bcast,MPI_Allreduce,MPI_Alltoall --sizes 8,1K,32K --nrep "$NREP" \
	--mpiruns "$MPIRUNS" --np 2 --seed "$SEED" -o "$OUT/design.csv"
echo "design: $OUT/design.csv ($(($(grep -vc '^#' "$OUT/design.csv") - 1)) experiments, seed $SEED)"

# run's defaults (reprobench.DefaultExperiment), as a user without flags gets them.
run_flags=()

echo
echo "== 2. measure: Open MPI =="
"$rb" launch --design "$OUT/design.csv" --mpiruns "$MPIRUNS" --np 2 --timeout 3m \
	--launcher "$ompi_run -np {np}" --out "$OUT/openmpi" --run-id openmpi \
	-- "${run_flags[@]}" --label mpi_lib=openmpi
libs=("$OUT"/openmpi/openmpi-mpirun*[0-9].csv)
if [ -n "$mpich_run" ]; then
	echo
	echo "== 2. measure: MPICH =="
	"$rb" launch --exe "$BIN/reprobench-mpich" --design "$OUT/design.csv" --mpiruns "$MPIRUNS" --np 2 \
		--timeout 3m --launcher "$mpich_run -np {np}" --out "$OUT/mpich" --run-id mpich \
		-- "${run_flags[@]}" --label mpi_lib=mpich
	libs+=("$OUT"/mpich/mpich-mpirun*[0-9].csv)
else
	echo "demo: MPICH not installed (make setup installs it); skipping the comparison"
fi

echo
echo "== 3. analysis (per group; medians with 95% CIs, per-mpirun medians) =="
"$rb" analyze "${libs[@]}" | tee "$OUT/analysis.txt"
"$rb" analyze --format csv "${libs[@]}" > "$OUT/analysis.csv"

if [ -n "$mpich_run" ]; then
	echo
	echo "== 4. Open MPI vs MPICH (Wilcoxon rank-sum on per-mpirun medians) =="
	"$rb" compare --by mpi_lib "${libs[@]}" | tee "$OUT/compare.txt"
	"$rb" compare --by mpi_lib --format csv "${libs[@]}" > "$OUT/compare.csv"
	"$rb" plot --kind compare --by mpi_lib -o "$OUT/compare.png" "${libs[@]}"
fi
"$rb" plot --kind box -o "$OUT/box.png" "${libs[@]}"
"$rb" plot --kind drift -o "$OUT/drift.png" "${libs[@]}"

echo
echo "demo: what was measured: runtimes of MPI_Bcast, MPI_Allreduce and MPI_Alltoall (8 B, 1 KiB,"
echo "      32 KiB) on 2 ranks, $NREP observations per experiment in each of $MPIRUNS mpiruns per library,"
echo "      each observation started in a common window on synchronized clocks (run's defaults)."
echo "demo: raw data (one row per observation) and JSON metadata: $OUT/openmpi/ $OUT/mpich/"
echo "demo: tables: $OUT/analysis.txt $OUT/analysis.csv $OUT/compare.txt; plots: $OUT/*.png"
# Whether other processes loaded the machine during the measurements
# (analyze's busy-machine rule, docs/windows.md).
grep -h '^the machine was \(busy\|quiet\)\|^the load explains' "$OUT/analysis.txt" | sed 's/^/demo: /' || true

echo
echo "== 5. report (one page: summary, groups, comparison, method, machine, the 12 rules) =="
if [ -n "$mpich_run" ]; then
	"$rb" report -o "$OUT/report.html" "$OUT"/openmpi/openmpi-mpirun*[0-9].csv -- "$OUT"/mpich/mpich-mpirun*[0-9].csv
else
	"$rb" report -o "$OUT/report.html" "${libs[@]}"
fi
echo "demo: open the report in a browser: $OUT/report.html"
