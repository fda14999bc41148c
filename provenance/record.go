package provenance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// recordVersion is the version of Record in the sidecar; a change of meaning
// bumps it.
const recordVersion = 1

// Unavailable is the prefix of a value that could not be read; the reason
// follows it.
const Unavailable = "unavailable: "

// unavailable returns Unavailable followed by why.
func unavailable(why string) string { return Unavailable + why }

// IsUnavailable reports whether v is a value that could not be read.
func IsUnavailable(v string) bool { return strings.HasPrefix(v, Unavailable) }

// Record is the provenance of one mpirun (the sidecar's "provenance").
type Record struct {
	Version int `json:"version"`
	// StartUTC is rank 0's time of collection.
	StartUTC time.Time `json:"start_utc"`
	// Library is MPI_Get_library_version, "simulated" in a simulation, or
	// unavailable.
	Library  string   `json:"mpi_library_version"`
	Launcher Launcher `json:"launcher"`
	// Nodes are the distinct processor names, in order of their lowest rank.
	Nodes []Node `json:"nodes"`
	// Ranks are every rank's binding, indexed by rank.
	Ranks []Rank `json:"ranks"`
	// BindingSamples says when the ranks' CPUs were sampled.
	BindingSamples string `json:"binding_samples,omitempty"`
	// MPIT is the library's configuration as MPI_T control variables, as
	// rank 0 read it (nil on the other ranks, and when not read).
	MPIT *MPIT `json:"mpi_t,omitempty"`
	// Simulated is set for a simulated run: every value above is fake.
	Simulated bool `json:"simulated,omitempty"`
}

// Launcher is the program that started the ranks, found by walking up
// rank 0's process tree to the first known launcher (mpirun, mpiexec,
// mpiexec.hydra, mpiexec.mpich, orterun, prterun, srun).
type Launcher struct {
	// Name is the launcher's executable name; "" when none was found.
	Name string `json:"name"`
	// Argv is its command line (/proc/PID/cmdline).
	Argv []string `json:"argv,omitempty"`
	// How says how it was found, or why not.
	How string `json:"how"`
}

// Node is one node's facts, as read by its lowest rank.
type Node struct {
	Name  string `json:"name"`
	Ranks []int  `json:"ranks"`
	// OnlineCPUs is /sys/devices/system/cpu/online as a CPU list.
	OnlineCPUs string `json:"online_cpus"`
	// ClockSource is /sys/devices/system/clocksource/clocksource0/current_clocksource.
	ClockSource string   `json:"clock_source"`
	Adjtimex    Adjtimex `json:"adjtimex"`
	CPU         CPUFacts `json:"cpu"`
	// Overlaps are the groups of this node's ranks whose affinity masks
	// at the start overlap (transitively), each with the union of their
	// masks; only groups of two or more ranks.
	Overlaps []Overlap `json:"overlaps,omitempty"`
}

// Overlap is a group of ranks on one node whose masks overlap.
type Overlap struct {
	Ranks []int  `json:"ranks"`
	CPUs  string `json:"cpus"` // the union of their masks, a CPU list
	// Shared is set when the group has more ranks than CPUs: some of them
	// must share a CPU.
	Shared bool `json:"shared"`
}

// Adjtimex is the kernel's clock discipline (adjtimex(2) read with modes
// 0): whether a time daemon keeps the clock synchronized and how it slews
// it.
type Adjtimex struct {
	// State is the return value's name: TIME_OK, TIME_INS, TIME_DEL,
	// TIME_OOP, TIME_WAIT, TIME_ERROR (clock not synchronized), or
	// unavailable.
	State string `json:"state"`
	// Synchronized is true when STA_UNSYNC is clear and State is not
	// TIME_ERROR.
	Synchronized bool `json:"synchronized"`
	// FreqPPM is the frequency offset the kernel applies, parts per million.
	FreqPPM float64 `json:"freq_ppm"`
	// OffsetS is the remaining time offset being slewed, seconds.
	OffsetS float64 `json:"offset_s"`
	// MaxErrorS and EstErrorS are the kernel's maximum and estimated error,
	// seconds.
	MaxErrorS float64 `json:"max_error_s"`
	EstErrorS float64 `json:"est_error_s"`
	// Status is the status word and its flags' names (STA_PLL, STA_UNSYNC, …).
	Status      int      `json:"status"`
	StatusFlags []string `json:"status_flags,omitempty"`
}

