#!/usr/bin/env bash
# Rounds of several programs, each an mpirun of np 2, in a rotating order
# (round p starts with command p mod k), every round counted: per run the
# median of its runtime_s column, then each command's ratio to the first
# command, paired (median over rounds of the per-round ratio, with a
# bootstrap 95 % interval) and unpaired (Hodges-Lehmann: the median of all
# ratios between its runs and the first command's, with a bootstrap
# interval). It is how issue 30's causes were located: the C loop with and
# without a communicator made before it, reprobench run before and after a
# change, in the same rounds.
#
#   bench/fidelity/rounds.sh ROUNDS OUT 'CMD0' 'CMD1' [...]
#
# In a command, @CSV@ is replaced by a file the run writes (fidelity.c's or
# nbc.c's OUTFILE) and @DIR@ by a directory (reprobench run --out @DIR@: its
# first CSV is read); of that CSV the column COL is read (default
# runtime_s; pure_s for the overlap measurement and nbc.c). A command with
# neither is an OSU benchmark: its standard output is OSU's table, and the
# column OSUCOL of its first row (default "Avg Latency", in µs) is read.
# FLAVOR=mpich runs mpiexec.mpich instead of Open MPI's mpirun.
# Example (Open MPI, 100 rounds, about 3 min):
#
#   mpicc.openmpi -O2 -o /tmp/fid bench/fidelity/fidelity.c
#   go build -o /tmp/rb ./cmd/reprobench
#   bench/fidelity/rounds.sh 100 /tmp/rounds '/tmp/fid allreduce 10000 100 8 @CSV@' \
#       '/tmp/fid allreduce 10000 100 8 @CSV@ split' \
#       '/tmp/rb run --out @DIR@ --calls MPI_Allreduce --sizes 8 --nrep 10000'
#
# MPICH, osu_iallreduce's pure time against nbc.c (OSU's loops in a plain C
# program) and the overlap measurement (docs/fidelity.md, about 1 min):
#
#   FLAVOR=mpich COL=pure_s OSUCOL="Pure Comm." bench/fidelity/rounds.sh 60 /tmp/rounds \
#       '/tmp/nbc osu 8 1000 100 1 @CSV@' "$OSU/collective/non_blocking/osu_iallreduce -m 8:8 -T mpi_float" \
#       '/tmp/rb run --out @DIR@ --calls MPI_Iallreduce --sizes 8 --datatype float32 --runtime osu
#        --nbc-overlap --loop-reps 1000 --nrep 1 --warmup 1 --clock mpi_wtime --clock-sync none --seed 1'
#
# Output: OUT/runs.txt (round, command, median ns, in launch order) and the
# table on standard output.
set -euo pipefail
if [ $# -lt 4 ]; then
	echo "usage: $0 ROUNDS OUT 'CMD0' 'CMD1' [...]" >&2
	exit 2
fi
rounds=$1 out=$2
shift 2
cmds=("$@")
k=${#cmds[@]}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
run=mpirun.openmpi
[ "${FLAVOR:-openmpi}" = mpich ] && run=mpiexec.mpich
rm -rf "$out" && mkdir -p "$out"
for p in $(seq 1 "$rounds"); do
	for j in $(seq 0 $((k - 1))); do
		i=$(((j + p) % k))
		csv=$out/r$p-c$i.csv dir=$out/r$p-c$i
		cmd=${cmds[$i]//@CSV@/$csv}
		cmd=${cmd//@DIR@/$dir}
		# shellcheck disable=SC2086
		if ! timeout 300 $run -np 2 $cmd >"$out/last.log" 2>"$out/last.err"; then
			echo "rounds.sh: failed: $run -np 2 $cmd" >&2
			cat "$out/last.err" "$out/last.log" >&2
			exit 1
		fi
		src=$out/last.log # an OSU table
		if [ "$cmd" != "${cmds[$i]}" ]; then
			src=$csv
			[ -f "$src" ] || src=$(find "$dir" -name '*.csv' | head -1)
		fi
		if ! python3 - "$p" "$i" "$src" "${COL:-runtime_s}" "${OSUCOL:-Avg Latency}" >>"$out/runs.txt" <<'EOF'; then
import csv, re, statistics, sys
p, i, src, col, osucol = sys.argv[1:]
if src.endswith(".csv"):
    rows = list(csv.DictReader(open(src)))
    if not rows or col not in rows[0]:
        sys.exit(f"rounds.sh: {src}: no column {col} (COL)")
    v = statistics.median(float(r[col]) for r in rows) * 1e9
else:
    head = None
    for line in open(src):
        if line.startswith("# Size"):
            head = [re.sub(r"\(.*\)$", "", h).strip() for h in re.split(r"\s{2,}", line[1:].strip())]
        elif head and line.strip() and not line.startswith("#"):
            if osucol not in head:
                sys.exit(f"rounds.sh: OSU table without column {osucol} (OSUCOL): {head}")
            v = float(line.split()[head.index(osucol)]) * 1e3
            break
    else:
        sys.exit(f"rounds.sh: no OSU table in the output: {src}")
print(p, i, "%.1f" % v)
EOF
			exit 1
		fi
		rm -rf "$out/r$p-c$i.csv" "$out/r$p-c$i"
	done
done
python3 - "$out/runs.txt" "$k" <<'EOF'
import random, statistics as st, sys
k = int(sys.argv[2])
m = {}
for line in open(sys.argv[1]):
    p, i, v = line.split()
    m.setdefault(int(p), {})[int(i)] = float(v)
random.seed(1)
base = [x[0] for x in m.values()]
print(f"{len(m)} rounds; per command the median of the runs' medians, and its ratio to command 0")
for i in range(k):
    vals = [x[i] for x in m.values()]
    line = f"cmd{i}: median {st.median(vals):.0f} ns"
    if i > 0:
        r = [x[i] / x[0] for x in m.values()]
        bs = sorted(st.median(random.choices(r, k=len(r))) for _ in range(2000))
        hl = st.median(y / x for x in base for y in vals)
        bh = sorted(st.median(y / x for x in random.choices(base, k=len(base)) for y in random.choices(vals, k=len(vals)))
                    for _ in range(300))
        line += (f"; paired {st.median(r):.3f} [{bs[50]:.3f}, {bs[1950]:.3f}]"
                 f"; unpaired (Hodges-Lehmann) {hl:.3f} [{bh[7]:.3f}, {bh[292]:.3f}]")
    print(line)
EOF
