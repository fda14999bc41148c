package design

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// The skew column: read, written back only when a row sets it, generated
// as a factor, and 0 refused as a level.
func TestSkewColumn(t *testing.T) {
	in := "mpirun,exp,call,msize_bytes,skew\n0,0,MPI_Alltoallv,1024,4\n0,1,MPI_Alltoallv,1024,\n"
	d, err := Read(strings.NewReader(in), "in.csv", Vocabulary{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Experiments[0].Factors.Cell(factor.Skew) != "4" || d.Experiments[1].Factors.Cell(factor.Skew) != "" {
		t.Fatalf("skews %v, %v; want 4 and unset (empty)", d.Experiments[0].Factors, d.Experiments[1].Factors)
	}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",cache,skew\n") || !strings.Contains(b.String(), "0,0,,MPI_Alltoallv,1024,,,,,,,,4\n") {
		t.Errorf("written design lacks the skew column or cell:\n%s", b.String())
	}
	back, err := Read(&b, "back.csv", Vocabulary{})
	if err != nil || back.Experiments[0].Factors.Cell(factor.Skew) != "4" {
		t.Fatalf("read back: %v, %+v", err, back)
	}
	// Without any skew, the format is the one before the column existed.
	d.Experiments[0].Factors.Clear(factor.Skew)
	b.Reset()
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "skew") {
		t.Errorf("a design without skew has a skew column:\n%s", b.String())
	}
	if _, err := Read(strings.NewReader("mpirun,exp,call,skew\n0,0,MPI_Gatherv,0\n"), "zero.csv", Vocabulary{}); err == nil {
		t.Error("skew 0 accepted (an empty cell says the run's default)")
	}
}

func TestSkewFactor(t *testing.T) {
	p := Plan{Mpiruns: 1, Seed: 1, Factors: Factors{Calls: []string{"MPI_Gatherv"},
		Labels: []Factor{{Name: "lib", Levels: []string{"a", "b"}}}}}
	p.Factors.Levels[factor.Skew] = []string{"1", "8"}
	d, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range d.Experiments {
		seen[e.Labels["lib"]+"/"+e.Factors.Cell(factor.Skew)] = true
	}
	for _, k := range []string{"a/1", "a/8", "b/1", "b/8"} {
		if !seen[k] {
			t.Errorf("combination %s missing: %v", k, seen)
		}
	}
	p.Factors.Levels[factor.Skew] = []string{"2", "2"}
	if _, err := Generate(p); err == nil {
		t.Error("a repeated skew level accepted")
	}
}
