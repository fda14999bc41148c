package cpuload

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"testing/fstest"
	"time"
)

// The fixture testdata/proc is a /proc laid out by hand in the kernel's
// formats (stat and self/status as Linux 6.1 writes them, self/auxv copied
// from a 64-bit x86 process, AT_CLKTCK 100); the expected values are
// summed by hand from its lines.
func TestReadFSFixture(t *testing.T) {
	s, err := readFS(os.DirFS("testdata/proc"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.CPUs, []int{0, 2}) {
		t.Errorf("CPUs = %v, want [0 2] (Cpus_allowed_list 0,2)", s.CPUs)
	}
	// cpu0: user 4285 + nice 1 + system 3166 + irq 2 + softirq 47; cpu2: 100 + 50.
	if !slices.Equal(s.Busy, []int64{7501, 150}) {
		t.Errorf("Busy = %v, want [7501 150]", s.Busy)
	}
	if s.Own != 380 { // utime 250 + stime 130, after a command name with spaces and parentheses
		t.Errorf("Own = %d, want 380", s.Own)
	}
	if s.Hz != 100 {
		t.Errorf("Hz = %d, want 100", s.Hz)
	}
	if s.Process != "8705@20837" { // pid and start time (fields 1 and 22)
		t.Errorf("Process = %q, want 8705@20837", s.Process)
	}
	if s.Kernel != "0f6c2a8e-1111-4d2c-9a5e-3b1f0c9d2e77" {
		t.Errorf("Kernel = %q", s.Kernel)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
	}{
		{"no status", fstest.MapFS{"stat": {Data: []byte("cpu0 1 2 3 4 5 6 7 8\n")}}},
		{"no allowed list", fstest.MapFS{"self/status": {Data: []byte("Name:\tx\n")}}},
		{"bad list", fstest.MapFS{"self/status": {Data: []byte("Cpus_allowed_list:\t3-1\n")}}},
		{"short stat line", fstest.MapFS{"self/status": {Data: []byte("Cpus_allowed_list:\t0\n")}, "stat": {Data: []byte("cpu0 1 2 3\n")}}},
		{"no cpu line", fstest.MapFS{"self/status": {Data: []byte("Cpus_allowed_list:\t0\n")}, "stat": {Data: []byte("cpu 1 2 3 4 5 6 7 8\n")}}},
		{"bad self stat", fstest.MapFS{"self/status": {Data: []byte("Cpus_allowed_list:\t0\n")}, "stat": {Data: []byte("cpu0 1 2 3 4 5 6 7 8\n")},
			"self/stat": {Data: []byte("1 (x) R 1 2\n")}}},
		{"no start time", fstest.MapFS{"self/status": {Data: []byte("Cpus_allowed_list:\t0\n")}, "stat": {Data: []byte("cpu0 1 2 3 4 5 6 7 8\n")},
			"self/stat": {Data: []byte("1 (x) R 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0\n")}}},
	} {
		if _, err := readFS(tc.fs); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0,2,4-5": {0, 2, 4, 5}, "1-1,7": {1, 7}} {
		got, err := parseCPUList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "3-1", "2,1", "1,1", "-1"} {
		if got, err := parseCPUList(in); err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want an error", in, got)
		}
	}
}

