package clocksync

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Harness is the accuracy experiment of Hunold & Carpen-Amarie 2016 (Algorithm 20; App. C.3,
// C.5, C.6): right after a synchronization and after given delays, rank 0
// measures the offset of every rank's global clock to its own global clock
// with SKaMPI ping-pongs, one rank after the other. In simulation it also
// computes the true error of every rank from ground truth.
type Harness struct {
	// After lists when to check, measured from the start of Run on rank 0;
	// ascending. Empty means one check at once (App. C.5).
	After []time.Duration
	// Sleep waits on rank 0 between checks. nil means the clock's own
	// Sleep for a simulated clock (timing.SleepFunc: virtual time
	// advances, no real time passes), else time.Sleep.
	Sleep func(time.Duration)
	// Offset measures each rank's offset. nil means SKaMPI ping-pongs with
	// 10 ping-pongs (the paper's nrounds = 10).
	Offset OffsetMeasurer
	// Implausible is the uncertainty above which a measured offset is
	// flagged and left out of MaxAbs and MedianAbs: a check whose
	// ping-pongs bound the offset only to ±Implausible or worse (a rank
	// descheduled during every ping-pong), or whose bounds contradict each
	// other, says nothing about the clocks. 0 means 5 µs.
	Implausible float64

	// Simulation only, used on rank 0 when both are set: TrueNow returns
	// the true (simulated) time in seconds, and ClockAt the ticks a rank's
	// raw clock reads at a true time (mpitest's World.ClockAt, the same
	// name and units). Models are the ranks' models (Result.Models of the
	// synchronization).
	TrueNow func() float64
	ClockAt func(rank int, trueTime float64) timing.Ticks
	Models  []Model

	// Real MPI with every rank on one host, all reading one clock (for
	// CLOCK_MONOTONIC, in the nanoseconds of the Go runtime and of
	// clock_gettime): SharedNow reads that clock, and LocalAtShared maps
	// one of its readings to this rank's local ticks (its clock's epoch and
	// any skew injected on top, e.g. timing.Skewed.Skew). Set both on every
	// rank or on none (they add collectives to each check). Each check then
	// also yields the exact errors, in the fields of the simulation's
	// truth: rank 0 broadcasts one reading of the shared clock, every rank
	// maps it to global time, rank 0 gathers. No message is timed, so the
	// truth holds on a loaded machine, where ping-pongs are the weak part.
	SharedNow     func() timing.Ticks
	LocalAtShared func(shared timing.Ticks) timing.Ticks
}

// Check is the outcome of one check. The measured offsets are global
// client − global rank 0; the true errors are the same quantity from ground
// truth, for each rank at the true time its measurement started. Fields
// other than After are valid on rank 0 only.
//
// Each measured offset comes with the uncertainty that follows from its own
// ping-pongs (Sample.Bound: with SKaMPI ping-pongs the half-width of the
// intersected causality bounds, which holds whatever the load) and the
// smallest round-trip time among them. MaxAbs and MedianAbs cover only the
// plausible offsets (see Harness.Implausible); Implausible counts the others.
//
// In JSON, After is "after_s" in seconds, as the other fields (MarshalJSON).
type Check struct {
	After time.Duration `json:"-"` // Harness.After's element
	// Elapsed is when the truth of this check was read (its first rank's,
	// in simulation), seconds on rank 0's clock since Run was called: After
	// plus the time the check's ping-pongs took, which a loaded machine can
	// stretch to milliseconds. A predicted bound is judged at Elapsed (plus
	// the time from the synchronization's end to Run), not at After.
	Elapsed   float64 `json:"elapsed_s"`
	MaxAbs    float64 `json:"max_abs_offset_s"`
	MedianAbs float64 `json:"median_abs_offset_s"`
	// MaxUncertainty is the largest ± of the plausible offsets, MaxRTT the
	// largest of the ranks' smallest round-trip times.
	MaxUncertainty float64   `json:"max_offset_uncertainty_s"`
	MaxRTT         float64   `json:"max_rtt_s"`
	Implausible    int       `json:"implausible_offsets"`
	Offsets        []float64 `json:"offsets_s,omitempty"` // per rank, rank 0's is 0
	// Uncertainties and RTTs per rank (rank 0's are 0); a negative
	// uncertainty marks contradictory ping-pongs.
	Uncertainties []float64 `json:"offset_uncertainties_s,omitempty"`
	RTTs          []float64 `json:"rtts_s,omitempty"`
	TrueMaxAbs    *float64  `json:"true_max_abs_error_s,omitempty"`
	TrueMedian    *float64  `json:"true_median_abs_error_s,omitempty"`
	TrueOffsets   []float64 `json:"true_errors_s,omitempty"` // per rank
}

// checkJSON is Check's JSON form: After as "after_s", seconds, first.
type checkJSON struct {
	AfterS float64 `json:"after_s"`
	checkFields
}

type checkFields Check

// MarshalJSON writes c with After as "after_s" in seconds, first, then the
// other fields under their tags.
func (c Check) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkJSON{AfterS: c.After.Seconds(), checkFields: checkFields(c)})
}

