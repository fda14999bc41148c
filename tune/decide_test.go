package tune_test

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench/tune"
)

func cellSamples(def, cand []float64) []tune.Sample {
	var s []tune.Sample
	for i, v := range def {
		s = append(s, tune.Sample{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(v)})
	}
	for i, v := range cand {
		s = append(s, tune.Sample{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "chain", Mpirun: 2*i + 1, Median: sec(v)})
	}
	return s
}

func TestDecideVerdicts(t *testing.T) {
	// Two mpiruns each: 1/C(4,2) = 0.167 > 0.05, nothing could pass.
	ds, err := tune.Decide(cellSamples([]float64{2, 2.1}, []float64{1, 1.1}), tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ds[0]; d.Verdict != tune.TooFew || d.Chosen != "default" || d.NeedMpiruns != 3 || !strings.Contains(d.Reason, "3 mpiruns per candidate are needed") {
		t.Errorf("two mpiruns: %+v", d)
	}
	// Six each, the candidate faster in most but not all mpiruns: kept,
	// with an estimate of the mpiruns that would separate them.
	def := []float64{1.00, 1.30, 0.95, 1.25, 1.02, 1.28}
	cand := []float64{0.90, 1.20, 0.92, 1.24, 0.85, 1.10}
	ds, err = tune.Decide(cellSamples(def, cand), tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	c, _ := d.Result("chain")
	if d.Verdict != tune.Kept || c.Faster || c.NeedMpiruns <= 6 || !strings.Contains(d.Reason, "would need about") {
		t.Errorf("borderline: %+v / %+v", d, c)
	}
	t.Log(d.Reason)
	for _, bad := range [][]tune.Sample{
		{{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "chain", Mpirun: 0, Median: 1}},   // no default
		{{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "default", Mpirun: 0, Median: 0}}, // not positive
		append(cellSamples([]float64{1}, nil), cellSamples([]float64{1}, nil)...),          // given twice
		{{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "", Mpirun: 0, Median: 1}},        // no name
	} {
		if _, err := tune.Decide(bad, tune.Options{}); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if _, err := tune.Decide(nil, tune.Options{Alpha: 1}); err == nil {
		t.Error("alpha 1 accepted")
	}
}
