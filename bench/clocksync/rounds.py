#!/usr/bin/env python3
"""rounds.py DIR: summarize bench/clocksync/rounds.sh runs.

Per cell (layout, load, library, algorithm): rounds, how many stated a bound
and held it, stated none, or broke it; the true max |error| after 10 s
(median, 90th percentile, max) and the sync time. Per layout, load and
library, for each algorithm after the first of a pair in the same round: the
per-round ratio of its true error after 10 s to the first algorithm's
(median and range; rounds where both ran), and the ratio of the medians."""
import glob, json, os, re, statistics, sys
from collections import defaultdict

d = sys.argv[1]
cells = defaultdict(dict)  # (where, load, lib, alg) -> round -> record
for f in glob.glob(os.path.join(d, "*.json")):
    m = re.match(r"(.+)-load(\d)-(openmpi|mpich)-(.+)-(\d+)\.json$", os.path.basename(f))
    if not m:
        continue
    where, load, lib, alg, rnd = m.groups()
    try:
        j = json.load(open(f))
    except (json.JSONDecodeError, OSError):
        cells[(where, load, lib, alg)][int(rnd)] = None
        continue
    if j.get("truth") != "shared clock":
        sys.exit(f"{f}: no exact errors (truth {j.get('truth')!r})")
    unknown = bool(j.get("bound", {}).get("bound_unknown"))
    broken = any(c.get("within_bound") is False for c in j["checks"])
    cells[(where, load, lib, alg)][int(rnd)] = dict(
        t10=j["checks"][-1]["true_max_abs_error_s"], sync=j["sync_duration_s"],
        kind="none" if unknown else ("broken" if broken else "held"),
        wait=max((r.get("cpu_wait_s") or 0) / j["sync_duration_s"] for r in j.get("per_rank", [{}])))

def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]

print("cell                               rounds  held none broken failed  true error after 10 s: median p90 max (ns)   sync median max (ms)")
for k in sorted(cells):
    rs = cells[k]
    ok = [r for r in rs.values() if r]
    n = {c: sum(r["kind"] == c for r in ok) for c in ("held", "none", "broken")}
    t = [r["t10"] * 1e9 for r in ok]
    s = [r["sync"] * 1e3 for r in ok]
    line = f"{' '.join(k):34} {len(rs):6} {n['held']:5} {n['none']:4} {n['broken']:6} {len(rs) - len(ok):6}"
    if ok:
        line += f"  {statistics.median(t):10.1f} {q(t, .9):8.1f} {max(t):8.1f}   {statistics.median(s):10.2f} {max(s):8.2f}"
    print(line)

print()
groups = defaultdict(list)
for (where, load, lib, alg) in cells:
    groups[(where, load, lib)].append(alg)
for g, algs in sorted(groups.items()):
    algs.sort(key=lambda a: (a != "default", a))
    base = algs[0]
    for alg in algs[1:]:
        a, b = cells[g + (base,)], cells[g + (alg,)]
        pairs = [(a[i]["t10"], b[i]["t10"]) for i in a if a.get(i) and b.get(i)]
        if not pairs:
            continue
        rat = [x / y if y > 0 else float("inf") for x, y in pairs]
        ma = statistics.median(x for x, _ in pairs)
        mb = statistics.median(y for _, y in pairs)
        print(f"{' '.join(g):24} {base}/{alg}: {len(pairs)} paired rounds, per-round ratio of true error after 10 s "
              f"median {statistics.median(rat):.2f} (range {min(rat):.2f}-{max(rat):.2f}, {sum(r <= 1.2 for r in rat)} of {len(rat)} <= 1.2); "
              f"ratio of medians {ma / mb if mb else float('inf'):.2f} ({ma * 1e9:.1f} / {mb * 1e9:.1f} ns)")
