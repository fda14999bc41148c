#!/usr/bin/env python3
"""Per-pair ratios a/b of bench/ab/ab.sh's pairs.csv: their median and its
exact 95 % interval (the order statistics whose binomial coverage is at
least 95 %), over every pair with both numbers; a pair missing one is
counted and named. Also per order (ab, ba), to show a position effect.

    python3 bench/ab/ab.py OUT/pairs.csv [LO HI]

With LO and HI (e.g. 0.97 1.03) it says whether the interval lies within
[LO, HI]. When the runs fall into two modes (a gap of at least 1.5x
between neighbouring values, as a machine that flips between states
gives), it also counts the pairs whose runs are in different modes and
gives the ratios of the pairs within each mode."""
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


if __name__ == "__main__":
    main()
