package mpi

import (
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// TestFactorRows: every call parameter of the factor table is a parameter
// of the operation table that some call takes, of the family the row
// names (a coll row: also nbc and vcoll; "*": any, factor.Factor.Family), and the
// constants of this package agree with the rows.
func TestFactorRows(t *testing.T) {
	for _, id := range factor.CallParams() {
		f := id.Row()
		p := FactorParam(id)
		if p == 0 {
			t.Errorf("%s: no operation-table parameter of that name", f.Name)
			continue
		}
		cs := CallsTaking(p)
		if len(cs) == 0 {
			t.Errorf("%s: no call takes it", f.Name)
		}
		for _, c := range cs {
			fam := c.Op().Family
			if f.Family != "*" && fam.String() != f.Family && !(f.Family == "coll" && (fam == FamilyNBC || fam == FamilyVColl)) {
				t.Errorf("%s (family %s) taken by %v of family %v", f.Name, f.Family, c, c.Op().Family)
			}
		}
	}
	bw := factor.BWWindow.Row()
	if bw.Default != defaultBWWindow || bw.Max != maxBWWindow {
		t.Errorf("bw_window row: default %d max %d, package mpi: %d %d", bw.Default, bw.Max, defaultBWWindow, maxBWWindow)
	}
	for _, s := range RMASyncs() {
		if factor.RMASync.Row().Format(int64(s)) != s.String() {
			t.Errorf("rma_sync level %d: row %q, package mpi %q", s, factor.RMASync.Row().Format(int64(s)), s)
		}
	}
}

// TestLevels: a call records the parameters it takes, at their default
// when not set, and not the others.
func TestLevels(t *testing.T) {
	v := factor.Of(factor.BWWindow, 8)
	if l := CallBW.Levels(v); l.Cell(factor.BWWindow) != "8" || l.Cell(factor.RMASync) != "" || l.Cell(factor.Skew) != "" {
		t.Errorf("bw: %v", l)
	}
	if l := CallPut.Levels(v); l.Cell(factor.BWWindow) != "" || l.Cell(factor.RMASync) != "fence" {
		t.Errorf("MPI_Put: %v", l)
	}
	if l := CallGatherv.Levels(v); l.Cell(factor.Skew) != "1" {
		t.Errorf("MPI_Gatherv: %v", l)
	}
}
