package window

import (
	"errors"
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// defaultBaselineObservations is the number of observations of
// MeasureBaseline by default: 1000, 0.1 s at a 100 µs window, which
// estimates a late share near 10 % to ±1 point (one binomial standard
// error) per mpirun, and a campaign's pooled share to a third of that over
// ten mpiruns.
const defaultBaselineObservations = 1000

// MeasureBaseline runs the window loop with nothing to time: n
// observations (0: defaultBaselineObservations, 1000) on the grid of a fixed
// window cfg.Window (with cfg.Batch, cfg.LateTolerance and cfg.ProcHold;
// the other fields are ignored), each rank busy-waiting in one step per
// batch (mpi.ObserveBatch, in C with the real binding) for each start, then
// taking its start and end timestamps with no call between them
// (mpi.Observation.NoCall). Each observation is flagged as Run flags an
// experiment's: late when a rank started more than the late tolerance
// after its deadline, expired when it ended after the next deadline,
// reduced across ranks. What it loses is what the machine loses anyway
// (its noise, a rank descheduled across a deadline), the baseline against
// which an experiment's invalid share is read.
//
// It is collective. Its traffic is net-symmetric: each batch's start is
// the maximum over ranks of their clocks' now plus a lead (an Allreduce,
// where Run's windows broadcast rank 0's), and its flags are reduced by
// one Allreduce per batch. g must be a synchronized global clock whose base
// clock is clk, so that the ranks' deadlines coincide as an experiment's
// do. Its cost is n windows plus one lead and two reductions per batch.
func MeasureBaseline(c mpi.Comm, clk timing.Clock, g GlobalClock, cfg Config, n int) (*rawdata.WindowBaseline, error) {
	if c == nil || clk == nil {
		return nil, errors.New("window: MeasureBaseline needs a communicator and a clock")
	}
	if Absent(g) {
		return nil, ErrNoGlobalClock
	}
	if n < 0 {
		return nil, fmt.Errorf("window: MeasureBaseline of %d observations", n)
	}
	if n == 0 {
		n = defaultBaselineObservations
	}
	cfg = Config{Method: Fixed, Window: cfg.Window, Batch: cfg.Batch, LateTolerance: cfg.LateTolerance, ProcHold: cfg.ProcHold}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	s, err := New(c, clk, g, cfg)
	if err != nil {
		return nil, err
	}
	cfg = s.cfg
	if s.holdsOneP() {
		defer holdOneP()()
	}
	began := time.Now()
	o := &mpi.Observation{Call: mpi.CallBarrier, Sync: mpi.SyncDeadline, NoCall: true}
	w, tol := cfg.Window.Seconds(), clk.Freq().Ticks(cfg.LateTolerance)
	bmax := cfg.Batch
	deadlines, starts, ends := make([]timing.Ticks, bmax), make([]timing.Ticks, bmax), make([]timing.Ticks, bmax)
	flags, out := make([]float64, 2*bmax), make([]float64, 2*bmax)
	one, t0 := make([]float64, 1), make([]float64, 1)
	res := &rawdata.WindowBaseline{Observations: n, WindowS: w, LateToleranceS: cfg.LateTolerance.Seconds()}
	for done := 0; done < n; {
		b := min(bmax, n-done)
		one[0] = g.ToGlobal(clk.Now()) + cfg.StartDelay.Seconds()
		if err := mpi.Allreduce(c, one, t0, mpi.Max); err != nil {
			return nil, err
		}
		for i := range b {
			deadlines[i] = g.ToLocal(t0[0] + float64(i)*w)
		}
		if err := mpi.ObserveBatch(c, o, clk, deadlines[:b], starts[:b], ends[:b]); err != nil {
			return nil, err
		}
		for i := range b {
			flags[i], flags[b+i] = 0, 0
			if starts[i]-deadlines[i] > tol {
				flags[i] = 1
			}
			if ends[i] > g.ToLocal(t0[0]+float64(i+1)*w) {
				flags[b+i] = 1
			}
		}
		if err := mpi.Allreduce(c, flags[:2*b], out[:2*b], mpi.Max); err != nil {
			return nil, err
		}
		for i := range b {
			if out[i] != 0 {
				res.Late++
			}
			if out[i] != 0 || out[b+i] != 0 {
				res.Invalid++
			}
		}
		done += b
		res.Batches++
	}
	res.DurationS = time.Since(began).Seconds()
	return res, nil
}
