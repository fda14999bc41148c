#!/usr/bin/env bash
# A/A test of the regression gate on real campaigns: PAIRS pairs of
# campaigns of the same design, same binary and same library, launched in
# A B B A order (the side launched first alternates from pair to pair), each
# pair judged by `compare --fail-if-slower PCT`. Every "regression" verdict
# (exit status 3) is a false alarm; "cannot decide" (4) is counted apart.
#
#   bench/gate/aa.sh [PAIRS=10] [PCT=5] [OUT=/tmp/rb-gate-aa]
#
# Environment: FLAVOR=openmpi (default) or mpich; MPIRUNS (6), NREP (300)
# and CALLS (MPI_Allreduce), SIZES (8) shape each campaign's design (seed
# = the pair number); RB=binary to use a built reprobench (default: go build
# into OUT). Duration on the 2-vCPU VM: about 20 s per pair.
# Output: OUT/verdicts.txt, one line per pair, and the count at the end.
set -euo pipefail
PAIRS=${1:-10}
PCT=${2:-5}
OUT=${3:-/tmp/rb-gate-aa}
FLAVOR=${FLAVOR:-openmpi}
root=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
rm -rf "$OUT" && mkdir -p "$OUT"
tags=() launcher='mpirun.openmpi -np {np}'
[ "$FLAVOR" = mpich ] && tags=(-tags mpich) launcher='mpiexec.mpich -np {np}'
RB=${RB:-}
if [ -z "$RB" ]; then
	RB=$OUT/reprobench
	go build -C "$root" "${tags[@]}" -o "$RB" ./cmd/reprobench
fi
campaign() { # pair side
	"$RB" launch --design "$OUT/design-$1.csv" --out "$OUT/$1/$2" --timeout 5m --launcher "$launcher" -- --label side="$2" >/dev/null 2>&1
}
alarms=0 undecided=0
for p in $(seq 1 "$PAIRS"); do
	"$RB" design --calls "${CALLS:-MPI_Allreduce}" --sizes "${SIZES:-8}" --nrep "${NREP:-300}" --mpiruns "${MPIRUNS:-6}" --np 2 --seed "$p" >"$OUT/design-$p.csv" 2>/dev/null
	if [ $((p % 2)) = 1 ]; then campaign "$p" A; campaign "$p" B; else campaign "$p" B; campaign "$p" A; fi
	set +e
	"$RB" compare --fail-if-slower "$PCT" "$OUT/$p/A"/*-mpirun*[0-9].csv -- "$OUT/$p/B"/*-mpirun*[0-9].csv >"$OUT/compare-$p.txt" 2>&1
	rc=$?
	set -e
	case $rc in
	0) v="no regression" ;;
	3) v="REGRESSION (false alarm)" alarms=$((alarms + 1)) ;;
	4) v="cannot decide" undecided=$((undecided + 1)) ;;
	*) echo "pair $p: compare failed ($rc)"; cat "$OUT/compare-$p.txt"; exit 1 ;;
	esac
	echo "pair $p ($FLAVOR, load $(cut -d' ' -f1 /proc/loadavg)): $v" | tee -a "$OUT/verdicts.txt"
done
echo "$FLAVOR: $alarms false alarms and $undecided undecided in $PAIRS A/A pairs, --fail-if-slower $PCT" | tee -a "$OUT/verdicts.txt"
