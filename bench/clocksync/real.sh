#!/usr/bin/env bash
# Real-MPI precision of HCA3 on this machine (issue 5): 2 ranks on one host
# read one CLOCK_MONOTONIC, so clockcheck reports the exact error of every
# global clock (no message timed); the bounds apply to it, and the offsets
# measured with ping-pongs are printed beside it. Checks,
# each repeated RUNS times: plain, and with a timing.Skewed clock on rank 1
# (1 s offset, 100 ppm drift). Bounds: max |offset| <= 0.5 us right after sync
# and <= 1 us after 10 s. Prints every run and the pass count; exits non-zero
# if any run misses a bound. The load average is printed because a loaded
# 2-core VM deschedules ranks during the fit (see the issue notes).
#
#   bench/clocksync/real.sh [RUNS=5] [ALG=hca3] [FLAVOR=openmpi|mpich]
#
# Measured on the 2-core VM at load 2.6-3.0, exact errors: Open MPI 10 of 10
# runs within the bounds (plain 10-60 ns after sync, 23-256 ns after 10 s;
# skewed 11-55 ns and 6-329 ns); MPICH 6 of 6 (5-56 ns, 11-194 ns). The
# measured offsets were within 0-120 ns of the exact errors in those runs;
# under heavy load they are not (see examples/README.md, drift). Earlier, at
# load 5-7, some runs missed 1 µs after 10 s: a rank descheduled during the
# 0.2 s fit biases the slope by 0.2-1.6 ppm (then measured, not exact).
set -euo pipefail
RUNS=${1:-5}
ALG=${2:-hca3}
FLAVOR=${FLAVOR:-openmpi}
root=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$FLAVOR" = mpich ]; then
	go build -C "$root" -tags mpich -o "$tmp/rb" ./cmd/reprobench
	RUN=$(command -v mpiexec.mpich)
else
	go build -C "$root" -o "$tmp/rb" ./cmd/reprobench
	RUN=$(command -v mpirun.openmpi || command -v mpirun)
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $FLAVOR; $ALG; $RUNS runs per case"
fails=0
for case in plain skewed; do
	extra=()
	[ $case = skewed ] && extra=(--skew-rank 1 --skew-offset 1s --skew-ppm 100)
	for i in $(seq 1 "$RUNS"); do
		timeout 120 "$RUN" -np 2 "$tmp/rb" clockcheck --alg "$ALG" --after 0,10s --json "${extra[@]}" > "$tmp/out.json"
		python3 - "$tmp/out.json" "$case" "$i" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
c0, c10 = d["checks"][0], d["checks"][1]
if d.get("truth") != "shared clock":
    sys.exit(f"clockcheck gave no exact errors (truth {d.get('truth')!r}): run both ranks on one host")
t0, t10 = c0["true_max_abs_error_s"], c10["true_max_abs_error_s"]
ok = t0 <= 0.5e-6 and t10 <= 1e-6
print(f"{sys.argv[2]:6} run {sys.argv[3]}: true max |error| {t0*1e9:8.1f} ns after sync (<= 500), "
      f"{t10*1e9:8.1f} ns after 10 s (<= 1000); measured {c0['max_abs_offset_s']*1e9:.1f} and "
      f"{c10['max_abs_offset_s']*1e9:.1f} ns; sync {d['sync_duration_s']:.2f} s: {'ok' if ok else 'MISS'}")
sys.exit(0 if ok else 1)
PY
	done
done
echo "$((2 * RUNS - fails)) of $((2 * RUNS)) runs within the bounds"
[ "$fails" = 0 ]
