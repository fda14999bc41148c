#!/usr/bin/env python3
"""Per-pair ratios a/b of bench/ab/ab.sh's pairs.csv: their median and its
exact 95 % interval (the order statistics whose binomial coverage is at
least 95 %), over every pair with both numbers; a pair missing one is
counted and named. Also per order (ab, ba), to show a position effect.

    python3 bench/ab/ab.py OUT/pairs.csv [LO HI] [--rows COLUMN [SPLIT]]

With LO and HI (e.g. 0.97 1.03) it says whether the interval lies within
[LO, HI]. When the runs fall into two modes (a gap of at least 1.5x
between neighbouring values, as a machine that flips between states
gives), it also counts the pairs whose runs are in different modes and
gives the ratios of the pairs within each mode.

--rows COLUMN looks inside the runs (OUT/runs/aN-mpirun000.csv and bN-…,
the valid rows' COLUMN in seconds), for a run whose rows fall into two
modes and whose median moves with the share of rows in each (e.g. MPICH's
MPI_Iallreduce pure time under --nbc-overlap here). Without SPLIT it prints
the histogram of every run's rows pooled, to choose SPLIT from (from an
A/A run, then the same SPLIT for the A/B). With SPLIT (seconds) each run's
rows are split there: per pair, the difference a - b of the share of rows
below SPLIT, and the ratios a/b of the median of the rows below it and of
those at or above it, each with its median and 95 % interval, and in the
band [LO, HI] the count of pairs within it."""
import csv
import math
import os
import statistics
import sys


