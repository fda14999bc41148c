package design

import (
	"reflect"
	"testing"
)

// TestFromListShufflesAsGenerate: the design of a list is shuffled exactly
// as Generate shuffles: given the factorial's points as the list, FromList
// returns Generate's design.
func TestFromListShufflesAsGenerate(t *testing.T) {
	p := Plan{Factors: Factors{Calls: []string{"MPI_Bcast", "MPI_Allreduce", "Reduce+Bcast"}, MsizesBytes: []int{8, 1024}},
		Mpiruns: 4, Replicates: 2, Seed: 77}
	want, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	base := make([]Experiment, p.Factors.Points())
	for i := range base {
		base[i] = p.Factors.point(i)
	}
	got, err := FromList(base, p.Mpiruns, p.Replicates, p.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Experiments, want.Experiments) || got.Seed != 77 || !got.HasSeed {
		t.Errorf("FromList differs from Generate:\n%v\n%v", got.Experiments, want.Experiments)
	}
	if _, err := FromList(nil, 1, 1, 0, nil); err == nil {
		t.Error("an empty list is accepted")
	}
	if _, err := FromList(base, 0, 1, 0, nil); err == nil {
		t.Error("0 mpiruns are accepted")
	}
}
