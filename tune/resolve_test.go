package tune

import (
	"bytes"
	"strings"
	"testing"
)

// TestOpenMPIResolverFromCatalog: the resolver gives the catalogue's
// enumeration value and the candidate's segment size, and a rules file
// written through it names them.
func TestOpenMPIResolverFromCatalog(t *testing.T) {
	r, err := CatalogFor(OpenMPI).OpenMPIResolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		call, cand string
		want       OpenMPIAlgorithm
	}{
		{"MPI_Allreduce", "ring", OpenMPIAlgorithm{ID: 4}},
		{"MPI_Allreduce", "segmented_ring+segsize=1024", OpenMPIAlgorithm{ID: 5, SegSize: 1024}},
		{"MPI_Bcast", "knomial", OpenMPIAlgorithm{ID: 7}},
		{"MPI_Reduce", "rabenseifner", OpenMPIAlgorithm{ID: 7}},
	} {
		got, err := r(c.call, c.cand)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %+v, %v; want %+v", c.call, c.cand, got, err, c.want)
		}
	}
	for _, bad := range [][2]string{{"MPI_Allreduce", "no_such"}, {"MPI_Allreduce", "default"}, {"MPI_Alltoall", "ring"}} {
		if _, err := r(bad[0], bad[1]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	ds := []Decision{{Cell: Cell{Call: "MPI_Allreduce", Bytes: 1024, Np: 2}, Default: DefaultCandidate, Chosen: "segmented_ring+segsize=1024"}}
	var b bytes.Buffer
	if err := WriteOpenMPIRules(&b, ds, r, Source{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n1024 5 0 1024 # ") {
		t.Errorf("rules file lacks the resolved rule:\n%s", b.String())
	}
	if _, err := CatalogFor(MPICH).OpenMPIResolver(); err == nil {
		t.Error("MPICH catalogue gave an Open MPI resolver")
	}
}

// TestMPICHResolverFromCatalog: the resolver gives MPICH's MPIR function
// names for the catalogue's algorithms.
func TestMPICHResolverFromCatalog(t *testing.T) {
	r, err := CatalogFor(MPICH).MPICHResolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][3]string{
		{"MPI_Allreduce", "recursive_doubling", "MPIR_Allreduce_intra_recursive_doubling"},
		{"MPI_Allreduce", "nb", "MPIR_Allreduce_allcomm_nb"},
		{"MPI_Bcast", "scatter_ring_allgather", "MPIR_Bcast_intra_scatter_ring_allgather"},
		{"MPI_Reduce", "reduce_scatter_gather", "MPIR_Reduce_intra_reduce_scatter_gather"},
	} {
		got, err := r(c[0], c[1])
		if err != nil || got != c[2] {
			t.Errorf("%s %s: %q, %v; want %q", c[0], c[1], got, err, c[2])
		}
	}
	for _, bad := range [][2]string{{"MPI_Allreduce", "ring"}, {"MPI_Allreduce", "default"}} {
		if _, err := r(bad[0], bad[1]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := CatalogFor(Simulated).MPICHResolver(); err == nil {
		t.Error("simulated catalogue gave an MPICH resolver")
	}
}
