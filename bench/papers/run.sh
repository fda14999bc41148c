#!/usr/bin/env bash
# Reproduces four key findings of paper 000 (Hunold and Carpen-Amarie, "MPI
# Benchmarking Revisited") on this machine with the reprobench CLI; see
# README.md. About 4–5 min on a 2-core VM (np = 2, Open MPI).
#
#   bench/papers/run.sh                       # all four, results in bench/papers/out/
#   bench/papers/run.sh clock_drift           # only some (barrier_window mpirun_factor clock_drift reproducibility)
#   QUICK=1 RB_PAPERS_OUT=/tmp/out bench/papers/run.sh   # small sizes, for development
#
# Raw data goes to $RB_PAPERS_WORK (default /tmp/rb-papers) and is not
# committed; out/<finding>/ holds the summaries, tables, plots, the exact
# commands (commands.txt) and the seeds (design/campaign files).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
findings=("$@")
[[ ${#findings[@]} -eq 0 ]] && findings=(barrier_window mpirun_factor clock_drift reproducibility)
build
export RB_PAPERS_REBUILD=0
t0=$(date +%s)
echo "run.sh: start $(date -u +%H:%M:%SZ), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "${findings[@]}"; do
	bash "$here/$f.sh"
done
echo "run.sh: done in $(($(date +%s) - t0)) s, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
