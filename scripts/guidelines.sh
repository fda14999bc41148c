#!/usr/bin/env bash
# guidelines.sh: issue #18 on this machine. Every performance guideline of
# "reprobench guidelines --list" at three sizes, measured with Open MPI and
# with MPICH (2 ranks each), decided with the one-sided signed-rank test on
# per-mpirun medians and Holm's correction; prints the violations found.
#
#   make guidelines [GUIDE_MPIRUNS=20] [GUIDE_NREP=200] [GUIDE_SIZES=8,1K,64K] [GUIDE_OUT=guidelines-out]
#
# Outputs per library in $OUT/<lib>/: the design, the raw data of every
# mpirun, the campaign manifest, report.txt, report.json and report.png.
# Records the load average before and after each library.
set -euo pipefail
cd "$(dirname "$0")/.."
MPIRUNS=${GUIDE_MPIRUNS:-20}
NREP=${GUIDE_NREP:-200}
SIZES=${GUIDE_SIZES:-8,1K,64K}
OUT=${GUIDE_OUT:-guidelines-out}
SEED=${GUIDE_SEED:-20261124}
BIN=bin
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$BIN"
go build -o "$BIN/reprobench" ./cmd/reprobench
go build -tags mpich -o "$BIN/reprobench-mpich" ./cmd/reprobench
stamp=$(date -u +%Y%m%dT%H%M%SZ)
rc=0
for lib in openmpi mpich; do
	case $lib in
	openmpi) rb=$BIN/reprobench; launcher="$(command -v mpirun.openmpi || command -v mpirun) -np {np}" ;;
	mpich) rb=$BIN/reprobench-mpich; launcher="$(command -v mpiexec.mpich) -np {np}" ;;
	esac
	dir=$OUT/$lib
	mkdir -p "$dir"
	echo "== $lib: load before $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$dir/$stamp-load.txt"
	start=$(date +%s)
	set +e
	"$rb" guidelines --np 2 --mpiruns "$MPIRUNS" --nrep "$NREP" --sizes "$SIZES" --seed "$SEED" \
		--launcher "$launcher" --timeout 10m --out "$dir" --run-id "$stamp-$lib" \
		--json "$dir/$stamp-report.json" --plot "$dir/$stamp-report.png" --fail-on-violation \
		-- --label mpi_lib=$lib >"$dir/$stamp-report.txt" 2>"$dir/$stamp-stderr.txt"
	status=$?
	set -e
	echo "== $lib: $(( $(date +%s) - start )) s, exit status $status, load after $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$dir/$stamp-load.txt"
	if [ $status -gt 1 ] || ! grep -q "violation(s) in total" "$dir/$stamp-report.txt"; then
		echo "guidelines: $lib failed; see $dir/$stamp-stderr.txt" >&2
		tail -20 "$dir/$stamp-stderr.txt" >&2
		rc=1
		continue
	fi
	grep -E "^np=|tests, [0-9]+ violated|VIOLATED|violation\(s\) in total|^warning: only" "$dir/$stamp-report.txt" || true
done
echo "guidelines: reports in $OUT/*/$stamp-report.{txt,json,png}"
exit $rc
