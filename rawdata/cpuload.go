package rawdata

// TrafficCPULoad is the purpose of the one MPI_Allgather per experiment
// that collects the ranks' CPU-time readings (Summary.CPULoad), and of the
// one after the last experiment that collects the mpirun's
// (Metadata.CPULoad).
const TrafficCPULoad = "cpu_load"

// CPULoad is the CPU time that processes other than the run's own ranks
// took while the ranks measured (package cpuload): per experiment, between
// the readings just before its first measured observation and just after
// its last (warm-up excluded), and per mpirun, between the readings just
// before its first experiment's and just after its last experiment's.
// On a kernel (the ranks that share one /proc/stat, by boot id), with C the
// CPUs the ranks there may run on (the union of their affinity masks,
// distinct masks counted once each) and T the wall time of the kernel's
// lowest rank between its readings:
//
//	available_cpu_s = |C| · T
//	other_cpu_s     = Σ_{c ∈ C} busy_c − Σ_{ranks r there} own_r
//	other_cpu_share = other_cpu_s / available_cpu_s
//
// where busy_c is CPU c's user, nice, system, irq and softirq time from
// /proc/stat (steal and guest not counted) and own_r is rank r's process
// user and system time from /proc/self/stat (once per process where ranks
// share one), all in the kernel's clock
// ticks (USER_HZ) converted to seconds. The ticks make it coarse:
// ±1 tick (10 ms at USER_HZ 100) per CPU and per rank and reading; a
// negative other_cpu_s from that rounding is written as it came out.
type CPULoad struct {
	OtherCPUS     float64 `json:"other_cpu_s"`
	AvailableCPUS float64 `json:"available_cpu_s"`
	OtherCPUShare float64 `json:"other_cpu_share"` // 0 when available_cpu_s is 0
	OwnCPUS       float64 `json:"own_cpu_s"`       // the ranks' own CPU time, summed
	CPUs          int     `json:"cpus"`            // |C| summed over the kernels
	// ResolutionS bounds the clock ticks' rounding of other_cpu_s: one
	// tick per CPU of C and two per process (user and system time), per
	// pair of readings (summed over the experiments in a format 1.4
	// mpirun's); other_cpu_s is within ± this of the CPU time the ticks
	// stand for.
	ResolutionS float64 `json:"resolution_s"`
	// Nodes is the same per kernel, in order of their lowest rank, when
	// the ranks ran on more than one.
	Nodes []CPULoadNode `json:"nodes,omitempty"`
}

// CPULoadNode is CPULoad on one kernel: its lowest rank, its rank count,
// and the same quantities.
type CPULoadNode struct {
	FirstRank     int     `json:"first_rank"`
	Ranks         int     `json:"ranks"`
	CPUs          int     `json:"cpus"`
	OtherCPUS     float64 `json:"other_cpu_s"`
	AvailableCPUS float64 `json:"available_cpu_s"`
	OtherCPUShare float64 `json:"other_cpu_share"`
	OwnCPUS       float64 `json:"own_cpu_s"`
	ResolutionS   float64 `json:"resolution_s"`
}

// BusiestShare is the largest other_cpu_share of one kernel (the only
// one's when there is one; 0 for a nil l).
func (l *CPULoad) BusiestShare() float64 {
	if l == nil {
		return 0
	}
	s := l.OtherCPUShare
	for _, n := range l.Nodes {
		s = max(s, n.OtherCPUShare)
	}
	return s
}

// BusiestShareRange is the range of other_cpu_share that the ticks'
// rounding allows on the busiest kernel (BusiestShare): (other_cpu_s ∓
// resolution_s) / available_cpu_s; 0, 0 for a nil l.
func (l *CPULoad) BusiestShareRange() (lo, hi float64) {
	if l == nil {
		return 0, 0
	}
	lo, hi = shareOf(l.OtherCPUS-l.ResolutionS, l.AvailableCPUS), shareOf(l.OtherCPUS+l.ResolutionS, l.AvailableCPUS)
	for _, n := range l.Nodes {
		lo = max(lo, shareOf(n.OtherCPUS-n.ResolutionS, n.AvailableCPUS))
		hi = max(hi, shareOf(n.OtherCPUS+n.ResolutionS, n.AvailableCPUS))
	}
	return lo, hi
}

// shareOf is a/b, 0 when b is not positive.
func shareOf(a, b float64) float64 {
	if !(b > 0) {
		return 0
	}
	return a / b
}
