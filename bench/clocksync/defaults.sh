#!/usr/bin/env bash
# What a user gets (issue 28): "reprobench clockcheck" with no flags — HCA3
# to the default accuracy target 1 µs@10s — RUNS times per library
# (alternating Open MPI and MPICH), first 2 ranks on one host, then 2 nodes
# × 1 rank of a virtual cluster (internal/vcluster, root; new node offsets
# and skews each round, seed = round). The ranks read one CLOCK_MONOTONIC
# (across nodes: up to a known namespace offset and skew), so every error
# reported is exact. Per run it prints the true max |error| right after the
# sync and after 10 s, the stated bound at both, whether the bound held, and
# the sync time; per library and in all, how many runs were within 1 µs
# after 10 s, in how many the bound held, and the median sync time
# (summarize.py, section "issue 28"), with the load average.
#
#   bench/clocksync/defaults.sh [RUNS=10]              # one host, then the virtual cluster
#   WHERE=host bench/clocksync/defaults.sh 10          # one host only (WHERE=vcluster: only the cluster)
#
# A run takes about 12 s on one host and 15 s on the virtual cluster: RUNS=10
# takes about 10 min. Run it on a quiet machine; the JSON of every run and
# the summaries go to $OUT (default bench/clocksync/out/defaults-<date>),
# the two summaries to $OUT/summary.txt.
set -euo pipefail
RUNS=${1:-10}
WHERE=${WHERE:-both}
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/bench/clocksync/out/defaults-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
run() { # where, extra environment
	local where=$1
	shift
	env "$@" OUT="$OUT/$where" CASES=plain ALG=- MODES=default "$root/bench/clocksync/real.sh" "$RUNS" >"$OUT/$where.log" 2>&1 ||
		{ tail -5 "$OUT/$where.log"; return 1; }
	grep -v '^ ' "$OUT/$where.log" | grep -E 'run +[0-9]+:|failed' || true
	{
		echo "== $where: clockcheck with no flags, np 2 ($*)"
		sed -n '/^issue 28/,/^$/p' "$OUT/$where/summary.txt"
	} | tee -a "$OUT/summary.txt"
}
# The 1-min load average lags: let it settle (up to SETTLE s, default 60)
# after whatever ran before.
for _ in $(seq 1 "${SETTLE:-60}"); do
	awk '{exit !($1 < 1.5)}' /proc/loadavg && break
	sleep 1
done
echo "clockcheck with no flags, $RUNS runs per library; $(git -C "$root" rev-parse --short HEAD); load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/summary.txt"
[ "$WHERE" = vcluster ] || run host
[ "$WHERE" = host ] || run vcluster NODES=2
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
