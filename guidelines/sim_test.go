package guidelines_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/guidelines"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// simCampaign measures plan in the simulator: mpirun m is a world of its
// own (seed, and a base latency scaled by a per-mpirun factor in
// [0.8, 1.2], the mpirun-to-mpirun variation of Hunold et al. 2014), running the
// design's experiments of that mpirun in their shuffled order. Each
// observation is barrier, start, call, end (as the engine's barrier
// method); its runtime is the slowest rank's end − start, and the series
// of a point is the per-mpirun median (Hunold & Carpen-Amarie 2016, Alg. 6). delay is the
// latency-model hook (mpitest.Config.CallDelay).
func simCampaign(t *testing.T, plan guidelines.Plan, seed uint64, delay func(mpi.Call, int, mpi.Datatype) time.Duration) guidelines.Data {
	t.Helper()
	d, err := plan.Design()
	if err != nil {
		t.Fatal(err)
	}
	dt := mpi.Float64
	data := guidelines.Data{}
	for m := 0; m < plan.Mpiruns; m++ {
		f := 0.8 + 0.4*rand.New(rand.NewPCG(seed, uint64(m))).Float64()
		w, err := mpitest.New(mpitest.Config{Ranks: plan.Np, Seed: seed*1000 + uint64(m),
			Latency:   mpitest.Latency{Base: time.Duration(f * float64(time.Microsecond))},
			CallDelay: delay})
		if err != nil {
			t.Fatal(err)
		}
		exps := d.Mpirun(m)
		nrep := plan.Nrep
		dur := make([][][]float64, plan.Np) // rank, experiment, observation
		err = w.Run(func(r *mpitest.Rank) error {
			c, clk := r.Comm(), r.Clock()
			dur[r.ID()] = make([][]float64, len(exps))
			for i, e := range exps {
				call, err := mpi.ParseCall(e.Call)
				if err != nil {
					return err
				}
				count := e.MsizeBytes / dt.Size()
				s, rb := mpi.BufferSizes(call, count, dt, plan.Np)
				if call == mpi.CallBcast {
					rb = max(rb, s)
				}
				o := &mpi.Observation{Call: call, Send: make([]byte, s), Recv: make([]byte, rb), Count: count, Type: dt, Sync: mpi.SyncBarrier}
				starts, ends := make([]timing.Ticks, nrep), make([]timing.Ticks, nrep)
				if err := mpi.ObserveBatch(c, o, clk, nil, starts, ends); err != nil {
					return err
				}
				for k := range starts {
					dur[r.ID()][i] = append(dur[r.ID()][i], clk.Freq().Seconds(ends[k]-starts[k]))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range exps {
			rt := make([]float64, nrep)
			for k := range rt {
				for r := range plan.Np {
					rt[k] = max(rt[k], dur[r][i][k])
				}
			}
			pt := guidelines.Point{Call: e.Call, MsizeBytes: e.MsizeBytes}
			s := data[pt]
			s.Mpiruns = append(s.Mpiruns, int32(m))
			s.Medians = append(s.Medians, analysis.Median(rt))
			data[pt] = s
		}
	}
	return data
}

// without returns gs without the guideline named name.
func without(gs []guidelines.Guideline, name string) []guidelines.Guideline {
	return slices.DeleteFunc(slices.Clone(gs), func(g guidelines.Guideline) bool { return g.Name == name })
}

// TestFindsInjectedViolation is the ground-truth battery: in each seeded
// campaign of the simulator one collective is made slow at one size
// (mpitest.Config.CallDelay: +30 µs on every rank, more than any of these
// calls or mock-ups costs in the model at these sizes, so every guideline
// with that call on its left-hand side at that size is violated, by
// construction), at each of three sizes (the barrier once): 25 campaigns.
// The decision must find exactly those violations (the
// shift between 30 µs minus the right-hand side's time and 30 µs plus
// 1 µs) and nothing else.
//
// Without the hook, the simulator's algorithms (mpitest/coll.go) make every
// guideline of the table hold or sit exactly on its boundary (its
// Allreduce is Reduce then Bcast, so "Allreduce ≤ Reduce + Bcast" compares
// equal distributions), except Allgather ≤ Alltoall, which
// TestFindsSimulatorsOwnViolation checks and which is left out here.
func TestFindsInjectedViolation(t *testing.T) {
	gs := without(guidelines.Default(), "allgather-alltoall")
	sizes := []int{8, 1024, 16384}
	const delay = 30 * time.Microsecond
	targets := []struct {
		call mpi.Call
		want []string
	}{
		{mpi.CallScan, []string{"scan-exscan-reduce_local"}},
		{mpi.CallReduceScatterBlock, []string{"rsb-reduce-scatter"}},
		{mpi.CallGather, []string{"gather-allgather"}},
		{mpi.CallReduce, []string{"reduce-allreduce"}},
		{mpi.CallBcast, []string{"bcast-scatter-allgather"}},
		{mpi.CallAllgather, []string{"allgather-gather-bcast"}},
		{mpi.CallAllreduce, []string{"allreduce-reduce-bcast", "allreduce-rsb-allgather"}},
		{mpi.CallScatter, []string{"scatter-bcast"}},
		{mpi.CallBarrier, []string{"barrier-allreduce"}},
	}
	opt := guidelines.Options{Alpha: 0.01}
	falsePos, campaigns := 0, 0
	for i, tg := range targets {
		for j, slow := range sizes {
			seed := uint64(100 + len(sizes)*i + j)
			if tg.call == mpi.CallBarrier {
				if j > 0 {
					break
				}
				slow = -1 // the barrier has no size
			}
			campaigns++
			t.Run(fmt.Sprintf("%v@%d", tg.call, slow), func(t *testing.T) {
				plan := guidelines.Plan{Guidelines: gs, SizesBytes: sizes, Np: 2, Datatype: "float64", ElemBytes: 8,
					Nrep: 5, Mpiruns: 16, Seed: seed}
				hook := func(c mpi.Call, count int, dt mpi.Datatype) time.Duration {
					if c == tg.call && (slow < 0 || count*dt.Size() == slow) {
						return delay
					}
					return 0
				}
				rep := guidelines.Decide(gs, guidelines.Context{Np: 2, Datatype: "float64"}, simCampaign(t, plan, seed, hook), opt)
				if rep.Tests != len(gs)*len(sizes)-2 { // the barrier is one test, not three
					t.Errorf("%d tests, want %d", rep.Tests, len(gs)*len(sizes)-2)
				}
				found := 0
				for _, d := range rep.Decisions {
					want := slices.Contains(tg.want, d.Guideline) && d.SizeBytes == slow
					if d.Violated && !want {
						falsePos++
						t.Errorf("false violation: %s at %d B (p_holm %.3g, ratio %.3f)", d.Guideline, d.SizeBytes, d.PHolm, d.Ratio)
					}
					if !want {
						continue
					}
					found++
					if !d.Violated {
						t.Errorf("missed %s at %d B: p %.3g, p_holm %.3g, ratio %.3f", d.Guideline, slow, d.P, d.PHolm, d.Ratio)
					}
					lo, hi := delay.Seconds()-d.RhsMedianS, delay.Seconds()+1e-6
					if !(d.ShiftS >= lo && d.ShiftS <= hi && d.ShiftLoS <= d.ShiftS && d.ShiftS <= d.ShiftHiS) {
						t.Errorf("%s: shift %.3g [%.3g, %.3g] s, want within [%.3g, %.3g]", d.Guideline, d.ShiftS, d.ShiftLoS, d.ShiftHiS, lo, hi)
					}
				}
				if found != len(tg.want) {
					t.Errorf("the injected point was decided %d times, want %d", found, len(tg.want))
				}
			})
		}
	}
	t.Logf("false violations over %d campaigns: %d", campaigns, falsePos)
}

// TestFindsSimulatorsOwnViolation: with no hook, the simulator's Allgather
// (Gather then Bcast: on 2 ranks, a message each way one after the other,
// n then 2n bytes) is slower than its Alltoall (one simultaneous exchange
// of n bytes) once the bytes count (≥ 1 KiB at 10 GB/s): the decision finds
// exactly that, at every size, and nothing else.
func TestFindsSimulatorsOwnViolation(t *testing.T) {
	gs := guidelines.Default()
	sizes := []int{1024, 16384, 65536}
	plan := guidelines.Plan{Guidelines: gs, SizesBytes: sizes, Np: 2, Datatype: "float64", ElemBytes: 8, Nrep: 5, Mpiruns: 16, Seed: 7}
	rep := guidelines.Decide(gs, guidelines.Context{Np: 2, Datatype: "float64"}, simCampaign(t, plan, 7, nil), guidelines.Options{Alpha: 0.01})
	for _, d := range rep.Decisions {
		want := d.Guideline == "allgather-alltoall"
		if d.Violated != want {
			t.Errorf("%s at %d B: violated %v, want %v (p_holm %.3g, ratio %.3f)", d.Guideline, d.SizeBytes, d.Violated, want, d.PHolm, d.Ratio)
		}
	}
	if rep.Violations != len(sizes) {
		t.Errorf("%d violations, want %d", rep.Violations, len(sizes))
	}
}

// TestFamilyWiseErrorRate measures the family-wise false-positive rate
// under "no violation": every point of the default table at three sizes
// has the same distribution (a per-mpirun factor shared by all points of
// the mpirun, as the mpirun effect is, times independent noise per point),
// so every guideline sits on its boundary, the hardest case for the error
// rate. Over 1000 seeded campaigns of 10 mpiruns the fraction with at
// least one violation must be at most alpha: the test fails if the count
// exceeds the 99.9% quantile of Binomial(1000, alpha), which a true rate of
// alpha passes with probability 0.999 (and the seeds are fixed).
func TestFamilyWiseErrorRate(t *testing.T) {
	gs := guidelines.Default()
	plan := guidelines.Plan{Guidelines: gs, SizesBytes: []int{8, 1024, 65536}, Np: 4, ElemBytes: 8, Mpiruns: 10}
	pts := plan.Points()
	ctx := guidelines.Context{Np: 4, Datatype: "float64"}
	const campaigns = 1000
	for _, alpha := range []float64{0.05, 0.2} {
		any := 0
		rng := rand.New(rand.NewPCG(2026, uint64(alpha*1000)))
		for range campaigns {
			data := guidelines.Data{}
			eff := make([]float64, plan.Mpiruns)
			for m := range eff {
				eff[m] = math.Exp(0.3 * rng.NormFloat64())
			}
			for _, pt := range pts {
				s := guidelines.Series{}
				for m := range plan.Mpiruns {
					s.Mpiruns = append(s.Mpiruns, int32(m))
					s.Medians = append(s.Medians, 1e-6*eff[m]*math.Exp(0.05*rng.NormFloat64()))
				}
				data[pt] = s
			}
			if rep := guidelines.Decide(gs, ctx, data, guidelines.Options{Alpha: alpha}); rep.Violations > 0 {
				any++
			}
		}
		limit := binomQuantile(0.999, campaigns, alpha)
		t.Logf("alpha %g: %d of %d campaigns with a false violation (rate %.4f; limit %d)", alpha, any, campaigns, float64(any)/campaigns, limit)
		if any > limit {
			t.Errorf("alpha %g: family-wise error rate %.4f over %d campaigns exceeds alpha (count %d > %d)", alpha, float64(any)/campaigns, campaigns, any, limit)
		}
	}
}

// binomQuantile returns the smallest k with P(Binomial(n, p) ≤ k) ≥ q.
func binomQuantile(q float64, n int, p float64) int {
	cdf := 0.0
	for k := 0; k <= n; k++ {
		lp := lgammaF(n+1) - lgammaF(k+1) - lgammaF(n-k+1) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
		cdf += math.Exp(lp)
		if cdf >= q {
			return k
		}
	}
	return n
}

func lgammaF(n int) float64 { v, _ := math.Lgamma(float64(n)); return v }

// TestFamilyWiseErrorRateInSimulator measures the same rate on the
// simulator's battery without a hook: 60 seeded campaigns of 8 mpiruns
// (the default table without Allgather ≤ Alltoall, which the model
// violates; four of the others sit exactly on their boundary, see
// TestMockupsVirtualTime in mpitest). At alpha = 0.2, so that the count
// has teeth with few campaigns, the number with any violation must not
// exceed the 99.9% quantile of Binomial(60, 0.2).
func TestFamilyWiseErrorRateInSimulator(t *testing.T) {
	gs := without(guidelines.Default(), "allgather-alltoall")
	const campaigns, alpha = 60, 0.2
	any, tests := 0, 0
	for i := range campaigns {
		seed := uint64(5000 + i)
		plan := guidelines.Plan{Guidelines: gs, SizesBytes: []int{8, 1024}, Np: 2, Datatype: "float64", ElemBytes: 8,
			Nrep: 3, Mpiruns: 8, Seed: seed}
		rep := guidelines.Decide(gs, guidelines.Context{Np: 2, Datatype: "float64"}, simCampaign(t, plan, seed, nil), guidelines.Options{Alpha: alpha})
		tests = rep.Tests
		if rep.Violations > 0 {
			any++
		}
	}
	limit := binomQuantile(0.999, campaigns, alpha)
	t.Logf("%d of %d campaigns (%d tests each) with a false violation at alpha %g (limit %d)", any, campaigns, tests, alpha, limit)
	if any > limit {
		t.Errorf("family-wise error rate %.3f over %d campaigns exceeds alpha %g (count %d > %d)", float64(any)/campaigns, campaigns, alpha, any, limit)
	}
}
