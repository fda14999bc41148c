#!/usr/bin/env bash
# make vcluster: builds a virtual cluster of namespaced nodes on this machine
# (root; network + UTS + time namespaces, bridge on 10.213.0.0/24 inside a
# namespace of its own) and runs the suite on it with both MPI libraries:
# launchers, clean-up (also after Ctrl-C), the exact cross-node truth, and
# clockcheck for HCA3, JK, two-level and SKaMPI against it. Takes about
# 2 minutes (1 to 4 on the loaded 2-core VM).
#
# RUNS=N (default 0) then also measures the accuracy table of the README:
# N rounds (seed = round) of every algorithm × layout (2x1, 2x2, 4x1) with
# both libraries, node offsets ±1000 s, skews ±100 ppm,
# checks after 0 and 10 s; about 10 minutes a round on the loaded 2-core
# VM. Raw results go to $OUT/bench-*.jsonl, the tables to $OUT/bench.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-vcluster-out}
mkdir -p "$out"
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
runs=${RUNS:-0}
if [ "$runs" -gt 0 ]; then
	go build -o "$out/reprobench-openmpi" ./cmd/reprobench
	go build -tags mpich -o "$out/reprobench-mpich" ./cmd/reprobench
	echo "== bench: $runs rounds ($(cat /proc/loadavg))"
	"$out/vcluster" bench -runs "$runs" -after "${AFTER:-0,10s}" -flavors openmpi \
		-bin-openmpi "$out/reprobench-openmpi" ${BENCH_FLAGS:-} -out "$out/bench-openmpi.jsonl" | tee "$out/bench.txt"
	"$out/vcluster" bench -runs "$runs" -after "${AFTER:-0,10s}" -flavors mpich \
		-bin-mpich "$out/reprobench-mpich" ${BENCH_FLAGS:-} -out "$out/bench-mpich.jsonl" | tee -a "$out/bench.txt"
fi
