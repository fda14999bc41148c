#!/usr/bin/env bash
# Times `reprobench analyze` and `reprobench compare --by mpi_lib` on a
# synthetic raw file of ROWS rows (default 10 million) and R doing the same
# analysis (analyze.R) on the same file, and prints both side by side.
# Usage: bench/analysis/run.sh [ROWS]   (from the repository root)
set -euo pipefail
ROWS=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/reprobench-bench-analysis}
mkdir -p "$DIR"
FILE=$DIR/raw_$ROWS.csv
go build -o "$DIR/reprobench" ./cmd/reprobench
if [ ! -s "$FILE" ]; then
  go -C bench run ./analysis/gen -rows "$ROWS" -seed 1 > "$FILE"
fi
echo "file: $FILE ($(wc -l < "$FILE") lines, $(du -h "$FILE" | cut -f1))"
measure() { # name, command...
  local name=$1; shift
  /usr/bin/time -v "$@" > "$DIR/$name.out" 2> "$DIR/$name.time"
  local el rss us sy
  el=$(grep "Elapsed (wall clock)" "$DIR/$name.time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$DIR/$name.time" | awk '{print $NF}')
  us=$(grep "User time" "$DIR/$name.time" | awk '{print $NF}')
  sy=$(grep "System time" "$DIR/$name.time" | awk '{print $NF}')
  printf "%-22s elapsed %-9s cpu %6.1f s  peak RSS %6.0f MiB\n" "$name" "$el" "$(echo "$us + $sy" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
measure reprobench-analyze "$DIR/reprobench" analyze --format csv "$FILE"
measure reprobench-compare "$DIR/reprobench" compare --by mpi_lib --format csv "$FILE"
measure R-analyze+compare Rscript "$(dirname "$0")/analyze.R" "$FILE"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "cross-check (ratio, p-value of the Wilcoxon test on per-mpirun medians, first groups):"
sed -n 2,4p "$DIR/R-analyze+compare.out" | sed 's/^/  R:          /'
grep '^MPI_Allreduce,' "$DIR/reprobench-compare.out" | sort -t, -k2 -n -r | head -3 | cut -d, -f1,2,10,11 | sed 's/^/  reprobench: /'
