package reprobench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// TestFactorialIsDesignOrder: a flag-driven run's experiments of mpirun m
// are design.Generate's rows of mpirun m for the same factors and seed,
// in the same order and with the same numbers.
func TestFactorialIsDesignOrder(t *testing.T) {
	f := reprobench.Factorial{Calls: []mpi.Call{mpi.CallBcast, mpi.CallAllreduce, mpi.CallPingPong}, Sizes: []int{8, 64, 1024},
		Methods: []window.Method{window.Barrier, window.Fixed}}
	base := reprobench.Experiment{Type: mpi.Float64, Nrep: 10}
	const seed = 77
	p := f.Plan(seed)
	p.Mpiruns = 4
	d, err := design.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for m := range 4 {
		exps, err := f.Experiments(reprobench.Base{Experiment: base}, seed, m, 2)
		if err != nil {
			t.Fatal(err)
		}
		rows := d.Mpirun(m)
		if len(exps) != len(rows) || len(exps) != 18 {
			t.Fatalf("mpirun %d: %d experiments, design has %d", m, len(exps), len(rows))
		}
		for i, ex := range exps {
			r := rows[i]
			if ex.Exp != r.Exp || ex.Call.String() != r.Call || ex.MsizeBytes != r.MsizeBytes || ex.Sync.Method.String() != r.Factors.Text(factor.ProcSync) {
				t.Fatalf("mpirun %d position %d: run has exp %d %v %d %v, design exp %d %s %d %s", m, i, ex.Exp, ex.Call, ex.MsizeBytes, ex.Sync.Method, r.Exp, r.Call, r.MsizeBytes, r.Factors.Text(factor.ProcSync))
			}
			if ex.Seed != reprobench.ExperimentSeed(seed, ex.Exp) {
				t.Errorf("experiment %d: seed %d", ex.Exp, ex.Seed)
			}
		}
	}
	// Different mpiruns, different orders; the numbers name the same configuration.
	a, _ := f.Experiments(reprobench.Base{Experiment: base}, seed, 0, 2)
	b, _ := f.Experiments(reprobench.Base{Experiment: base}, seed, 1, 2)
	same := true
	for i := range a {
		same = same && a[i].Exp == b[i].Exp
	}
	if same {
		t.Error("mpiruns 0 and 1 have the same order")
	}
}