// CPUFacts are a node's frequency and memory settings; each is the value
// read, several values joined by "," when the CPUs differ, or Unavailable
// and why.
type CPUFacts struct {
	Governor string `json:"governor"`
	// MinKHz, MaxKHz and CurKHz are cpuinfo_min_freq, cpuinfo_max_freq and
	// scaling_cur_freq, kHz.
	MinKHz string `json:"min_khz"`
	MaxKHz string `json:"max_khz"`
	CurKHz string `json:"cur_khz"`
	// Turbo is "on" or "off" (intel_pstate/no_turbo, cpufreq/boost).
	Turbo string `json:"turbo"`
	// SMT is /sys/devices/system/cpu/smt/control (on, off, forceoff,
	// notsupported, notimplemented).
	SMT string `json:"smt"`
	// THP and THPDefrag are the selected modes of
	// /sys/kernel/mm/transparent_hugepage/{enabled,defrag}.
	THP       string `json:"thp"`
	THPDefrag string `json:"thp_defrag"`
}

// Rank is one rank's binding.
type Rank struct {
	Rank int    `json:"rank"`
	Node string `json:"node"`
	// MaskStart and MaskEnd are the affinity masks of the rank's thread at
	// Collect and at Binding.Finish, as CPU lists ("0-3,8"); MaskEnd is
	// empty before Finish.
	MaskStart string `json:"mask_start"`
	MaskEnd   string `json:"mask_end,omitempty"`
	// Bound is set when MaskStart is smaller than the node's online CPUs.
	Bound bool `json:"bound"`
	// CPUs are the CPUs the rank was seen on, ascending; Samples how many
	// times it was looked at, Migrations how many samples found it on a
	// CPU other than the one before.
	CPUs       []int `json:"cpus"`
	Samples    int   `json:"samples"`
	Migrations int   `json:"migrations"`
	// Batches is the number of batches of measured observations the
	// rank's CPU was read before and after (Binding.BeginBatch and
	// EndBatch), MovedBatches how many of them ended on another CPU than
	// they began on: a migration during the timed part.
	Batches      int `json:"batches"`
	MovedBatches int `json:"moved_batches"`
	// CPUSource says how the CPU was read (/proc/thread-self/stat, or
	// unavailable).
	CPUSource string `json:"cpu_source,omitempty"`
}

// Notes returns what a person running the benchmark should read about
// the binding, one line each: ranks that must share a CPU and ranks that
// moved between CPUs (a batch moved: it ended on another CPU than it
// began on). An unbound rank alone is no note.
func (r *Record) Notes() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, n := range r.Nodes {
		for _, o := range n.Overlaps {
			if o.Shared {
				out = append(out, fmt.Sprintf("ranks %s on %s share CPU %s (%d ranks, %d CPUs in their affinity masks)",
					joinInts(o.Ranks), n.Name, o.CPUs, len(o.Ranks), countList(o.CPUs)))
			}
		}
	}
	for _, k := range r.Ranks {
		if k.Migrations > 0 {
			s := fmt.Sprintf("rank %d moved between CPUs %s (%d migrations in %d samples", k.Rank, joinInts(k.CPUs), k.Migrations, k.Samples)
			if k.Batches > 0 {
				s += fmt.Sprintf("; %d of %d batches moved", k.MovedBatches, k.Batches)
			}
			out = append(out, s+")")
		}
		if k.MaskEnd != "" && k.MaskEnd != k.MaskStart {
			out = append(out, fmt.Sprintf("rank %d's affinity mask changed from %s to %s", k.Rank, k.MaskStart, k.MaskEnd))
		}
	}
	return out
}

// joinInts joins v as "0 and 1", "0, 1 and 2".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// countList counts the CPUs of a CPU list (0 when malformed).
func countList(s string) int {
	v, err := parseList(s)
	if err != nil {
		return 0
	}
	return len(v)
}

// parseList parses a CPU list such as "0-3,8".
func parseList(s string) ([]int, error) {
	var out []int
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("provenance: CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("provenance: CPU list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// formatList formats ascending CPUs as a CPU list ("0-3,8").
func formatList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}

func itoa(v int) string { return strconv.Itoa(v) }
