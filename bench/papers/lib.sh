# Sourced by the scripts of bench/papers: environment, binaries, logging.
#
#   RB_PAPERS_WORK  where raw data goes (default /tmp/rb-papers; not committed)
#   RB_PAPERS_OUT   where the committed results go (default bench/papers/out)
#   QUICK=1         smaller sizes, for developing the scripts
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
WORK=${RB_PAPERS_WORK:-/tmp/rb-papers}
OUTROOT=${RB_PAPERS_OUT:-$here/out}
QUICK=${QUICK:-0}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN=$(command -v mpirun.openmpi || command -v mpirun)
BIN=$WORK/bin
RB=$BIN/reprobench
PT=$BIN/papertool

# build: the CLI and papertool from this checkout (once per run.sh). If the
# working tree does not build (someone is in the middle of an edit), build
# the last commit instead, from a "git archive" copy (the checkout is not
# touched); $BIN/BUILD_INFO says which.
build() {
	mkdir -p "$BIN"
	if [[ -x $RB && -x $PT && ${RB_PAPERS_REBUILD:-1} == 0 ]]; then
		return
	fi
	if (cd "$root" && go build -o "$RB" ./cmd/reprobench && go -C bench build -o "$PT" ./papers/papertool) 2>"$BIN/build.log"; then
		echo "working tree at $(cd "$root" && git rev-parse --short HEAD)$(cd "$root" && git diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')" >"$BIN/BUILD_INFO"
		return
	fi
	echo "bench/papers: the working tree does not build (see $BIN/build.log); building HEAD from git archive" >&2
	local src=$WORK/src
	rm -rf "$src" && mkdir -p "$src"
	(cd "$root" && git archive HEAD) | tar -x -C "$src"
	(cd "$src" && go build -o "$RB" ./cmd/reprobench && go -C bench build -o "$PT" ./papers/papertool)
	echo "HEAD $(cd "$root" && git rev-parse --short HEAD) (git archive; the working tree did not build)" >"$BIN/BUILD_INFO"
}

# begin FINDING: fresh work and output directories, header of summary.txt.
begin() {
	FINDING=$1
	W=$WORK/$FINDING
	OUT=$OUTROOT/$FINDING
	rm -rf "$W" "$OUT"
	mkdir -p "$W" "$OUT"
	SUMMARY=$OUT/summary.txt
	CMDS=$OUT/commands.txt
	T0=$(date +%s)
	: >"$CMDS"
	{
		echo "finding:       $FINDING"
		echo "date (UTC):    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "built from:    $(cat "$BIN/BUILD_INFO" 2>/dev/null || echo unknown)"
		echo "host:          $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
		echo "MPI:           $("$MPIRUN" --version 2>/dev/null | head -1)"
		echo "loadavg start: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
		echo "QUICK:         $QUICK"
		echo
	} >"$SUMMARY"
}

# finish: load average at the end and the wall time into summary.txt.
finish() {
	{
		echo
		echo "loadavg end:   $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
		echo "wall time:     $(($(date +%s) - T0)) s"
	} >>"$SUMMARY"
	echo "== $FINDING done in $(($(date +%s) - T0)) s; summary: $SUMMARY"
}

# x CMD…: log the command (paths shortened) to commands.txt, then run it.
x() {
	# Runs of PREFIX-mpirunNNN.csv arguments are logged as one glob.
	local a s="" prev=""
	for a in "$@"; do
		if [[ $a =~ ^(.*-mpirun)[0-9]{3}((\.ranks)?\.csv)$ ]]; then
			[[ ${BASH_REMATCH[1]}${BASH_REMATCH[2]} == "$prev" ]] && continue
			prev=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
			a="${BASH_REMATCH[1]}[0-9][0-9][0-9]${BASH_REMATCH[2]}"
		else
			prev=""
			[[ $a =~ [[:space:]\(\)\'\"] ]] && printf -v a '%q' "$a"
		fi
		s+="${s:+ }$a"
	done
	s=${s//$BIN\//}
	s=${s//$WORK\//\$WORK/}
	s=${s//$OUTROOT\//out/}
	echo "$s" >>"$CMDS"
	"$@"
}

# say TEXT: to the terminal and summary.txt.
say() { echo "$@" | tee -a "$SUMMARY"; }
