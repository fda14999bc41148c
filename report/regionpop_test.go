package report

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// TestRegionAnalysisView: the report's Regions section carries the
// incomplete mark and each kind of misuse (warned), the totals with their
// share and imbalance, and the POP rows with their verdicts, from a
// hand-built sidecar.
func TestRegionAnalysisView(t *testing.T) {
	raw := []byte(`{"totals":[{"region":"compute","labels":"","ranks":2,"sum_s":3,"max_s":2,"min_s":1}],` +
		`"run_s":2.5,"bound_s":1e-6,"compute":["compute"],"incomplete":true,` +
		`"misuse":{"misuses":1,"drops":2,"unclosed":3,"first":"End(\"x\") without Begin"}}`)
	a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "app"}, &rawdata.Metadata{Np: 2, Regions: raw}, "", analysis.DefaultRegionOptions)
	if err != nil {
		t.Fatal(err)
	}
	var rv regionView
	regionAnalysisView(&rv, a)
	for _, want := range []string{"INCOMPLETE RUN", "1 misuses, 2 dropped, 3 unclosed", `End("x") without Begin`} {
		if !strings.Contains(rv.Account, want) {
			t.Errorf("account %q lacks %q", rv.Account, want)
		}
	}
	if !rv.Warn || len(rv.Totals) != 1 || rv.Totals[0].Share != "60.0%" || rv.Totals[0].Imbalance != "1.333" {
		t.Errorf("view %+v", rv)
	}
	if len(rv.POP) != 3 || rv.POP[0].Value != "0.750" || rv.POP[0].Verdict != "concluded" || rv.POP[1].Value != "0.800" {
		t.Errorf("POP rows %+v", rv.POP)
	}
	// Clean run: no warning.
	a.Incomplete, a.Misuse = false, rawdata.RegionMisuse{}
	rv = regionView{}
	regionAnalysisView(&rv, a)
	if rv.Warn || !strings.Contains(rv.Account, "none (0 misuses") {
		t.Errorf("clean run's account %q (warn %v)", rv.Account, rv.Warn)
	}
}

// TestDescribeRegions: the page's one-line description of a run of
// application regions names the regions, not a size or a datatype.
func TestDescribeRegions(t *testing.T) {
	got := describe(Overview{Regions: []string{"compute", "halo"}, Nps: []int{4}})
	if got != "application regions compute, halo on 4 processes" {
		t.Errorf("describe: %q", got)
	}
	got = describe(Overview{Calls: []string{"Bcast"}, Sizes: []int{8}, Datatypes: []string{"byte"}, Nps: []int{2}})
	if got != "Bcast at 8 B (byte) on 2 processes" {
		t.Errorf("describe of a benchmark: %q", got)
	}
}
