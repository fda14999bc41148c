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
