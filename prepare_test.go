package reprobench_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// preparing wraps a communicator as an mpi.Preparer that counts its calls
// and checks that no observation runs outside a Prepare/release pair.
type preparing struct {
	mpi.Comm
	prepared, released int
	open               bool
	outside            int
	failRelease        bool
}

func (p *preparing) Prepare(o *mpi.Observation) (func() error, error) {
	p.prepared++
	p.open = true
	return func() error {
		p.released++
		p.open = false
		if p.failRelease {
			return errors.New("boom")
		}
		return nil
	}, nil
}

func (p *preparing) Observe(o *mpi.Observation, clk timing.Clock) error {
	if !p.open {
		p.outside++
	}
	return p.Comm.Observe(o, clk)
}

func TestPrepareOncePerExperiment(t *testing.T) {
	for _, failRelease := range []bool{false, true} {
		w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]*preparing, 2)
		err = w.Run(func(r *mpitest.Rank) error {
			pc := &preparing{Comm: r.Comm(), failRelease: failRelease}
			counts[r.Comm().Rank()] = pc
			e := &reprobench.Engine{Comm: pc, Clock: r.Clock()}
			exps := []reprobench.Experiment{
				{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5, Warmup: 2,
					Sync: window.Config{Method: window.Barrier}},
				{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5,
					Sync: window.Config{Method: window.Barrier, Window: time.Millisecond}},
			}
			var s reprobench.Sink
			if r.Comm().Rank() == 0 {
				s = &memSink{}
			}
			_, err := e.Run(exps, s)
			return err
		})
		if failRelease {
			if err == nil {
				t.Fatal("a failing release was not reported")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for rank, pc := range counts {
			if pc.prepared != 2 || pc.released != 2 || pc.open || pc.outside != 0 {
				t.Errorf("rank %d: prepared %d, released %d, open %v, %d observations outside; want 2, 2, false, 0",
					rank, pc.prepared, pc.released, pc.open, pc.outside)
			}
		}
	}
}

// TestBoundBuffersRefused: a call whose prepared request is bound to its
// buffers (Op.Bound: MPI_Allreduce_init) is refused, before any MPI, with
// the cache modes that move the buffers, and accepted with those that do
// not; an unbound call takes every mode.
func TestBoundBuffersRefused(t *testing.T) {
	for _, call := range []mpi.Call{mpi.CallAllreduceInit, mpi.CallAllreduce} {
		for _, mode := range []cache.Mode{cache.Warm, cache.Cold, cache.Cycle, cache.Random} {
			ex := reprobench.Experiment{Call: call, MsizeBytes: 8, Type: mpi.Float64, Op: mpi.Sum, Nrep: 1, Cache: mode,
				Sync: window.Config{Method: window.Barrier}}
			err := ex.Check(2)
			refuse := call.Op().Bound && (mode == cache.Cycle || mode == cache.Random)
			if refuse && (err == nil || !strings.Contains(err.Error(), "bound to the buffers")) {
				t.Errorf("%v with cache %v: %v, want it refused as bound to the buffers", call, mode, err)
			}
			if !refuse && err != nil {
				t.Errorf("%v with cache %v: %v", call, mode, err)
			}
		}
	}
}
