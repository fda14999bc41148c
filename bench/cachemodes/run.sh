#!/usr/bin/env bash
# Cache modes inside the batch: np=2, 8-byte MPI_Allreduce, barrier sync,
# N observations under each --cache mode (warm, cycle, random, cold with a
# 1 MiB flush buffer), one mpirun each, run back to back. Prints median and
# p99 per mode and the p99 ratio to warm. The buffer offsets and the flush
# are applied inside the C batch (mpi.Observation.Offsets and Flush); when
# they were applied from Go between observations, every observation took a
# cgo round trip and the p99 of cycle and random was 52-59 µs against 1.2
# µs warm (cold: 5.8 µs) on the project's 2-core VM.
#
#   bench/cachemodes/run.sh [N=10000] [OUTDIR=/tmp/rb-cachemodes]
set -euo pipefail
N=${1:-10000}
OUT=${2:-/tmp/rb-cachemodes}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
RUN=$(command -v mpirun.openmpi || command -v mpirun)
rm -rf "$OUT" && mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/reprobench" ./cmd/reprobench)
for mode in warm cycle random cold; do
	timeout 300 "$RUN" -np 2 "$OUT/reprobench" run --out "$OUT" --run-id "$mode" --seed 1 \
		--calls MPI_Allreduce --sizes 8 --datatype float64 --nrep "$N" --warmup 10 \
		--proc-sync barrier --clock-sync none --cache "$mode" --cache-bytes 1048576 >/dev/null 2>&1
done
python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
def q(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
res = {}
for mode in ("warm", "cycle", "random", "cold"):
    v = [float(r["runtime_s"]) for r in csv.DictReader(open(f"{out}/{mode}-mpirun000.csv")) if r["errorcode"] == "0"]
    res[mode] = (q(v, .5), q(v, .99))
for mode, (m, p99) in res.items():
    print(f"{mode:7s} median {m*1e6:.3f} µs  p99 {p99*1e6:.3f} µs  p99/warm {p99/res['warm'][1]:.2f}")
PY