// TestFromDesign: empty cells take the base's levels, labels and the clock
// synchronization become fields, datatypes are parsed in either vocabulary,
// and bad rows name their file and line.
func TestFromDesign(t *testing.T) {
	base := reprobench.Experiment{Type: mpi.Float64, Nrep: 3, Call: mpi.CallBcast, Labels: map[string]string{"host": "h", "alg": "a"},
		Sync: window.Config{Method: window.Barrier, Window: 100 * time.Microsecond}}
	de := design.Experiment{Mpirun: 1, Exp: 4, Call: "MPI_Allreduce", MsizeBytes: 16, Datatype: "MPI_DOUBLE",
		Factors: factor.Values{}.WithText(factor.ProcSync, "window").With(factor.Window, int64(130*time.Microsecond)).WithText(factor.ClockSync, "hca3o"), Labels: map[string]string{"alg": "b"}}
	ex, err := reprobench.FromDesign(de, reprobench.Base{Experiment: base}, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Exp != 4 || ex.Type != mpi.Float64 || ex.Nrep != 3 || ex.Sync.Window != 130*time.Microsecond || ex.ClockSync != "hca3o" ||
		ex.Labels["alg"] != "b" || ex.Labels["host"] != "h" || base.Labels["alg"] != "a" {
		t.Errorf("%+v (base labels %v)", ex, base.Labels)
	}
	r := ex.Raw()
	if r.Factors.Level(factor.Window) != int64(130*time.Microsecond) || r.Factors.Text(factor.ProcSync) != "window" || r.Factors.Text(factor.ClockSync) != "hca3o" {
		t.Errorf("raw declaration %+v", r)
	}
	for _, bad := range []design.Experiment{
		{File: "d.csv", Line: 3, Call: "MPI_Bcast", Np: 4},
		{File: "d.csv", Line: 3, Call: "MPI_Bcast", Factors: factor.Values{}.WithText(factor.ClockSync, "bogus:x=1")},
		{File: "d.csv", Line: 3, Call: "MPI_Bcast", Datatype: "float64", MsizeBytes: 12},
		{File: "d.csv", Line: 3, Call: "MPI_Bcast", Labels: map[string]string{"rep": "1"}},
		{File: "d.csv", Line: 3},
	} {
		if _, err := reprobench.FromDesign(bad, reprobench.Base{Experiment: base}, 5, 2); err == nil || !strings.HasPrefix(err.Error(), "reprobench: d.csv:3: ") {
			t.Errorf("%+v: %v, want an error naming d.csv:3", bad, err)
		}
	}
}

func TestResolveClockSync(t *testing.T) {
	exps := []reprobench.Experiment{{Sync: window.Config{Method: window.Barrier}}, {Sync: window.Config{Method: window.Fixed}, ClockSync: "jk"}}
	spec, err := reprobench.ResolveClockSync(exps, "auto")
	if err != nil || spec != "none" || exps[0].ClockSync != "none" || exps[1].ClockSync != "jk" {
		t.Errorf("auto without a windowed experiment that lacks its own spec: %q, %v, %+v", spec, err, exps)
	}
	exps = []reprobench.Experiment{{Sync: window.Config{Method: window.Fixed}}}
	if spec, err := reprobench.ResolveClockSync(exps, "auto"); err != nil || spec != clocksync.Default().Name || exps[0].ClockSync != clocksync.Default().Name {
		t.Errorf("auto with a windowed experiment: %q, %v", spec, err)
	}
	exps = []reprobench.Experiment{{Sync: window.Config{Method: window.Fixed}}}
	if _, err := reprobench.ResolveClockSync(exps, "none"); err == nil {
		t.Error("a windowed experiment without clock synchronization was accepted")
	}
	if _, err := reprobench.ResolveClockSync(nil, "bogus:x=1"); err == nil {
		t.Error("bogus spec accepted")
	}
}

// TestPrehistoryDrawnPerMpirun: a random prehistory gets its count from
// the seed, the mpirun and the experiment (reprobench.Prehistory.Draw), so the
// mpiruns of one experiment differ, and a fixed level passes through.
func TestPrehistoryDrawnPerMpirun(t *testing.T) {
	f := reprobench.Factorial{Calls: []mpi.Call{mpi.CallAllreduce}, Sizes: []int{8}, Methods: []window.Method{window.Barrier}}
	base := reprobench.Base{Experiment: reprobench.Experiment{Type: mpi.Float64, Nrep: 3, Prehistory: reprobench.Prehistory{Random: true}}}
	counts := map[int]bool{}
	for m := range 20 {
		exps, err := f.Experiments(base, 7, m, 2)
		if err != nil {
			t.Fatal(err)
		}
		ex := exps[0]
		if want := base.Prehistory.Draw(7, m, ex.Exp); ex.Prehistory != want {
			t.Fatalf("mpirun %d: prehistory %+v, want %+v", m, ex.Prehistory, want)
		}
		counts[ex.Prehistory.Msgs] = true
	}
	// 20 draws from 4 counts all alike has probability 4·(1/4)^20.
	if len(counts) < 2 {
		t.Errorf("20 mpiruns drew the counts %v", counts)
	}
	base.Prehistory = reprobench.Prehistory{Msgs: 3}
	exps, _ := f.Experiments(base, 7, 0, 2)
	if exps[0].Prehistory.Msgs != 3 {
		t.Errorf("fixed prehistory became %+v", exps[0].Prehistory)
	}
}
