package report_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reprobench/reprobench/analysis/synth"
	"github.com/reprobench/reprobench/report"
)

// A report of raw files alone (no sidecars beside them): the page says what
// it could not check, and the rules that need the metadata are not met.
func Example() {
	dir, _ := os.MkdirTemp("", "report")
	defer os.RemoveAll(dir)
	var raw bytes.Buffer
	_ = synth.Write(&raw, synth.Config{RunID: "ex", Mpiruns: 6, Reps: 50, Calls: []string{"MPI_Bcast"}, Msizes: []int{8, 1024},
		Np: 2, MpirunSD: 0.05, NoiseSD: 0.1, Seed: 1})
	file := filepath.Join(dir, "ex.csv")
	_ = os.WriteFile(file, raw.Bytes(), 0o644)

	side, err := report.Load([]string{file}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := report.New([]*report.Side{side}, report.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ru := range r.Rules {
		fmt.Printf("rule %2d: %s\n", ru.Number, ru.Status)
	}
	var page bytes.Buffer
	fmt.Println(r.WriteHTML(&page), page.Len() > 10000)
	// Output:
	// rule  1: not applicable
	// rule  2: the data cannot show
	// rule  3: met
	// rule  4: not applicable
	// rule  5: met
	// rule  6: met
	// rule  7: not applicable
	// rule  8: met
	// rule  9: not met
	// rule 10: partly met
	// rule 11: the data cannot show
	// rule 12: met
	// <nil> true
}
