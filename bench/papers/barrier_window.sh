#!/usr/bin/env bash
# Finding 1 — paper 000 §4.6 (Fig. 9): the same collective timed after an
# MPI_Barrier and in a common time window gives different run-time
# distributions, and the way the run time is computed (local: max over ranks
# of end−start; global: max end − min start on HCA3-synchronized clocks)
# matters as much as the synchronization.
#
# One randomized design: {MPI_Allreduce, MPI_Bcast} × {8 B, 32 KiB} ×
# {barrier, window (fixed 100 µs)} × {local, global}, np = 2, NREP
# observations each, MPIRUNS mpiruns; every mpirun runs all 16 experiments
# in its own shuffled order, so both synchronizations see the same machine.
# The raw CSV does not say which sync method/runtime type made a row, so
# papertool label adds them from the JSON sidecars (labels sync, rt, scheme).
# With --per-rank, papertool skew also measures how far apart in global time
# the ranks enter the call after the barrier and in the window (Fig. 10).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MPIRUNS=${BW_MPIRUNS:-10}
NREP=${BW_NREP:-1000}
SEED=${BW_SEED:-4600}
[[ $QUICK == 1 ]] && MPIRUNS=4 NREP=200
build
begin barrier_window
say "barrier vs window (paper 000 §4.6): $MPIRUNS mpiruns × 16 experiments × $NREP observations, np=2, seed $SEED"
x "$RB" design -o "$W/design.csv" --seed "$SEED" --mpiruns "$MPIRUNS" --calls MPI_Allreduce,MPI_Bcast --sizes 8,32K \
	--np 2 --nrep "$NREP" --proc-sync barrier,window --runtime local,global
x timeout 900 "$RB" launch --mpiruns "$MPIRUNS" --np 2 --design "$W/design.csv" --out "$W/raw" --run-id bw --timeout 180s -- \
	--clock-sync hca3 --window 100us --warmup 100 --datatype float64 --per-rank 2>"$W/launch.log"
cp "$W/raw/bw-campaign.json" "$W/design.csv" "$OUT/"
raws=("$W"/raw/bw-mpirun[0-9][0-9][0-9].csv)
x "$PT" label -o "$W/labelled.csv" "${raws[@]}"
x "$PT" label -scheme -keep barrier-local,window-global -o "$W/fig9left.csv" "${raws[@]}"
x "$PT" label -scheme -keep barrier-global,window-global -o "$W/fig9right.csv" "${raws[@]}"

say ""
say "== every observation that is valid (no outlier filter): median, p99, invalid (window: started late / window expired)"
x "$RB" analyze --tukey 0 "$W/labelled.csv" 2>/dev/null | tee -a "$SUMMARY"
x "$RB" analyze --tukey 0 --format csv "$W/labelled.csv" >"$OUT/analyze_nofilter.csv" 2>/dev/null
x "$RB" analyze --format csv "$W/labelled.csv" >"$OUT/analyze_tukey.csv" 2>/dev/null
say ""
say "== Wilcoxon on per-mpirun medians: barrier vs window, same runtime type (compare --by sync)"
x "$RB" compare --by sync "$W/labelled.csv" 2>&1 | tee -a "$SUMMARY"
x "$RB" compare --by sync --format csv "$W/labelled.csv" >"$OUT/compare_by_sync.csv" 2>/dev/null
say ""
say "== Fig. 9 left: barrier with local run time (what barrier benchmarks report) vs window with global run time"
x "$RB" compare --by scheme "$W/fig9left.csv" 2>&1 | tee -a "$SUMMARY"
x "$RB" compare --by scheme --format csv "$W/fig9left.csv" >"$OUT/compare_barrierlocal_vs_windowglobal.csv" 2>/dev/null
say ""
say "== Fig. 9 right: both with global run time"
x "$RB" compare --by scheme "$W/fig9right.csv" 2>&1 | tee -a "$SUMMARY"
x "$RB" compare --by scheme --format csv "$W/fig9right.csv" >"$OUT/compare_barrierglobal_vs_windowglobal.csv" 2>/dev/null
say ""
say "== Fig. 10: how far apart (global clock, HCA3) the two ranks enter the timed call after MPI_Barrier vs in a window (valid observations)"
x "$PT" skew -out "$OUT" -name start_skew "$W"/raw/bw-mpirun[0-9][0-9][0-9].ranks.csv | tee -a "$SUMMARY"
x "$RB" plot --kind compare --by scheme -o "$OUT/fig9left_compare.png" "$W/fig9left.csv"
x "$RB" plot --kind compare --by scheme -o "$OUT/fig9right_compare.png" "$W/fig9right.csv"
for c in MPI_Allreduce MPI_Bcast; do
	for s in 8 32768; do
		x "$RB" plot --kind violin --group "$c/msize=$s/" -o "$OUT/violin_${c}_${s}.png" "$W/labelled.csv" 2>/dev/null
	done
done
finish
