package analysis

import (
	"math"
	"testing"

	"github.com/reprobench/reprobench/rawdata"
)

// The busy-machine rule on hand-made groups: which mpiruns are busy, and
// when the load explains a group (some mpirun busy, and its invalid share
// in excess or its slowest per-mpirun median of a busy mpirun).
func TestSetCPULoadRule(t *testing.T) {
	load := func(share float64) *rawdata.CPULoad {
		return &rawdata.CPULoad{OtherCPUS: share, AvailableCPUS: 1, OtherCPUShare: share}
	}
	loads := []*rawdata.CPULoad{load(0.05), load(BusyShare), nil, load(0.6)}
	excess := compareInvalid(50, 100, 1, 100, 0.95) // clearly in excess
	fair := compareInvalid(1, 100, 1, 100, 0.95)
	for _, tc := range []struct {
		name     string
		idx      []int32
		medians  []float64
		inv      *InvalidExcess
		busy     int
		slowest  bool
		explains bool
	}{
		{"quiet mpiruns only", []int32{0}, []float64{1}, &excess, 0, false, false},
		{"slowest busy", []int32{0, 1}, []float64{1, 2}, &fair, 1, true, true},
		{"busy but not slowest, no excess", []int32{0, 3}, []float64{3, 2}, &fair, 1, false, false},
		{"busy but not slowest, in excess", []int32{0, 3}, []float64{3, 2}, &excess, 1, false, true},
		{"busy, no baseline", []int32{3}, []float64{1}, nil, 1, true, true},
		{"unrecorded mpirun", []int32{2, 0}, []float64{5, 1}, &excess, 0, false, false},
	} {
		s := []GroupSummary{{MpirunIndex: tc.idx, MpirunMedians: tc.medians, InvalidExcess: tc.inv}}
		SetCPULoad(s, loads)
		l := s[0].Load
		if l == nil {
			t.Fatalf("%s: no Load", tc.name)
		}
		if l.Busy != tc.busy || l.SlowestBusy != tc.slowest || l.Explains() != tc.explains {
			t.Errorf("%s: busy %d slowest %v explains %v; want %d %v %v", tc.name, l.Busy, l.SlowestBusy, l.Explains(), tc.busy, tc.slowest, tc.explains)
		}
		for j, mi := range tc.idx {
			if loads[mi] == nil != math.IsNaN(l.Shares[j]) {
				t.Errorf("%s: share %d = %v for load %v", tc.name, j, l.Shares[j], loads[mi])
			}
		}
	}
	s := []GroupSummary{{MpirunIndex: []int32{2}, MpirunMedians: []float64{1}}}
	if SetCPULoad(s, loads); s[0].Load != nil {
		t.Errorf("a group with no recorded load has Load %+v", s[0].Load)
	}
	if MpirunBusy(nil) || !MpirunBusy(load(BusyShare)) || MpirunBusy(load(BusyShare-0.01)) {
		t.Error("MpirunBusy does not apply the threshold")
	}
}

// TestMpirunBusyTicks: the busy and quiet verdicts hold across the range
// the clock ticks' rounding allows (rawdata.CPULoad.ResolutionS); an mpirun
// whose range straddles BusyShare is neither.
func TestMpirunBusyTicks(t *testing.T) {
	for _, tc := range []struct {
		other, available, resolution float64
		busy, quiet                  bool
	}{
		{0.6, 2, 0.02, true, false},    // 30 % ± 1 %
		{0.02, 2, 0.02, false, true},   // 1 % ± 1 %
		{0.3, 2, 0.2, false, false},    // 15 % ± 10 %: too short to tell
		{-0.1, 0.2, 0.2, false, false}, // a negative rounding, −50 % ± 100 %
	} {
		l := &rawdata.CPULoad{OtherCPUS: tc.other, AvailableCPUS: tc.available, ResolutionS: tc.resolution, OtherCPUShare: tc.other / tc.available}
		if MpirunBusy(l) != tc.busy || MpirunQuiet(l) != tc.quiet {
			t.Errorf("%+v: busy %v quiet %v, want %v %v", tc, MpirunBusy(l), MpirunQuiet(l), tc.busy, tc.quiet)
		}
	}
	if MpirunBusy(nil) || MpirunQuiet(nil) {
		t.Error("nil load judged")
	}
}
