package window

import (
	"fmt"
	"math"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// RuntimeType selects how one observation's completion time is computed
// from the ranks' timestamps (paper 000 §4.6).
type RuntimeType int

// The runtime types.
const (
	// RuntimeLocal is the maximum over ranks of end − start, each rank on
	// its own clock: no clock synchronization needed.
	RuntimeLocal RuntimeType = iota
	// RuntimeGlobal is the latest end minus the earliest start, in global time.
	RuntimeGlobal
	// RuntimeLoop is the loop-averaged scheme of IMB and OSU: each
	// observation runs the call n times back to back and the time is the
	// maximum over ranks of (end − start)/n (IMB's t_max).
	RuntimeLoop
	// RuntimeOSU is what the OSU micro-benchmarks print, one observation
	// being one run of their timing loop with n = iterations.
	// Collectives (osu_allreduce, osu_bcast, osu_alltoall, …): each rank
	// times every call on its own — t0 = now; call; t1 = now;
	// sum += t1 − t0; MPI_Barrier — and averages, sum/n; the value is the
	// average of that over ranks (OSU's "Avg Latency"). Ping-pong
	// (osu_latency): the first rank times n × (send; recv) while its peer
	// does (recv; send), and the value is elapsed/(2n). OSU's skip
	// iterations are the experiment's warm-up observations.
	RuntimeOSU
	// RuntimeIMB is what the Intel MPI Benchmarks (IMB-MPI1) print: after
	// the observation's barrier each rank runs n calls back to back and
	// takes t = (t2 − t1)/n; the value is t_avg, the average of t over
	// ranks (t_max is RuntimeLoop; the per-rank file has each rank's t).
	// Ping-pong (IMB PingPong): the first rank's (t2 − t1)/(2n).
	RuntimeIMB
	numRuntimes
)

var runtimeNames = [...]string{"local", "global", "loop", "osu", "imb"}

// Loops reports whether the runtime type runs n calls per observation
// (loop, osu, imb).
func (t RuntimeType) Loops() bool { return t == RuntimeLoop || t == RuntimeOSU || t == RuntimeIMB }

// TimesEach reports whether the runtime type times each call of an
// observation of call on its own, with a barrier after it
// (mpi.Observation.TimeEach): OSU's collectives.
func (t RuntimeType) TimesEach(call mpi.Call) bool {
	return t == RuntimeOSU && call != mpi.CallPingPong && call.Timer(0) < 0 // p2p: osu_bw and the one-sided benchmarks time the loop
}

// LoopCompletion returns the value of one observation of a loop-averaged
// runtime type (Loops) from each rank's duration dur[r] = end − start over
// n calls (seconds; with TimesEach the sum of the calls' durations).
// pingpong selects the ping-pong definitions, whose value is the first
// rank's (root's). It panics for a runtime type that does not loop, for
// n < 1 or for a root outside dur.
func LoopCompletion(t RuntimeType, dur []float64, n int, pingpong bool, root int) float64 {
	if !t.Loops() || n < 1 || root < 0 || root >= len(dur) {
		panic(fmt.Sprintf("window: LoopCompletion(%v, %d ranks, n=%d, root %d)", t, len(dur), n, root))
	}
	switch {
	case t == RuntimeLoop:
		m := math.Inf(-1)
		for _, d := range dur {
			m = math.Max(m, d)
		}
		return m / float64(n)
	case pingpong:
		return dur[root] / (2 * float64(n))
	}
	var sum float64
	for _, d := range dur {
		sum += d / float64(n)
	}
	return sum / float64(len(dur))
}

// RuntimeTypeNames returns the names of the runtime types, for vocabularies.
func RuntimeTypeNames() []string { return append([]string(nil), runtimeNames[:]...) }

// String returns the name of the runtime type.
func (t RuntimeType) String() string {
	if t < 0 || t >= numRuntimes {
		return fmt.Sprintf("RuntimeType(%d)", int(t))
	}
	return runtimeNames[t]
}

// ParseRuntimeType accepts "local", "global", "loop" (also "loop_avg"),
// "osu" or "imb".
func ParseRuntimeType(s string) (RuntimeType, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if n == "loop_avg" || n == "loop-averaged" {
		return RuntimeLoop, nil
	}
	for i, name := range runtimeNames {
		if n == name {
			return RuntimeType(i), nil
		}
	}
	return 0, fmt.Errorf("window: unknown runtime type %q (want local, global, loop, osu or imb)", s)
}

// LocalCompletion returns max over ranks of end[r] − start[r] (seconds,
// each rank's own clock). It panics if the lengths differ.
func LocalCompletion(start, end []float64) float64 {
	if len(start) != len(end) {
		panic("window: LocalCompletion: length mismatch")
	}
	m := math.Inf(-1)
	for r := range start {
		m = math.Max(m, end[r]-start[r])
	}
	return m
}

// GlobalCompletion returns max end − min start (global seconds). It panics
// if the lengths differ.
func GlobalCompletion(globalStart, globalEnd []float64) float64 {
	if len(globalStart) != len(globalEnd) {
		panic("window: GlobalCompletion: length mismatch")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range globalStart {
		lo = math.Min(lo, globalStart[r])
		hi = math.Max(hi, globalEnd[r])
	}
	return hi - lo
}
