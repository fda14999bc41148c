package report_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reprobench/reprobench/analysis/synth"
	"github.com/reprobench/reprobench/report"
)

// A Report's fields are plain data: two sides of synthetic raw files of
// the same model (different seeds), read without the HTML.
func Example_data() {
	dir, _ := os.MkdirTemp("", "report")
	defer os.RemoveAll(dir)
	var sides []*report.Side
	for i := range 2 {
		var raw bytes.Buffer
		_ = synth.Write(&raw, synth.Config{RunID: fmt.Sprint("side", i), Mpiruns: 6, Reps: 50, Calls: []string{"MPI_Bcast"},
			Msizes: []int{8}, Np: 2, MpirunSD: 0.01, NoiseSD: 0.05, Seed: uint64(i + 1)})
		file := filepath.Join(dir, fmt.Sprint("side", i, ".csv"))
		_ = os.WriteFile(file, raw.Bytes(), 0o644)
		side, err := report.Load([]string{file}, false)
		if err != nil {
			fmt.Println(err)
			return
		}
		var files []report.File = side.Files
		fmt.Println("side", i, "files", len(files))
		sides = append(sides, side)
	}
	r, err := report.New(sides, report.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var ov report.Overview = r.Overviews[0]
	var factors []report.Factor = ov.Factors
	fmt.Println("mpiruns", ov.Mpiruns, "calls", ov.Calls, "factors", len(factors))
	var g report.Group = r.Groups[0][0]
	var runs []report.MpirunStats = g.Mpiruns
	fmt.Println("group", g.Key.Call, "mpiruns", len(runs))
	var m report.Method = r.Methods[0]
	var warmup report.Range = m.Warmup
	fmt.Println("experiments", m.Experiments, "warmup range n", warmup.N)
	var mach report.Machine = r.Machines[0]
	var facts []report.Fact = mach.Facts
	var cmds []report.Command = mach.Commands
	fmt.Println("facts", len(facts), "commands", len(cmds))
	var cmp *report.Comparison = r.Comparison
	fmt.Println("compared rows", len(cmp.Rows), "ratio within 10 %:", cmp.Rows[0].Ratio > 0.9 && cmp.Rows[0].Ratio < 1.1)
	// Output:
	// side 0 files 1
	// side 1 files 1
	// mpiruns 6 calls [MPI_Bcast] factors 0
	// group MPI_Bcast mpiruns 6
	// experiments 0 warmup range n 0
	// facts 1 commands 0
	// compared rows 1 ratio within 10 %: true
}