// sample is a Sample of process proc on kernel k with CPUs cpus, busy
// ticks busy and own ticks own, at t seconds.
func sample(k, proc string, cpus []int, busy []int64, own int64, t float64) Sample {
	return Sample{At: time.Unix(0, 0).Add(time.Duration(t * 1e9)), Kernel: k, Process: proc, Hz: 100, CPUs: cpus, Busy: busy, Own: own}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Two ranks on one kernel, both unbound on CPUs 0-1, over 2 s: the CPUs
// were busy 300 ticks (3 s), the ranks took 100 and 80 ticks of it, so
// other processes took 1.2 s of the 4 s available.
func TestCombineOneKernel(t *testing.T) {
	all := []int{0, 1}
	r0, err := Delta(sample("k", "p0", all, []int64{1000, 2000}, 50, 10), sample("k", "p0", all, []int64{1150, 2150}, 150, 12))
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Delta(sample("k", "p1", all, []int64{1001, 2000}, 10, 10.001), sample("k", "p1", all, []int64{1151, 2150}, 90, 12.001))
	if err != nil {
		t.Fatal(err)
	}
	// Through the exchanged vectors, as the engine does.
	l := Combine([]Rank{RankOf(r0.Vector()), RankOf(r1.Vector())})
	if l == nil || !near(l.AvailableCPUS, 4) || !near(l.OwnCPUS, 1.8) || !near(l.OtherCPUS, 1.2) || !near(l.OtherCPUShare, 0.3) || l.CPUs != 2 || l.Nodes != nil {
		t.Fatalf("Combine = %+v, want available 4 s, own 1.8 s, other 1.2 s, share 0.3, 2 CPUs, no per-node list", l)
	}
	// The same two ranks as threads of one process (the simulated
	// world): rank 1's reading of the process's own time is rank 0's.
	r1.Proc, r1.Own = r0.Proc, r0.Own
	if l := Combine([]Rank{r0, r1}); !near(l.OwnCPUS, 1) || !near(l.OtherCPUS, 2) {
		t.Errorf("one process: Combine = %+v, want own 1 s (once), other 2 s", l)
	}
}

// Ranks bound to one CPU each count each CPU once; ranks on two kernels
// are listed per kernel; a rank that read nothing is left out.
func TestCombineNodes(t *testing.T) {
	d := func(k string, cpu int, busy, own int64) Rank {
		p := fmt.Sprint(k, cpu)
		r, err := Delta(sample(k, p, []int{cpu}, []int64{0}, 0, 0), sample(k, p, []int{cpu}, []int64{busy}, own, 1))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ranks := []Rank{d("a", 0, 100, 60), d("a", 1, 100, 100), d("b", 0, 100, 100), {}, d("b", 1, 90, 90)}
	l := Combine(ranks)
	if len(l.Nodes) != 2 {
		t.Fatalf("nodes = %+v, want 2", l.Nodes)
	}
	a, b := l.Nodes[0], l.Nodes[1]
	if a.FirstRank != 0 || a.Ranks != 2 || a.CPUs != 2 || !near(a.OtherCPUS, 0.4) || !near(a.OtherCPUShare, 0.2) {
		t.Errorf("kernel a = %+v, want ranks 0-1, 2 CPUs, other 0.4 s, share 0.2", a)
	}
	if b.FirstRank != 2 || b.Ranks != 2 || b.CPUs != 2 || !near(b.OtherCPUS, 0) {
		t.Errorf("kernel b = %+v, want ranks 2 and 4, 2 CPUs, other 0 s", b)
	}
	if !near(l.OtherCPUS, 0.4) || !near(l.AvailableCPUS, 4) || !near(l.BusiestShare(), 0.2) || !near(l.OtherCPUShare, 0.1) {
		t.Errorf("total = %+v, want other 0.4 s of 4 s, busiest kernel 0.2", l)
	}
	if Combine([]Rank{{}, {}}) != nil {
		t.Error("Combine of ranks that read nothing is not nil")
	}
}

func TestDeltaMoved(t *testing.T) {
	if _, err := Delta(sample("k", "p", []int{0}, []int64{0}, 0, 0), sample("k", "p", []int{1}, []int64{0}, 0, 1)); err == nil {
		t.Error("a changed CPU set is not an error")
	}
}

// Read reads this machine's /proc where it exists.
func TestReadLive(t *testing.T) {
	a, err := Read()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if len(a.CPUs) == 0 || len(a.Busy) != len(a.CPUs) || a.Hz <= 0 {
		t.Fatalf("Read = %+v", a)
	}
}
