#!/usr/bin/env bash
# Finding 4 — paper 000 §6.3 (Fig. 29): reproducibility of the reported
# number over TRIALS independent trials, for MPI_Bcast at a few sizes, np = 2:
#
#   (a) our method: a campaign of MPIRUNS mpiruns ("reprobench launch"), NREP
#       observations per size in each, window synchronization (fixed 100 µs
#       window, HCA3 clocks, global run time); the trial's number is the
#       median of the per-mpirun medians after Tukey's filter (Alg. 6);
#   (b) an IMB/OSU-style number: one mpirun, after an MPI_Barrier the call is
#       run LOOP times back to back and the number is the loop time / LOOP,
#       max over ranks ("reprobench run --runtime loop", one observation).
#
# Trials of (a) and (b) alternate, so slow phases of the machine hit both.
# The metric is the paper's: each trial's number divided by the smallest of
# the TRIALS numbers (normalized run time); we report its maximum and IQR.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
TRIALS=${RP_TRIALS:-10}
MPIRUNS=${RP_MPIRUNS:-5}
NREP=${RP_NREP:-500}
LOOP=${RP_LOOP:-1000}
SIZES=${RP_SIZES:-8,1024,32768}
SEED=${RP_SEED:-6300}
[[ $QUICK == 1 ]] && TRIALS=3 NREP=100
build
begin reproducibility
say "reproducibility (paper 000 §6.3): $TRIALS trials, MPI_Bcast sizes $SIZES B, np=2; ours: $MPIRUNS mpiruns × $NREP obs, window 100 µs, HCA3, global; loop: $LOOP calls averaged, barrier; seeds $SEED+trial"
for ((t = 0; t < TRIALS; t++)); do
	tt=$(printf 't%02d' "$t")
	x timeout 600 "$RB" launch --mpiruns "$MPIRUNS" --np 2 --out "$W/ours/$tt" --run-id "ours-$tt" --seed $((SEED + t)) --timeout 120s -- \
		--calls MPI_Bcast --sizes "$SIZES" --datatype byte --nrep "$NREP" --warmup 100 \
		--proc-sync window --window 100us --clock-sync hca3 --runtime global 2>>"$W/launch.log"
	x timeout 120 "$MPIRUN" -np 2 "$RB" run --out "$W/loop/$tt" --run-id "loop-$tt" --seed $((SEED + t)) \
		--calls MPI_Bcast --sizes "$SIZES" --datatype byte --nrep 1 --warmup 1 --runtime loop --loop-reps "$LOOP" \
		--proc-sync barrier --clock-sync none >/dev/null 2>>"$W/launch.log"
	mkdir -p "$OUT/manifests"
	cp "$W/ours/$tt/ours-$tt-campaign.json" "$OUT/manifests/"
done
say ""
say "== normalized run time (value / min over the $TRIALS trials); ours = median of per-mpirun medians, loop = the loop average"
x "$PT" repro -out "$OUT" -ours "$W/ours" -loop "$W/loop" | tee -a "$SUMMARY"
say ""
say "invalid (late) window observations of our method, per size (all trials):"
cat "$W"/ours/t*/ours-*-mpirun[0-9][0-9][0-9].csv | awk -F, '$1 != "run_id" {n[$5]++; if ($11 != 0) bad[$5]++}
	END {for (s in n) printf "  %s B: %d of %d (%.1f%%)\n", s, bad[s], n[s], 100 * bad[s] / n[s]}' | sort -n -k1 | tee -a "$SUMMARY"
finish
