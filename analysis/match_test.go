package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// matchData builds a data set from "call,msize,labels" group specs, each
// with 3 mpiruns of 5 observations scaled by f.
func matchData(t *testing.T, labelCols []string, groups [][]string, f float64) *Dataset {
	t.Helper()
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode")
	for _, c := range labelCols {
		b.WriteString("," + c)
	}
	b.WriteString("\n")
	for gi, g := range groups {
		for m := range 3 {
			for r := range 5 {
				fmt.Fprintf(&b, "r,%d,%d,%s,%s,1,byte,2,%d,%g,0", m, gi, g[0], g[1], r, f*1e-6*(1+0.01*float64(r+m)))
				for _, v := range g[2:] {
					b.WriteString("," + v)
				}
				b.WriteString("\n")
			}
		}
	}
	d, err := ReadRaw(strings.NewReader(b.String()), "t")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSideLabelsAndMatching(t *testing.T) {
	// lib names the sides; mode varies inside each side; host is the same
	// on both sides.
	a := matchData(t, []string{"lib", "mode", "host"}, [][]string{
		{"MPI_Bcast", "8", "openmpi", "x", "h"}, {"MPI_Bcast", "8", "openmpi", "y", "h"}, {"MPI_Bcast", "64", "openmpi", "x", "h"}}, 1)
	b := matchData(t, []string{"lib", "mode", "host"}, [][]string{
		{"MPI_Bcast", "8", "mpich", "x", "h"}, {"MPI_Bcast", "8", "mpich", "y", "h"}, {"MPI_Bcast", "128", "mpich", "x", "h"}}, 1.2)
	if got := SideLabels(a, b); !slices.Equal(got, []string{"lib"}) {
		t.Fatalf("SideLabels = %v, want [lib]", got)
	}
	rows, onlyA, onlyB := Compare(a, b, DefaultOptions)
	if len(rows) != 2 || len(onlyA) != 1 || len(onlyB) != 1 {
		t.Fatalf("rows %d, onlyA %v, onlyB %v", len(rows), onlyA, onlyB)
	}
	for _, r := range rows {
		if r.NameA != "lib=openmpi" || r.NameB != "lib=mpich" || strings.Contains(r.Key.Labels, "lib=") || r.Ratio < 1.19 || r.Ratio > 1.21 {
			t.Errorf("row %+v", r)
		}
	}
	if onlyA[0].MsizeBytes != 64 || onlyB[0].MsizeBytes != 128 {
		t.Errorf("unmatched %v %v", onlyA, onlyB)
	}
	// Matching on every label finds nothing in common.
	if rows, _, _ := CompareIgnoring(a, b, nil, DefaultOptions); len(rows) != 0 {
		t.Errorf("CompareIgnoring(nil) matched %d rows across libraries", len(rows))
	}
	// Ignoring a label that varies inside a side makes groups collide:
	// they are reported, not compared at random.
	rows, onlyA, onlyB = CompareIgnoring(a, b, []string{"lib", "mode"}, DefaultOptions)
	if len(rows) != 0 || len(onlyA) != 3 || len(onlyB) != 3 {
		t.Errorf("colliding keys: rows %d, onlyA %v, onlyB %v", len(rows), onlyA, onlyB)
	}
	// A label present on one side only, constant there, names the sides too.
	c := matchData(t, nil, [][]string{{"MPI_Bcast", "8"}}, 1)
	d := matchData(t, []string{"lib"}, [][]string{{"MPI_Bcast", "8", "mpich"}}, 1)
	if got := SideLabels(c, d); !slices.Equal(got, []string{"lib"}) {
		t.Errorf("one-sided label: SideLabels = %v", got)
	}
	if got := SideLabels(a, NewDataset()); got != nil {
		t.Errorf("empty side: %v", got)
	}
}
