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
  go run ./bench/analysis/gen -rows "$ROWS" -seed 1 > "$FILE"
fi
echo "file: $FILE ($(wc -l < "$FILE") lines, $(du -h "$FILE" | cut -f1))"
measure() { # name, command...
  local name=$1; shift
  /usr/bin/time -v "$@" > "$DIR/$name.out" 2> "$DIR/$name.time"
  local el rss
  el=$(grep "Elapsed (wall clock)" "$DIR/$name.time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$DIR/$name.time" | awk '{print $NF}')
  printf "%-22s elapsed %-9s peak RSS %6.0f MiB\n" "$name" "$el" "$(echo "$rss / 1024" | bc -l)"
}
measure reprobench-analyze "$DIR/reprobench" analyze --format csv "$FILE"
measure reprobench-compare "$DIR/reprobench" compare --by mpi_lib --format csv "$FILE"
measure R-analyze+compare Rscript "$(dirname "$0")/analyze.R" "$FILE"
cat "$DIR/R-analyze+compare.out" | head -2
