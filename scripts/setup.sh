#!/usr/bin/env bash
# Installs what reprobench needs on Debian or Ubuntu: a C compiler and
# pkg-config for cgo, Open MPI and MPICH (side by side), Slurm (slurmctld,
# slurmd, slurm-client, munge: the Slurm tests start a one-node cluster;
# WITHOUT_SLURM=1 skips them), Chromium (the test that renders reprobench
# report's page in a headless browser; WITHOUT_CHROMIUM=1 skips it), and
# staticcheck.
# As root it installs missing Debian packages itself (apt-get update once);
# otherwise it prints exactly what to install. R (r-base-core) is needed only
# to regenerate the statistics fixtures and for bench/analysis: WITH_R=1.
set -euo pipefail

missing=()
have() { command -v "$1" >/dev/null 2>&1; }
pc() { pkg-config --exists "$1" 2>/dev/null; }

have gcc || missing+=(gcc)
have pkg-config || missing+=(pkg-config)
have gfortran || missing+=(gfortran) # the Fortran region example (examples/fortran-stencil)
have g++ || missing+=(g++) # the C++ region test (capi/testdata/cxx.cpp)
if ! { have mpirun.openmpi && pc mpi; }; then missing+=(libopenmpi-dev openmpi-bin); fi
if ! { have mpiexec.mpich && pc mpich; }; then missing+=(libmpich-dev mpich); fi
if [ "${WITH_R:-0}" = 1 ] && ! have Rscript; then missing+=(r-base-core); fi

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && have apt-get; then
		echo "setup: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		echo "setup: missing packages: ${missing[*]}" >&2
		echo "setup: install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
fi

# Slurm for the Slurm tests (issue #20: a one-node cluster under a temporary
# directory, scripts/slurm-up.sh): without recommends, 6 small packages.
slurm_missing=()
for b in slurmctld slurmd munged; do PATH=$PATH:/usr/sbin have "$b" || slurm_missing=(slurmctld slurmd munge); done
have srun || slurm_missing+=(slurm-client)
if [ ${#slurm_missing[@]} -gt 0 ] && [ "${WITHOUT_SLURM:-0}" != 1 ]; then
	if [ "$(id -u)" = 0 ] && have apt-get; then
		echo "setup: installing ${slurm_missing[*]} (--no-install-recommends)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${slurm_missing[@]}" >/dev/null
	else
		echo "setup: for the Slurm tests: sudo apt-get install -y --no-install-recommends ${slurm_missing[*]} (or WITHOUT_SLURM=1, and unset RB_REQUIRE_SLURM)" >&2
		exit 1
	fi
fi

# Chromium for the report's browser test (report/browser_test.go renders the
# page headless and checks it is not blank, has no console error and loads
# nothing from the network). Debian names the package chromium; Ubuntu's
# chromium-browser is a snap stub, so there install Chromium by hand.
if ! { have chromium || have chromium-browser || have google-chrome; } && [ "${WITHOUT_CHROMIUM:-0}" != 1 ]; then
	if [ "$(id -u)" = 0 ] && have apt-get && apt-cache show chromium >/dev/null 2>&1; then
		echo "setup: installing chromium"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq chromium >/dev/null
	else
		echo "setup: for the report's browser test: sudo apt-get install -y chromium (or WITHOUT_CHROMIUM=1, and unset RB_REQUIRE_CHROMIUM)" >&2
		exit 1
	fi
fi

staticcheck_version=v0.8.2
gobin="$(go env GOPATH)/bin"
if ! "$gobin/staticcheck" -version 2>/dev/null | grep -q "${staticcheck_version#v}"; then
	echo "setup: installing staticcheck $staticcheck_version"
	go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
echo "setup: ok ($(pkg-config --modversion mpi 2>/dev/null | sed 's/^/Open MPI /'), $(pkg-config --modversion mpich 2>/dev/null | sed 's/^/MPICH /'))"
