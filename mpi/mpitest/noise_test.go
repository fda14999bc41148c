package mpitest_test

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi/mpitest"
)

func noiseWorld(t *testing.T, seed uint64, ranksPerNode int, src func(node int) []mpitest.PeriodicNoise) *mpitest.World {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: seed, RanksPerNode: ranksPerNode, NodeNoise: src})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestPeriodicNoiseDetours(t *testing.T) {
	tick := mpitest.PeriodicNoise{Period: time.Millisecond, Phase: 200 * time.Microsecond, Duration: 35 * time.Microsecond, Drift: 25e-6}
	w := noiseWorld(t, 1, 2, func(node int) []mpitest.PeriodicNoise {
		if node == 1 {
			return nil
		}
		return []mpitest.PeriodicNoise{tick}
	})
	ds := w.Detours(0, 0, 2)
	if len(ds) != 2000 {
		t.Fatalf("%d detours in 2 s of a 1 ms source, want 2000", len(ds))
	}
	for k, d := range ds {
		want := 200e-6 + float64(k)*1e-3*(1+25e-6)
		if math.Abs(d[0]-want) > 1e-12 || math.Abs(d[1]-d[0]-35e-6) > 1e-12 {
			t.Fatalf("detour %d = %v, want start %v length 35 µs", k, d, want)
		}
	}
	// The phase drifts 50 µs in 2 s.
	if got := ds[1999][0] - 1999e-3 - 200e-6; math.Abs(got-1999e-3*25e-6) > 1e-12 {
		t.Errorf("phase moved %v after 2 s, want %v", got, 1999e-3*25e-6)
	}
	if got := w.NoiseEnd(0, 210e-6); math.Abs(got-235e-6) > 1e-12 {
		t.Errorf("NoiseEnd in a detour = %v, want its end 235 µs", got)
	}
	if got := w.NoiseEnd(0, 500e-6); got != 500e-6 {
		t.Errorf("NoiseEnd outside a detour = %v, want 500 µs", got)
	}
	if d := w.Detours(1, 0, 1); len(d) != 0 || w.NoiseEnd(1, 210e-6) != 210e-6 {
		t.Errorf("node 1 has no noise, got %d detours", len(d))
	}
	// Uniform deadlines: the late share is (35 − tolerance) / 1000 on one node.
	if got := w.LateShare(0, 1, 1e-6); math.Abs(got-34e-3) > 1e-4 {
		t.Errorf("LateShare = %v, want 0.034", got)
	}
}

// A rank of a noisy node reading its clock inside a detour is held until
// it ends; a rank on a quiet node is not.
func TestPeriodicNoiseHoldsClockReads(t *testing.T) {
	w := noiseWorld(t, 2, 2, func(node int) []mpitest.PeriodicNoise {
		if node == 1 {
			return nil
		}
		return []mpitest.PeriodicNoise{{Period: time.Millisecond, Phase: 100 * time.Microsecond, Duration: 30 * time.Microsecond}}
	})
	got := make([]float64, 4)
	err := w.Run(func(r *mpitest.Rank) error {
		r.Sleep(time.Duration(110e-6*1e9) - time.Duration(r.TrueNow()*1e9))
		r.Clock().Now()
		got[r.ID()] = r.TrueNow()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, g := range got {
		want := 110e-6
		if id < 2 {
			want = 130e-6
		}
		if math.Abs(g-want) > 1e-7 {
			t.Errorf("rank %d: true time after a read at 110 µs = %v, want %v", id, g, want)
		}
	}
}

func TestPeriodicNoiseSeeded(t *testing.T) {
	src := func(int) []mpitest.PeriodicNoise {
		return []mpitest.PeriodicNoise{{Period: time.Millisecond, Duration: 30 * time.Microsecond,
			DurationJitter: 5 * time.Microsecond, Prob: 0.5}}
	}
	a, b, c := noiseWorld(t, 7, 0, src), noiseWorld(t, 7, 0, src), noiseWorld(t, 8, 0, src)
	da, db, dc := a.Detours(0, 0, 1), b.Detours(0, 0, 1), c.Detours(0, 0, 1)
	if len(da) < 400 || len(da) > 600 {
		t.Errorf("%d of 1000 detours with probability 0.5", len(da))
	}
	same := len(da) == len(db)
	for i := 0; same && i < len(da); i++ {
		same = da[i] == db[i]
	}
	if !same {
		t.Error("the same seed gave different detours")
	}
	if len(da) == len(dc) && da[0] == dc[0] && da[len(da)-1] == dc[len(dc)-1] {
		t.Error("another seed gave the same detours")
	}
	for _, d := range da {
		if l := d[1] - d[0]; l < 25e-6-1e-12 || l > 35e-6+1e-12 {
			t.Fatalf("detour length %v outside 30 ± 5 µs", l)
		}
	}
}

func TestPeriodicNoiseRefusesBadSources(t *testing.T) {
	for _, p := range []mpitest.PeriodicNoise{
		{Period: 0, Duration: time.Microsecond},
		{Period: time.Millisecond},
		{Period: time.Millisecond, Duration: time.Millisecond},
		{Period: time.Millisecond, Duration: time.Microsecond, Prob: 1.5},
		{Period: time.Millisecond, Duration: time.Microsecond, Drift: math.NaN()},
	} {
		_, err := mpitest.New(mpitest.Config{Ranks: 1, NodeNoise: func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{p} }})
		if err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