// UnmarshalJSON reads what MarshalJSON writes; After is rounded to the
// nanosecond.
func (c *Check) UnmarshalJSON(b []byte) error {
	var j checkJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Check(j.checkFields)
	c.After = time.Duration(math.Round(j.AfterS * 1e9))
	return nil
}

// Run performs the checks collectively on c; every rank reads its global
// clock g (after a Sync), rank 0 sleeps between checks and gets the results.
func (h *Harness) Run(c mpi.Comm, g *GlobalClock) ([]Check, error) {
	if c == nil || g == nil {
		return nil, fmt.Errorf("clocksync: harness: needs a communicator and a global clock")
	}
	after := h.After
	if len(after) == 0 {
		after = []time.Duration{0}
	}
	for i := 1; i < len(after); i++ {
		if after[i] < after[i-1] {
			return nil, fmt.Errorf("clocksync: harness: check times %v not ascending", after)
		}
	}
	m := h.Offset
	if m == nil {
		m = &SKaMPIPingPong{MinPingPongs: 10, MaxPingPongs: 10}
	}
	sleep := h.Sleep
	if sleep == nil {
		sleep = func(d time.Duration) { timing.Sleep(g.Base(), d) }
	}
	truth := h.TrueNow != nil && h.ClockAt != nil
	if truth && len(h.Models) != c.Size() && c.Rank() == 0 {
		return nil, fmt.Errorf("clocksync: harness: %d models for %d ranks", len(h.Models), c.Size())
	}
	p, me := c.Size(), c.Rank()
	shared := !truth && h.SharedNow != nil && h.LocalAtShared != nil
	// Every rank must agree: the shared truth is collective.
	f := 0.0
	if shared {
		f = 1
	}
	agree := make([]float64, 2) // max f and −min f
	if err := mpi.Allreduce(c, []float64{f, -f}, agree, mpi.Max); err != nil {
		return nil, err
	}
	if agree[0] != -agree[1] {
		return nil, fmt.Errorf("clocksync: harness: SharedNow and LocalAtShared are set on some ranks only")
	}
	entry := g.Base().Now()
	var sharedT, sharedG []float64
	if shared {
		sharedT, sharedG = make([]float64, 1), make([]float64, p)
	}
	// sharedTruth maps one reading of the shared clock to every rank's
	// global time: rank 0 gets global(r) − global(0) in out.
	sharedTruth := func(out []float64) error {
		if me == 0 {
			sharedT[0] = float64(h.SharedNow())
		}
		if err := mpi.Bcast(c, sharedT, 0); err != nil {
			return err
		}
		mine := []float64{g.ToGlobal(h.LocalAtShared(timing.Ticks(sharedT[0])))}
		if err := mpi.Gather(c, mine, sharedG, 0); err != nil {
			return err
		}
		if me == 0 {
			for r := range out {
				out[r] = sharedG[r] - sharedG[0]
			}
		}
		return nil
	}
	base := g.Base()
	now := g.NowSeconds
	// Rank 0 holds a link to every rank, the others their own only: O(P)
	// in all, not O(P²).
	var links []Link
	var own *Link
	if me == 0 {
		links = make([]Link, p)
		for r := 1; r < p; r++ {
			links[r] = Link{Comm: c, Ref: 0, Client: r, Now: now}
		}
	} else {
		own = &Link{Comm: c, Ref: 0, Client: me, Now: now}
	}
	if me != 0 {
		if err := m.Prepare(own); err != nil {
			return nil, err
		}
	} else {
		for r := 1; r < p; r++ {
			if err := m.Prepare(&links[r]); err != nil {
				return nil, err
			}
		}
	}
	start := base.Now()
	checks := make([]Check, len(after))
	for k, d := range after {
		checks[k].After = d
		if me != 0 {
			if p > 1 {
				if _, err := m.MeasureOffset(own); err != nil {
					return nil, err
				}
			}
			if shared {
				if err := sharedTruth(nil); err != nil {
					return nil, err
				}
			}
			continue
		}
		if wait := d - base.Freq().Duration(base.Now()-start); wait > 0 {
			sleep(wait)
		}
		ck := &checks[k]
		if truth {
			ck.TrueOffsets = make([]float64, p)
		}
		ck.Offsets = make([]float64, p)
		ck.Uncertainties, ck.RTTs = make([]float64, p), make([]float64, p)
		ck.Elapsed = base.Freq().Seconds(base.Now() - entry)
		for r := 1; r < p; r++ {
			if truth {
				// The truth at the moment rank r is measured: rank 0
				// measures one rank after the other, and with P ranks
				// the last is measured well after the first.
				ck.TrueOffsets[r] = TrueOffset(h.Models, base.Freq().Hz(), h.ClockAt, r, h.TrueNow())
			}
			s, err := m.MeasureOffset(&links[r])
			if err != nil {
				return nil, err
			}
			ck.Offsets[r], ck.Uncertainties[r], ck.RTTs[r] = s.Offset, s.Bound, s.RTT
		}
		limit := h.Implausible
		if limit <= 0 {
			limit = 5e-6
		}
		var plausible []float64
		for r := 1; r < p; r++ {
			u := ck.Uncertainties[r]
			if u < 0 || u > limit {
				ck.Implausible++
				continue
			}
			plausible = append(plausible, ck.Offsets[r])
			ck.MaxUncertainty = max(ck.MaxUncertainty, u)
			ck.MaxRTT = max(ck.MaxRTT, ck.RTTs[r])
		}
		ck.MaxAbs, ck.MedianAbs = absStats(plausible)
		if shared {
			ck.TrueOffsets = make([]float64, p)
			ck.Elapsed = base.Freq().Seconds(base.Now() - entry)
			if err := sharedTruth(ck.TrueOffsets); err != nil {
				return nil, err
			}
		}
		if truth || shared {
			mx, med := absStats(ck.TrueOffsets[1:])
			ck.TrueMaxAbs, ck.TrueMedian = &mx, &med
		}
	}
	return checks, nil
}

