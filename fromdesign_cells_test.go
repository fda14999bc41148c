package reprobench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
)

// TestFromDesignEveryMethodCell: a design row that sets every method
// factor's cell to a level other than the base's runs those levels: the
// experiment's raw cells (Raw, read through the accessor table) are the
// design's cells. A method factor row added to the table without a level
// here, or without a setter, fails it. A bad text level is an error that
// names the row.
func TestFromDesignEveryMethodCell(t *testing.T) {
	de := design.Experiment{File: "d.csv", Line: 3, Call: "MPI_Allreduce", MsizeBytes: 8}
	de.Factors = factor.Values{}.WithText(factor.ProcSync, "adaptive_skampi").
		With(factor.Window, int64(130*time.Microsecond)).
		WithText(factor.ClockSync, "hca3o").
		WithText(factor.RuntimeType, "local").
		WithText(factor.Cache, "cold").
		With(factor.NoiseGuard, 1)
	base := reprobench.DefaultBase()
	ex, err := reprobench.FromDesign(de, base, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	raw, baseRaw := ex.Raw(), base.Raw()
	for _, id := range factor.DesignColumns() {
		if id.Row().Call {
			continue
		}
		if !de.Factors.Has(id) {
			t.Errorf("%s: the test's row sets no level of this method factor", id)
			continue
		}
		if got, want := raw.Factors.Cell(id), de.Factors.Cell(id); got != want {
			t.Errorf("%s: raw cell %q, want the design's %q", id, got, want)
		}
		if baseRaw.Factors.Cell(id) == de.Factors.Cell(id) {
			t.Errorf("%s: the design's level %q is the base's, which proves nothing", id, de.Factors.Cell(id))
		}
	}
	for id := range factor.NumIDs {
		if ex.Params.Has(id) && !id.Row().Call {
			t.Errorf("method factor %s left in the call parameters: %v", id, ex.Params)
		}
	}
	for _, id := range []factor.ID{factor.ProcSync, factor.ClockSync, factor.RuntimeType, factor.Cache} {
		bad := de
		bad.Factors = de.Factors.WithText(id, "bogus:x=1")
		if _, err := reprobench.FromDesign(bad, base, 1, 2); err == nil || !strings.HasPrefix(err.Error(), "reprobench: d.csv:3: ") {
			t.Errorf("%s bogus:x=1: %v, want an error naming d.csv:3", id, err)
		}
	}
	long := de
	long.Factors = de.Factors.With(factor.Window, int64(2*time.Second))
	if _, err := reprobench.FromDesign(long, base, 1, 2); err == nil || !strings.Contains(err.Error(), "d.csv:3") || !strings.Contains(err.Error(), "window_s 2s") {
		t.Errorf("window_s 2: %v, want an error naming d.csv:3 and window_s 2s", err)
	}
}
