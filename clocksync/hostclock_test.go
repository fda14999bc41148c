package clocksync

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

func TestParseTimensOffsets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"monotonic           0         0\nboottime            0         0\n", 0, false},
		{"boottime 5 0\nmonotonic 234379 250\n", 234379*time.Second + 250, false},
		{"monotonic -1000 0\n", -1000 * time.Second, false},
		{"boottime 5 0\n", 0, true},
		{"monotonic x 0\n", 0, true},
	} {
		got, err := parseTimensOffsets(strings.NewReader(tc.in))
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseTimensOffsets(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestNodeSkew(t *testing.T) {
	mono := timing.NewMonotonic()
	t.Setenv(NodeSkewEnv, "")
	if clk, s, err := NodeSkew(mono); err != nil || s != nil || clk != timing.Clock(mono) {
		t.Errorf("unset: %v %v %v, want the clock itself", clk, s, err)
	}
	t.Setenv(NodeSkewEnv, " -42.5 ")
	clk, s, err := NodeSkew(mono)
	if err != nil || s == nil || s.DriftPPM != -42.5 || s.Offset != 0 || clk != timing.Clock(s) {
		t.Fatalf("-42.5: %v %+v %v", clk, s, err)
	}
	if got := s.Skew(1e9); got != 1e9-42500 {
		t.Errorf("Skew(1 s) = %d, want %d", got, int64(1e9-42500))
	}
	t.Setenv(NodeSkewEnv, "fast")
	if _, _, err := NodeSkew(mono); err == nil || !strings.Contains(err.Error(), NodeSkewEnv) {
		t.Errorf("fast: error %v, want one naming %s", err, NodeSkewEnv)
	}
}

// TestShareHostClock: ranks of one process share the boot id, so every rank
// gets the truth; LocalAtShared inverts SharedNow for a plain clock and adds
// the skews, innermost first, for a skewed one.
func TestShareHostClock(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	hs := make([]*Harness, 3)
	monos := make([]*timing.Monotonic, 3)
	node := timing.NewSkewed(timing.NewMonotonic(), 0, 80)
	rank := timing.NewSkewed(node, 3*time.Millisecond, -20)
	err = w.Run(func(r *mpitest.Rank) error {
		me := r.Comm().Rank()
		h, mono := &Harness{}, timing.NewMonotonic()
		var ok bool
		var err error
		if me == 2 {
			ok, err = h.ShareHostClock(r.Comm(), mono, node, nil, rank)
		} else {
			ok, err = h.ShareHostClock(r.Comm(), mono)
		}
		if err == nil && !ok {
			t.Errorf("rank %d: no truth among ranks of one process", me)
		}
		hs[me], monos[me] = h, mono
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	off, err := TimeNamespaceOffset()
	if err != nil {
		t.Fatal(err)
	}
	for r, h := range hs {
		before := monos[r].Now()
		host := h.SharedNow()
		after := monos[r].Now()
		// The host clock is this process's CLOCK_MONOTONIC minus its offset.
		if want := timing.Ticks(monos[r].Source().Epoch - off.Nanoseconds()); host-before < want || host-after > want {
			t.Errorf("rank %d: SharedNow %d outside [%d, %d]", r, host, before+want, after+want)
		}
		local := h.LocalAtShared(host)
		want := host - timing.Ticks(monos[r].Source().Epoch-off.Nanoseconds())
		if r == 2 {
			want = rank.Skew(node.Skew(want))
		}
		if local != want {
			t.Errorf("rank %d: LocalAtShared = %d, want %d", r, local, want)
		}
	}
}

// TestTimeNamespaceOffset runs this test binary in a new time namespace
// whose CLOCK_MONOTONIC is 1234 s ahead (root only): the child must read the
// offset and recover the parent's clock from its own.
func TestTimeNamespaceOffset(t *testing.T) {
	if v := os.Getenv("RB_TEST_TIMENS_PARENT_NS"); v != "" {
		parent, _ := strconv.ParseInt(v, 10, 64)
		off, err := TimeNamespaceOffset()
		if err != nil {
			t.Fatal(err)
		}
		if off != 1234*time.Second {
			t.Fatalf("offset %v, want 1234s", off)
		}
		h := &Harness{}
		mono := timing.NewMonotonic()
		w, _ := mpitest.New(mpitest.Config{Ranks: 1, Seed: 1})
		if err := w.Run(func(r *mpitest.Rank) error { _, err := h.ShareHostClock(r.Comm(), mono); return err }); err != nil {
			t.Fatal(err)
		}
		if d := h.SharedNow() - timing.Ticks(parent); d < 0 || d > timing.Ticks(30*time.Second) {
			t.Fatalf("host clock %d ns after the parent's reading, want within [0, 30 s]", d)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for a time namespace")
	}
	if err := exec.Command("unshare", "--fork", "--time", "--monotonic", "1", "true").Run(); err != nil {
		t.Skipf("no time namespaces here: %v", err)
	}
	m := timing.NewMonotonic()
	parent := m.Source().Epoch + int64(m.Now()) // this process's CLOCK_MONOTONIC, ns
	cmd := exec.Command("unshare", "--fork", "--time", "--monotonic", "1234", os.Args[0], "-test.run", "^TestTimeNamespaceOffset$", "-test.v")
	cmd.Env = append(os.Environ(), "RB_TEST_TIMENS_PARENT_NS="+strconv.FormatInt(parent, 10))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child in a time namespace: %v\n%s", err, out)
	}
}
