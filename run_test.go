package reprobench_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// TestRunFuncToRawData: a user's function and a built-in call, run by
// reprobench.Run on 3 simulated ranks, become raw data that the analysis
// reads, with a sidecar holding what the CLI records; a second Run into the
// same files fails on every rank with the same error.
func TestRunFuncToRawData(t *testing.T) {
	dir := t.TempDir()
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := reprobench.Options{Dir: dir, RunID: "halo", Labels: map[string]string{"impl": "mine"}}
	var res *reprobench.Result
	run := func() []error {
		errs := make([]error, 3)
		_ = w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			buf, got := make([]float64, 8), make([]float64, 8)
			right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
			exps := []reprobench.Experiment{
				{Exp: 0, Name: "ring_shift", Func: func() error { return mpi.Sendrecv(c, buf, right, 1, got, left, 1) },
					MsizeBytes: 64, Type: mpi.Float64, Nrep: 40, Warmup: 5,
					Sync: window.Config{Method: window.Fixed, Window: 50 * time.Microsecond}, Runtime: completion.Global},
				{Exp: 1, Call: mpi.CallAllreduce, MsizeBytes: 64, Type: mpi.Float64, Nrep: 40, Sync: window.Config{Method: window.Barrier}},
			}
			o := out
			o.Clock = r.Clock()
			rr, err := reprobench.Run(c, exps, o)
			errs[c.Rank()] = err
			if c.Rank() == 0 {
				res = rr
			}
			return nil
		})
		return errs
	}
	for i, err := range run() {
		if err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
	if res == nil || res.Rows != 80 || len(res.Summaries) != 2 {
		t.Fatalf("result %+v", res)
	}
	f, err := os.Open(res.Files.CSV)
	if err != nil {
		t.Fatal(err)
	}
	d, err := analysis.ReadRaw(f, res.Files.CSV)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, g := range d.Groups {
		keys[g.Key.String()] = true
	}
	for _, k := range []string{"ring_shift/msize=64/np=3/float64", "MPI_Allreduce/msize=64/np=3/float64"} {
		found := false
		for have := range keys {
			found = found || strings.HasPrefix(have, k)
		}
		if !found {
			t.Errorf("no group %s in %v", k, keys)
		}
	}
	b, err := os.ReadFile(res.Files.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var meta rawdata.Metadata
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.RunID != "halo" || meta.Np != 3 || meta.ClockSyncSpec != clocksync.Default().Name || len(meta.ClockSyncs) < 1 || meta.ClockSyncs[0].Reason != "first synchronization" ||
		meta.ClockAccuracy != "1µs@1s" || !meta.SeedGenerated || len(meta.Experiments) != 2 ||
		len(meta.Clock) == 0 || len(meta.Environment) == 0 || len(meta.ProcessorNames) != 3 || !strings.HasPrefix(meta.MPILibrary, "simulated") ||
		meta.EndUTC.Before(meta.StartUTC) || meta.Files["raw"] == "" || meta.ErrorCodes == nil || meta.Labels["impl"] != "mine" {
		t.Errorf("sidecar incomplete:\n%s", b)
	}
	// The same output again: every rank fails, with rank 0's reason.
	for i, err := range run() {
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("rank %d: second run into the same files: %v", i, err)
		}
	}
}

// TestRunRefusesBadExperiments: an experiment that cannot run is refused on
// every rank before anything is written.
func TestRunRefusesBadExperiments(t *testing.T) {
	dir := t.TempDir()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2)
	_ = w.Run(func(r *mpitest.Rank) error {
		exps := []reprobench.Experiment{{Name: "MPI_Bcast", Func: func() error { return nil }, Nrep: 1}}
		_, errs[r.ID()] = reprobench.Run(r.Comm(), exps, reprobench.Options{Clock: r.Clock(), Dir: dir, RunID: "bad"})
		return nil
	})
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "built-in") {
			t.Errorf("rank %d: %v", i, err)
		}
	}
	if m, _ := os.ReadDir(dir); len(m) != 0 {
		t.Errorf("files written: %v", m)
	}
}

// TestRunRefusesWrongLaunch: a library program's Run refuses, on every
// rank and before anything is written, a communicator whose size is not the
// one the launcher declared (a singleton started by a wrong srun --mpi or
// the other library's mpirun); with the right declaration it runs.
func TestRunRefusesWrongLaunch(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		bad  bool
	}{
		{"declared 4 of 2", map[string]string{"PMI_SIZE": "4", "PMI_RANK": "0"}, true},
		{"declared 2", map[string]string{"OMPI_COMM_WORLD_SIZE": "2"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			errs := make([]error, 2)
			_ = w.Run(func(r *mpitest.Rank) error {
				exps := []reprobench.Experiment{{Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5,
					Sync: window.Config{Method: window.Barrier}}}
				_, errs[r.ID()] = reprobench.Run(r.Comm(), exps, reprobench.Options{Clock: r.Clock(), Dir: dir, RunID: "launch",
					Getenv: func(k string) string { return c.env[k] }})
				return nil
			})
			for i, err := range errs {
				if (err != nil) != c.bad || (err != nil && !strings.Contains(err.Error(), "did not join one MPI job")) {
					t.Errorf("rank %d: %v, want refused %v", i, err, c.bad)
				}
			}
			m, _ := os.ReadDir(dir)
			if c.bad && len(m) != 0 {
				t.Errorf("files written: %v", m)
			}
			if !c.bad && len(m) == 0 {
				t.Error("nothing written")
			}
		})
	}
}
