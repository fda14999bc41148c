package cpuload

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/rawdata"
)

// Sample is one reading on one rank. Ticks are the kernel's clock ticks
// (USER_HZ, Hz per second).
type Sample struct {
	At     time.Time // when it was read (with the monotonic reading)
	Kernel string    // the boot id: ranks with the same one read one /proc/stat
	Hz     int64     // clock ticks per second (AT_CLKTCK; 100 when not found)
	// CPUs are the CPUs this process may run on, ascending, and Busy
	// their busy ticks (user+nice+system+irq+softirq), same index.
	CPUs []int
	Busy []int64
	Own  int64 // this process's utime+stime, ticks
	// Process names this process on its kernel: its pid and start time
	// ("pid@starttime", from /proc/self/stat), so that ranks that are
	// threads of one process count its own time once.
	Process string
}

// Read reads a Sample from the running system's /proc.
func Read() (Sample, error) { return readFS(os.DirFS("/proc")) }

// readFS reads a Sample from proc, a tree laid out as /proc (stat,
// self/stat, self/status, self/auxv, sys/kernel/random/boot_id); a
// missing auxv or boot id is not an error (Hz 100, Kernel ""). The
// returned error names the file that could not be read or parsed.
func readFS(proc fs.FS) (Sample, error) {
	s := Sample{At: time.Now(), Hz: 100}
	st, err := fs.ReadFile(proc, "self/status")
	if err != nil {
		return s, fmt.Errorf("cpuload: %w", err)
	}
	if s.CPUs, err = allowedCPUs(st); err != nil {
		return s, err
	}
	b, err := fs.ReadFile(proc, "stat")
	if err != nil {
		return s, fmt.Errorf("cpuload: %w", err)
	}
	busy, err := parseStat(b)
	if err != nil {
		return s, err
	}
	s.Busy = make([]int64, len(s.CPUs))
	for i, c := range s.CPUs {
		s.Busy[i] = busy[c] // an offline CPU has no line and counts 0
	}
	if b, err = fs.ReadFile(proc, "self/stat"); err != nil {
		return s, fmt.Errorf("cpuload: %w", err)
	}
	if s.Own, s.Process, err = parseSelfStat(b); err != nil {
		return s, err
	}
	if b, err := fs.ReadFile(proc, "sys/kernel/random/boot_id"); err == nil {
		s.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := fs.ReadFile(proc, "self/auxv"); err == nil {
		if hz := clockTicks(b); hz > 0 {
			s.Hz = hz
		}
	}
	return s, nil
}

// parseStat returns the busy ticks of each CPU of a /proc/stat: per "cpuN"
// line, user+nice+system+irq+softirq (fields 1, 2, 3, 6 and 7; iowait,
// idle, steal and the guest times, which user already counts, are left
// out). The "cpu" total line is skipped.
func parseStat(b []byte) (map[int]int64, error) {
	out := map[int]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(f[0][3:])
		if err != nil || len(f) < 8 {
			return nil, fmt.Errorf("cpuload: bad /proc/stat line %q", sc.Text())
		}
		var busy int64
		for _, i := range []int{1, 2, 3, 6, 7} {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cpuload: bad /proc/stat line %q", sc.Text())
			}
			busy += v
		}
		out[cpu] = busy
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cpuload: no cpuN line in /proc/stat")
	}
	return out, sc.Err()
}

// parseSelfStat returns utime+stime (fields 14 and 15, ticks) of a
// /proc/PID/stat, whose command name (field 2, in parentheses) may hold
// spaces and parentheses, and the process's identity on its kernel,
// "pid@starttime" (fields 1 and 22).
func parseSelfStat(b []byte) (own int64, process string, err error) {
	i := bytes.LastIndexByte(b, ')')
	j := bytes.IndexByte(b, ' ')
	if i < 0 || j < 0 || j > i {
		return 0, "", fmt.Errorf("cpuload: bad /proc/self/stat: no command name")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", fmt.Errorf("cpuload: bad /proc/self/stat: %d fields after the command name", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, "", fmt.Errorf("cpuload: bad /proc/self/stat: utime %q, stime %q", f[11], f[12])
	}
	return u + s, string(b[:j]) + "@" + f[19], nil
}

// allowedCPUs returns the CPUs of the Cpus_allowed_list line of a
// /proc/PID/status ("0-3,8,10-11"), ascending.
func allowedCPUs(status []byte) ([]int, error) {
	for line := range strings.SplitSeq(string(status), "\n") {
		v, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
		if !ok {
			continue
		}
		return parseCPUList(strings.TrimSpace(v))
	}
	return nil, fmt.Errorf("cpuload: no Cpus_allowed_list in /proc/self/status")
}

