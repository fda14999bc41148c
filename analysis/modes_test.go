package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// modesCSV returns a raw file of 20 mpiruns of one group whose runtime is
// 1.4× slower when the mpirun's prehistory_msgs is odd.
func modesCSV() string {
	r := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,prehistory_msgs\n")
	for m := range 20 {
		c := m % 4
		base := 1e-6 * math.Exp(0.03*r.NormFloat64())
		if c%2 == 1 {
			base *= 1.4
		}
		for rep := range 30 {
			fmt.Fprintf(&b, "r,%d,0,MPI_Allreduce,8,1,float64,2,%d,%g,0,barrier,%d\n", m, rep, base*(1+0.01*r.Float64()), c)
		}
	}
	return b.String()
}

func TestModesFromRawData(t *testing.T) {
	d, err := ReadRaw(strings.NewReader(modesCSV()), "modes.csv")
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
	if err := g.Read(strings.NewReader(modesCSV()), "modes.csv"); err != nil {
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
