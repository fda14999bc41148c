package window

import (
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// RuntimeType selects how one observation's completion time is computed
// from the ranks' timestamps (Hunold & Carpen-Amarie 2016, §4.6).
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
	// RuntimeOSU is what the OSU micro-benchmarks 7.x print, one
	// observation being one run of their timing loop with n = iterations.
	// Collectives (osu_allreduce, osu_bcast, osu_alltoall, …): each rank
	// times every call on its own — t0 = now; call; t1 = now;
	// sum += t1 − t0; MPI_Barrier — and averages, sum/n; the value is the
	// average of that over ranks (OSU's "Avg Latency"). Ping-pong
	// (osu_latency): the first rank times each of the n round trips
	// (send; recv) on its own, without a barrier, while its peer does
	// (recv; send), and the value is the sum over 2n. bw, bibw and mbw_mr
	// (osu_bw …): each window timed on its own on the sender, the value
	// the sum over n. OSU's skip iterations are the experiment's warm-up
	// observations.
	RuntimeOSU
	// RuntimeIMB is what the Intel MPI Benchmarks (IMB-MPI1 2021 and
	// later) print. Collectives (Allreduce, Bcast, …): after the
	// observation's barrier (IMB has two: --proc-sync double_barrier) each
	// rank times every call on its own with a barrier after it, as OSU's
	// collectives do, and takes t = sum/n; the value is t_avg, the average
	// of t over ranks (t_max is in the per-rank file). PingPong: n round
	// trips back to back after the barrier, t = (t2 − t1)/n on both ranks
	// of the pair, and the value is the larger one over 2 (IMB prints the
	// maximum over ranks of t/2).
	RuntimeIMB
	numRuntimes
)

var runtimeNames = [...]string{"local", "global", "loop", "osu", "imb"}

// Loops reports whether the runtime type runs n calls per observation
// (loop, osu, imb).
func (t RuntimeType) Loops() bool { return t == RuntimeLoop || t == RuntimeOSU || t == RuntimeIMB }

// TimesEach reports whether the runtime type times each call of an
// observation of call on its own (mpi.Observation.TimeEach, with a barrier
// after each collective call): every OSU benchmark but the one-sided ones,
// which time the loop, and IMB's collectives (IMB's PingPong times the
// loop).
func (t RuntimeType) TimesEach(call mpi.Call) bool {
	switch t {
	case RuntimeOSU:
		return !call.OneSided()
	case RuntimeIMB:
		return call != mpi.CallPingPong && call.Timer(0) < 0
	}
	return false
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
