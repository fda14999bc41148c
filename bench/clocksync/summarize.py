#!/usr/bin/env python3
"""Summarize the JSON files of bench/clocksync/real.sh: per library and case,
the ranges of the true max |error| right after the sync and after 10 s, the
sync time, the predicted bound, and the counts against the targets of issue 22
(true error <= 0.1 us after sync, <= 1 us after 10 s, sync <= 1 s, every
rank's true error within its predicted bound at both checks)."""
import collections, glob, json, os, sys

out = sys.argv[1]
rows = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    lib, case, _ = os.path.basename(f)[:-5].split("-", 2)
    if not os.path.exists(f + ".load"):
        continue  # still running (real.sh writes .load when a run is done)
    d = json.load(open(f))
    c0, c10 = d["checks"][0], d["checks"][-1]
    load = open(f + ".load").read().split()[0] if os.path.exists(f + ".load") else "?"
    rows[(lib, case)].append(dict(
        t0=c0["true_max_abs_error_s"], t10=c10["true_max_abs_error_s"], sync=d["sync_duration_s"],
        b10=c10.get("predicted_bound_s"), cov=all(c.get("within_bound", False) for c in d["checks"]),
        unknown=d.get("bound", {}).get("bound_unknown", False),
        met=d.get("target_met", False) if d.get("target") else None, load=float(load) if load != "?" else None,
        mpits=float(open(f + ".mpits").read()) if os.path.exists(f + ".mpits") and open(f + ".mpits").read().strip() else None))

def rng(v, scale, unit):
    return f"{min(v)*scale:.3g}–{max(v)*scale:.3g} {unit}"

def verdict(lib, case, rs):
    n = len(rs)
    both = sum(1 for r in rs if r["t0"] <= 0.1e-6 and r["t10"] <= 1e-6 and r["sync"] <= 1)
    judged = [r for r in rs if not r["unknown"]]
    cov = sum(r["cov"] for r in judged)
    met = [r["met"] for r in rs if r["met"] is not None]
    loads = [r["load"] for r in rs if r["load"] is not None]
    return (f"{lib:7} {case:18} {n:3} runs: all three targets in {both:2} of {n}; bound covered the truth in {cov:2} of {len(judged)}"
            + (f"; target met (predicted) in {sum(met)} of {len(met)}" if met else "")
            + (f"; load {min(loads):.2f}-{max(loads):.2f}" if loads else ""))

def issue28(label, rs):
    """The targets of issue 28: true max |error| <= 1 us at the last check,
    the stated bound covering the truth at every check (a run without a
    bound does not hold it), median sync <= 1 s."""
    n = len(rs)
    within = sum(r["t10"] <= 1e-6 for r in rs)
    held = sum(r["cov"] and not r["unknown"] for r in rs)
    both = sum(r["t10"] <= 1e-6 and r["cov"] and not r["unknown"] for r in rs)
    s = sorted(r["sync"] for r in rs)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    loads = [r["load"] for r in rs if r["load"] is not None]
    return (f"{label:26} {n:3} runs: within 1 us at the last check {within:2} of {n}; bound held {held:2} of {n}; both {both:2} of {n}; "
            f"sync median {med:.3f} s, max {s[-1]:.3f} s" + (f"; load {min(loads):.2f}-{max(loads):.2f}" if loads else ""))

print("summary (targets: true max |error| <= 0.1 us after sync and <= 1 us after 10 s, sync <= 1 s; bound: every rank within its predicted bound at both checks)")
for (lib, case), rs in sorted(rows.items()):
    print(verdict(lib, case, rs))
print()
print("issue 28 (true max |error| <= 1 us at the last check; the stated bound covering the truth at every check; median sync <= 1 s)")
cases = sorted({case for _, case in rows})
for (lib, case), rs in sorted(rows.items()):
    print(issue28(f"{lib} {case}", rs))
for case in cases:
    allrs = [r for (l, c), rs in rows.items() if c == case for r in rs]
    if len({l for l, c in rows if c == case}) > 1:
        print(issue28(f"all libraries {case}", allrs))
print()
for (lib, case), rs in sorted(rows.items()):
    n = len(rs)
    t0 = [r["t0"] for r in rs]
    t10 = [r["t10"] for r in rs]
    s = [r["sync"] for r in rs]
    b10 = [r["b10"] for r in rs if r["b10"] is not None]
    loads = [r["load"] for r in rs if r["load"] is not None]
    both = sum(1 for r in rs if r["t0"] <= 0.1e-6 and r["t10"] <= 1e-6 and r["sync"] <= 1)
    print(f"{lib} {case}: {n} runs")
    print(f"  true max |error| after sync {rng(t0, 1e9, 'ns')}, {sum(v <= 0.1e-6 for v in t0)} of {n} <= 0.1 us")
    print(f"  true max |error| after 10 s {rng(t10, 1e9, 'ns')}, {sum(v <= 1e-6 for v in t10)} of {n} <= 1 us")
    print(f"  sync time {rng(s, 1, 's')}, {sum(v <= 1 for v in s)} of {n} <= 1 s; all three targets in {both} of {n}")
    unk = sum(r["unknown"] for r in rs)
    if b10:
        print(f"  predicted bound after 10 s {rng(b10, 1e9, 'ns')}; bound covered the truth (both checks) in {sum(r['cov'] for r in rs)} of {n - unk} runs with a bound")
    if unk:
        print(f"  bound unknown (fewer than 3 undisturbed fit points in the budget) in {unk} of {n}")
    met = [r["met"] for r in rs if r["met"] is not None]
    if met:
        print(f"  accuracy target met (predicted) in {sum(met)} of {len(met)}")
    if loads:
        print(f"  1-min load average during the runs {min(loads):.2f}–{max(loads):.2f}")

# MPITS=DIR: mpits' HCA3O sync time, run just before each clockcheck.
for (lib, case), rs in sorted(rows.items()):
    m = [(r["sync"], r["mpits"]) for r in rs if r["mpits"]]
    if not m:
        continue
    ratio = sorted(a / b for a, b in m)
    n = len(ratio)
    med = ratio[n // 2] if n % 2 else (ratio[n // 2 - 1] + ratio[n // 2]) / 2
    print(f"mpits {lib} {case}: {n} runs; sync ours {rng([a for a, _ in m], 1e3, 'ms')}, mpits {rng([b for _, b in m], 1e3, 'ms')}; "
          f"ours/mpits median {med:.2f}, {min(ratio):.2f}-{max(ratio):.2f}, within 2x in {sum(v <= 2 for v in ratio)} of {n}")
