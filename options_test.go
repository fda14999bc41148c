package reprobench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// TestTypedOptions: each typed choice of Options reaches the sidecar as
// the text "reprobench run" records for the same choice (its flags'
// auto, none or value), and the words auto and none are refused as a
// spec. Two simulated ranks, a fixed seed (3).
func TestTypedOptions(t *testing.T) {
	target := clocksync.Accuracy{Error: 2 * time.Microsecond, Horizon: 5 * time.Second}
	for _, c := range []struct {
		name           string
		set            func(o *reprobench.Options)
		spec, accuracy string // want; "" skips
		err            string
	}{
		{"zero value", func(o *reprobench.Options) {}, clocksync.Default().Name, "", ""},
		{"no clock sync", func(o *reprobench.Options) { o.NoClockSync = true }, "none", "", ""},
		{"a spec", func(o *reprobench.Options) { o.ClockSync = "jk" }, "jk", "", ""},
		{"fixed counts", func(o *reprobench.Options) { o.ClockAccuracy = &clocksync.Accuracy{} }, "", "none", ""},
		{"a target", func(o *reprobench.Options) { o.ClockAccuracy = &target }, "", target.String(), ""},
		{"the word auto", func(o *reprobench.Options) { o.ClockSync = "auto" }, "", "", "names a clocksync spec"},
		{"the word none", func(o *reprobench.Options) { o.ClockSync = "none" }, "", "", "names a clocksync spec"},
		{"a spec and none", func(o *reprobench.Options) { o.ClockSync, o.NoClockSync = "jk", true }, "", "", "with NoClockSync"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var res *reprobench.Result
			err = w.Run(func(r *mpitest.Rank) error {
				// A global completion time needs a global clock, so that the
				// default synchronizes; with none the window falls back.
				ex := reprobench.Experiment{Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5,
					Sync: window.Config{Method: window.Barrier}, Runtime: completion.Global}
				opt := reprobench.Options{Dir: dir, RunID: "typed", Clock: r.Clock(), Seed: new(uint64(3))}
				if c.spec == "none" {
					ex.Runtime = completion.Local
				}
				c.set(&opt)
				got, err := reprobench.Run(r.Comm(), []reprobench.Experiment{ex}, opt)
				if r.ID() == 0 {
					res = got
				}
				return err
			})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			md := res.Metadata
			if md.Seed != 3 || md.SeedGenerated {
				t.Errorf("seed %d (drawn %v), want 3 as given", md.Seed, md.SeedGenerated)
			}
			if c.spec != "" && !strings.HasPrefix(md.ClockSyncSpec, c.spec) {
				t.Errorf("clock sync %q, want %q", md.ClockSyncSpec, c.spec)
			}
			if c.accuracy != "" && md.ClockAccuracy != c.accuracy {
				t.Errorf("clock accuracy %q, want %q", md.ClockAccuracy, c.accuracy)
			}
		})
	}
}
