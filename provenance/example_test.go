package provenance_test

import (
	"fmt"

	"github.com/reprobench/reprobench/provenance"
)

// Two sides of four mpiruns each, whose records differ in one control
// variable that the launcher set on side B: Explain names it, with the
// share of mpiruns its value predicts and a permutation p-value.
func ExampleExplain() {
	rec := func(algo string) *provenance.Record {
		r := &provenance.Record{Library: "Open MPI v4.1.4", Launcher: provenance.Launcher{Name: "mpirun"}}
		if algo != "" {
			r.MPIT = &provenance.MPIT{Differ: []provenance.Cvar{{Name: "coll_tuned_allreduce_algorithm", Value: algo, Default: "0"}}}
		}
		return r
	}
	var a, b []*provenance.Record
	for range 4 {
		a, b = append(a, rec("")), append(b, rec("4"))
	}
	res := provenance.Explain(a, b, 0.05, 1, 999)
	for _, f := range res.Facts {
		fmt.Printf("%s: A %s, B %s, separation %.2f, named %v\n", f.Fact, f.A, f.B, f.Separation, f.Named)
	}
	// Output:
	// coll_tuned_allreduce_algorithm: A default, B 4, separation 1.00, named true
}

// A launcher that asked for a control variable's value (ExpectEnv) learns
// after the measurements whether it read back: a value the library
// replaced fails the run instead of mislabelling its data.
func ExampleMPIT_CheckError() {
	m := &provenance.MPIT{Checked: []provenance.CvarCheck{
		{Name: "coll_tuned_use_dynamic_rules", Want: "1", Got: "1", OK: true},
		{Name: "coll_tuned_allreduce_algorithm", Want: "4", Got: "0"},
	}}
	fmt.Println(m.CheckError())
	// Output:
	// provenance: the control variables the launcher set did not take effect (REPROBENCH_EXPECT_CVARS): coll_tuned_allreduce_algorithm read 0, want 4
}

// A fact that could not be read is never left empty: it says why.
func ExampleIsUnavailable() {
	gov := provenance.Unavailable + "no cpufreq driver"
	fmt.Println(provenance.IsUnavailable(gov), provenance.IsUnavailable("performance"))
	// Output:
	// true false
}
