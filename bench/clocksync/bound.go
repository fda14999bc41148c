package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/clocksync/clocksim"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

var (
	boundSeeds = flag.Int("seeds", 100, "bound experiment: seeds per rank count")
	boundRanks = flag.String("bound-ranks", "64,1024", "bound experiment: rank counts")
	boundSpec  = flag.String("bound-spec", "hca3:accuracy=1us@10s,budget=10s", "bound experiment: the algorithm")
)

// bound is the bound's acceptance experiment: for each rank count and
// seeds 1…n, the true max |error| right after the sync and 10 s later, the
// predicted bound at both, whether it covered the truth, and the sync time
// (virtual). Checks: true max |error| ≤ 1 µs after 10 s in every seed, and the
// bound covering the truth (at both checks) in ≥ 95 % of the seeds.
func bound(s *summary) error {
	w, f, err := newCSV("bound.csv", "spec", "ranks", "seed", "sync_duration_s", "true_max_abs_error_0s_s",
		"true_max_abs_error_10s_s", "bound_0s_s", "bound_10s_s", "covered", "ranks_within_own_bound_10s",
		"target_met", "budget_exceeded_ranks", "wall_s")
	if err != nil {
		return err
	}
	after := []time.Duration{0, 10 * time.Second}
	for _, pf := range strings.Split(*boundRanks, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(pf))
		if err != nil || p < 2 {
			return fmt.Errorf("-bound-ranks: %q", pf)
		}
		var covered, within, met int
		var worst, worstB, maxSync float64
		for seed := uint64(1); seed <= uint64(*boundSeeds); seed++ {
			o, err := clocksim.Run(mpitest.Config{Ranks: p, Seed: seed}, *boundSpec, after)
			if err != nil {
				return err
			}
			b := o.Result.Bound
			c0, c10 := o.Checks[0], o.Checks[1]
			t0, t10 := *c0.TrueMaxAbs, *c10.TrueMaxAbs
			cov := !b.Unknown && t0 <= b.At(c0.After.Seconds()) && t10 <= b.At(c10.After.Seconds())
			n, _ := clocksync.CoveredRanks(o.Result.PerRank, c10.TrueOffsets, c10.After.Seconds())
			if cov {
				covered++
			}
			if t10 <= 1e-6 {
				within++
			}
			if o.Result.TargetMet {
				met++
			}
			worst, worstB, maxSync = max(worst, t10), max(worstB, b.At(10)), max(maxSync, o.Result.Duration)
			fmt.Printf("bound P=%-5d seed %3d: sync %.3fs, true max %.3g / %.3g µs, bound %.3g / %.3g µs, covered %v, wall %v\n",
				p, seed, o.Result.Duration, t0*1e6, t10*1e6, b.At(0)*1e6, b.At(10)*1e6, cov, o.Wall.Round(time.Millisecond))
			if err := w.Write([]string{*boundSpec, itoa(p), strconv.FormatUint(seed, 10), ftoa(o.Result.Duration), ftoa(t0), ftoa(t10),
				ftoa(b.At(0)), ftoa(b.At(10)), strconv.FormatBool(cov), itoa(n), strconv.FormatBool(o.Result.TargetMet),
				itoa(o.Result.BudgetExceeded), ftoa(o.Wall.Seconds())}); err != nil {
				return err
			}
			w.Flush()
		}
		n := *boundSeeds
		s.add(fmt.Sprintf("%s, %d ranks: seeds with true max |error| ≤ 1 µs after 10 s", *boundSpec, p), float64(within),
			fmt.Sprintf("= %d", n), within == n, fmt.Sprintf("%d of %d (worst %.3g µs)", within, n, worst*1e6))
		s.add(fmt.Sprintf("%s, %d ranks: seeds whose predicted bound covers the true max |error| at 0 and 10 s", *boundSpec, p), float64(covered),
			fmt.Sprintf("≥ 95 %% of %d", n), float64(covered) >= 0.95*float64(n), fmt.Sprintf("%d of %d (largest bound at 10 s %.3g µs)", covered, n, worstB*1e6))
		s.Notes = append(s.Notes, fmt.Sprintf("%d ranks: target met (predicted) in %d of %d seeds; longest sync %.2f s (virtual)", p, met, n, maxSync))
	}
	return closeCSV(w, f)
}
