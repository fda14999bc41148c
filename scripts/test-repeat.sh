#!/usr/bin/env bash
# test-repeat.sh N [BURN]: runs the launcher's integration tests (kill a
# rank / the launcher mid-run, then resume, under Open MPI and MPICH) N
# times in a row and counts the passes (issue #23: they must pass every
# time, on a quiet machine and on a loaded one). With BURN > 0, that many
# CPU-burning processes run beside them (started here, stopped by PID);
# PIN=c pins every burner to CPU c (PIN=0 BURN=1 is CI's busy core, a
# pinned "yes > /dev/null").
# RUN (a go test -run pattern, default ^TestIntegration) and PKG (default
# ./campaign) choose other tests. Logs: test-repeat-out/run<i>.log.
# Exits non-zero unless every run passed.
set -uo pipefail

n=${1:-20}
burn=${2:-0}
run=${RUN:-^TestIntegration}
pkg=${PKG:-./campaign}
out=test-repeat-out
mkdir -p "$out"

# One test binary for all runs (it builds reprobench per MPI library itself).
bin="$out/$(basename "$pkg").test"
go test -c -o "$bin" "$pkg" || exit 1

burners=()
stop_burners() {
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null; done
	burners=()
}
trap stop_burners EXIT
pin=()
[ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
for ((b = 0; b < burn; b++)); do
	"${pin[@]}" timeout 3600 sh -c 'while :; do :; done' &
	burners+=($!)
done
[ "$burn" -gt 0 ] && echo "test-repeat: $burn CPU burners${PIN:+ on CPU $PIN}, pids ${burners[*]}"

export RB_REQUIRE_MPI=1
pass=0
for ((i = 1; i <= n; i++)); do
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	start=$(date +%s)
	log="$out/run$i.log"
	if (cd "$pkg" && timeout 900 "$OLDPWD/$bin" -test.run "$run" -test.count=1 -test.v -test.timeout 15m) >"$log" 2>&1; then
		pass=$((pass + 1))
		result=PASS
	else
		result=FAIL
	fi
	echo "test-repeat: run $i/$n $result in $(($(date +%s) - start)) s (load before: $load) $log"
done
echo "test-repeat: $pass of $n runs passed (RUN=$run PKG=$pkg BURN=$burn PIN=${PIN:-}; load now: $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$pass" -eq "$n" ]
