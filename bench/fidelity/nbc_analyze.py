#!/usr/bin/env python3
"""Table of bench/fidelity/nbc.sh from its output directory.

Reads OUT/runs.csv (flavor, cell, pair, side C or G, file, 1-minute load,
in launch order) and the files it names: the C side's (nbc.c, the
re-implemented osu_iallreduce) and reprobench's raw files have the columns
pure_s, compute_s, total_s, overlap_frac. Per pair: ratio Go/C of the
medians of pure, compute and total; difference Go − C of the median overlap
in percentage points. Per cell: median over pairs [range]. A pair straddles
a machine-state change when the pure medians of the C runs on either side
of its Go run differ by more than 1.5x; the verdict (pure and total within
5 %, overlap within 5 points) uses the other pairs.

usage: nbc_analyze.py OUT
"""
import csv
import statistics
import sys

STRADDLE = 1.5
COLS = ("pure_s", "compute_s", "total_s", "overlap_frac")


def medians(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise FileNotFoundError(path)
    return {c: statistics.median(float(r[c]) for r in rows) for c in COLS}


def rng(v, fmt="{:.3f}"):
    return "[" + fmt.format(min(v)) + "–" + fmt.format(max(v)) + "]"


def main(out):
    with open(f"{out}/runs.csv") as f:
        runs = list(csv.DictReader(f))
    cells = {}
    for r in runs:
        try:
            m = medians(r["file"])
        except FileNotFoundError:
            continue
        p = cells.setdefault((r["flavor"], r["cell"]), {}).setdefault(int(r["pair"]), {})
        p[r["side"]] = m
        p.setdefault("load", []).append(float(r["load1"]))
    print("\nreprobench run --runtime osu --nbc-overlap / re-implemented osu_iallreduce (nbc.c), np 2, medians per run")
    print("| library | cell | pairs | straddles | pure ratio | compute ratio | total ratio | overlap Δ points | "
          "C pure µs | C overlap % | load | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ok_all = True
    for (fl, cell), pairs in cells.items():
        ids = sorted(i for i, p in pairs.items() if "C" in p and "G" in p)
        if not ids:
            continue
        cpure = {i: pairs[i]["C"]["pure_s"] for i in ids}
        strad = set()
        for j, i in enumerate(ids):
            nb = ids[j + 1] if j + 1 < len(ids) else (ids[j - 1] if j > 0 else i)
            if max(cpure[i], cpure[nb]) / min(cpure[i], cpure[nb]) > STRADDLE:
                strad.add(i)
        clean = [i for i in ids if i not in strad] or ids
        ratio = {c: [pairs[i]["G"][c] / pairs[i]["C"][c] for i in clean] for c in COLS[:3]}
        dov = [100 * (pairs[i]["G"]["overlap_frac"] - pairs[i]["C"]["overlap_frac"]) for i in clean]
        med = {c: statistics.median(v) for c, v in ratio.items()}
        good = abs(med["pure_s"] - 1) <= 0.05 and abs(med["total_s"] - 1) <= 0.05 and abs(statistics.median(dov)) <= 5
        if len(strad) == len(ids):
            good = False
        ok_all &= good
        loads = [x for i in ids for x in pairs[i]["load"]]
        cp = [pairs[i]["C"]["pure_s"] * 1e6 for i in ids]
        co = [pairs[i]["C"]["overlap_frac"] * 100 for i in ids]
        print(f"| {fl} | {cell} | {len(ids)} | {len(strad)} | "
              + " | ".join(f"{med[c]:.3f} {rng(ratio[c])}" for c in COLS[:3])
              + f" | {statistics.median(dov):+.1f} {rng(dov, '{:+.1f}')} | {statistics.median(cp):.3f} {rng(cp)} | "
              f"{statistics.median(co):.1f} {rng(co, '{:.1f}')} | {min(loads):.2f}–{max(loads):.2f} | "
              f"{'no clean pair' if len(strad) == len(ids) else ('PASS' if good else 'FAIL')} |")
    print("\nall targets met" if ok_all else "\nsome targets NOT met")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