// absStats returns the maximum and the median of |x|; zeros for empty x
// (a world of one rank has no offsets).
func absStats(x []float64) (maxAbs, medianAbs float64) {
	if len(x) == 0 {
		return 0, 0
	}
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = math.Abs(v)
	}
	slices.Sort(a)
	n := len(a)
	if n%2 == 1 {
		medianAbs = a[n/2]
	} else {
		medianAbs = (a[n/2-1] + a[n/2]) / 2
	}
	return a[n-1], medianAbs
}

// TrueOffsets returns the true error of every rank's global clock at true
// time t: global time of rank r minus global time of rank 0, in seconds, where
// rank r's global time is models[r] applied to its raw clock's reading
// clockAt(r, t) (ticks at frequency hz). In simulation clockAt is mpitest's
// World.ClockAt and models come from Result.Models; this keeps clocksync
// free of the simulator.
func TrueOffsets(models []Model, hz float64, clockAt func(rank int, t float64) timing.Ticks, t float64) []float64 {
	out := make([]float64, len(models))
	if len(models) == 0 {
		return out
	}
	g := func(r int) float64 { return models[r].Global(float64(clockAt(r, t)) / hz) }
	g0 := g(0)
	for r := range models {
		out[r] = g(r) - g0
	}
	return out
}

// TrueOffset returns the true error of rank r's global clock at true time t,
// element r of TrueOffsets.
func TrueOffset(models []Model, hz float64, clockAt func(rank int, t float64) timing.Ticks, r int, t float64) float64 {
	g0 := models[0].Global(float64(clockAt(0, t)) / hz)
	return models[r].Global(float64(clockAt(r, t))/hz) - g0
}
