"""Start skew over ranks per process synchronization (bench/window/barrier.sh).

For each directory of reprobench runs written with --per-rank: per call and
method, the median over mpiruns of each mpirun's median start skew (latest
minus earliest global start over ranks) of the valid observations
(errorcode 0), its range, and the median of rank 1's start minus rank 0's.
"""
import collections
import csv
import glob
import statistics
import sys

for d in sys.argv[1:]:
    skew, signed = collections.defaultdict(list), collections.defaultdict(list)
    for raw in sorted(glob.glob(d + "/*-mpirun*[0-9].csv")):
        base = raw[:-4]
        method, valid = {}, set()
        for r in csv.DictReader(open(raw)):
            method[r["exp"]] = (r["call"], r["procsync"])
            if r["errorcode"] == "0":
                valid.add((r["exp"], r["rep"]))
        starts = collections.defaultdict(dict)
        for r in csv.DictReader(open(base + ".ranks.csv")):
            starts[(r["exp"], r["rep"])][int(r["rank"])] = float(r["global_start_s"])
        per, per_signed = collections.defaultdict(list), collections.defaultdict(list)
        for key, s in starts.items():
            if key not in valid:
                continue
            k = method[key[0]]
            per[k].append((max(s.values()) - min(s.values())) * 1e6)
            per_signed[k].append((s.get(1, 0) - s.get(0, 0)) * 1e6)
        for k, v in per.items():
            skew[k].append(statistics.median(v))
            signed[k].append(statistics.median(per_signed[k]))
    for k in sorted(skew):
        v = sorted(skew[k])
        print("%-10s %-14s %-13s %2d mpiruns: start skew %.2f us [%.2f, %.2f], rank 1 - rank 0 %+.2f us"
              % (d.rstrip("/").split("/")[-1], k[0], k[1], len(v), statistics.median(v), v[0], v[-1],
                 statistics.median(signed[k])))
