package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/mpirun"
)

// clockcheckOut is the part of clockcheck --json the tests read.
type clockcheckOut struct {
	Algorithm string          `json:"algorithm"`
	Ranks     int             `json:"ranks"`
	Simulated bool            `json:"simulated"`
	Truth     string          `json:"truth"`
	Bound     clocksync.Bound `json:"bound"`
	TargetMet bool            `json:"target_met"`
	Checks    []struct {
		AfterS      float64  `json:"after_s"`
		MaxAbsS     float64  `json:"max_abs_offset_s"`
		MedianAbsS  float64  `json:"median_abs_offset_s"`
		TrueMaxAbsS *float64 `json:"true_max_abs_error_s"`
	} `json:"checks"`
}

func parseClockcheck(t *testing.T, out string) clockcheckOut {
	t.Helper()
	var c clockcheckOut
	if i := strings.Index(out, "{"); i >= 0 {
		out = out[i:]
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("clockcheck --json output does not parse: %v\n%s", err, out)
	}
	return c
}

// TestClockcheckUnderMPI runs clockcheck on real ranks. The ranks of this
// machine share one CLOCK_MONOTONIC, so clockcheck reports the exact error
// of every global clock (truth "shared clock"), which the bounds apply to;
// one rank gets a timing.Skewed clock (1 s offset, 100 ppm) that the
// synchronization must remove. The measured offsets (ping-pongs) are only
// logged: under load they err by hundreds of µs on their own.
//
// The bounds are functional, not the precision targets (those depend on the
// machine's load and live in bench/clocksync/real.sh): an uncorrected skew
// shows as ~1 s, an uncorrected drift as 200 µs after 2 s. The offset-only
// SKaMPI sync must show that drift, which proves the skew is really injected.
//
// A drift-aware sync is held to its own claim. When its
// predicted bound 2 s after the sync is at most 10 µs (as it is whenever an
// accuracy target is met), its true error must be within 20 µs right after
// and 50 µs 2 s later: 5 times its claim, so only a sync that claims what it
// did not reach fails. When the bound is larger, the sync says itself that a
// loaded machine disturbed it, and it is held to removing the 1 s offset:
// a descheduled rank delays every exchange of some fit points, and a fit
// then errs by milliseconds (the published fixed-count JK's plain least
// squares: 2.4 ms right after sync and 7.3 ms after 2 s in 2 of 8 MPICH
// runs at load 4-5; clocksync's package doc: 0.3-100 ms in 9 of 12 loaded
// runs without the RTT filter), while its precision on an undisturbed link
// is asserted in simulation (clocksync's TestAccuracyAgainstGroundTruth).
// Measured (load 3-12, 54 runs of hca3 and jk with and without a
// target, both libraries): 38 claimed ≤ 10 µs, and every one of them was
// within 6.4 µs after 2 s.
func TestClockcheckUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	skew := []string{"--skew-rank", "1", "--skew-offset", "1s", "--skew-ppm", "100"}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.BuildShared(t, f, ".", ".")
		for _, tc := range []struct {
			name       string
			np         int
			alg        string
			skew       bool
			max0, max2 float64 // bounds on the true max |error| at 0 s and after 2 s
			min2       float64 // lower bound after 2 s (offset-only drift)
		}{
			// Drift-aware: held to their claim (claimed, above).
			{"hca3", 2, "hca3", false, 0.5, 0.5, 0},
			{"hca3-skewed", 2, "hca3", true, 0.5, 0.5, 0},
			{"jk-skewed", 2, "jk:fitpts=200,exchanges=20", true, 0.5, 0.5, 0},
			// The accuracy target's learner (Spread, RTT-filtered).
			{"hca3-accuracy-skewed", 2, "hca3:accuracy=1us@10s", true, 0.5, 0.5, 0},
			{"jk-accuracy-skewed", 2, "jk:accuracy=1us@10s", true, 0.5, 0.5, 0},
			// Offset-only: the drift must show (the skew is injected); right
			// after sync, the 1 s offset gone (SKaMPI's offset was off by up
			// to 17 µs at load 4-5: its ping-pongs wait for the peer).
			{"skampi-skewed-drifts", 2, "skampi", true, 1e-3, 1, 100e-6},
			// Oversubscribed: ranks share cores, so offsets of milliseconds are
			// noise; the check is that every rank completes and the 1 s skew is gone.
			{"hca3-np4", 4, "hca3:fitpts=100,exchanges=10", true, 0.5, 0.5, 0},
			{"hca3-np8", 8, "hca3:fitpts=50,exchanges=10", true, 0.5, 0.5, 0},
		} {
			t.Run(fmt.Sprintf("%s/%s", f.Name, tc.name), func(t *testing.T) {
				args := []string{"clockcheck", "--alg", tc.alg, "--after", "0,2s", "--json"}
				if tc.skew {
					args = append(args, skew...)
				}
				out := mpirun.MustRun(t, f, tc.np, 180*time.Second, nil, bin, args...)
				c := parseClockcheck(t, out)
				if c.Ranks != tc.np || c.Simulated || len(c.Checks) != 2 || c.Truth != "shared clock" {
					t.Fatalf("ranks %d simulated %v checks %d truth %q; want %d, false, 2, shared clock", c.Ranks, c.Simulated, len(c.Checks), c.Truth, tc.np)
				}
				at0, at2 := c.Checks[0], c.Checks[1]
				for _, ch := range c.Checks {
					if math.IsNaN(ch.MaxAbsS) || ch.MedianAbsS > ch.MaxAbsS || ch.TrueMaxAbsS == nil || math.IsNaN(*ch.TrueMaxAbsS) {
						t.Fatalf("after %v s: max %v median %v true max %v", ch.AfterS, ch.MaxAbsS, ch.MedianAbsS, ch.TrueMaxAbsS)
					}
				}
				if at0.AfterS != 0 || at2.AfterS != 2 {
					t.Errorf("checks at %v and %v s, want 0 and 2", at0.AfterS, at2.AfterS)
				}
				t0, t2 := *at0.TrueMaxAbsS, *at2.TrueMaxAbsS
				claimed := !c.Bound.Unknown && c.Bound.At(2) <= 10e-6
				if claimed && tc.np == 2 {
					tc.max0, tc.max2 = 20e-6, 50e-6
				}
				if t0 > tc.max0 || t2 > tc.max2 || t2 < tc.min2 {
					t.Errorf("%s: true max |error| %.3g s at 0 s (bound %.3g), %.3g s after 2 s (bounds [%.3g, %.3g])",
						c.Algorithm, t0, tc.max0, t2, tc.min2, tc.max2)
				}
				t.Logf("%s np=%d: true max |error| %.3g s right after sync, %.3g s after 2 s; measured max |offset| %.3g s and %.3g s; predicted bound %v (claimed ≤ 10 µs at 2 s: %v), target met %v",
					c.Algorithm, tc.np, t0, t2, at0.MaxAbsS, at2.MaxAbsS, c.Bound, claimed, c.TargetMet)
			})
		}
	}
}
