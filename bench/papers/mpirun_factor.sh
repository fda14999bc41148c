#!/usr/bin/env bash
# Finding 2 — paper 000 §5.2 (Fig. 14): the mpirun is a factor. MPIRUNS
# separate mpiruns of the same experiments (MPI_Bcast and MPI_Allreduce,
# 1 KiB, np = 2, MPI_Barrier synchronization and local run time as in
# Fig. 14, NREP observations each) launched by "reprobench launch"; the
# per-mpirun medians are compared with Kruskal-Wallis (and ANOVA) across
# mpiruns on the raw observations, and their spread is reported.
#
# Control: the same experiments repeated REPL times inside ONE mpirun (a
# design with --replicates), analysed the same way with the experiment
# instead of the mpirun as the unit. If the replicates within one mpirun
# differ as much as separate mpiruns do, the "mpirun effect" on this machine
# cannot be told apart from drift over time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MPIRUNS=${MF_MPIRUNS:-10}
NREP=${MF_NREP:-1000}
REPL=${MF_REPL:-10}
SEED=${MF_SEED:-5200}
[[ $QUICK == 1 ]] && MPIRUNS=4 NREP=300 REPL=4
build
begin mpirun_factor
say "mpirun as a factor (paper 000 §5.2): $MPIRUNS mpiruns × {MPI_Bcast, MPI_Allreduce} 1 KiB × $NREP observations, np=2, barrier, local run time, seed $SEED"
x timeout 900 "$RB" launch --mpiruns "$MPIRUNS" --np 2 --out "$W/raw" --run-id mf --seed "$SEED" --timeout 120s -- \
	--calls MPI_Bcast,MPI_Allreduce --sizes 1024 --datatype float64 --nrep "$NREP" --warmup 100 \
	--proc-sync barrier --runtime local --clock-sync none 2>"$W/launch.log"
cp "$W/raw/mf-campaign.json" "$OUT/"
say ""
say "== across $MPIRUNS mpiruns"
x "$PT" factor -unit mpirun -out "$OUT" -name mpiruns "$W"/raw/mf-mpirun[0-9][0-9][0-9].csv | tee -a "$SUMMARY"
x "$RB" analyze "$W"/raw/mf-mpirun[0-9][0-9][0-9].csv 2>&1 | tee -a "$SUMMARY"

say ""
say "== control: $REPL replicates of the same experiments inside one mpirun (unit = experiment)"
x "$RB" design -o "$W/control-design.csv" --seed "$SEED" --mpiruns 1 --replicates "$REPL" --calls MPI_Bcast,MPI_Allreduce \
	--sizes 1K --np 2 --nrep "$NREP" --proc-sync barrier --runtime local --datatype float64 2>>"$W/launch.log"
x timeout 300 "$MPIRUN" -np 2 "$RB" run --design "$W/control-design.csv" --mpirun 0 --out "$W/control" --run-id ctl \
	--seed "$SEED" --warmup 100 --clock-sync none >/dev/null 2>>"$W/launch.log"
cp "$W/control-design.csv" "$OUT/"
x "$PT" factor -unit exp -out "$OUT" -name control_one_mpirun "$W/control/ctl-mpirun000.csv" | tee -a "$SUMMARY"
# The raw data of this finding is small (≈ 160 KB compressed): keep it.
(cd "$W" && tar czf "$OUT/raw.tar.gz" raw/mf-mpirun[0-9][0-9][0-9].csv raw/mf-mpirun[0-9][0-9][0-9].json \
	control/ctl-mpirun000.csv control/ctl-mpirun000.json)
finish
