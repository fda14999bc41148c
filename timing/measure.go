package timing

import (
	"fmt"
	"slices"
	"time"

	"github.com/reprobench/reprobench/internal/order"
)

// Measurement is what Measure found about a clock. Values are in
// nanoseconds, whatever the clock's tick.
type Measurement struct {
	Name   string  `json:"name"`
	Source string  `json:"source"` // SourceKind name
	Hz     float64 `json:"hz"`
	// TickNs is the nominal granularity 1/Hz.
	TickNs float64 `json:"tick_ns"`
	// ResolutionNs is the median of the non-zero differences between
	// consecutive distinct readings taken back to back: the smallest interval
	// the clock distinguishes in practice. For a coarse clock it is its
	// granularity; for a fine one (the TSC) it is about one read's cost.
	ResolutionNs float64 `json:"resolution_ns"`
	// OverheadNs is the cost of one read: the median over batches of
	// back-to-back reads of the batch's span divided by its reads. Batches span
	// about a hundred resolution steps, so coarse clocks are measured too.
	OverheadNs float64 `json:"overhead_ns"`
	Steps      int     `json:"steps"`   // differences behind ResolutionNs
	Batches    int     `json:"batches"` // batches behind OverheadNs
}

// measureBudgetNs bounds each of Measure's two phases (tests shorten it).
var measureBudgetNs int64 = 200e6

// Measure reads c back to back many times (typically a few milliseconds, at
// most about half a second for a very coarse clock) and returns its
// resolution and read overhead. It fails only if the clock does not advance
// within that time.
func Measure(c Clock) (Measurement, error) {
	if c == nil {
		return Measurement{}, fmt.Errorf("timing: Measure(nil)")
	}
	m := Measurement{Name: c.Name(), Source: c.Source().Kind.String(), Hz: c.Freq().Hz(), TickNs: 1e9 / c.Freq().Hz()}

	// Resolution: step from one reading to the next distinct one.
	const maxSteps = 1001
	budgetNs := measureBudgetNs
	steps := make([]Ticks, 0, maxSteps)
	var readsPerStep []float64
	deadline := nanotime() + budgetNs
	prev := c.Now()
	reads := 0
	for iter := 1; len(steps) < maxSteps; iter++ {
		t := c.Now()
		reads++
		if t != prev {
			if t > prev {
				steps = append(steps, t-prev)
				readsPerStep = append(readsPerStep, float64(reads))
			}
			prev, reads = t, 0
		}
		if iter&4095 == 0 {
			now := nanotime()
			if now > deadline && len(steps) >= 11 {
				break
			}
			if now > deadline+5*budgetNs {
				return m, fmt.Errorf("timing: clock %s did not advance enough (%d steps in %v)", m.Name, len(steps), time.Duration(6*budgetNs))
			}
		}
	}
	slices.Sort(steps)
	m.Steps = len(steps)
	m.ResolutionNs = float64(steps[len(steps)/2]) * 1e9 / c.Freq().Hz()

	// Overhead: batches long enough to span about 100 resolution steps.
	batch := int(100*order.Median(readsPerStep)) + 1
	batch = max(100, min(batch, 1_000_000))
	const nBatches = 101
	per := make([]float64, 0, nBatches)
	deadline = nanotime() + budgetNs
	for len(per) < nBatches {
		t0 := c.Now()
		var t1 Ticks
		for range batch - 1 {
			t1 = c.Now()
		}
		per = append(per, float64(t1-t0)*1e9/c.Freq().Hz()/float64(batch-1))
		if len(per) >= 11 && nanotime() > deadline {
			break
		}
	}
	m.Batches = len(per)
	m.OverheadNs = order.Median(per)
	return m, nil
}

// The factors of Hoefler & Belli 2015, §4.2.1: the read overhead should be at most 5% of
// a measured interval, and the timer's precision ten times finer than it.
const (
	overheadFactor   = 20
	resolutionFactor = 10
)

// MinInterval returns the shortest interval this clock measures well: the
// larger of overheadFactor × overhead and resolutionFactor × resolution.
func (m Measurement) MinInterval() time.Duration {
	ns := max(overheadFactor*m.OverheadNs, resolutionFactor*m.ResolutionNs)
	return time.Duration(ns + 0.5)
}

// Warnings returns what is wrong with measuring an interval d with this
// clock: a warning when d is shorter than 20× the read overhead, another when
// it is shorter than 10× the resolution (Hoefler & Belli 2015, §4.2.1), none when d is
// long enough. Time several repetitions of the operation together, or use a
// finer clock.
func (m Measurement) Warnings(d time.Duration) []string {
	var w []string
	ns := float64(d.Nanoseconds())
	if ns < overheadFactor*m.OverheadNs {
		w = append(w, fmt.Sprintf("%s: interval %v is shorter than %d× the read overhead (%.4g ns): reading the clock costs %.0f%% of it",
			m.Name, d, overheadFactor, m.OverheadNs, 100*m.OverheadNs/max(ns, 1)))
	}
	if ns < resolutionFactor*m.ResolutionNs {
		w = append(w, fmt.Sprintf("%s: interval %v is shorter than %d× the resolution (%.4g ns)",
			m.Name, d, resolutionFactor, m.ResolutionNs))
	}
	return w
}
