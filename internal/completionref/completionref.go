package completionref

import (
	"fmt"
	"math"

	"github.com/reprobench/reprobench/completion"
)

// Loop returns the value of one observation of a loop-averaged
// runtime type (completion.Type.Loops) from each rank's duration dur[r] = end − start over
// n calls (seconds; with TimesEach the sum of the calls' durations).
// pingpong selects the ping-pong definitions: the first rank's (root's)
// value for osu, the larger of root's and its peer's (root+1) for imb. It
// panics for a runtime type that does not loop, for n < 1 or for a root
// outside dur.
func Loop(t completion.Type, dur []float64, n int, pingpong bool, root int) float64 {
	if !t.Loops() || n < 1 || root < 0 || root >= len(dur) {
		panic(fmt.Sprintf("completionref: Loop(%v, %d ranks, n=%d, root %d)", t, len(dur), n, root))
	}
	switch {
	case t == completion.Loop:
		m := math.Inf(-1)
		for _, d := range dur {
			m = math.Max(m, d)
		}
		return m / float64(n)
	case pingpong && t == completion.IMB:
		return math.Max(dur[root], dur[(root+1)%len(dur)]) / (2 * float64(n))
	case pingpong:
		return dur[root] / (2 * float64(n))
	}
	var sum float64
	for _, d := range dur {
		sum += d / float64(n)
	}
	return sum / float64(len(dur))
}

// Local returns max over ranks of end[r] − start[r] (seconds,
// each rank's own clock). It panics if the lengths differ.
func Local(start, end []float64) float64 {
	if len(start) != len(end) {
		panic("completionref: Local: length mismatch")
	}
	m := math.Inf(-1)
	for r := range start {
		m = math.Max(m, end[r]-start[r])
	}
	return m
}

// Global returns max end − min start (global seconds). It panics
// if the lengths differ.
func Global(globalStart, globalEnd []float64) float64 {
	if len(globalStart) != len(globalEnd) {
		panic("completionref: Global: length mismatch")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range globalStart {
		lo = math.Min(lo, globalStart[r])
		hi = math.Max(hi, globalEnd[r])
	}
	return hi - lo
}
