package main

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

// writeModesCSV writes a raw file of 20 mpiruns of 8-byte allreduce in
// which an odd prehistory_msgs makes the mpirun 1.4× slower, and returns
// its path.
func writeModesCSV(t *testing.T) string {
	t.Helper()
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
	return p
}

// TestAnalyzeModes checks that analyze's modes column and its warning
// flag a split group and name the covariate that explains it, and that
// --by makes the covariate part of the group key.
func TestAnalyzeModes(t *testing.T) {
	p := writeModesCSV(t)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--columns", "n,mpiruns,median,modes", p}); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if !strings.Contains(out.String(), "modes") || !strings.Contains(out.String(), "2: 1.00×50% ") || !strings.Contains(out.String(), "(prehistory_msgs)") {
		t.Errorf("analyze did not flag the modes:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "split into 2 modes") || !strings.Contains(out.String(), "explained by prehistory_msgs") {
		t.Errorf("no warning about the modes:\n%s", out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", "--by", "prehistory_msgs", p}); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if strings.Count(out.String(), "prehistory_msgs=") != 4 || strings.Contains(out.String(), "2: ") {
		t.Errorf("analyze --by prehistory_msgs: want 4 groups without modes:\n%s", out.String())
	}
	if err := run(&out, &errb, []string{"analyze", "--by", "procsync", p}); err == nil {
		t.Error("--by accepted a factor column")
	}
}
