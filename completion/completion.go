package completion

import (
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// Type is a runtime type: how one observation's completion time is
// computed from the ranks' timestamps (Hunold & Carpen-Amarie 2016, §4.6).
// Its name is the raw data's runtime_type column.
type Type int

// The runtime types, in the order of TypeNames.
const (
	// Local is the maximum over ranks of end − start, each rank on
	// its own clock: no clock synchronization needed.
	Local Type = iota
	// Global is the latest end minus the earliest start, in global time.
	Global
	// Loop is the loop-averaged scheme of IMB and OSU: each
	// observation runs the call n times back to back and the time is the
	// maximum over ranks of (end − start)/n (IMB's t_max).
	Loop
	// OSU is what the OSU micro-benchmarks 7.x print, one
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
	OSU
	// IMB is what the Intel MPI Benchmarks (IMB-MPI1 2021 and
	// later) print. Collectives (Allreduce, Bcast, …): after the
	// observation's barrier (IMB has two: --proc-sync double_barrier) each
	// rank times every call on its own with a barrier after it, as OSU's
	// collectives do, and takes t = sum/n; the value is t_avg, the average
	// of t over ranks (t_max is in the per-rank file). PingPong: n round
	// trips back to back after the barrier, t = (t2 − t1)/n on both ranks
	// of the pair, and the value is the larger one over 2 (IMB prints the
	// maximum over ranks of t/2).
	IMB
	numTypes
)

var typeNames = [...]string{"local", "global", "loop", "osu", "imb"}

// Loops reports whether the runtime type runs n calls per observation
// (loop, osu, imb).
func (t Type) Loops() bool { return t == Loop || t == OSU || t == IMB }

// TimesEach reports whether the runtime type times each call of an
// observation of call on its own (mpi.Observation.TimeEach, with a barrier
// after each collective call): every OSU benchmark but the one-sided ones,
// which time the loop, and IMB's collectives (IMB's PingPong times the
// loop).
func (t Type) TimesEach(call mpi.Call) bool {
	switch t {
	case OSU:
		return !call.OneSided()
	case IMB:
		return call != mpi.CallPingPong && call.Timer(0) < 0
	}
	return false
}

// TypeNames returns the names of the runtime types, for vocabularies.
func TypeNames() []string { return append([]string(nil), typeNames[:]...) }

// String returns the name of the runtime type.
func (t Type) String() string {
	if t < 0 || t >= numTypes {
		return fmt.Sprintf("Type(%d)", int(t))
	}
	return typeNames[t]
}

// ParseType accepts "local", "global", "loop" (also "loop_avg"),
// "osu" or "imb".
func ParseType(s string) (Type, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if n == "loop_avg" || n == "loop-averaged" {
		return Loop, nil
	}
	for i, name := range typeNames {
		if n == name {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("completion: unknown runtime type %q (want local, global, loop, osu or imb)", s)
}
