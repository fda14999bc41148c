package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportModes checks that the per-group table gives each mode's
// median and share of mpiruns and names the covariate that explains them,
// for 20 mpiruns in which an odd prehistory_msgs makes a mpirun 1.4×
// slower.
func TestReportModes(t *testing.T) {
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
	p := filepath.Join(t.TempDir(), "modes.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load([]string{p}, false)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := New([]*Side{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteHTML(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 modes: ", "in 10 of 20 mpiruns (50", "explained by prehistory_msgs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
