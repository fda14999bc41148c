package clocksync_test

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

func ExampleParseSpec() {
	s, err := clocksync.ParseSpec("hca3:fitpts=500")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	_, err = clocksync.ParseSpec("skampi:fitpts=10")
	fmt.Println(err)
	// Output:
	// hca3:fitpts=500,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,pingpongs=100,minpingpongs=10,stop=0,accuracy=none
	// clocksync: skampi: unknown parameter "fitpts" (skampi takes pingpongs, minpingpongs, stop, rttpingpongs, warmup)
}

func ExampleMergeLMs() {
	// Rank 1's clock relative to rank 0 (lm1), rank 3's relative to rank 1
	// (lm2): offsets in seconds, drifts in parts per million.
	lm1 := clocksync.Model{Slope: 20e-6, Intercept: 0.5}
	lm2 := clocksync.Model{Slope: -5e-6, Intercept: 0.25}
	lm31 := clocksync.MergeLMs(lm1, lm2)
	fmt.Println(lm31)
	// Applying the merged model equals applying lm2, then lm1.
	local := 100.0
	fmt.Printf("%.9f %.9f\n", lm31.Global(local), lm1.Global(lm2.Global(local)))
	// Output:
	// slope=+15.0001ppm intercept=+0.749995000s
	// 99.248504990 99.248504990
}

// Synchronize 4 simulated ranks with HCA3 and check the result against
// ground truth 10 simulated seconds later. "hca3" learns to the default
// accuracy target, 1 µs at 10 s (Default().Accuracy), within 1 s per round of
// its tree; "hca3:accuracy=none" is the published 1000 fit points × 100
// exchanges.
func ExampleAlgorithm_Sync() {
	sp, err := clocksync.ParseSpec("hca3")
	if err != nil {
		fmt.Println(err)
		return
	}
	alg, err := sp.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	// Four ranks of one host: 300 ns one way, as shared memory here.
	w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1, Latency: mpitest.Latency{Base: 300 * time.Nanosecond}})
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		// In simulation the learner sleeps in virtual time between its
		// fit points; real ranks pass no options.
		res, err := alg.SyncWith(r.Comm(), g, clocksync.SyncOptions{Sleep: r.Sleep})
		if err != nil {
			return err
		}
		h := &clocksync.Harness{
			After:   []time.Duration{0, 10 * time.Second},
			Sleep:   r.Sleep,
			TrueNow: r.TrueNow,
			ClockAt: w.ClockAt,
			Models:  res.Models(),
		}
		checks, err := h.Run(r.Comm(), g)
		if err != nil || r.ID() != 0 {
			return err
		}
		// On 4 ranks each rank's error adds up two links' errors; the
		// bound (here 1.01 µs) may miss the target by a little, and says
		// so (TargetMet false).
		fmt.Printf("%d ranks, target %s, predicted bound after 10s < 2µs: %v\n", res.Ranks, res.Target, res.Bound.At(10) < 2e-6)
		for _, ck := range checks {
			fmt.Printf("after %2.0fs: measured max |offset| < 1µs: %v, true max |error| < 1µs: %v\n",
				ck.After.Seconds(), ck.MaxAbs < 1e-6, *ck.TrueMaxAbs < 1e-6)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 4 ranks, target 1µs@10s, predicted bound after 10s < 2µs: true
	// after  0s: measured max |offset| < 1µs: true, true max |error| < 1µs: true
	// after 10s: measured max |offset| < 1µs: true, true max |error| < 1µs: true
}

// An offset-only algorithm is as good right after the synchronization, but
// its error grows with the drift.
func ExampleHarness() {
	sp, _ := clocksync.ParseSpec("skampi")
	alg, _ := sp.New()
	w, _ := mpitest.New(mpitest.Config{Ranks: 8, Seed: 1})
	_ = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		if _, err := alg.Sync(r.Comm(), g); err != nil {
			return err
		}
		h := &clocksync.Harness{After: []time.Duration{0, time.Second, 10 * time.Second}, Sleep: r.Sleep}
		checks, err := h.Run(r.Comm(), g)
		if err != nil || r.ID() != 0 {
			return err
		}
		for _, ck := range checks {
			fmt.Printf("after %2.0fs: max |offset| %s\n", ck.After.Seconds(), bucket(ck.MaxAbs))
		}
		return nil
	})
	// Output:
	// after  0s: max |offset| < 1µs
	// after  1s: max |offset| 10µs…1ms
	// after 10s: max |offset| 10µs…1ms
}

