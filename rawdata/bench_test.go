package rawdata_test

import (
	"testing"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

func newBenchWriter(tb testing.TB) *rawdata.Writer {
	w, err := rawdata.Create(rawdata.Options{Dir: tb.TempDir(), RunID: "b", PerRank: true, Labels: map[string]string{"host": "h"},
		Experiments: []rawdata.Experiment{{Exp: 0, Factors: factor.Values{}.WithText(factor.ProcSync, "barrier").WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "none")}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = w.Abort(&rawdata.Metadata{}, nil) })
	return w
}

// TestRowDoesNotAllocate: writing a row costs no heap allocation (the
// engine's observation loop does not allocate either).
func TestRowDoesNotAllocate(t *testing.T) {
	w := newBenchWriter(t)
	r := rawdata.Row{Exp: 0, Call: "MPI_Allreduce", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, RuntimeS: 2.91e-7}
	rr := rawdata.RankRow{Exp: 0, Call: "MPI_Allreduce", MsizeBytes: 8, Np: 2, LocalStartS: 1.25, LocalEndS: 1.5}
	if a := testing.AllocsPerRun(1000, func() {
		r.Rep++
		rr.Rep = r.Rep
		if err := w.Row(&r); err != nil {
			t.Fatal(err)
		}
		if err := w.RankRow(&rr); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per row", a)
	}
}

func BenchmarkRow(b *testing.B) {
	w := newBenchWriter(b)
	r := rawdata.Row{Exp: 0, Call: "MPI_Allreduce", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, RuntimeS: 2.91e-7}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Rep = i
		if err := w.Row(&r); err != nil {
			b.Fatal(err)
		}
	}
}
