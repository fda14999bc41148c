package window

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// batchComm executes a batch in one step as the real binding does (by
// delegating to the simulated communicator) and records GOMAXPROCS during
// each batch.
type batchComm struct {
	mpi.Comm
	mu    *sync.Mutex
	procs *[]int
}

var _ mpi.BatchObserver = (*batchComm)(nil)

func (b *batchComm) ObserveBatch(o *mpi.Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error {
	b.mu.Lock()
	*b.procs = append(*b.procs, runtime.GOMAXPROCS(0))
	b.mu.Unlock()
	return mpi.ObserveBatch(b.Comm, o, clk, deadlines, starts, ends)
}

// trueClock is the simulation's ground truth as the global clock.
type trueClock struct {
	w    *mpitest.World
	rank int
}

func (t trueClock) ToGlobal(local timing.Ticks) float64 { return t.w.TrueTime(t.rank, local) }
func (t trueClock) ToLocal(global float64) timing.Ticks { return t.w.ClockAt(t.rank, global) }

// TestRunHoldsOneP: through a communicator that runs a batch in one step,
// Run holds GOMAXPROCS at 1 during every batch of every rank (the ranks'
// holds nest) and restores it when the last rank returns; Wait records it.
// So does the overlap measurement, which runs one observation per batch
// and records each one's phases. RunFunc, a plain communicator and the
// option ProcHoldNever leave GOMAXPROCS alone, and Wait records the option.
func TestRunHoldsOneP(t *testing.T) {
	const procs = 3
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	for _, tc := range []struct {
		name   string
		method Method
		batch  bool // a BatchObserver
		ovl    bool // the overlap measurement (MPI_Iallreduce)
		fn     bool // RunFunc
		never  bool // ProcHoldNever
		want   int  // GOMAXPROCS during the observations
		wait   string
	}{
		{"window", Fixed, true, false, false, false, 1, waitSpin},
		{"barrier", Barrier, true, false, false, false, 1, ""},
		{"adaptive", AdaptiveSKaMPI, true, false, false, false, 1, waitSpin},
		{"overlap", Barrier, true, true, false, false, 1, ""},
		{"roundtime", RoundTime, true, false, false, false, procs, waitSpin},
		{"plain", Fixed, false, false, false, false, procs, waitSpin},
		{"func", Fixed, true, false, true, false, procs, waitSpin},
		{"never", Fixed, true, false, false, true, procs, waitSpin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3, Latency: mpitest.Latency{SpikeProb: -1}})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var seen []int
			waits := make([]rawdata.Wait, 2)
			err = w.Run(func(r *mpitest.Rank) error {
				var c mpi.Comm = r.Comm()
				if tc.batch {
					c = &batchComm{Comm: c, mu: &mu, procs: &seen}
				}
				cfg := Config{Method: tc.method, Window: 50 * time.Microsecond, Batch: 10}
				if tc.never {
					cfg.ProcHold = ProcHoldNever
				}
				s, err := New(c, r.Clock(), trueClock{w, r.ID()}, cfg)
				if err != nil {
					return err
				}
				n := 25
				rec := NewRecord(s.Config().Capacity(n))
				if tc.fn {
					err = s.RunFunc(func() error {
						mu.Lock()
						seen = append(seen, runtime.GOMAXPROCS(0))
						mu.Unlock()
						return nil
					}, n, rec, false)
				} else {
					o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
					if tc.ovl {
						o.Call, o.Overlap, o.KernelIters = mpi.CallIallreduce, true, 100
					}
					err = s.Run(o, n, rec, false)
					if err == nil && tc.ovl {
						for i := range n {
							if rec.Pure[i] <= 0 || rec.Compute[i] <= 0 {
								return fmt.Errorf("overlap observation %d: pure %d, compute %d ticks, want both recorded", i, rec.Pure[i], rec.Compute[i])
							}
						}
					}
				}
				waits[c.Rank()] = s.Wait()
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.batch && !tc.fn && tc.method != RoundTime && len(seen) == 0 {
				t.Fatal("no batch ran through ObserveBatch")
			}
			if tc.ovl && len(seen) != 2*25 {
				t.Fatalf("overlap: %d calls of ObserveBatch on 2 ranks, want one per observation (50)", len(seen))
			}
			for i, p := range seen {
				if p != tc.want {
					t.Fatalf("batch or call %d ran with GOMAXPROCS %d, want %d", i, p, tc.want)
				}
			}
			if got := runtime.GOMAXPROCS(0); got != procs {
				t.Errorf("GOMAXPROCS %d after Run, want %d restored", got, procs)
			}
			for r, wt := range waits {
				hold := "auto"
				if tc.never {
					hold = "never"
				}
				if wt.GoMaxProcs != tc.want || wt.Deadline != tc.wait || wt.GoMaxProcsHold != hold {
					t.Errorf("rank %d: Wait() = %+v, want gomaxprocs %d, deadline %q", r, wt, tc.want, tc.wait)
				}
			}
		})
	}
}

// TestHoldOnePNests: the value before the first hold comes back after the
// last release, whatever the order of releases.
func TestHoldOnePNests(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(5))
	a := holdOneP()
	b := holdOneP()
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Fatalf("GOMAXPROCS %d while held, want 1", p)
	}
	a()
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Fatalf("GOMAXPROCS %d after the first release of two, want 1", p)
	}
	b()
	if p := runtime.GOMAXPROCS(0); p != 5 {
		t.Fatalf("GOMAXPROCS %d after the last release, want 5", p)
	}
}
