package reprobench

import (
	"fmt"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// checkNrep validates the number of observations: nrep ≥ 1 without a stop
// rule, a valid rule (not with the overlap measurement) with one, and a
// warm-up ≥ 0.
func (ex *Experiment) checkNrep() error {
	if ex.Warmup < 0 {
		return fmt.Errorf("need warm-up ≥ 0, have %d", ex.Warmup)
	}
	if ex.Stop == nil {
		if ex.Nrep < 1 {
			return fmt.Errorf("need nrep ≥ 1 and warm-up ≥ 0, have %d and %d", ex.Nrep, ex.Warmup)
		}
		return nil
	}
	if ex.Overlap != nil {
		return fmt.Errorf("an adaptive number of observations (Stop) does not apply to the overlap measurement")
	}
	return ex.Stop.Check()
}

// measureUntil takes ex's measured observations in batches until ex.Stop
// is met or its cap reached: batches end at the rule's looks
// (analysis.StopRule.NextLook). After each batch the batch's completion
// times are reduced by allreduce (traffic purpose rawdata.TrafficStop;
// rows reuses them instead of reducing again), every rank judges the
// valid observations so far (error code 0), and one more allreduce (the
// minimum of the ranks' verdicts) makes them stop together: net-symmetric
// traffic only, and no rank decides for the others. The observations
// between the looks are taken exactly as a fixed run takes them; the
// experiment's order in the run is unchanged. o.stop records the rule,
// its parameters and the width reached.
func (e *engine) measureUntil(ex *Experiment, o *observed) error {
	st := analysis.NewStopper(*ex.Stop)
	rule := st.Rule()
	cp := newCompletion(ex, o.reps, e.Comm.Size(), e.Comm.Rank(), o.overlap)
	batch := window.NewRecord(o.sy.Config().Capacity(rule.Max))
	red := &reduced{}
	var valid []float64
	var allocs uint64
	verdict, agreed := make([]float64, 1), make([]float64, 1)
	n := 0 // observations asked for so far
	o.rec.N = 0
	for {
		next := rule.NextLook(n)
		if err := e.runBatch(o, next-n, batch, &allocs); err != nil {
			return err
		}
		i0 := o.rec.N
		appendRecord(o.rec, batch)
		r, err := e.reduce(cp, o, i0, o.rec.N, rawdata.TrafficStop)
		if err != nil {
			return err
		}
		red.mx, red.sm, red.late = append(red.mx, r.mx...), append(red.sm, r.sm...), max(red.late, r.late)
		for j := range o.rec.N - i0 {
			if o.rec.Code[i0+j] == 0 { // reduced across ranks already
				valid = append(valid, cp.runtime(r.mx[cp.nmax*j:cp.nmax*(j+1)], r.sm[cp.nsum*j:cp.nsum*(j+1)]))
			}
		}
		n = next
		verdict[0] = 0
		if st.Look(valid) {
			verdict[0] = 1
		}
		if err := mpi.Allreduce(e.Comm, verdict, agreed, mpi.Min); err != nil {
			return err
		}
		o.traffic.Add(rawdata.TrafficStop, rawdata.Symmetric, 1, 8)
		if agreed[0] == 1 || n >= rule.Max {
			break
		}
	}
	o.reduced = red
	o.allocsPerObs = float64(allocs) / float64(max(o.rec.N, 1))
	o.stop = stopRecord(st, n, len(valid), agreed[0] == 1)
	return nil
}

// stopRecord is the sidecar's record of a stop rule after its last look
// at n observations asked for, valid of them valid; met says whether the
// ranks agreed the rule was met (false: the cap stopped it).
func stopRecord(st *analysis.Stopper, n, valid int, met bool) *rawdata.StopRecord {
	r, c := st.Rule(), st.Last()
	s := &rawdata.StopRecord{Rule: rawdata.StopRuleQuantileCI, Quantile: r.Quantile, Level: r.Level, IntervalLevel: r.IntervalLevel(), Width: r.Width,
		Min: r.Min, Max: r.Max, Confirm: r.Confirm, Looks: st.Looks(), Observations: n, Valid: valid,
		Met: met, Capped: !met}
	if c.Lo == c.Lo && c.Hi == c.Hi { // an interval exists
		s.EstimateS, s.CILoS, s.CIHiS, s.Reached = ptr(c.Estimate), ptr(c.Lo), ptr(c.Hi), ptr(c.Reached)
	} else if c.Estimate == c.Estimate {
		s.EstimateS = ptr(c.Estimate)
	}
	return s
}

func ptr(v float64) *float64 { return &v }

// appendRecord appends src's N observations to dst and advances dst.N,
// growing dst's slices past its capacity when a method records more
// attempts than its Capacity foresaw for the sum of the batches.
func appendRecord(dst, src *window.Record) {
	k := dst.N
	dst.Start = append(dst.Start[:k], src.Start[:src.N]...)
	dst.End = append(dst.End[:k], src.End[:src.N]...)
	dst.Late = append(dst.Late[:k], src.Late[:src.N]...)
	dst.Code = append(dst.Code[:k], src.Code[:src.N]...)
	dst.Deadline = append(dst.Deadline[:k], src.Deadline[:src.N]...)
	dst.Offset = append(dst.Offset[:k], src.Offset[:src.N]...)
	dst.Pure = append(dst.Pure[:k], src.Pure[:src.N]...)
	dst.Compute = append(dst.Compute[:k], src.Compute[:src.N]...)
	dst.N = k + src.N
}
