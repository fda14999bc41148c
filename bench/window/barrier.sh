#!/usr/bin/env bash
# The default process synchronization's measurement (docs/windows.md, "The
# default process synchronization"): 8-byte MPI_Allreduce and MPI_Bcast on
# 2 ranks of one host under each library's MPI_Barrier, our dissemination
# barrier and the fixed window, R mpiruns per library in alternating order,
# every rank's start and end on the synchronized clock (--per-rank). Prints
# per library, call and method the start skew over ranks of the valid
# observations (median of the per-mpirun medians, and rank 1 − rank 0), then
# compare of MPICH against Open MPI, which warns about the libraries'
# barriers.
#
#   bench/window/barrier.sh [R=10] [OUT=/tmp/rb-barrier]
set -euo pipefail
R=${1:-10}
OUT=${2:-/tmp/rb-barrier}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/rb-openmpi" ./cmd/reprobench && go build -tags mpich -o "$OUT/rb-mpich" ./cmd/reprobench)
flags=(--calls MPI_Allreduce,MPI_Bcast --sizes 8 --proc-sync barrier,dissemination,window --clock-sync twolevel --per-rank --nrep 1000)
echo "start $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$R"); do
	order="openmpi mpich"
	[ $((i % 2)) = 0 ] && order="mpich openmpi"
	for lib in $order; do
		run=(mpirun.openmpi -np 2)
		[ "$lib" = mpich ] && run=(mpiexec.mpich -np 2)
		timeout 300 "${run[@]}" "$OUT/rb-$lib" run "${flags[@]}" --seed "$i" --mpirun "$i" --run-id b \
			--label lib="$lib" --out "$OUT/$lib" >/dev/null
	done
done
echo "end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/barrier_skew.py" "$OUT/openmpi" "$OUT/mpich"
"$OUT/rb-openmpi" compare "$OUT"/openmpi/b-mpirun*[0-9].csv -- "$OUT"/mpich/b-mpirun*[0-9].csv
