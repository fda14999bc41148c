package analysis

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/rawcases"
)

func TestModesFromRawData(t *testing.T) {
	d, err := ReadRaw(strings.NewReader(rawcases.ModesCSV()), "modes.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 1 || len(d.Covariates) != 1 || d.Covariates[0] != "prehistory_msgs" {
		t.Fatalf("%d groups, covariates %v: want one group, the covariate not in its key", len(d.Groups), d.Covariates)
	}
	s := Analyze(d, DefaultOptions)[0]
	if len(s.Modes.Modes) != 2 || len(s.Modes.ExplainedBy) != 1 || s.Modes.ExplainedBy[0] != "prehistory_msgs" {
		t.Errorf("modes %s, explained by %v; want 2 modes explained by prehistory_msgs", s.Modes, s.Modes.ExplainedBy)
	}
	if !strings.Contains(strings.Join(s.Warnings, ";"), "2 modes") {
		t.Errorf("no warning about modes: %q", s.Warnings)
	}
	g := NewDataset()
	g.GroupBy = []string{"prehistory_msgs"}
	if err := g.Read(strings.NewReader(rawcases.ModesCSV()), "modes.csv"); err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) != 4 || len(g.Covariates) != 0 {
		t.Errorf("grouped by prehistory_msgs: %d groups, covariates %v; want 4 groups", len(g.Groups), g.Covariates)
	}
	for _, s := range Analyze(g, DefaultOptions) {
		if s.Modes.Split() {
			t.Errorf("%v: modes within one prehistory count: %s", s.Key, s.Modes)
		}
	}
}
