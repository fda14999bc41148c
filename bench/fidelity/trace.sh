#!/usr/bin/env bash
# Who runs on the ranks' CPUs while they measure: alternating runs of
# fidelity.c and `reprobench run` (8-byte MPI_Allreduce, 10^6 observations,
# about 1 s of measuring), each with `perf record -a` for 0.3 s in the
# middle of its measurement (cpu-clock samples at 1 kHz, scheduler and
# interrupt tracepoints), then per run: its median, and per CPU the share of
# samples of each thread and the counts of context switches, wake-ups,
# timer and other interrupts (issue 30: is the slow state another thread,
# an interrupt, the Go runtime waking up?).
#
#   bench/fidelity/trace.sh [RUNS=6] [OUT=/tmp/rb-trace] [FLAVOR=openmpi]
#
# Needs perf (Debian: linux-perf; on these VMs only software events and
# tracepoints exist, no hardware counters) and python3. Run it under
# /work/tools/quiet: about 4 s per run.
set -euo pipefail
RUNS=${1:-6}
OUT=${2:-/tmp/rb-trace}
FLAVOR=${3:-openmpi}
NREP=${NREP:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
rm -rf "$OUT" && mkdir -p "$OUT"
if [ "$FLAVOR" = mpich ]; then CC=mpicc.mpich RUN=mpiexec.mpich TAGS="-tags mpich"; else CC=mpicc.openmpi RUN=mpirun.openmpi TAGS=""; fi
"$CC" -O2 -Wall -o "$OUT/fidelity" "$here/fidelity.c"
# shellcheck disable=SC2086
(cd "$root" && go build $TAGS -o "$OUT/reprobench" ./cmd/reprobench)
EV=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_migrate_task -e irq:irq_handler_entry
	-e irq:softirq_entry -e irq_vectors:local_timer_entry -e cpu-clock -F 1000)
for i in $(seq 1 "$RUNS"); do
	for side in c go; do
		if [ $side = c ]; then
			timeout 120 $RUN -np 2 "$OUT/fidelity" allreduce "$NREP" 100 8 "$OUT/c$i.csv" >/dev/null 2>&1 &
		else
			timeout 120 $RUN -np 2 "$OUT/reprobench" run --out "$OUT" --run-id "go$i" --nrep "$NREP" >/dev/null 2>&1 &
		fi
		job=$!
		sleep 0.6 # start-up is about 0.3 s; the measurement lasts about 1 s
		perf record -q -a "${EV[@]}" -o "$OUT/$side$i.data" -- sleep 0.3 >/dev/null 2>&1
		wait $job
	done
done
python3 - "$OUT" "$RUNS" <<'EOF'
import collections, csv, re, subprocess, sys
out, runs = sys.argv[1], int(sys.argv[2])
hdr = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):')
def median_ns(path):
    v = sorted(float(r['runtime_s']) for r in csv.DictReader(open(path)))
    return v[len(v) // 2] * 1e9
def cpus(path):
    txt = subprocess.run(['perf', 'script', '-i', path, '-F', 'comm,tid,cpu,time,event'],
                         capture_output=True, text=True).stdout
    occ = collections.defaultdict(collections.Counter)
    ev = collections.defaultdict(collections.Counter)
    for line in txt.splitlines():
        m = hdr.match(line)
        if not m:
            continue
        comm, tid, cpu, _, e = m.groups()
        if e.startswith('cpu-clock'):
            occ[int(cpu)][f'{comm}[{tid}]'] += 1
        else:
            ev[int(cpu)][e.split(':')[-1]] += 1
    rows = []
    for c in sorted(occ):
        n = sum(occ[c].values())
        top = ', '.join(f'{k} {v * 100 / n:.1f}%' for k, v in occ[c].most_common(3))
        evs = ', '.join(f'{k} {v}' for k, v in sorted(ev[c].items()))
        rows.append(f'  cpu{c}: {n} samples: {top}; {evs}')
    return rows
for i in range(1, runs + 1):
    for side, data, res in (('fidelity.c', f'c{i}', f'c{i}.csv'), ('reprobench', f'go{i}', f'go{i}-mpirun000.csv')):
        print(f'run {i} {side}: median {median_ns(f"{out}/{res}"):.0f} ns')
        print('\n'.join(cpus(f'{out}/{data}.data')))
EOF
