package clocksim

import (
	"fmt"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// Outcome is what rank 0 saw: the synchronization's record and one accuracy
// check per delay (with the true errors filled in from ground truth), and the
// real time the simulation took.
type Outcome struct {
	Result *clocksync.Result
	Checks []clocksync.Check
	Wall   time.Duration
}

// idealLinks reports whether the world cfg builds has links without a
// systematic bias: no asymmetry of the two directions (Latency.Asymmetry,
// also of InterNode; no PerLink model, which could have one; no
// descheduled ranks, which delay one direction) and clocks without
// frequency wander. The bound's systematic terms, calibrated on
// real machines, then describe nothing the simulation has (see
// clocksync.Spread.IdealLinks).
func idealLinks(cfg mpitest.Config) bool {
	l := cfg.Latency
	if l.Asymmetry > 0 || l.PerLink != nil || (l.InterNode != nil && l.InterNode.Asymmetry > 0) {
		return false
	}
	if cfg.Clock.WanderPPM > 0 || cfg.Deschedule.Prob > 0 {
		return false
	}
	for _, c := range cfg.Clocks {
		if c.WanderPPM > 0 {
			return false
		}
	}
	return true
}

// Spec adapts s, parsed from text, to the world cfg: where the text does
// not set bias= and the algorithm learns to a target, the bias is "none"
// on idealLinks and "calibrated" otherwise. What it returns is what ran;
// its String records the choice.
func Spec(cfg mpitest.Config, text string, s clocksync.Spec) clocksync.Spec {
	if s.Accuracy.IsZero() || strings.Contains(strings.ToLower(text), "bias=") {
		return s
	}
	s.Bias = "calibrated"
	if idealLinks(cfg) {
		s.Bias = "none"
	}
	return s
}

// Run builds the world cfg, synchronizes every rank's clock with the
// algorithm spec (clocksync.ParseSpec syntax, adapted to cfg by Spec), and
// runs the accuracy harness after each delay of after (virtual time: ranks
// sleep in simulation).
func Run(cfg mpitest.Config, spec string, after []time.Duration) (*Outcome, error) {
	sp, err := clocksync.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	alg, err := Spec(cfg, spec, sp).New()
	if err != nil {
		return nil, err
	}
	w, err := mpitest.New(cfg)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	start := time.Now()
	err = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.SyncWith(c, g, clocksync.SyncOptions{Sleep: r.Sleep})
		if err != nil {
			return err
		}
		h := &clocksync.Harness{After: after, Sleep: r.Sleep, TrueNow: r.TrueNow, ClockAt: w.ClockAt}
		if c.Rank() == 0 {
			h.Models = res.Models()
		}
		checks, err := h.Run(c, g)
		if err == nil && c.Rank() == 0 {
			out.Result, out.Checks = res, checks
		}
		return err
	})
	out.Wall = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s on %d ranks: %w", spec, cfg.Ranks, err)
	}
	return out, nil
}
