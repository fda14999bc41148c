package region

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// run runs fn on p simulated ranks (perfect clocks unless told) and
// returns rank 0's result.
func run(t *testing.T, p int, fn func(r *mpitest.Rank) (*Result, error)) *Result {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var res *Result
	if err := w.Run(func(r *mpitest.Rank) error {
		out, err := fn(r)
		if r.ID() == 0 {
			res = out
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestNestingLabelsIter(t *testing.T) {
	res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 16})
		if err != nil {
			return nil, err
		}
		for it := range 3 {
			rec.SetIter(int64(10 + it))
			rec.SetLabel("phase", "a")
			func() {
				defer rec.Region("outer")()
				rec.Begin("inner")
				r.Sleep(1000)
				rec.End("inner")
			}()
			rec.SetLabel("phase", "")
			rec.Begin("inner")
			rec.End("inner")
		}
		if rec.depth != 0 || rec.misuse != 0 {
			t.Errorf("rank %d: depth %d misuse %d", r.ID(), rec.depth, rec.misuse)
		}
		sp := rec.Spans()
		if len(sp) != 9 || sp[1].Parent != 0 || sp[1].Depth != 1 || sp[0].Labels != "phase=a" || sp[2].Labels != "" {
			t.Errorf("rank %d: spans %+v", r.ID(), sp)
		}
		return rec.Close(Output{PerRank: true})
	})
	// (outer, phase=a), (inner, phase=a), (inner, none): 3 experiments of 3 reps.
	if len(res.Rows) != 9 {
		t.Fatalf("%d rows, want 9", len(res.Rows))
	}
	for _, row := range res.Rows {
		if row.Iter != int64(10+row.Rep) || row.Nranks != 2 {
			t.Errorf("row %v", row)
		}
		if row.Region == "inner" && row.Labels == "phase=a" && math.Abs(row.RuntimeS-1.02e-6) > 1e-9 {
			// 1 µs of Sleep plus one 20 ns clock read (mpitest's overhead).
			t.Errorf("inner runtime %g, want 1.02 µs ± 1 ns", row.RuntimeS)
		}
	}
	if res.Record.Sync != "none" || res.Record.PerRank[1].BoundS != nil {
		t.Errorf("record %+v", res.Record)
	}
}

// TestOverflow fills rank 1's buffer before rank 0's: the occurrences only
// rank 0 recorded get errorcode 16, and the drops are counted.
func TestOverflow(t *testing.T) {
	res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 4 - r.ID()})
		if err != nil {
			return nil, err
		}
		for range 6 {
			rec.Begin("x")
			rec.End("x")
		}
		return rec.Close(Output{PerRank: true})
	})
	var codes []int
	for _, row := range res.Rows {
		codes = append(codes, row.ErrorCode)
	}
	if !slices.Equal(codes, []int{0, 0, 0, 16}) {
		t.Errorf("error codes %v, want [0 0 0 16]", codes)
	}
	if res.Record.PerRank[0].Dropped != 2 || res.Record.PerRank[1].Dropped != 3 {
		t.Errorf("dropped %d, %d; want 2, 3", res.Record.PerRank[0].Dropped, res.Record.PerRank[1].Dropped)
	}
}

func TestMisuseAndUnclosed(t *testing.T) {
	res := run(t, 1, func(r *mpitest.Rank) (*Result, error) {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 8})
		if err != nil {
			return nil, err
		}
		rec.End("nothing open")
		rec.Begin("a")
		rec.End("b")
		rec.SetLabel("bad,key", "v")
		rec.Begin("open")
		return rec.Close(Output{})
	})
	l := res.Record.PerRank[0]
	if l.Misuse != 3 || l.Unclosed != 1 || l.Records != 1 || !strings.Contains(l.FirstMisuse, "without an open region") {
		t.Errorf("log %+v", l)
	}
}

// TestRecordSize pins the size DefaultCapacity's doc states.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n != 40 {
		t.Errorf("a record is %d bytes, the doc says 40", n)
	}
}

func TestDisabled(t *testing.T) {
	var nilRec *Recorder
	rec, _ := New(nil, nil, Options{Disabled: true})
	for _, r := range []*Recorder{nilRec, rec} {
		r.Begin("x")
		r.End("x")
		r.Region("y")()
		r.SetIter(3)
		r.SetLabel("k", "v")
		if r.Enabled() || r.Spans() != nil {
			t.Error("disabled recorder records")
		}
		if res, err := r.Close(Output{Dir: t.TempDir(), RunID: "x"}); err != nil || len(res.Rows) != 0 {
			t.Errorf("Close: %v %v", res, err)
		}
	}
}

