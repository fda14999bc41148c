package guidelines

import (
	"math"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
)

// TestHolmAgainstR checks the Holm adjustment the decisions use
// (analysis.Holm) against R.
func TestHolmAgainstR(t *testing.T) {
	// R 4.2.2: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.2, 0.5, 0.0001, 0.04), "holm")
	p := []float64{0.01, 0.04, 0.03, 0.005, 0.2, 0.5, 0.0001, 0.04}
	want := []float64{0.06, 0.16, 0.15, 0.035, 0.4, 0.5, 0.0008, 0.16}
	got := analysis.Holm(p)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("Holm[%d] = %v, R %v", i, got[i], want[i])
		}
	}
	// NaN is no test: it stays NaN and the family is the other 2.
	got = analysis.Holm([]float64{0.02, math.NaN(), 0.01})
	if got[0] != 0.02 || !math.IsNaN(got[1]) || got[2] != 0.02 {
		t.Errorf("Holm with NaN = %v, want [0.02 NaN 0.02]", got)
	}
}

func TestMinMpiruns(t *testing.T) {
	for _, c := range []struct {
		tests int
		alpha float64
		want  int
	}{{1, 0.05, 5}, {33, 0.05, 10}, {31, 0.01, 12}, {0, 0.05, 0}} {
		if got := MinMpiruns(c.tests, c.alpha); got != c.want {
			t.Errorf("MinMpiruns(%d, %g) = %d, want %d", c.tests, c.alpha, got, c.want)
		}
	}
}

func TestDefaultTableRoundTrip(t *testing.T) {
	gs := Default()
	if len(gs) < 11 {
		t.Fatalf("%d guidelines, the issue lists 11", len(gs))
	}
	var b strings.Builder
	if err := WriteTable(&b, gs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTable(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range gs {
		if back[i] != gs[i] {
			t.Errorf("round trip: %+v became %+v", gs[i], back[i])
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"x", "MPI_Bcast(n) MPI_Scatter(n)", `no "<="`},
		{"x", "MPI_Bcast(q) <= MPI_Scatter(n)", "unknown size"},
		{"x", "MPI_Bcast <= MPI_Scatter(n)", "want CALL(SIZE)"},
		{"x", "MPI_Bcast(n) <= MPI_Bcast(n)", "both sides"},
		{"x", "MPI_Bcast(n) <= MPI_Scatter(n); output=diagonal", "unknown option"},
		{"a b", "MPI_Bcast(n) <= MPI_Scatter(n)", "name"},
	} {
		if _, err := Parse(c.name, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %q) = %v, want an error with %q", c.name, c.text, err, c.want)
		}
	}
	if _, err := ReadTable(strings.NewReader("a MPI_Bcast(n) <= Scatter+Allgather(n)\na MPI_Gather(n) <= MPI_Allgather(n)\n")); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("duplicate name: %v", err)
	}
	g, err := Parse("s", "MPI_Scatter(n) ≤ MPI_Bcast(p*n); output=rank-block")
	if err != nil || g.Rhs.Size != SizePN || g.Output != OutputRankBlock || g.Rhs.Size.Bytes(1024, 4, 8) != 4096 {
		t.Errorf("Parse with ≤: %+v, %v", g, err)
	}
}

func TestPlanPoints(t *testing.T) {
	gs := Default()
	p := Plan{Guidelines: gs, SizesBytes: []int{8, 1024}, Np: 4, Datatype: "float64", ElemBytes: 8, Mpiruns: 3, Seed: 1}
	pts := p.Points()
	seen := map[Point]bool{}
	for _, pt := range pts {
		if seen[pt] {
			t.Errorf("point %v twice", pt)
		}
		seen[pt] = true
	}
	for _, g := range gs {
		for _, n := range p.SizesBytes {
			l, r := g.At(n, 4, 8)
			if !seen[l] || !seen[r] {
				t.Errorf("%s at %d: %v or %v not measured", g.Name, n, l, r)
			}
		}
	}
	if !seen[Point{"MPI_Bcast", 4 * 1024}] || !seen[Point{"MPI_Barrier", 0}] || !seen[Point{"MPI_Allreduce", 8}] {
		t.Errorf("size mappings p*n, 0 or elem missing: %v", pts)
	}
	d, err := p.Design()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Experiments) != 3*len(pts) || d.Seed != 1 || !d.HasSeed {
		t.Fatalf("design has %d rows (want %d), seed %d", len(d.Experiments), 3*len(pts), d.Seed)
	}
	// Shuffled per mpirun: the orders differ, the sets do not.
	o0, o1 := d.Mpirun(0), d.Mpirun(1)
	same := true
	for i := range o0 {
		same = same && o0[i].Exp == o1[i].Exp
	}
	if same {
		t.Error("mpiruns 0 and 1 run in the same order")
	}
	if err := (Plan{Guidelines: gs, SizesBytes: []int{12}, Np: 2, ElemBytes: 8, Mpiruns: 1}).Check(); err == nil {
		t.Error("a size that is not a multiple of the element is accepted")
	}
}