// parseCPUList parses the kernel's CPU list format ("0-3,8,10-11").
func parseCPUList(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if isRange && err == nil {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || (len(out) > 0 && a <= out[len(out)-1]) {
			return nil, fmt.Errorf("cpuload: bad CPU list %q", s)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cpuload: empty CPU list")
	}
	return out, nil
}

// atClkTck is the auxiliary vector's key of the clock-tick rate.
const atClkTck = 17

// clockTicks returns AT_CLKTCK of a /proc/self/auxv of this machine's
// byte order and word size (64-bit), 0 when absent.
func clockTicks(auxv []byte) int64 {
	for i := 0; i+16 <= len(auxv); i += 16 {
		k, v := binary.NativeEndian.Uint64(auxv[i:]), binary.NativeEndian.Uint64(auxv[i+8:])
		if k == 0 {
			break
		}
		if k == atClkTck {
			return int64(v)
		}
	}
	return 0
}

// RankFields is the length of a Rank's Vector.
const RankFields = 8

// Rank is what one rank read between two Samples, as exchanged.
type Rank struct {
	Kernel uint64 // hash of the boot id (52 bits)
	Mask   uint64 // hash of the CPU set (52 bits)
	NCPU   int64  // CPUs in the set
	Busy   int64  // busy ticks summed over the set
	Own    int64  // this process's ticks
	Hz     int64
	WallNs int64
	Proc   uint64 // hash of Sample.Process (52 bits)
}

// Delta returns what happened between a and b on one rank. It fails when
// the two samples are of different kernels or CPU sets (the process was
// moved), or b is not after a.
func Delta(a, b Sample) (Rank, error) {
	if a.Kernel != b.Kernel || a.Process != b.Process || !equalInts(a.CPUs, b.CPUs) || len(a.Busy) != len(b.Busy) {
		return Rank{}, fmt.Errorf("cpuload: the CPU set or kernel changed between the readings")
	}
	r := Rank{Kernel: hash52(a.Kernel), NCPU: int64(len(a.CPUs)), Own: b.Own - a.Own, Hz: a.Hz, WallNs: int64(b.At.Sub(a.At)),
		Proc: hash52(a.Process)}
	var cs strings.Builder
	for i, c := range a.CPUs {
		r.Busy += b.Busy[i] - a.Busy[i]
		cs.WriteString(strconv.Itoa(c))
		cs.WriteByte(',')
	}
	r.Mask = hash52(cs.String())
	return r, nil
}

// Vector is r as RankFields int64 (an invalid rank, Hz ≤ 0, is all 0).
func (r Rank) Vector() []int64 {
	return []int64{int64(r.Kernel), int64(r.Mask), r.NCPU, r.Busy, r.Own, r.Hz, r.WallNs, int64(r.Proc)}
}

// RankOf is the inverse of Vector; v holds at least RankFields values.
func RankOf(v []int64) Rank {
	return Rank{Kernel: uint64(v[0]), Mask: uint64(v[1]), NCPU: v[2], Busy: v[3], Own: v[4], Hz: v[5], WallNs: v[6], Proc: uint64(v[7])}
}

// Combine returns the CPU load of the ranks (index = rank) by the formula
// of rawdata.CPULoad: per kernel, the busy ticks and CPUs of each distinct
// CPU set once (from its lowest rank), minus the own ticks of each
// distinct process once (ranks that are threads of one process, as the
// simulated world's, share them), over the lowest rank's wall time. A rank with Hz ≤ 0 did not read /proc and
// is left out; nil when none did.
func Combine(ranks []Rank) *rawdata.CPULoad {
	type node struct {
		n     rawdata.CPULoadNode
		masks map[uint64]bool
		procs map[uint64]bool
		busy  float64
	}
	var nodes []*node
	byKernel := map[uint64]*node{}
	for i, r := range ranks {
		if r.Hz <= 0 {
			continue
		}
		nd := byKernel[r.Kernel]
		if nd == nil {
			nd = &node{n: rawdata.CPULoadNode{FirstRank: i}, masks: map[uint64]bool{}, procs: map[uint64]bool{}}
			nd.n.AvailableCPUS = float64(r.WallNs) / 1e9 // times |C| below
			byKernel[r.Kernel] = nd
			nodes = append(nodes, nd)
		}
		nd.n.Ranks++
		hz := float64(r.Hz)
		if !nd.procs[r.Proc] {
			nd.procs[r.Proc] = true
			nd.n.ResolutionS += 2 / hz // user and system time, each rounded
			nd.n.OwnCPUS += float64(r.Own) / hz
		}
		if !nd.masks[r.Mask] {
			nd.masks[r.Mask] = true
			nd.n.ResolutionS += float64(r.NCPU) / hz // each CPU's busy time rounded
			nd.n.CPUs += int(r.NCPU)
			nd.busy += float64(r.Busy) / hz
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	l := &rawdata.CPULoad{}
	for _, nd := range nodes {
		n := &nd.n
		n.AvailableCPUS *= float64(n.CPUs)
		n.OtherCPUS = nd.busy - n.OwnCPUS
		if n.AvailableCPUS > 0 {
			n.OtherCPUShare = n.OtherCPUS / n.AvailableCPUS
		}
		l.OtherCPUS += n.OtherCPUS
		l.AvailableCPUS += n.AvailableCPUS
		l.OwnCPUS += n.OwnCPUS
		l.ResolutionS += n.ResolutionS
		l.CPUs += n.CPUs
		if len(nodes) > 1 {
			l.Nodes = append(l.Nodes, *n)
		}
	}
	if l.AvailableCPUS > 0 {
		l.OtherCPUShare = l.OtherCPUS / l.AvailableCPUS
	}
	return l
}

// hash52 is the FNV-1a hash of s in 52 bits, so that it survives a
// float64 as well as an int64.
func hash52(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64() & (1<<52 - 1)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
