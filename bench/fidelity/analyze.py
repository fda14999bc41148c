#!/usr/bin/env python3
"""Tables of bench/fidelity/run.sh from its output directory.

Reads OUT/runs.csv (one line per launch, in launch order: flavor, part,
cell, pair, side C or G, file, 1-minute load) and the files it names.

Part 1: per pair, ratio Go/C of the medians and of the p99s (type-7
quantiles) of the per-observation completion times. A pair straddles a
machine-state change when the medians of the two C runs around its Go run
(this pair's and the next pair's; the previous pair's for the last one)
differ by more than 1.5x. Per cell: median over pairs [range], over all
pairs and over the pairs that do not straddle; the verdict (median <= 1.03,
p99 <= 1.3; a median below 0.97 is reported as LOW: not the same number
either) is on the latter.

Part 2: per pair, ratio of the medians of the R measurements (each one
value the tool prints); target |ratio - 1| <= 0.05.

usage: analyze.py OUT
"""
import csv
import statistics
import sys

STRADDLE = 1.5


def quantile(v, p):
    v = sorted(v)
    h = (len(v) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def column(path, names):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise FileNotFoundError(path)  # killed while writing: left out
    for n in names:
        if rows and n in rows[0]:
            return [float(r[n]) for r in rows]
    raise SystemExit(f"{path}: none of the columns {names}")


def rng(v):
    return f"[{min(v):.3f}–{max(v):.3f}]"


def main(out):
    with open(f"{out}/runs.csv") as f:
        runs = list(csv.DictReader(f))
    cells = {}
    for r in runs:
        key = (r["flavor"], r["part"], r["cell"])
        try:
            vals = column(r["file"], ["runtime_s", "value_s"])
        except FileNotFoundError:
            continue  # a run in progress (or killed): its pair is left out
        d = cells.setdefault(key, {})
        p = d.setdefault(int(r["pair"]), {})
        p[r["side"]] = vals
        p.setdefault("load", []).append(float(r["load1"]))
    ok_all = True
    for part in ("1", "2"):
        keys = [k for k in cells if k[1] == part]
        if not keys:
            continue
        if part == "1":
            print("\nPart 1: reprobench run (default flags) / plain MPI_Init C loop, per-observation completion time, np 2")
            print("| library | cell | pairs | straddles | median ratio [range] | p99 ratio [range] | "
                  "clean median ratio [range] | clean p99 ratio [range] | C median µs [range] | load | verdict |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
        else:
            print("\nPart 2: reprobench run --runtime osu|imb / re-implemented tool loop (tools.c), median of 10 measurements, np 2")
            print("| library | cell | pairs | straddles | ratio [range] | clean ratio [range] | tool value µs [range] | load | verdict |")
            print("|---|---|---|---|---|---|---|---|---|")
        for key in keys:
            fl, _, cell = key
            pairs = {i: p for i, p in cells[key].items() if "C" in p and "G" in p}
            ids = sorted(pairs)
            if not ids:
                continue
            cmed = {i: quantile(pairs[i]["C"], 0.5) for i in ids}
            strad = set()
            for j, i in enumerate(ids):
                nb = ids[j + 1] if j + 1 < len(ids) else (ids[j - 1] if j > 0 else i)
                a, b = cmed[i], cmed[nb]
                if max(a, b) / min(a, b) > STRADDLE:
                    strad.add(i)
            med = {i: quantile(pairs[i]["G"], 0.5) / cmed[i] for i in ids}
            p99 = {i: quantile(pairs[i]["G"], 0.99) / quantile(pairs[i]["C"], 0.99) for i in ids}
            clean = [i for i in ids if i not in strad]
            if not clean:  # every pair straddles: no verdict
                clean, ok_all = ids, False
            loads = [x for i in ids for x in pairs[i]["load"]]
            load = f"{min(loads):.2f}–{max(loads):.2f}"
            cm = [cmed[i] * 1e6 for i in ids]
            mm = [med[i] for i in clean]
            if part == "1":
                pp = [p99[i] for i in clean]
                good = statistics.median(mm) <= 1.03 and statistics.median(pp) <= 1.3
                informative = "funneled" in cell
                verdict = "(thread level)" if informative else ("PASS" if good else "FAIL")
                if good and not informative and statistics.median(mm) < 0.97:
                    # Faster than the baseline is not agreement either.
                    verdict, good = "LOW (< 0.97)", False
                if len(strad) == len(ids) and not informative:
                    verdict, good = "no clean pair", False
                if not informative:
                    ok_all &= good
                print(f"| {fl} | {cell} | {len(ids)} | {len(strad)} | "
                      f"{statistics.median(med.values()):.3f} {rng(list(med.values()))} | "
                      f"{statistics.median(p99.values()):.3f} {rng(list(p99.values()))} | "
                      f"{statistics.median(mm):.3f} {rng(mm)} | {statistics.median(pp):.3f} {rng(pp)} | "
                      f"{statistics.median(cm):.3f} [{min(cm):.3f}–{max(cm):.3f}] | {load} | {verdict} |")
            else:
                good = abs(statistics.median(mm) - 1) <= 0.05 and len(strad) < len(ids)
                ok_all &= good
                print(f"| {fl} | {cell} | {len(ids)} | {len(strad)} | "
                      f"{statistics.median(med.values()):.3f} {rng(list(med.values()))} | "
                      f"{statistics.median(mm):.3f} {rng(mm)} | "
                      f"{statistics.median(cm):.3f} [{min(cm):.3f}–{max(cm):.3f}] | {load} | "
                      f"{'no clean pair' if len(strad) == len(ids) else ('PASS' if good else 'FAIL')} |")
    print("\nall targets met" if ok_all else "\nsome targets NOT met")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
