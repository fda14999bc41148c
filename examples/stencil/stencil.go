package main

import (
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

// Stencil is one rank's part of a 1-D Jacobi iteration on a ring of
// ranks: Cells interior cells and one ghost cell on each side.
type Stencil struct {
	c           mpi.Comm
	u, v        []float64 // len Cells+2; u[0] and u[Cells+1] are ghosts
	left, right int
	out, in     []float64 // one cell each; slices of their own, since cgo refuses a pointer into a struct holding Go pointers
}

// NewStencil allocates n interior cells on the calling rank, set to its
// rank number (so the exchange has something to smooth).
func NewStencil(c mpi.Comm, n int) *Stencil {
	s := &Stencil{c: c, u: make([]float64, n+2), v: make([]float64, n+2),
		out: make([]float64, 1), in: make([]float64, 1),
		left: (c.Rank() + c.Size() - 1) % c.Size(), right: (c.Rank() + 1) % c.Size()}
	for i := range s.u {
		s.u[i] = float64(c.Rank())
	}
	return s
}

// Halo exchanges the boundary cells with both neighbours (two Sendrecv).
func (s *Stencil) Halo() error {
	n := len(s.u) - 2
	s.out[0] = s.u[n]
	if err := mpi.Sendrecv(s.c, s.out, s.right, 1, s.in, s.left, 1); err != nil {
		return err
	}
	s.u[0] = s.in[0]
	s.out[0] = s.u[1]
	if err := mpi.Sendrecv(s.c, s.out, s.left, 2, s.in, s.right, 2); err != nil {
		return err
	}
	s.u[n+1] = s.in[0]
	return nil
}

// Compute does one Jacobi sweep: v[i] = (u[i−1] + u[i+1]) / 2, then swaps.
func (s *Stencil) Compute() {
	for i := 1; i < len(s.u)-1; i++ {
		s.v[i] = 0.5 * (s.u[i-1] + s.u[i+1])
	}
	s.u, s.v = s.v, s.u
}

// Config is one run of the stencil.
type Config struct {
	Cells, Iters int
	// Sync synchronizes the clocks at the start and at the end (nil: not
	// at all; runtime_s stays meaningful, the global columns do not).
	Sync *clocksync.Algorithm
	// Off disables the recorder (what an uninstrumented run costs).
	Off bool
	// Out is where rank 0 writes the raw data (empty Dir: nowhere),
	// checked before the first iteration.
	Out region.Output
	// Work, when not nil, runs inside the compute region after the sweep:
	// the simulated world's compute time (mpitest.Rank.Sleep) in tests.
	Work func(iter int)
	// SpillEvery > 0 makes each rank spill its records every SpillEvery
	// records (region.Options.Spill), with Out.Dir set.
	SpillEvery int
	// Kill, when not nil, is called at the start of every iteration,
	// outside the regions (the crash test).
	Kill func(c mpi.Comm, iter int)
}

// Run iterates the stencil with its two regions recorded — halo and
// compute, each occurrence stamped with its iteration — and returns the
// recorder's result (rows on rank 0). The lines marked "region" are all
// the instrumentation.
func Run(c mpi.Comm, clk timing.Clock, cfg Config) (*region.Result, error) {
	s := NewStencil(c, cfg.Cells)
	opt := region.Options{Sync: cfg.Sync, Disabled: cfg.Off, Spill: cfg.SpillEvery > 0, SpillEvery: cfg.SpillEvery} // region
	rec, err := region.StartWith(c, clk, opt, cfg.Out)                                                              // region
	if err != nil {                                                                                                 // region
		return nil, err // region
	} // region
	for it := range cfg.Iters {
		if cfg.Kill != nil {
			cfg.Kill(c, it)
		}
		rec.SetIter(int64(it)) // region
		rec.Begin("halo")      // region
		if err := s.Halo(); err != nil {
			return nil, err
		}
		rec.End("halo")      // region
		rec.Begin("compute") // region
		s.Compute()
		if cfg.Work != nil {
			cfg.Work(it)
		}
		rec.End("compute") // region
	}
	return rec.Stop() // region
}
