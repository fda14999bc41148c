#!/usr/bin/env bash
# Window quality of reprobench's process synchronization (issue 6): np=2,
# 8-byte MPI_Allreduce, N observations, clocks synchronized with HCA3, a
# 100 µs initial window, the adaptive policies (SKaMPI and NBCBench), next to
# the fixed window and MPI_Barrier synchronization, all in one mpirun (the
# experiment order is shuffled from the seed). Reports for each method the
# share of invalid observations (whole run, and after the last window
# change), the final window, and the p99 of the valid ones, and checks
# invalid ≤ 1% after adaptation and valid p99 ≤ 2 × the barrier's p99.
#
# Before the engine, the same mpirun shape runs window.c, a pure-C
# reference with perfect clock synchronization (the ranks share one host's
# CLOCK_MONOTONIC), barrier and a fixed window: what it loses, the machine
# loses, whatever the engine does. Both are printed side by side.
#
#   bench/window/run.sh [N=10000] [OUTDIR=/tmp/rb-window] [extra run flags…]
#
# FLAVOR=mpich runs both under MPICH (mpicc.mpich, mpiexec.mpich, -tags mpich).
set -euo pipefail
N=${1:-10000}
OUT=${2:-/tmp/rb-window}
shift $(( $# < 2 ? $# : 2 ))
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
if [ "${FLAVOR:-openmpi}" = mpich ]; then
	CC=$(command -v mpicc.mpich); RUN=$(command -v mpiexec.mpich); TAGS="-tags mpich"
else
	CC=$(command -v mpicc.openmpi || command -v mpicc); RUN=$(command -v mpirun.openmpi || command -v mpirun); TAGS=""
fi
rm -rf "$OUT" && mkdir -p "$OUT"
"$CC" -O2 -o "$OUT/window" "$here/window.c"
(cd "$root" && go build $TAGS -o "$OUT/reprobench" ./cmd/reprobench)
timeout 900 "$RUN" -np 2 "$OUT/window" "$N" 1000 100 "$OUT/c-reference.csv"
timeout 900 "$RUN" -np 2 "$OUT/reprobench" run --out "$OUT" --run-id wq --seed 1 \
	--calls MPI_Allreduce --sizes 8 --datatype float64 --nrep "$N" --warmup 1000 \
	--proc-sync barrier,window,adaptive_skampi,adaptive_nbcbench --window 100us \
	--clock-sync hca3 --runtime local "$@" >/dev/null
python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
meta = json.load(open(f"{out}/wq-mpirun000.json"))
rows = list(csv.DictReader(open(f"{out}/wq-mpirun000.csv")))
def q(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
cref = list(csv.DictReader(open(f"{out}/c-reference.csv")))
cres = {}
for m in ("barrier", "window"):
    r = [x for x in cref if x["method"] == m]
    inv = sum(x["errorcode"] != "0" for x in r) / len(r)
    both = sum(all(float(x[k]) > 1e-6 for k in x if k.startswith("late_rank")) for x in r) / len(r)
    valid = [float(x["runtime_s"]) for x in r if x["errorcode"] == "0"]
    cres[m] = (inv, q(valid, .99))
    print(f"C reference {m:8s} rows {len(r):6d}  invalid {100*inv:6.2f}% (late on every rank {100*both:.2f}%)  "
          f"valid median {1e6*q(valid,.5):.3f} µs p99 {1e6*q(valid,.99):.3f} µs")
print(f"C reference, fixed 100 µs window with perfect clock sync: invalid {100*cres['window'][0]:.2f}%, "
      f"valid p99 / barrier p99 = {cres['window'][1]/cres['barrier'][1]:.2f}")
sync = meta["clock_syncs"][0]["result"]
print(f"clock sync {meta['clock_sync']}: {sync['sync_duration_s']:.3f} s; clock {meta['clock']['name']}")
res = {}
for e in sorted(meta["experiments"], key=lambda e: e["exp"]):
    r = [x for x in rows if int(x["exp"]) == e["exp"]]
    kept = [x for x in r if int(x["errorcode"]) & 4 == 0]      # NBCBench: repeated batches aside
    measured = [a for a in (e.get("adaptations") or []) if not a["warm_up"]]
    last = max([a["at_observation"] + a["batch_size"] for a in measured], default=0)
    after = [x for x in r[last:] if int(x["errorcode"]) & 4 == 0]
    inv = sum(int(x["errorcode"]) != 0 for x in kept) / len(kept)
    inv_after = sum(int(x["errorcode"]) != 0 for x in after) / max(len(after), 1)
    valid = [float(x["runtime_s"]) for x in kept if x["errorcode"] == "0"]
    res[e["proc_sync"]] = (inv, inv_after, q(valid, .99), q(valid, .5))
    print(f"{e['proc_sync']:18s} rows {len(r):6d}  invalid {100*inv:6.2f}%  after adaptation {100*inv_after:6.2f}% "
          f"(from row {last})  window {1e6*(e.get('initial_window_s') or 0):.0f} → {1e6*(e.get('final_window_s') or 0):.0f} µs "
          f"({len(e.get('adaptations') or [])} changes, {len(measured)} after warm-up)  valid median {1e6*q(valid,.5):.3f} µs p99 {1e6*q(valid,.99):.3f} µs")
bp99 = res["barrier"][2]
ok = True
for m in ("adaptive_skampi", "adaptive_nbcbench"):
    inv, inv_after, p99, _ = res[m]
    good = inv_after <= 0.01 and p99 <= 2 * bp99
    ok &= good
    print(f"{m}: invalid after adaptation {100*inv_after:.2f}% (≤ 1%), valid p99 / barrier p99 = {p99/bp99:.2f} (≤ 2): {'PASS' if good else 'FAIL'}")
    print(f"{m} against the C reference's fixed window: invalid {100*inv_after:.2f}% vs {100*cres['window'][0]:.2f}%, "
          f"valid p99 {1e6*p99:.3f} vs {1e6*cres['window'][1]:.3f} µs")
sys.exit(0 if ok else 1)
PY
