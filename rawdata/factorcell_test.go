package rawdata_test

import (
	"slices"
	"testing"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// TestFactorCellsDefaults: a writer that sets only some method factors
// (package region: procsync, runtime_type, clocksync) gets the cells
// format 1.1 had for it: window_s 0, noise_guard off, cache and the call
// parameters empty, and a text level's commas as ';'.
func TestFactorCellsDefaults(t *testing.T) {
	f := factor.Values{}.WithText(factor.ProcSync, factor.LevelNone).WithText(factor.RuntimeType, factor.LevelLocal).WithText(factor.ClockSync, "hca3:fitpts=10,exchanges=5")
	got := rawdata.FactorCells(f)
	want := []string{"none", "0", "local", "", "hca3:fitpts=10;exchanges=5", "", "off", "", ""}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q (columns %q)", got, want, factor.Columns())
	}
}
