package tables

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// TestWriteRegionRunsAccount: analyze's text names an incomplete run and
// each kind of misuse the sidecar counted (hand-built sidecar), beside the
// totals and the POP efficiencies from the sidecar's totals.
func TestWriteRegionRunsAccount(t *testing.T) {
	raw := []byte(`{"totals":[{"region":"compute","labels":"phase=x","ranks":2,"sum_s":3,"max_s":2,"min_s":1}],` +
		`"run_s":2.5,"bound_s":1e-6,"compute":["compute"],"incomplete":true,` +
		`"misuse":{"misuses":1,"drops":2,"unclosed":3,"first":"End(\"x\") without Begin"}}`)
	a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "app"}, &rawdata.Metadata{Np: 2, Regions: raw}, "", analysis.DefaultRegionOptions)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRegionRuns(&b, []*analysis.RegionRunAnalysis{a}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"INCOMPLETE RUN", "1 misuses", "2 dropped", "3 unclosed", `End("x") without Begin`,
		"compute [phase=x]", "60.0%", "1.333", "load balance (mean/max useful)            0.750"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "msize") || strings.Contains(out, "byte") {
		t.Errorf("benchmark vocabulary in:\n%s", out)
	}
}