func TestDecideMissingAndPairing(t *testing.T) {
	gs := []Guideline{
		{Name: "a", Lhs: Side{"MPI_Reduce", SizeN}, Rhs: Side{"MPI_Allreduce", SizeN}},
		{Name: "b", Lhs: Side{"MPI_Gather", SizeN}, Rhs: Side{"MPI_Allgather", SizeN}},
	}
	// Reduce ran in mpiruns 0..7, Allreduce in 2..9: 6 pairs; Gather has no data.
	data := Data{
		{"MPI_Reduce", 8}:    {Mpiruns: []int32{0, 1, 2, 3, 4, 5, 6, 7}, Medians: []float64{9, 9, 3, 4, 5, 6, 7, 8}},
		{"MPI_Allreduce", 8}: {Mpiruns: []int32{2, 3, 4, 5, 6, 7, 8, 9}, Medians: []float64{1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 0, 0}},
		{"MPI_Allgather", 8}: {Mpiruns: []int32{0, 1}, Medians: []float64{1, 1}},
	}
	rep := Decide(gs, Context{Np: 2, Datatype: "float64"}, data, Options{Sizes: []int{8}})
	if len(rep.Decisions) != 2 || rep.Tests != 1 {
		t.Fatalf("%d decisions, %d tests: %+v", len(rep.Decisions), rep.Tests, rep.Decisions)
	}
	a, b := rep.Decisions[0], rep.Decisions[1]
	// Pairs (3,1.1) (4,2.2) (5,3.3) (6,4.4) (7,5.5) (8,6.6): every difference
	// 1.9 … 1.4 is positive and distinct: exact p = 2^-6.
	if a.Mpiruns != 6 || math.Abs(a.P-1.0/64) > 1e-15 || a.PHolm != a.P || !a.Violated || a.Stars != "*" {
		t.Errorf("a: %+v", a)
	}
	if !math.IsNaN(b.P) || b.Violated || len(b.Warnings) == 0 || !strings.Contains(b.Warnings[0], "MPI_Gather at 8 bytes") {
		t.Errorf("b: %+v", b)
	}
	if rep.MinMpiruns != 5 || len(rep.Warnings) != 0 {
		t.Errorf("min mpiruns %d, warnings %v", rep.MinMpiruns, rep.Warnings)
	}
}

func TestPlot(t *testing.T) {
	runs := []int32{0, 1, 2, 3, 4, 5}
	data := Data{
		{"MPI_Reduce", 8}:    {Mpiruns: runs, Medians: []float64{3, 3.1, 3.2, 3.3, 3.4, 3.5}},
		{"MPI_Allreduce", 8}: {Mpiruns: runs, Medians: []float64{1, 1.2, 1.1, 1.3, 1.5, 1.4}},
	}
	gs := []Guideline{{Name: "a", Lhs: Side{"MPI_Reduce", SizeN}, Rhs: Side{"MPI_Allreduce", SizeN}},
		{Name: "b", Lhs: Side{"MPI_Gather", SizeN}, Rhs: Side{"MPI_Allgather", SizeN}}}
	r := NewReport(gs, map[Context]Data{{Np: 2}: data}, Options{Sizes: []int{8}})
	p, rows, err := r.Plot(0)
	if err != nil || rows != 2 || p == nil {
		t.Fatalf("Plot: %v rows %d", err, rows)
	}
	// The axis spans the ratios (about 2.5) and 1, whatever the intervals.
	if !(p.X.Min < 1 && p.X.Max > 2.5 && p.X.Max < 10) {
		t.Errorf("x axis [%v, %v]", p.X.Min, p.X.Max)
	}
	if _, _, err := r.Plot(1); err == nil {
		t.Error("Plot of a missing context succeeded")
	}
}
