package reprobench_test

import (
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// runPlain runs exps on a fresh world of ranks ranks (seed) without clock
// synchronization and returns rank 0's sink.
func runPlain(t testing.TB, ranks int, seed uint64, exps []reprobench.Experiment) *memSink {
	t.Helper()
	return runModel(t, mpitest.Config{Ranks: ranks, Seed: seed}, exps)
}

// runModel is runPlain in the world cfg.
func runModel(t testing.TB, cfg mpitest.Config, exps []reprobench.Experiment) *memSink {
	t.Helper()
	w, err := mpitest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return runWorld(t, w, exps)
}

// runWorld runs exps on every rank of w with the rank's own clock and
// returns rank 0's rows; w stays open for its message log and ground
// truth.
func runWorld(t testing.TB, w *mpitest.World, exps []reprobench.Experiment) *memSink {
	t.Helper()
	sink := &memSink{}
	err := w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock()}
		var s reprobench.Sink
		if r.Comm().Rank() == 0 {
			s = sink
		}
		_, err := e.Run(slices.Clone(exps), s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sink
}

func adaptiveAllreduce(rule analysis.StopRule) reprobench.Experiment {
	ex := reprobench.DefaultExperiment(window.Barrier)
	ex.Warmup = 10
	ex.Stop = &rule
	return ex
}

func TestAdaptiveStopRecord(t *testing.T) {
	met := adaptiveAllreduce(analysis.StopRule{Width: 0.02, Min: 50, Max: 5000})
	capped := adaptiveAllreduce(analysis.StopRule{Width: 1e-6, Min: 20, Max: 60})
	capped.Exp = 1
	p90 := adaptiveAllreduce(analysis.StopRule{Width: 0.2, Quantile: 0.9, Min: 100, Max: 5000})
	p90.Exp = 2
	sink := runPlain(t, 3, 5, []reprobench.Experiment{met, capped, p90})
	rows := map[int][]float64{}
	for _, r := range sink.rows {
		if r.ErrorCode == 0 {
			rows[r.Exp] = append(rows[r.Exp], r.RuntimeS)
		}
	}
	for i, s := range sink.sums {
		st := s.Stop
		if st == nil {
			t.Fatalf("experiment %d: no stop record", i)
		}
		if st.Rule != rawdata.StopRuleQuantileCI || st.Observations != s.Rows || st.Valid != len(rows[i]) || st.Looks < 1 || st.Met == st.Capped {
			t.Errorf("experiment %d: record %+v, %d rows, %d valid", i, *st, s.Rows, len(rows[i]))
		}
		// The record is the rule applied to the rows written.
		c := analysis.StopRule{Width: st.Width, Quantile: st.Quantile, Level: st.Level}.Judge(rows[i])
		if st.Reached == nil || *st.Reached != c.Reached || *st.EstimateS != c.Estimate || *st.CILoS != c.Lo || *st.CIHiS != c.Hi {
			t.Errorf("experiment %d: recorded %v, the rows give %+v", i, st, c)
		}
		for _, tr := range s.Traffic {
			if tr.Pattern != rawdata.Symmetric {
				t.Errorf("experiment %d: one-way traffic %+v", i, tr)
			}
		}
		if i := slices.IndexFunc(s.Traffic, func(e rawdata.TrafficEntry) bool { return e.Purpose == rawdata.TrafficStop }); i < 0 {
			t.Errorf("no stop traffic in %+v", s.Traffic)
		} else if slices.ContainsFunc(s.Traffic, func(e rawdata.TrafficEntry) bool { return e.Purpose == rawdata.TrafficResults }) {
			t.Errorf("the results were reduced twice: %+v", s.Traffic)
		}
	}
	if s := sink.sums[0].Stop; !s.Met || *s.Reached > 0.02 || s.Observations <= 50 || s.Observations >= 5000 {
		t.Errorf("met: %+v", *s)
	}
	if s := sink.sums[1].Stop; !s.Capped || s.Observations != 60 || s.Looks != 6 { // at 20, 25, 32, 40, 50, 60
		t.Errorf("capped: %+v, reached %v", *s, *s.Reached)
	}
	if s := sink.sums[2].Stop; s.Quantile != 0.9 || !s.Met {
		t.Errorf("p90: %+v", *s)
	}
}

// TestAdaptiveCoverageMpitest measures the coverage of the interval an
// adaptive experiment stops with on the fake communicator, whose runtimes
// come from its latency model (with barriers, clocks and spikes, not an
// i.i.d. draw): 1000 worlds of different seeds each run one adaptive
// 8-byte MPI_Allreduce on 3 ranks, and the recorded interval is checked
// against the model's true median. The true median is the median of
// 100000 observations of a fixed run of the same model (another seed);
// its own 99.9 % interval is logged and must lie within a fifth of the
// width.
//
// Bound: with 1000 replications and a true coverage of 95 %, the standard
// error is 0.0069; the test fails below 0.925, 3.6 standard errors down
// (one-sided binomial tail ≈ 2·10⁻⁴ per scenario, < 10⁻³ over both). The
// docs report the measured value against the 93 % target.
// stopReps and stopTruthN are the replications and the observations of the
// ground truth of TestAdaptiveCoverageMpitest.
var stopReps, stopTruthN = 1000, 100000

func TestAdaptiveCoverageMpitest(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	models := []struct {
		name  string
		lat   mpitest.Latency
		width float64
	}{
		{"default latency model", mpitest.Latency{}, 0.02},
		{"30 % spikes of 1 µs (multimodal)", mpitest.Latency{SpikeProb: 0.3, Spike: time.Microsecond}, 0.05},
	}
	for _, m := range models {
		fixed := reprobench.DefaultExperiment(window.Barrier)
		fixed.Warmup, fixed.Nrep = 10, stopTruthN
		sink := runModel(t, mpitest.Config{Ranks: 3, Seed: 999, Latency: m.lat}, []reprobench.Experiment{fixed})
		var all []float64
		for _, r := range sink.rows {
			if r.ErrorCode == 0 {
				all = append(all, r.RuntimeS)
			}
		}
		truth := analysis.Median(all)
		tiv := analysis.MedianCI(all, 0.999)
		reps := stopReps
		hits, sumN, capped := 0, 0, 0
		for i := range reps {
			ex := adaptiveAllreduce(analysis.StopRule{Width: m.width})
			s := runModel(t, mpitest.Config{Ranks: 3, Seed: uint64(10000 + i), Latency: m.lat}, []reprobench.Experiment{ex}).sums[0].Stop
			if *s.CILoS <= truth && truth <= *s.CIHiS {
				hits++
			}
			sumN += s.Observations
			if s.Capped {
				capped++
			}
		}
		cov := float64(hits) / float64(reps)
		t.Logf("%s, width ±%g %%: coverage %.3f over %d worlds, mean %.0f observations, %d capped; true median %.6g s (99.9 %% interval [%.6g, %.6g] from %d observations)",
			m.name, 100*m.width, cov, reps, float64(sumN)/float64(reps), capped, truth, tiv.Lo, tiv.Hi, len(all))
		if cov < 0.925 {
			t.Errorf("%s: coverage %.3f < 0.925", m.name, cov)
		}
		if half := max(truth-tiv.Lo, tiv.Hi-truth) / truth; half > m.width/5 {
			t.Errorf("%s: the true median's own interval (±%.2g) is not narrow against the width", m.name, half)
		}
	}
}