func bucket(s float64) string {
	switch {
	case s < 1e-6:
		return "< 1µs"
	case s < 10e-6:
		return "1µs…10µs"
	case s < 1e-3:
		return "10µs…1ms"
	}
	return "≥ 1ms"
}

// A GlobalClock maps local timestamps to global time and back; the window
// engine uses ToLocal to turn a global start time into a local deadline.
func ExampleGlobalClock() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
	// The published fixed counts (1000 fit points × 100 exchanges).
	sp, _ := clocksync.ParseSpec("hca3:accuracy=none")
	alg, _ := sp.New()
	start := make([]float64, 4) // true time at which each rank starts
	_ = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		if _, err := alg.Sync(r.Comm(), g); err != nil {
			return err
		}
		// Every rank starts at global time 5 s: its own local deadline.
		// (In simulation, sleep most of the way instead of spinning; the
		// local clock may run 50 ppm fast, so sleep a little less.)
		deadline := g.ToLocal(5)
		clk := r.Clock()
		r.Sleep(clk.Freq().Duration(deadline-clk.Now()) * 999 / 1000)
		for clk.Now() < deadline {
		}
		start[r.ID()] = r.TrueNow()
		if r.ID() == 1 {
			fmt.Println(g.Name(), g.Source().Kind)
		}
		return nil
	})
	lo, hi := slices.Min(start), slices.Max(start)
	fmt.Printf("the ranks start within 1µs of each other: %v\n", hi-lo < 1e-6)
	// Without synchronization their clocks are up to 2 s apart.
	fmt.Printf("raw clocks more than 1ms apart: %v\n", math.Abs(w.TrueOffset(1, lo)) > 1e-3)
	// Output:
	// global(mpitest) none
	// the ranks start within 1µs of each other: true
	// raw clocks more than 1ms apart: true
}

// Synchronize to an accuracy target instead of a fixed number of fit points:
// the Spread learner measures until every rank's predicted bound at 10 s
// meets 1 µs, and the bound is checked against ground truth.
func ExampleSpread() {
	sp, err := clocksync.ParseSpec("hca3", clocksync.TargetText("1us@10s"))
	if err != nil {
		fmt.Println(err)
		return
	}
	alg, err := sp.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	// Two ranks of one host: 300 ns one way, as shared memory here.
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1, Latency: mpitest.Latency{Base: 300 * time.Nanosecond}})
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		// In simulation the learner and the harness wait in virtual time
		// (mpitest's clock is a timing.Sleeper): no Sleep option needed.
		res, err := alg.Sync(r.Comm(), g)
		if err != nil {
			return err
		}
		h := &clocksync.Harness{After: []time.Duration{10 * time.Second},
			TrueNow: r.TrueNow, ClockAt: w.ClockAt, Models: res.Models()}
		checks, err := h.Run(r.Comm(), g)
		if err != nil || r.ID() != 0 {
			return err
		}
		b := res.Bound.At(10)
		fmt.Printf("target %s met: %v, sync within 1 s: %v\n", res.Target, res.TargetMet, res.Duration <= 1)
		fmt.Printf("after 10s: predicted bound ≤ 1µs: %v, true max |error| within it: %v\n",
			b <= 1e-6, *checks[0].TrueMaxAbs <= b)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// target 1µs@10s met: true, sync within 1 s: true
	// after 10s: predicted bound ≤ 1µs: true, true max |error| within it: true
}

// An accuracy target in its text form.
func ExampleParseAccuracy() {
	a, err := clocksync.ParseAccuracy("500ns@2s")
	fmt.Println(a.Error, a.Horizon, a, err)
	// Output: 500ns 2s 500ns@2s <nil>
}
