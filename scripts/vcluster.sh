#!/usr/bin/env bash
# make vcluster: builds a virtual cluster of namespaced nodes on this machine
# (root; network + UTS + time namespaces, bridge on 10.213.0.0/24 inside a
# namespace of its own) and runs the suite on it with both MPI libraries:
# launchers, clean-up (also after Ctrl-C), MPICH's finalize, the exact
# cross-node truth, clockcheck for HCA3, JK, two-level and SKaMPI against
# it, and a windowed run whose clocks drift per node.
#
# RUNS=N (default 0) then also measures the accuracy table of docs/measured.md:
# N rounds (seed = round) of every algorithm × layout (2x1, 2x2, 4x1) × both
# libraries, node offsets ±1000 s, skews ±100 ppm, checks after 0 and 10 s
# (AFTER), default algorithm parameters. It prints the targets table (per
# row: true max |error| after sync and at the last check, median [range]
# over the rounds, sync time, how many rounds met ≤ 2 µs / ≤ 5 µs) and how
# many drift-aware rows met both targets in every round. Raw results go to
# $OUT/bench-*.jsonl; the tables, with the command, the commit, the start and
# end time and the load, to $RESULT (default docs/vcluster-bench.txt, which
# docs/measured.md cites).
#
# How long: on a quiet machine (2026-11-24, load 0.5-3.1) the suite took
# 27 s and RUNS=10 took 51 min (303 s a round: Open MPI ~3 min, MPICH
# ~2 min, syncs 1-6 s). Under load it is far longer (load 17-38: ~26 min a
# round, docs/history/vcluster-round1.md); the Makefile allows 6 h. Run it on a
# quiet machine: the load is recorded with every row and in $RESULT.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-vcluster-out}
result=${RESULT:-docs/vcluster-bench.txt}
mkdir -p "$out"
t0=$(date +%s)
start_utc=$(date -u +%FT%TZ)
load0=$(cat /proc/loadavg)
go build -o "$out/vcluster" ./internal/vcluster/cmd/vcluster
# Whatever happens, remove what a run of ours left (owners that are gone).
trap '"$out"/vcluster clean || true' EXIT
trap 'exit 130' INT TERM
"$out/vcluster" check
echo "== suite ($(cat /proc/loadavg))"
RB_REQUIRE_VCLUSTER=1 RB_REQUIRE_MPI=1 \
	go test -count=1 -p 1 -timeout 30m -v ./internal/vcluster \
	-run 'TestSkewEnv|TestConfigErrors|TestNodes|TestCleanDeadOwner|TestInterrupt|TestLaunchers|TestMPICHLateFinalize|TestClockcheckAcrossNodes|TestRunAcrossNodes' |
	grep -v '^=== RUN'
go test -count=1 -run 'TestTimeNamespaceOffset|TestShareHostClock|TestNodeSkew|TestParseTimensOffsets' ./clocksync
t1=$(date +%s)
echo "== suite took $((t1 - t0)) s"
runs=${RUNS:-0}
if [ "$runs" -gt 0 ]; then
	go build -o "$out/reprobench-openmpi" ./cmd/reprobench
	go build -tags mpich -o "$out/reprobench-mpich" ./cmd/reprobench
	echo "== bench: $runs rounds ($(cat /proc/loadavg))"
	"$out/vcluster" bench -runs "$runs" -after "${AFTER:-0,10s}" -flavors openmpi \
		-bin-openmpi "$out/reprobench-openmpi" ${BENCH_FLAGS:-} -out "$out/bench-openmpi.jsonl" | tee "$out/bench.txt"
	"$out/vcluster" bench -runs "$runs" -after "${AFTER:-0,10s}" -flavors mpich \
		-bin-mpich "$out/reprobench-mpich" ${BENCH_FLAGS:-} -out "$out/bench-mpich.jsonl" | tee -a "$out/bench.txt"
	t2=$(date +%s)
	{
		echo "# make vcluster RUNS=$runs AFTER=${AFTER:-0,10s} BENCH_FLAGS='${BENCH_FLAGS:-}'"
		echo "# commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' (with local changes)'), $(nproc) CPUs"
		echo "# started $start_utc, suite $((t1 - t0)) s, bench $((t2 - t1)) s ($(( (t2 - t1) / runs )) s a round)"
		echo "# load average at start: $load0; at end: $(cat /proc/loadavg)"
		echo "# node offsets ±1000 s around 1-3 days, skews ±100 ppm, seed = round; raw rows in $out/bench-*.jsonl"
		echo
		cat "$out/bench.txt"
	} >"$result"
	echo "== bench took $((t2 - t1)) s ($(( (t2 - t1) / runs )) s a round); table in $result"
fi
