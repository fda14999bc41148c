package clocksync_test

import (
	"os"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync/clocksim"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// runSim synchronizes a simulated world with spec and runs the accuracy
// harness at the given delays.
func runSim(t testing.TB, cfg mpitest.Config, spec string, after []time.Duration) *clocksim.Outcome {
	t.Helper()
	out, err := clocksim.Run(cfg, spec, after)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The central finding of Hunold & Carpen-Amarie 2016 (Sec. 4.5, Fig. 7), asserted against
// ground truth: with the default parameters (1000 fit points × 100
// exchanges) the drift-aware algorithms keep every rank within 1 µs of rank 0
// for 10 s after the synchronization, while the error of the offset-only ones
// grows with the drift of the clocks (mpitest's defaults: drift ±50 ppm,
// offsets ±1 s, latency 1 µs + exp(0.1 µs) + 1% spikes of 20 µs).
//
// It runs 16 ranks; with CLOCKSYNC_FULL=1 it runs the 64 ranks of the issue's
// acceptance check (about 40 s of CPU).
func TestAccuracyAgainstGroundTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates millions of messages")
	}
	ranks := 16
	if os.Getenv("CLOCKSYNC_FULL") != "" {
		ranks = 64
	}
	after := []time.Duration{0, 5 * time.Second, 10 * time.Second}
	cfg := mpitest.Config{Ranks: ranks, Seed: 1}
	for _, c := range []struct {
		spec       string
		driftAware bool
	}{
		{"jk", true}, {"hca", true}, {"hca2", true}, {"hca3", true},
		{"skampi", false}, {"netgauge", false}, {"hca3o", false},
	} {
		t.Run(c.spec, func(t *testing.T) {
			o := runSim(t, cfg, c.spec, after)
			for _, ck := range o.Checks {
				t.Logf("P=%d %-8s sync %.3fs (%d msgs, wall %v) after %2.0fs: measured max %.3gus median %.3gus, true max %.3gus median %.3gus",
					ranks, c.spec, o.Result.Duration, o.Result.Messages, o.Wall.Round(time.Millisecond), ck.After.Seconds(),
					ck.MaxAbs*1e6, ck.MedianAbs*1e6, *ck.TrueMaxAbs*1e6, *ck.TrueMedian*1e6)
			}
			first, last := o.Checks[0], o.Checks[len(o.Checks)-1]
			if c.driftAware {
				if *last.TrueMaxAbs > 1e-6 {
					t.Errorf("%s: true max |error| %.3g µs after 10 s, want ≤ 1 µs", c.spec, *last.TrueMaxAbs*1e6)
				}
				return
			}
			// Offset-only: small right after sync (SKaMPI's linear sync
			// takes long enough for the first ranks to drift a little),
			// then the error grows with the drift. With drifts uniform in
			// ±50 ppm the largest relative drift among 16 ranks is well
			// above 20 ppm, i.e. 200 µs after 10 s.
			if *first.TrueMaxAbs > 5e-6 {
				t.Errorf("%s: true max |error| %.3g µs right after sync, want ≤ 5 µs", c.spec, *first.TrueMaxAbs*1e6)
			}
			if *last.TrueMaxAbs < 200e-6 || *last.TrueMaxAbs < 100**first.TrueMaxAbs {
				t.Errorf("%s: true max |error| %.3g µs after 10 s did not grow with the drift", c.spec, *last.TrueMaxAbs*1e6)
			}
		})
	}
}
