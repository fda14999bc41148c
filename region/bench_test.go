package region

import (
	"testing"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// The benchmarks compare the recorder's hot path with what it cannot
// avoid, two reads of the same clock through the same timing.Clock
// interface. The targets: an enabled Begin/End pair at most 2× two
// bare reads + 20 ns, a disabled pair at most 2 ns. Results and the command
// are in docs/regions.md.

func benchClocks(b *testing.B, f func(b *testing.B, clk timing.Clock)) {
	b.Run("monotonic", func(b *testing.B) { f(b, timing.NewMonotonic()) })
	if tsc, err := timing.NewTSC(timing.TSCConfig{}); err == nil {
		b.Run("tsc", func(b *testing.B) { f(b, tsc) })
	}
}

// benchRecorder returns an enabled recorder on a one-rank simulated
// communicator (never used on the hot path) and clk.
func benchRecorder(b *testing.B, clk timing.Clock) *Recorder {
	w, err := mpitest.New(mpitest.Config{Ranks: 1})
	if err != nil {
		b.Fatal(err)
	}
	var rec *Recorder
	if err := w.Run(func(r *mpitest.Rank) error {
		rec, err = New(r.Comm(), clk, Options{Capacity: 1 << 16})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	return rec
}

func BenchmarkTwoClockReads(b *testing.B) {
	benchClocks(b, func(b *testing.B, clk timing.Clock) {
		var s timing.Ticks
		for b.Loop() {
			s += clk.Now()
			s -= clk.Now()
		}
		sink = int64(s)
	})
}

func BenchmarkBeginEnd(b *testing.B) {
	benchClocks(b, func(b *testing.B, clk timing.Clock) {
		rec := benchRecorder(b, clk)
		for b.Loop() {
			if rec.n == len(rec.recs) {
				rec.n = 0
			}
			rec.Begin("halo")
			rec.End("halo")
		}
	})
}

func BenchmarkRegionDefer(b *testing.B) {
	benchClocks(b, func(b *testing.B, clk timing.Clock) {
		rec := benchRecorder(b, clk)
		for b.Loop() {
			if rec.n == len(rec.recs) {
				rec.n = 0
			}
			func() { defer rec.Region("halo")() }()
		}
	})
}

func BenchmarkBeginEndDisabled(b *testing.B) {
	rec, _ := New(nil, nil, Options{Disabled: true})
	for b.Loop() {
		rec.Begin("halo")
		rec.End("halo")
	}
}

var sink int64

// BenchmarkBeginEndSpill is BenchmarkBeginEnd with spilling on (every
// DefaultSpillEvery records, into a temporary directory): ns/op is the
// pair with its share of the spills; spill-ns/record the spills' own
// measured time per record written.
func BenchmarkBeginEndSpill(b *testing.B) {
	benchClocks(b, func(b *testing.B, clk timing.Clock) {
		w, err := mpitest.New(mpitest.Config{Ranks: 1})
		if err != nil {
			b.Fatal(err)
		}
		var rec *Recorder
		if err := w.Run(func(r *mpitest.Rank) error {
			rec, err = StartWith(r.Comm(), clk, Options{Capacity: 1 << 16, Spill: true, NoProvenance: true}, Output{Dir: b.TempDir(), RunID: "bench"})
			return err
		}); err != nil {
			b.Fatal(err)
		}
		written := 0
		for b.Loop() {
			if rec.n == len(rec.recs) {
				written += rec.spill.spilled
				rec.n, rec.spill.spilled = 0, 0
			}
			rec.Begin("halo")
			rec.End("halo")
		}
		written += rec.spill.spilled
		if written > 0 {
			b.ReportMetric(rec.spill.spillS*1e9/float64(written), "spill-ns/record")
		}
		_ = rec.spill.f.Close()
	})
}
