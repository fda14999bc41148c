package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/kernel"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestMeasureSimulated brackets a kernel whose duration is known on 4
// simulated ranks with skewed clocks (offsets up to 1 s, drifts up to ±50
// ppm): rank r computes a small triad and then works (r+1) ms of virtual
// time. Ground truth — the true times at which each rank starts and ends its
// work — must lie inside McCalpin's bounds, and the global-clock estimate
// must match it.
func TestMeasureSimulated(t *testing.T) {
	const p, ntimes = 4, 3
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	// trueStart[k][r], trueEnd[k][r]: each rank writes only its own column.
	var trueStart, trueEnd [ntimes][p]float64
	var got []kernel.Bounds
	err = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		g := clocksync.NewGlobalClock(clk)
		sp, _ := clocksync.ParseSpec("hca3:fitpts=200,exchanges=20")
		alg, _ := sp.New()
		if _, err := alg.Sync(c, g); err != nil {
			return err
		}
		tr := NewTriad(1000)
		k := 0
		ks, err := Measure(c, clk, g, ntimes, func() {
			trueStart[k][r.ID()] = r.TrueNow()
			tr.Run() // takes no virtual time
			r.Sleep(time.Duration(r.ID()+1) * time.Millisecond)
			trueEnd[k][r.ID()] = r.TrueNow()
			k++
		})
		if err != nil {
			return err
		}
		if r.ID() == 0 {
			got = ks
		}
		return tr.Check()
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Report(&b, got, p*NewTriad(1000).Bytes()) // bandwidths meaningless here: the work is simulated
	t.Logf("\n%s", b.String())
	for k, kt := range got {
		// The parallel work spans from the earliest start to the latest end.
		span := sliceMax(trueEnd[k][:]) - sliceMin(trueStart[k][:])
		// The clocks drift by up to 50 ppm: durations on them differ from
		// true ones by up to 50 ns per ms, plus a clock read or two.
		const tol = 250e-9
		if kt.LowerS < 4e-3-tol || kt.LowerS > span+tol {
			t.Errorf("iteration %d: lower bound %.6f ms, want in [4 ms, true span %.6f ms]", k, kt.LowerS*1e3, span*1e3)
		}
		if kt.UpperS < span-tol {
			t.Errorf("iteration %d: upper bound %.6f ms below the true span %.6f ms", k, kt.UpperS*1e3, span*1e3)
		}
		// Two barriers of 4 ranks cost a few µs in the latency model.
		if kt.UpperS > span+20e-6 {
			t.Errorf("iteration %d: upper bound %.6f ms, more than 20 µs above the true span %.6f ms", k, kt.UpperS*1e3, span*1e3)
		}
		if math.Abs(kt.GlobalS-span) > 1e-6 {
			t.Errorf("iteration %d: global estimate %.6f ms, true span %.6f ms", k, kt.GlobalS*1e3, span*1e3)
		}
	}
}

func sliceMax(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

func sliceMin(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// TestMpirun runs the example under a real mpirun with 2 ranks for every
// installed MPI library and checks that the bounds are ordered.
func TestMpirun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			out := mpirun.MustRun(t, f, 2, 90*time.Second, nil, bin, "-n", "1000000", "-ntimes", "5")
			t.Logf("\n%s", out)
			m := regexp.MustCompile(`between ([\d.]+) ms \(max t2−t1\) and ([\d.]+) ms \(min t3−t0\); global clock: ([\d.]+) ms`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no bounds in output:\n%s", out)
			}
			lo, _ := strconv.ParseFloat(m[1], 64)
			hi, _ := strconv.ParseFloat(m[2], 64)
			gl, _ := strconv.ParseFloat(m[3], 64)
			if !(lo > 0 && lo <= hi) {
				t.Errorf("bounds %g ms, %g ms not ordered", lo, hi)
			}
			// The estimate may leave the bounds by the synchronization error.
			if gl < lo-0.01 || gl > hi+0.01 {
				t.Errorf("global estimate %g ms outside [%g, %g] ms", gl, lo, hi)
			}
		})
	}
}
