package kernel_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/kernel"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// truth is the simulated world's ground-truth global clock of one rank.
type truth struct {
	w    *mpitest.World
	rank int
}

func (t truth) ToGlobal(local timing.Ticks) float64 { return t.w.TrueTime(t.rank, local) }

func newWorld(t *testing.T, ranks int, seed uint64) *mpitest.World {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: seed, Latency: mpitest.Latency{SpikeProb: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestBracket: on the simulated world, where rank r works 100·(r+1) µs,
// the bounds hold the slowest rank's work and the ground-truth global
// estimate lies between them, identical on every rank.
func TestBracket(t *testing.T) {
	w := newWorld(t, 4, 7)
	res := make([]kernel.Bounds, 4)
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		k, err := kernel.Bracket(c, r.Clock(), truth{w, c.Rank()}, func() {
			r.Sleep(time.Duration(100*(c.Rank()+1)) * time.Microsecond)
		})
		res[c.Rank()] = k
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	k := res[0]
	// The slowest rank works 400 µs: lower bound ≈ 400 µs (its own clock,
	// ±drift), upper bound above it (barriers included), global estimate
	// in between.
	if math.Abs(k.LowerS-400e-6) > 1e-9*400 || k.UpperS < k.LowerS || k.GlobalS < k.LowerS-1e-7 || k.GlobalS > k.UpperS+1e-7 {
		t.Errorf("bracket %+v: want lower ≈ 400 µs ≤ global ≤ upper", k)
	}
	for r := 1; r < 4; r++ {
		if res[r] != k {
			t.Errorf("rank %d got %+v, rank 0 %+v", r, res[r], k)
		}
	}
}

// TestBracketNoGlobalClock: nil, or a nil *clocksync.GlobalClock, gives
// the bounds and GlobalS NaN; missing arguments are an error.
func TestBracketNoGlobalClock(t *testing.T) {
	w := newWorld(t, 2, 1)
	err := w.Run(func(r *mpitest.Rank) error {
		var nilPtr *clocksync.GlobalClock
		for _, g := range []kernel.GlobalClock{nil, nilPtr} {
			k, err := kernel.Bracket(r.Comm(), r.Clock(), g, func() {})
			if err != nil {
				return err
			}
			if !math.IsNaN(k.GlobalS) || !(k.UpperS >= k.LowerS) {
				t.Errorf("rank %d, g %T: %+v, want GlobalS NaN and bounds", r.ID(), g, k)
			}
		}
		if _, err := kernel.Bracket(r.Comm(), r.Clock(), nil, nil); err == nil {
			t.Error("Bracket of no work: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ExampleBracket brackets 1 ms of work per rank (rank r works (r+1)·250
// µs) with McCalpin's t0 barrier t1 WORK t2 barrier t3.
func ExampleBracket() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
	_ = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		k, err := kernel.Bracket(c, r.Clock(), nil, func() {
			r.Sleep(time.Duration(c.Rank()+1) * 250 * time.Microsecond)
		})
		if c.Rank() == 0 {
			fmt.Printf("lower bound %.0f µs, upper bound within 20 µs above: %v\n", k.LowerS*1e6, k.UpperS-k.LowerS < 20e-6)
		}
		return err
	})
	// Output:
	// lower bound 1000 µs, upper bound within 20 µs above: true
}
