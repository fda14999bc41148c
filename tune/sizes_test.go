package tune

import (
	"fmt"
	"testing"
)

// TestSizeGroups: MPICH's reduce_scatter_gather (size-ge-pof2) is left
// out of MPI_Reduce exactly at the sizes whose count is below the
// largest power of two not above np, with float64 or the --datatype of
// the run's flags, and runs at the others; a call without such an
// algorithm keeps one group.
func TestSizeGroups(t *testing.T) {
	cat := CatalogFor(MPICH)
	cands, err := cat.Candidates("MPI_Reduce", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		np   int
		args []string
		want string
	}{
		{2, nil, "[8]:default,binomial,nb,smp [16 1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
		{3, nil, "[8]:default,binomial,nb,smp [16 1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
		{4, nil, "[8 16]:default,binomial,nb,smp [1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
		{2, []string{"--nrep", "5", "--datatype", "byte"}, "[8 16 1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
		{8, []string{"--datatype=int32"}, "[8 16]:default,binomial,nb,smp [1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
		{1, nil, "[8 16 1024 1048576]:default,binomial,nb,smp,reduce_scatter_gather"},
	} {
		if got := groupsString(sizeGroups(cands, []int64{8, 16, 1024, 1 << 20}, c.np, elemSize(c.args))); got != c.want {
			t.Errorf("np %d %v: %s, want %s", c.np, c.args, got, c.want)
		}
	}
	bc, _ := cat.Candidates("MPI_Bcast", nil)
	if got := groupsString(sizeGroups(bc, []int64{8, 1 << 20}, 2, 8)); got != "[8 1048576]:default,binomial,nb,smp,scatter_recursive_doubling_allgather,scatter_ring_allgather" {
		t.Errorf("MPI_Bcast: %s", got)
	}
}

func groupsString(gs []sizeGroup) string {
	s := ""
	for i, g := range gs {
		if i > 0 {
			s += " "
		}
		names := ""
		for j, c := range g.cands {
			if j > 0 {
				names += ","
			}
			names += c.Name
		}
		s += fmt.Sprint(g.sizes) + ":" + names
	}
	return s
}
