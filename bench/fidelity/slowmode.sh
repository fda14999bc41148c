#!/usr/bin/env bash
# The Open MPI slow state across mpiruns, inside one Go rank: RUNS mpiruns
# of bench/fidelity/slowmode (fidelity.c's C loop compiled into the Go
# program, next to the engine's loops, alternating in blocks inside each
# process), then one line per mpirun with each variant's median completion
# time and barrier-exit spread, and the ratios to the C loop of the same
# process. A process whose C loop reads more than SLOW ns is in the slow
# state. Every mpirun is listed; none is left out.
#
#   bench/fidelity/slowmode.sh [RUNS=16] [OUT=/tmp/rb-slowmode] [FLAVOR=openmpi]
#
# Variants (VARIANTS=…, see slowmode/main.go): cloop-cbuf (the C loop),
# cloop-early (the C loop storing t0 before the call, as rb_observe does),
# engine-gobuf (mpi.ObserveBatch, the engine's loop), engine-run
# (engine.Engine.Run as `reprobench run` does by default).
#
# PRE="0 1" (the default) cycles the mpiruns through slowmode -pre K: K
# 8-byte messages from rank 0 to rank 1 before the first block, which move
# Open MPI's shared-memory fast-box ring. With Open MPI, which of the C
# loop and the engine is faster follows K's parity; with the fast boxes
# off (OMPI_MCA_btl_vader_fbox_max=0 in the environment) it does not
# (bench/fidelity/README.md, "The slow state"). Run it under
# /work/tools/quiet: about 1 s per mpirun.
set -euo pipefail
RUNS=${1:-16}
OUT=${2:-/tmp/rb-slowmode}
FLAVOR=${3:-openmpi}
VARIANTS=${VARIANTS:-cloop-cbuf,cloop-early,engine-gobuf,engine-run}
PRE=${PRE:-0 1}
read -ra pres <<<"$PRE"
BLOCKS=${BLOCKS:-11}
PER=${PER:-2000}
SLOW=${SLOW:-600}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$OUT"
if [ "$FLAVOR" = mpich ]; then RUN=mpiexec.mpich TAGS="-tags mpich"; else RUN=mpirun.openmpi TAGS=""; fi
bin=$OUT/slowmode-$FLAVOR
if [ -z "${PREBUILT:-}" ]; then
	# shellcheck disable=SC2086
	(cd "$root/bench" && go build $TAGS -o "$bin" ./fidelity/slowmode)
fi
for i in $(seq 1 "$RUNS"); do
	k=${pres[$(((i - 1) % ${#pres[@]}))]}
	echo "$k" >"$OUT/run$i.pre"
	timeout 120 $RUN -np 2 "$bin" -pre "$k" -blocks "$BLOCKS" -per "$PER" -long 2000 -variants "$VARIANTS" \
		-out "$OUT/run$i.csv" >"$OUT/run$i.txt" 2>&1 || {
		echo "slowmode.sh: mpirun $i failed" >&2
		cat "$OUT/run$i.txt" >&2
		exit 1
	}
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg); fast boxes: OMPI_MCA_btl_vader_fbox_max=${OMPI_MCA_btl_vader_fbox_max:-default}"
# Per mpirun: the median over blocks of each variant's completion time
# median (ns) and spread, and its ratio to cloop-cbuf.
python3 - "$OUT" "$RUNS" "$VARIANTS" "$SLOW" <<'EOF'
import csv, statistics, sys
out, runs, variants, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), float(sys.argv[4])
print("run pre state  " + "  ".join(f"{v:>22}" for v in variants))
ratios = {}
for i in range(1, runs + 1):
    med, spr = {}, {}
    with open(f"{out}/run{i}.csv") as f:
        rows = list(csv.DictReader(f))
    for v in variants:
        r = [x for x in rows if x["variant"] == v]
        med[v] = statistics.median(float(x["median_ns"]) for x in r)
        spr[v] = statistics.median(float(x["spread_ns"]) for x in r)
    c = med[variants[0]]
    state = "slow" if c > slow else "fast"
    pre = open(f"{out}/run{i}.pre").read().strip()
    cells = []
    for v in variants:
        ratios.setdefault((pre, v), []).append(med[v] / c)
        cells.append(f"{med[v]:5.0f} ns {med[v]/c:4.2f} sp{spr[v]:4.0f}")
    print(f"{i:3d} {pre:>3} {state}   " + "  ".join(f"{s:>22}" for s in cells))
print(f"\nratio to {variants[0]} of the same mpirun by -pre, median [min, max] over mpiruns:")
for (pre, v), r in sorted(ratios.items()):
    if v != variants[0]:
        r = sorted(r)
        print(f"  pre {pre:>3}  {v:15s} {statistics.median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}]  ({len(r)} mpiruns)")
EOF