def median_ci(x, level=0.95):
    """Exact distribution-free interval for the median of x: (x(k), x(n-k+1))
    with the largest k whose coverage 1 - 2·P(B <= k-1), B ~ Bin(n, 1/2), is
    at least level; None when n is too small for any."""
    x = sorted(x)
    n = len(x)
    best = None
    for k in range(1, n // 2 + 1):
        tail = sum(math.comb(n, i) for i in range(k)) / 2**n
        cov = 1 - 2 * tail
        if cov >= level:
            best = (x[k - 1], x[n - k], cov)
    return best


def summary(name, r, what="a/b"):
    if not r:
        print(f"{name}: no complete pair")
        return None
    ci = median_ci(r)
    med = statistics.median(r)
    if ci is None:
        print(f"{name}: n={len(r)} median {what} {med:.4f}, too few pairs for a 95 % interval")
        return None
    print(f"{name}: n={len(r)} median {what} {med:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] (exact coverage {ci[2]*100:.1f} %), range {min(r):.4f}-{max(r):.4f}")
    return ci


def modes(values, gap=1.5):
    """The split of values into two modes at the largest ratio between
    neighbours when sorted, if that ratio is at least gap: returns the
    threshold (values below it are the fast mode), or None for one mode."""
    v = sorted(values)
    best, at = 1.0, None
    for lo, hi in zip(v, v[1:]):
        if lo > 0 and hi / lo > best:
            best, at = hi / lo, (lo * hi) ** 0.5
    return at if best >= gap else None


def run_rows(path, column):
    """The valid rows' (errorcode 0) column of one run's raw CSV, or None
    when the run wrote none."""
    if not os.path.exists(path):
        return None
    v = [float(r[column]) for r in csv.DictReader(open(path)) if r.get("errorcode", "0") == "0" and r[column] not in ("", "NaN")]
    return v or None


def histogram(values, bins=40):
    """A text histogram of the values between their 0.5th and 99.5th
    percentiles on log-spaced bins, a line per bin (its lower edge and
    count); the values outside are counted."""
    v = sorted(values)
    lo, hi = v[len(v) // 200], v[-1 - len(v) // 200]
    if lo <= 0 or hi <= lo:
        print(f"  {len(v)} rows, 99 % of them in [{lo:.4g}, {hi:.4g}]")
        return
    step = math.log(hi / lo) / bins
    counts = [0] * bins
    for x in v:
        if lo <= x <= hi:
            counts[min(int(math.log(x / lo) / step), bins - 1)] += 1
    top = max(counts)
    for i, c in enumerate(counts):
        print(f"  {lo * math.exp(i * step):10.4g} {c:8d} {'#' * round(50 * c / top)}")
    print(f"  {sum(x < lo for x in v)} rows below {lo:.4g}, {sum(x > hi for x in v)} above {hi:.4g}")


def within_runs(out, rows, column, split, band):
    """Per-pair comparison of the rows inside the runs, split at split."""
    def part(v):
        fast = [x for x in v if x < split]
        slow = [x for x in v if x >= split]
        return len(fast) / len(v), statistics.median(fast) if fast else None, statistics.median(slow) if slow else None

    share, fast, slow, missing = [], [], [], []
    for row in rows:
        a = run_rows(os.path.join(out, "runs", f"a{row['pair']}-mpirun000.csv"), column)
        b = run_rows(os.path.join(out, "runs", f"b{row['pair']}-mpirun000.csv"), column)
        if a is None or b is None:
            missing.append(row["pair"])
            continue
        pa, pb = part(a), part(b)
        share.append(pa[0] - pb[0])
        if pa[1] and pb[1]:
            fast.append(pa[1] / pb[1])
        if pa[2] and pb[2]:
            slow.append(pa[2] / pb[2])
    print(f"rows split at {split:.4g} s: {len(share)} pairs with rows, {len(missing)} without {missing}")
    summary("share of rows below the split", share, "a - b")
    for name, r in (("median of the rows below the split", fast), ("median of the rows at or above it", slow)):
        ci = summary(name, r)
        if ci and band:
            inside = sum(band[0] <= q <= band[1] for q in r)
            print(f"  {inside} of {len(r)} pairs within [{band[0]}, {band[1]}]; interval within: {'yes' if band[0] <= ci[0] and ci[1] <= band[1] else 'no'}")


def main():
    args = sys.argv[1:]
    rowcol, split = None, None
    if "--rows" in args:
        i = args.index("--rows")
        rowcol = args[i + 1]
        if i + 2 < len(args):
            split = float(args[i + 2])
        args = args[:i]
    sys.argv = [sys.argv[0]] + args
    rows = list(csv.DictReader(open(sys.argv[1])))
    ratios, by = [], {}
    missing = []
    for row in rows:
        if not row["a"] or not row["b"]:
            missing.append(row["pair"])
            continue
        q = float(row["a"]) / float(row["b"])
        ratios.append(q)
        by.setdefault(row["order"], []).append(q)
    print(f"{len(rows)} pairs, {len(missing)} incomplete {missing}")
    ci = summary("all", ratios)
    for k in sorted(by):
        summary(f"order {k}", by[k])
    runs = [float(row[k]) for row in rows for k in ("a", "b") if row[k]]
    cut = modes(runs)
    if cut is not None:
        fast = sum(x < cut for x in runs)
        print(f"two modes in the runs: {fast} of {len(runs)} runs below {cut:.4g} (the fast mode), {len(runs) - fast} above")
        same = {"fast": [], "slow": []}
        mixed = 0
        for row in rows:
            if not row["a"] or not row["b"]:
                continue
            a, b = float(row["a"]), float(row["b"])
            if (a < cut) != (b < cut):
                mixed += 1
            else:
                same["fast" if a < cut else "slow"].append(a / b)
        print(f"pairs across the modes: {mixed}")
        for k in ("fast", "slow"):
            summary(f"pairs in the {k} mode", same[k])
    if len(sys.argv) == 4 and ci:
        lo, hi = float(sys.argv[2]), float(sys.argv[3])
        inside = lo <= ci[0] and ci[1] <= hi
        print(f"interval within [{lo}, {hi}]: {'yes' if inside else 'no'}")
    if rowcol:
        out = os.path.dirname(os.path.abspath(sys.argv[1]))
        band = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) == 4 else None
        if split is None:
            pooled = []
            for row in rows:
                for k in ("a", "b"):
                    pooled += run_rows(os.path.join(out, "runs", f"{k}{row['pair']}-mpirun000.csv"), rowcol) or []
            print(f"{rowcol} of the valid rows of every run, pooled ({len(pooled)} rows); choose the split at the valley:")
            histogram(pooled)
        else:
            within_runs(out, rows, rowcol, split, band)


if __name__ == "__main__":
    main()