// TestNoAllocs checks the hot path: Begin, End, Region, SetIter and a
// known SetLabel allocate nothing.
func TestNoAllocs(t *testing.T) {
	run(t, 1, func(r *mpitest.Rank) (*Result, error) {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 1 << 12})
		if err != nil {
			return nil, err
		}
		rec.SetLabel("phase", "a")
		rec.SetLabel("phase", "b")
		rec.Begin("x")
		rec.End("x")
		i := int64(0)
		a := testing.AllocsPerRun(100, func() {
			rec.SetIter(i)
			rec.SetLabel("phase", "a")
			rec.Begin("x")
			rec.Region("y")()
			rec.End("x")
			rec.SetLabel("phase", "b")
			i++
		})
		if a != 0 {
			t.Errorf("%v allocations per iteration, want 0", a)
		}
		return nil, nil
	})
}

// TestWriteRead writes a run and reads it back as analyze does: region
// rows group by region and labels, iter is a column (not a label), and the
// sidecar holds the Record.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	run(t, 2, func(r *mpitest.Rank) (*Result, error) {
		rec, err := New(r.Comm(), r.Clock(), Options{})
		if err != nil {
			return nil, err
		}
		for it := range 10 {
			rec.SetIter(int64(it))
			rec.SetLabel("phase", []string{"warm", "hot"}[it/5])
			rec.Begin("a")
			r.Sleep(2000 + 500*time.Duration(it/5))
			rec.End("a")
			rec.Begin("b")
			r.Sleep(3000)
			rec.End("b")
		}
		return rec.Close(Output{Dir: dir, RunID: "w", PerRank: true, Labels: map[string]string{"app": "t"}})
	})
	raw := filepath.Join(dir, "w-mpirun000.csv")
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	hdr := strings.SplitN(string(b), "\n", 2)[0]
	if !strings.HasSuffix(hdr, ",app,phase,region,iter,start_s,global_runtime_s,entry_spread_s,nranks") {
		t.Errorf("header %s", hdr)
	}
	d := analysis.NewDataset()
	if err := d.ReadFiles(raw, filepath.Join(dir, "w-mpirun000.ranks.csv")); err != nil {
		t.Fatal(err)
	}
	// (a, warm), (b, warm), (a, hot), (b, hot).
	if len(d.Groups) != 4 || len(d.Groups[0].Runtimes) != 5 || len(d.PerRank) != 4 {
		t.Fatalf("groups %d, per-rank %d", len(d.Groups), len(d.PerRank))
	}
	if k := d.Groups[1].Key.String(); k != "region=b/np=2/app=t/clocksync=none/noise_guard=off/phase=warm/procsync=none/runtime_type=local/window_s=0" {
		t.Errorf("key %s", k)
	}
	if k := d.PerRank[0].Key.Labels; k != "app=t,phase=warm,region=a" {
		t.Errorf("per-rank key labels %q", k)
	}
	// compare --by region and --by phase: region a is 0.5 µs slower when hot.
	for _, by := range []string{"region", "phase"} {
		rows, err := analysis.CompareBy(d, by, analysis.DefaultOptions)
		if err != nil || len(rows) != 2 {
			t.Errorf("CompareBy %s: %d rows, %v", by, len(rows), err)
		}
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "w-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Regions), `"drop_newest"`) || len(m.Experiments) != 4 || m.Np != 2 {
		t.Errorf("sidecar regions %s, %d experiments", m.Regions, len(m.Experiments))
	}
	// The provenance, with no user code: the same record as a run's, the
	// library and processor names filled from it, a start time of today.
	var prov provenance.Record
	if err := json.Unmarshal(m.Provenance, &prov); err != nil || !prov.Simulated || len(prov.Ranks) != 2 || prov.Ranks[1].MaskEnd != "1" ||
		prov.BindingSamples != bindingSamples {
		t.Errorf("sidecar provenance %s (%v)", m.Provenance, err)
	}
	if m.MPILibrary != "simulated" || len(m.ProcessorNames) != 2 || m.StartUTC.Year() < 2000 || len(m.Environment) == 0 {
		t.Errorf("sidecar library %q, processor names %q, start %v, environment %d bytes", m.MPILibrary, m.ProcessorNames, m.StartUTC, len(m.Environment))
	}
	// The CPU load of the recording, from this machine's /proc: both
	// simulated ranks are this one process, whose own time counts once.
	if _, err := cpuload.Read(); err == nil {
		if l := m.CPULoad; l == nil || l.CPUs < 1 || !(l.AvailableCPUS > 0) || l.OwnCPUS < 0 {
			t.Errorf("sidecar cpu_load %+v, want one from /proc", l)
		}
	}
}
