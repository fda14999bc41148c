#!/usr/bin/env python3
"""Per-pair ratios a/b of bench/ab/ab.sh's pairs.csv: their median and its
exact 95 % interval (the order statistics whose binomial coverage is at
least 95 %), over every pair with both numbers; a pair missing one is
counted and named. Also per order (ab, ba), to show a position effect.

    python3 bench/ab/ab.py OUT/pairs.csv [LO HI]

With LO and HI (e.g. 0.97 1.03) it says whether the interval lies within
[LO, HI]."""
import csv
import math
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


def summary(name, r):
    if not r:
        print(f"{name}: no complete pair")
        return None
    ci = median_ci(r)
    med = statistics.median(r)
    if ci is None:
        print(f"{name}: n={len(r)} median a/b {med:.4f}, too few pairs for a 95 % interval")
        return None
    print(f"{name}: n={len(r)} median a/b {med:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] (exact coverage {ci[2]*100:.1f} %), range {min(r):.4f}-{max(r):.4f}")
    return ci


def main():
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
    if len(sys.argv) == 4 and ci:
        lo, hi = float(sys.argv[2]), float(sys.argv[3])
        inside = lo <= ci[0] and ci[1] <= hi
        print(f"interval within [{lo}, {hi}]: {'yes' if inside else 'no'}")


if __name__ == "__main__":
    main()
