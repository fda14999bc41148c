package analysis

import (
	"math"
	"testing"

	"github.com/reprobench/reprobench/rawdata"
)

// Newcombe's hybrid score interval against the published values (Newcombe
// 1998, Statistics in Medicine 17:873-890, Table II, method 10).
func TestCompareInvalidNewcombe(t *testing.T) {
	for _, c := range []struct {
		x1, n1, x2, n2 int
		lo, hi         float64
	}{
		{56, 70, 48, 80, 0.0524, 0.3339}, // example (a)
		{9, 10, 3, 10, 0.1705, 0.8090},   // example (b)
		{6, 7, 2, 7, 0.0582, 0.8062},     // example (c)
		{5, 56, 0, 29, -0.0381, 0.1926},  // example (d)
	} {
		e := compareInvalid(c.x1, c.n1, c.x2, c.n2, 0.95)
		if math.Abs(e.CI.Lo-c.lo) > 1e-4 || math.Abs(e.CI.Hi-c.hi) > 1e-4 {
			t.Errorf("%d/%d − %d/%d: [%.4f, %.4f], want [%.4f, %.4f]", c.x1, c.n1, c.x2, c.n2, e.CI.Lo, e.CI.Hi, c.lo, c.hi)
		}
	}
	if e := compareInvalid(0, 0, 1, 10, 0.95); e.CI.Valid() || e.InExcess() || e.Baseline != 0.1 {
		t.Errorf("no rows: %+v", e)
	}
}

// A group's baseline pools the baselines of its own mpiruns only.
func TestGroupInvalidExcess(t *testing.T) {
	base := []*rawdata.WindowBaseline{{Observations: 1000, Invalid: 50}, nil, {Observations: 1000, Invalid: 70}}
	s := GroupSummary{N: 180, Invalid: 20, MpirunIndex: []int32{0, 1}}
	e, ok := groupInvalidExcess(s, base, 0.95)
	if !ok || e.BaseN != 1000 || e.BaseInvalid != 50 || e.Rows != 200 || e.Share != 0.1 || math.Abs(e.Excess-0.05) > 1e-12 || !e.InExcess() {
		t.Errorf("got %+v ok %v", e, ok)
	}
	if _, ok := groupInvalidExcess(GroupSummary{N: 5, MpirunIndex: []int32{1}}, base, 0.95); ok {
		t.Error("a group whose mpiruns recorded no baseline has one")
	}
	// Without a valid observation anywhere: every mpirun's baseline.
	if e, ok := groupInvalidExcess(GroupSummary{Invalid: 10}, base, 0.95); !ok || e.BaseN != 2000 || e.BaseInvalid != 120 || e.Share != 1 {
		t.Errorf("all invalid: %+v ok %v", e, ok)
	}
}
