package reprobench_test

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// runNoBound runs a windowed and a barrier experiment on a simulated world
// whose rank 1 waits for a CPU on every receive (mpitest.Deschedule, seed
// 3), with a clock synchronization that has no worst-case bound to state
// under load (HCA's root intercepts) or, with quiet, on a quiet world.
func runNoBound(t *testing.T, policy reprobench.NoBound, quiet bool) (*reprobench.Result, []string, error) {
	t.Helper()
	cfg := mpitest.Config{Ranks: 2, Seed: 3, Deschedule: mpitest.Deschedule{Prob: 1, Ranks: []int{1}}}
	if quiet {
		cfg.Deschedule = mpitest.Deschedule{}
	}
	w, err := mpitest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var res *reprobench.Result
	var notes []string
	err = w.Run(func(r *mpitest.Rank) error {
		const cs = "hca:fitpts=20,exchanges=5"
		exps := []reprobench.Experiment{
			{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Fixed}, Runtime: completion.Global, ClockSync: cs},
			{Exp: 1, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Barrier}, ClockSync: cs},
		}
		opt := reprobench.Options{Dir: dir, RunID: "nobound", NoBound: policy, Note: func(m string) { notes = append(notes, m) }}
		opt.Clock = r.Clock()
		rr, err := reprobench.Run(r.Comm(), exps, opt)
		if r.Comm().Rank() == 0 {
			res = rr
		}
		return err
	})
	return res, notes, err
}

// A windowed experiment after a synchronization that stated no bound (ranks
// descheduled, no worst case) runs with the dissemination barrier and the
// local completion time by default, says so in a note and records it in
// the sidecar, while the barrier experiment is left alone; with the policy
// refuse the run fails naming the experiment; on a quiet world the same
// run falls back nowhere.
func TestRunNoBoundFallsBack(t *testing.T) {
	res, notes, err := runNoBound(t, reprobench.NoBoundFallback, false)
	if err != nil {
		t.Fatal(err)
	}
	fb := res.Metadata.ProcSyncFallbacks
	if len(fb) != 1 || fb[0].Exp != 0 || fb[0].Declared != "window" || fb[0].Ran != "dissemination" ||
		fb[0].DeclaredRuntime != "global" || fb[0].RanRuntime != "local" || !strings.Contains(fb[0].Why, "descheduled") {
		t.Errorf("fallbacks %+v, want experiment 0 from window/global to dissemination/local because ranks were descheduled", fb)
	}
	if !slicesContain(notes, "experiment 0 ran with dissemination") {
		t.Errorf("no note of the fallback in %q", notes)
	}
	if len(res.Metadata.ClockSyncs) == 0 {
		t.Fatal("no clock sync recorded")
	}
	if res.Summaries[0].Rows == 0 && res.Rows == 0 {
		t.Error("the fallen-back experiment wrote no rows")
	}

	if _, _, err := runNoBound(t, reprobench.NoBoundRefuse, false); err == nil || !strings.Contains(err.Error(), "stated no error bound") {
		t.Errorf("refuse: %v, want the run refused", err)
	}

	res, _, err = runNoBound(t, reprobench.NoBoundFallback, true)
	if err != nil {
		t.Fatal(err)
	}
	if fb := res.Metadata.ProcSyncFallbacks; len(fb) != 0 {
		t.Errorf("quiet world: fallbacks %+v, want none", fb)
	}
}

func slicesContain(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// ParseNoBound reads the flag's two values and refuses others.
func TestParseNoBound(t *testing.T) {
	for _, s := range []string{"fallback", "refuse", " Refuse "} {
		n, err := reprobench.ParseNoBound(s)
		if err != nil || !strings.EqualFold(n.String(), strings.TrimSpace(s)) {
			t.Errorf("ParseNoBound(%q) = %v, %v", s, n, err)
		}
	}
	if _, err := reprobench.ParseNoBound("barrier"); err == nil {
		t.Error("ParseNoBound(barrier) accepted")
	}
}
