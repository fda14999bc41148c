package plots_test

import (
	"bytes"
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/analysis/synth"
	"github.com/reprobench/reprobench/plots"
)

// Distributions draws the violins of the groups analyze reports, here of a
// synthetic campaign of two libraries; SVG renders it for a web page.
func ExampleDistributions() {
	var raw bytes.Buffer
	_ = synth.Write(&raw, synth.Config{RunID: "ex", Mpiruns: 6, Reps: 50, Calls: []string{"MPI_Bcast"}, Msizes: []int{8, 1024},
		Np: 2, Label: "lib", LabelValues: []string{"a", "b"}, Factors: []float64{1, 1.3}, MpirunSD: 0.05, NoiseSD: 0.1, Seed: 1})
	d, err := analysis.ReadRaw(&raw, "ex.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	sums := analysis.Analyze(d, analysis.DefaultOptions)
	fig, err := plots.Distributions(d, sums, analysis.DefaultOptions, true, plots.LogAuto, plots.Size{})
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, err := fig.SVG()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f × %.1f in, SVG: %v, warnings: %d\n", float64(fig.Width/vg.Inch), float64(fig.Height/vg.Inch), strings.Contains(string(svg), "<svg"), len(fig.Warnings))
	// Output:
	// 8 × 3.0 in, SVG: true, warnings: 0
}

// The run-time axis of Distributions is logarithmic when asked (LogOn),
// linear when asked (LogOff), and by the medians' spread with LogAuto; the
// values are "plot --log"'s.
func ExampleParseLogMode() {
	for _, s := range []string{"on", "off", "auto", "sideways"} {
		m, err := plots.ParseLogMode(s)
		fmt.Println(m == plots.LogOn, m == plots.LogOff, err)
	}
	fmt.Println(plots.LogAuto) // the default
	// Output:
	// true false <nil>
	// false true <nil>
	// false false <nil>
	// false false log scale must be auto, on or off, not "sideways"
	// auto
}
