package reprobench_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// Each rank's fake /proc advances by a fixed amount per reading: the two
// CPUs by 150 busy ticks each, rank r's own time by 40·(r+1) ticks, the
// wall time by 1 s. So every experiment's record holds, by the formula of
// rawdata.CPULoad, available 2 CPUs · 1 s, own (40+80+120)/100 s, other
// 3 − 2.4 = 0.6 s; and each rank read exactly twice per experiment. The
// run's record (Engine.RunLoad) spans the first reading to the last, 2·nexp−1
// steps of the same, with the ticks' rounding of one pair of readings, not
// of nexp pairs.
func TestCPULoadRecorded(t *testing.T) {
	const ranks, nexp = 3, 2
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	reads := make([]int, ranks)
	sink := &memSink{}
	var runLoad *rawdata.CPULoad
	err = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		me := c.Rank()
		read := func() (cpuload.Sample, error) {
			k := int64(reads[me])
			reads[me]++
			return cpuload.Sample{At: time.Unix(100+k, 0), Kernel: "boot", Hz: 100, Process: fmt.Sprint("rank", me), CPUs: []int{0, 1},
				Busy: []int64{1000 + 150*k, 2000 + 150*k}, Own: 40 * int64(me+1) * k}, nil
		}
		e := &reprobench.Engine{Comm: c, Clock: r.Clock(), CPULoad: read}
		var s reprobench.Sink
		if me == 0 {
			s = sink
		}
		exps := make([]reprobench.Experiment, nexp)
		for i := range exps {
			exps[i] = reprobench.Experiment{Exp: i, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Warmup: 3,
				Sync: window.Config{Method: window.Barrier}}
		}
		_, err := e.Run(exps, s)
		if me == 0 {
			runLoad = e.RunLoad
		} else if e.RunLoad != nil {
			return fmt.Errorf("rank %d has a RunLoad", me)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, n := range reads {
		if n != 2*nexp {
			t.Errorf("rank %d read %d samples, want 2 per experiment (%d)", r, n, 2*nexp)
		}
	}
	if len(sink.sums) != nexp {
		t.Fatalf("%d summaries", len(sink.sums))
	}
	for _, s := range sink.sums {
		l := s.CPULoad
		if l == nil {
			t.Fatalf("experiment %d: no cpu_load", s.Exp)
		}
		if math.Abs(l.AvailableCPUS-2) > 1e-9 || math.Abs(l.OwnCPUS-2.4) > 1e-9 || math.Abs(l.OtherCPUS-0.6) > 1e-9 ||
			math.Abs(l.OtherCPUShare-0.3) > 1e-9 || l.CPUs != 2 {
			t.Errorf("experiment %d: cpu_load %+v, want available 2 s, own 2.4 s, other 0.6 s, share 0.3", s.Exp, *l)
		}
		found := false
		for _, tr := range s.Traffic {
			if tr.Purpose == rawdata.TrafficCPULoad {
				found = tr.Pattern == rawdata.Symmetric && tr.Messages == 1
			}
		}
		if !found {
			t.Errorf("experiment %d: traffic %+v lacks one symmetric %s entry", s.Exp, s.Traffic, rawdata.TrafficCPULoad)
		}
	}
	steps := float64(2*nexp - 1)
	if l := runLoad; l == nil {
		t.Errorf("no RunLoad")
	} else if math.Abs(l.AvailableCPUS-2*steps) > 1e-9 || math.Abs(l.OwnCPUS-2.4*steps) > 1e-9 ||
		math.Abs(l.OtherCPUS-0.6*steps) > 1e-9 || math.Abs(l.OtherCPUShare-0.3) > 1e-9 {
		t.Errorf("RunLoad %+v, want available %g s, own %g s, other %g s, share 0.3", *l, 2*steps, 2.4*steps, 0.6*steps)
	} else if one := sink.sums[0].CPULoad.ResolutionS; one <= 0 || math.Abs(l.ResolutionS-one) > 1e-12 {
		t.Errorf("RunLoad resolution %g s, want one pair's, %g s", l.ResolutionS, one)
	}
}

// Without Engine.CPULoad nothing is read or recorded.
func TestCPULoadOff(t *testing.T) {
	sink, _ := runEngine(t, 2, []reprobench.Experiment{{Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Byte, Nrep: 5}}, false)
	for _, s := range sink.sums {
		if s.CPULoad != nil {
			t.Errorf("cpu_load %+v recorded without a reader", s.CPULoad)
		}
		for _, tr := range s.Traffic {
			if tr.Purpose == rawdata.TrafficCPULoad {
				t.Errorf("cpu_load traffic without a reader")
			}
		}
	}
}
