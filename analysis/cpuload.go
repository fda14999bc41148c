package analysis

import (
	"fmt"
	"math"

	"github.com/reprobench/reprobench/rawdata"
)

// BusyShare is the threshold of the busy-machine rule: an mpirun ran on a
// busy machine when processes other than its ranks took at least this
// share of the CPU time its ranks could use during its measured
// observations (rawdata.CPULoad.BusiestShare: the busiest kernel's
// other_cpu_share, summed over the mpirun's experiments). One CPU kept
// busy by another process on a machine of C CPUs the ranks may use takes
// a share between 1/(2C), when it shares its CPU with a busy-waiting
// rank, and 1/C (0.25–0.5 on this project's 2-CPU machines); the
// threshold sits below that with a margin for the clock-tick error.
// docs/windows.md gives the shares measured with and without such a
// process.
const BusyShare = 0.15

// MpirunBusy reports whether l, an mpirun's CPU load, says the machine was
// busy: at least BusyShare even at the bottom of the range the clock
// ticks' rounding allows (rawdata.CPULoad.BusiestShareRange); false for nil
// (not recorded).
func MpirunBusy(l *rawdata.CPULoad) bool {
	lo, _ := l.BusiestShareRange()
	return l != nil && lo >= BusyShare
}

// MpirunQuiet reports whether l, an mpirun's CPU load, says the machine was
// quiet: below BusyShare even at the top of the range the clock ticks'
// rounding allows (rawdata.CPULoad.BusiestShareRange); false for nil. An
// mpirun neither busy nor quiet was too short for the ticks to tell.
func MpirunQuiet(l *rawdata.CPULoad) bool {
	_, hi := l.BusiestShareRange()
	return l != nil && hi < BusyShare
}

// ReadCPULoads returns, for each mpirun of d (same index as d.Mpiruns),
// the CPU load its sidecar recorded (rawdata.Metadata.CPULoad), nil where
// none was recorded or no sidecar was found; sidecars are found as
// ReadWindowBaselines finds them. A sidecar that exists but cannot be read
// is an error.
func ReadCPULoads(d *Dataset) ([]*rawdata.CPULoad, error) {
	metas, err := mpirunSidecars(d)
	if err != nil {
		return nil, err
	}
	out := make([]*rawdata.CPULoad, len(metas))
	for i, m := range metas {
		if m != nil {
			out[i] = m.CPULoad
		}
	}
	return out, nil
}

// GroupLoad is the CPU load of other processes during a group's mpiruns,
// set beside its per-mpirun medians and its invalid share (SetCPULoad).
type GroupLoad struct {
	// Shares is the busiest kernel's other_cpu_share of each entry of
	// GroupSummary.MpirunMedians (same index), NaN where the mpirun
	// recorded none.
	Shares []float64
	// Busy counts the mpiruns of the group that ran on a busy machine
	// (MpirunBusy), Recorded those that recorded a load; Max is the
	// largest share.
	Busy, Recorded int
	Max            float64
	// SlowestBusy: the group's largest per-mpirun median is of a busy
	// mpirun.
	SlowestBusy bool
	// InExcess: the group's invalid share is in excess of the machine's
	// own late share (InvalidExcess.InExcess).
	InExcess bool
}

// Explains reports the rule by which analyze and report say that the
// load explains a group's numbers: some of its mpiruns ran on a busy
// machine, and its invalid share is in excess of the machine's own or its
// slowest per-mpirun median is of a busy mpirun.
func (l *GroupLoad) Explains() bool {
	return l != nil && l.Busy > 0 && (l.InExcess || l.SlowestBusy)
}

// String says it in a few words: "busy in 3 of 5 mpiruns (other
// processes ≤ 48 % of the CPUs)", or "quiet (other processes ≤ 4 % …)".
func (l *GroupLoad) String() string {
	if l == nil || l.Recorded == 0 {
		return "not recorded"
	}
	if l.Busy == 0 {
		return fmt.Sprintf("quiet (other processes ≤ %.0f%% of the CPUs)", 100*l.Max)
	}
	return fmt.Sprintf("busy in %d of %d mpiruns (other processes ≤ %.0f%% of the CPUs)", l.Busy, l.Recorded, 100*l.Max)
}

// SetCPULoad sets the Load of every summary whose mpiruns recorded a CPU
// load (loads: ReadCPULoads of the summaries' Dataset). Call it after
// SetInvalidExcess, whose verdict it records.
func SetCPULoad(sums []GroupSummary, loads []*rawdata.CPULoad) {
	for i := range sums {
		s := &sums[i]
		l := &GroupLoad{Shares: make([]float64, len(s.MpirunIndex))}
		slowest := -1
		for j, m := range s.MpirunMedians {
			if slowest < 0 || m > s.MpirunMedians[slowest] {
				slowest = j
			}
		}
		for j, mi := range s.MpirunIndex {
			l.Shares[j] = math.NaN()
			if int(mi) >= len(loads) || loads[mi] == nil {
				continue
			}
			l.Shares[j] = loads[mi].BusiestShare()
			l.Recorded++
			l.Max = max(l.Max, l.Shares[j])
			if MpirunBusy(loads[mi]) {
				l.Busy++
				l.SlowestBusy = l.SlowestBusy || j == slowest
			}
		}
		if l.Recorded == 0 {
			continue
		}
		l.InExcess = s.InvalidExcess != nil && s.InvalidExcess.InExcess()
		s.Load = l
	}
}
