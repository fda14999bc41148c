#!/usr/bin/env bash
# Build the field's own benchmarks next to reprobench, for bench/fidelity to
# run against `reprobench run --runtime osu|imb` and the default `run`:
#
#   bench/fidelity/build-tools.sh DEST OSU_SRC IMB_SRC REPROMPI_SRC MPITS_SRC
#
#   OSU_SRC       the OSU micro-benchmarks 7.x source tree (with its configure script)
#   IMB_SRC       the Intel MPI Benchmarks source tree (github.com/intel/mpi-benchmarks)
#   REPROMPI_SRC  ReproMPI (github.com/hunsa/reprompi)
#   MPITS_SRC     mpits, ReproMPI's clock-sync library (github.com/hunsa/mpi-time-sync)
#
# The sources are the user's: this repository holds none of their code, and
# the script never writes into them. Each tree is copied to
# DEST/<flavor>/<tool>-src and built there, once per MPI library
# (FLAVORS="openmpi mpich", with mpicc.openmpi and mpicc.mpich):
#
#   DEST/<flavor>/osu/c/mpi/...          osu_latency, osu_bw, osu_allreduce, osu_bcast, osu_iallreduce, …
#   DEST/<flavor>/imb/IMB-MPI1           IMB as shipped: its Makefile compiles with -O0
#   DEST/<flavor>/imb-O2/IMB-MPI1        the same sources with -O2 (only the -O0 of the copy's Makefile changes)
#   DEST/<flavor>/reprompi/bin/mpibenchmark
#
# bench/fidelity/run.sh takes DEST as TOOLS=DEST. A tool that is already
# built is kept (delete its directory to rebuild). Needs cmake and GSL for
# ReproMPI (Debian: apt-get install cmake libgsl-dev), autotools only if the
# OSU tree has no configure script. Build logs: DEST/<flavor>/<tool>.log.
# On the 2-vCPU VM the four builds per library take about 3 minutes.
set -euo pipefail
if [ $# -ne 5 ]; then
	sed -n '2,27p' "$0" >&2
	exit 2
fi
DEST=$1 OSU=$2 IMB=$3 REPRO=$4 MPITS=$5
for d in "$OSU" "$IMB" "$REPRO" "$MPITS"; do
	[ -d "$d" ] || {
		echo "build-tools: $d is not a directory" >&2
		exit 2
	}
done
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
FLAVORS=${FLAVORS:-openmpi mpich}

# copy SRC TO: a fresh copy of a source tree, without its VCS metadata.
copy() {
	rm -rf "$2"
	mkdir -p "$2"
	tar -C "$1" --exclude=.git -cf - . | tar -C "$2" -xf -
}

# step NAME LOG CMD...: run a build step, its output in LOG; on failure show the log's tail.
step() {
	local name=$1 log=$2
	shift 2
	if ! "$@" >>"$log" 2>&1; then
		echo "build-tools: $name failed; the end of $log:" >&2
		tail -20 "$log" >&2
		return 1
	fi
}

fail=0
for fl in $FLAVORS; do
	CC=$(command -v "mpicc.$fl") || {
		echo "build-tools: mpicc.$fl not found" >&2
		exit 2
	}
	CXX=$(command -v "mpicxx.$fl")
	D=$DEST/$fl
	mkdir -p "$D"

	if [ ! -x "$D/osu/c/mpi/pt2pt/standard/osu_latency" ]; then
		log=$D/osu.log
		: >"$log"
		copy "$OSU" "$D/osu"
		(
			cd "$D/osu"
			[ -x configure ] || step "osu autoreconf ($fl)" "$log" autoreconf -fi
			step "osu configure ($fl)" "$log" ./configure CC="$CC" CXX="$CXX"
			step "osu make ($fl)" "$log" make -j2
		) || fail=1
	fi

	# IMB: as shipped (-O0), and the same sources at -O2. Newer GCCs turn
	# some of its warnings into errors under its -Werror, which is dropped.
	for v in imb imb-O2; do
		[ -x "$D/$v/IMB-MPI1" ] && continue
		log=$D/$v.log
		: >"$log"
		copy "$IMB" "$D/$v"
		sed -i 's/-Werror//' "$D/$v/src_cpp/Makefile"
		[ "$v" = imb-O2 ] && sed -i 's/-O0/-O2/g' "$D/$v/src_cpp/Makefile"
		(cd "$D/$v" && step "$v make ($fl)" "$log" make CC="$CC" CXX="$CXX" IMB-MPI1) || fail=1
	done

	if [ ! -x "$D/reprompi/bin/mpibenchmark" ]; then
		log=$D/reprompi.log
		: >"$log"
		copy "$REPRO" "$D/reprompi-src"
		copy "$MPITS" "$D/mpits-src"
		mkdir -p "$D/reprompi-build"
		(
			cd "$D/reprompi-build"
			step "reprompi cmake ($fl)" "$log" cmake "$D/reprompi-src" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
				-DFETCHCONTENT_SOURCE_DIR_MPITS="$D/mpits-src" -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
				-DCMAKE_INSTALL_PREFIX="$D/reprompi"
			step "reprompi make ($fl)" "$log" make -j2
			step "reprompi install ($fl)" "$log" make install
		) || fail=1
	fi
done
find "$DEST" -maxdepth 8 -type f -perm -u+x \( -name osu_latency -o -name osu_allreduce -o -name osu_bcast -o -name osu_bw \
	-o -name osu_iallreduce -o -name IMB-MPI1 -o -name mpibenchmark \) | sort
exit $fail
