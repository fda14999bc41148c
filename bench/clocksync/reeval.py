#!/usr/bin/env python3
"""Re-evaluate the predicted bound of recorded bench/clocksync/real.sh runs
offline with the clock-read term of issue 22 (clocksync.readStep): the
runs recorded before the term existed get AtSync + (u_ref + u_client)/2
added at every check. Runs that carry fit.clock_read_s already include it.

    bench/clocksync/reeval.py DIR... [--plain NS] [--skewed NS]

--plain/--skewed: the term in ns for runs without clock_read_s (defaults
23 and 25.5: the median read steps measured on this VM, timing.Measure's
resolution of the monotonic clock 23 ns, of timing.Skewed 28 ns; the
reference reads the monotonic clock). Prints, per directory, the runs with
a known bound, how many the bound covered at every check before and after,
and the median of bound / true error right after sync and at the last
check."""
import glob, json, os, statistics, sys

args = sys.argv[1:]
plain, skewed = 23.0, 25.5
dirs = []
while args:
    a = args.pop(0)
    if a == "--plain":
        plain = float(args.pop(0))
    elif a == "--skewed":
        skewed = float(args.pop(0))
    else:
        dirs.append(a)
for d in dirs:
    n = old = new = 0
    r0, rl, misses = [], [], []
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        try:
            j = json.load(open(f))
        except (OSError, ValueError):
            continue
        if "per_rank" not in j or j.get("truth") != "shared clock":
            continue
        rr = j["per_rank"][1:]
        if any(r["bound"].get("bound_unknown") for r in rr):
            continue
        have = all(r.get("clock_read_s") for r in rr)
        term = 0.0 if have else (skewed if "skewed" in os.path.basename(f) else plain) * 1e-9
        n += 1
        ok_old = ok_new = True
        for c in j["checks"]:
            t = abs(max(c["true_errors_s"], key=abs))
            b = c["predicted_bound_s"]
            ok_old &= t <= b
            ok_new &= t <= b + term
            (r0 if c["after_s"] == 0 else rl).append((b + term) / max(t, 1e-10))
        old += ok_old
        new += ok_new
        if not ok_new:
            misses.append(os.path.basename(f))
    if n:
        print(f"{d}: {n} runs with a bound; covered at every check: {old} as recorded, {new} with the clock-read term; "
              f"median bound/true {statistics.median(r0):.1f} right after sync, {statistics.median(rl):.1f} at the last check"
              + (f"; still missed: {' '.join(misses)}" if misses else ""))
