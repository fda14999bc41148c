package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/analysis/synth"
	"github.com/reprobench/reprobench/plots"
)

func TestPlotKinds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		kind string
		args []string
	}{
		{"box", []string{anA}},
		{"mpiruns", []string{anA}},
		{"violin", []string{"--group", "msize=8/", anA}},
		{"hist", []string{"--group", "Bcast/msize=8/", anA}},
		{"qq", []string{anA}},
		{"acf", []string{anA}},
		{"drift", []string{anA}},
		{"compare", []string{anA, "--", anB}},
		{"compare", []string{"--by", "mpi_lib", anA}},
		{"qreg", []string{"--by", "mpi_lib", "--group", "Bcast/msize=8/", anA}},
		{"qreg", []string{anA, "--", anB}},
	} {
		for _, ext := range []string{".png", ".svg"} {
			out := filepath.Join(dir, c.kind+ext)
			args := append([]string{"plot", "--kind", c.kind, "-o", out}, c.args...)
			var so, se bytes.Buffer
			if err := run(&so, &se, args); err != nil {
				t.Errorf("%v: %v", args, err)
				continue
			}
			st, err := os.Stat(out)
			if err != nil || st.Size() < 1000 {
				t.Errorf("%v: output %v (%v)", args, st, err)
			}
			head, _ := os.ReadFile(out)
			if ext == ".png" && !bytes.HasPrefix(head, []byte("\x89PNG")) {
				t.Errorf("%s is not a PNG", out)
			}
			if ext == ".svg" && !bytes.Contains(head[:min(len(head), 200)], []byte("<svg")) {
				t.Errorf("%s is not an SVG", out)
			}
		}
	}
}

// TestPlotReadableLabels checks the text of SVG plots: group labels use
// human sizes and are not shortened, a log axis has time-unit ticks, and
// the compare plot marks every group with its significance.
func TestPlotReadableLabels(t *testing.T) {
	dir := t.TempDir()
	svg := func(args ...string) string {
		t.Helper()
		out := filepath.Join(dir, "p.svg")
		var so, se bytes.Buffer
		if err := run(&so, &se, append([]string{"plot", "-o", out}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	has := func(doc string, args []string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(doc, ">"+w+"<") {
				t.Errorf("%v: no text %q", args, w)
			}
		}
	}
	// a.csv: medians from 1.0 µs (Allreduce 8 B) to 11 µs (Bcast 4 KiB).
	args := []string{"--kind", "box", anA}
	doc := svg(args...)
	has(doc, args, "Allreduce, 8 B, mpi_lib=libA", "Bcast, 4 KiB, mpi_lib=libB", "np=4, MPI_INT", "run time (log scale, units on the ticks)", "1 µs", "2 µs", "5 µs", "10 µs")
	args = []string{"--kind", "violin", "--log", "off", anA}
	has(svg(args...), args, "run time [µs]", "Bcast, 4 KiB, mpi_lib=libB")
	args = []string{"--kind", "box", "--group", "msize=8/", anA} // 1.0 … 2.2 µs
	has(svg(args...), args, "run time [µs]")
	args = []string{"--kind", "compare", "--by", "mpi_lib", anA}
	doc = svg(args...)
	has(doc, args, "Allreduce, 8 B", "Bcast, 4 KiB", "libA", "libB")
	if n := strings.Count(doc, "**  p="); n != 4 {
		t.Errorf("%v: %d rows marked ** (want 4)", args, n)
	}
	var so, se bytes.Buffer
	if err := run(&so, &se, []string{"plot", "--height", "1.5", "-o", filepath.Join(dir, "x.png"), anA}); err != nil || !strings.Contains(se.String(), "labels may overlap") {
		t.Errorf("--height 1.5 with 8 groups: err = %v, stderr %q; want a warning", err, se.String())
	}
	if err := run(&so, &se, []string{"plot", "--log", "maybe", "-o", filepath.Join(dir, "x.png"), anA}); err == nil || !errors.Is(err, errUsage) {
		t.Errorf("--log maybe: err = %v, want a usage error", err)
	}
}

// TestPlotsReadable renders every kind on data with a few far outliers
// (×10, as a stalled rank gives) and checks what a reader needs: every
// title line fits the figure, axes carry units, the run-time axis of hist
// and drift shows the bulk instead of running to the outliers, compare's
// range holds the ratio intervals, and box/violin put the groups of one
// message size next to each other.
func TestPlotsReadable(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := synth.Write(&b, synth.Config{RunID: "r", Mpiruns: 6, Reps: 60, Calls: []string{"MPI_Allreduce", "MPI_Bcast"},
		Msizes: []int{8, 4096}, Np: 4, Label: "library_with_a_long_name", LabelValues: []string{"openmpi-4.1.4-ucx", "mpich-4.0.2-ch4"},
		Factors: []float64{1, 1.3}, MpirunSD: 0.05, NoiseSD: 0.08, OutlierFrac: 0.01, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := anReadFiles(nil, []string{data}, false)
	if err != nil {
		t.Fatal(err)
	}
	type shot struct {
		p    *plot.Plot
		w, h vg.Length
	}
	var got shot
	plotHook = func(kind string, p *plot.Plot, w, h vg.Length) { got = shot{p, w, h} }
	defer func() { plotHook = nil }()
	for _, c := range []struct {
		kind string
		args []string
	}{
		{"box", nil}, {"violin", nil}, {"mpiruns", nil},
		{"hist", []string{"--group", "Bcast/msize=8/"}}, {"drift", []string{"--group", "Bcast/msize=8/"}},
		{"qq", nil}, {"acf", nil}, {"compare", []string{"--by", "library_with_a_long_name"}},
		{"qreg", []string{"--by", "library_with_a_long_name"}},
	} {
		got = shot{}
		args := append([]string{"plot", "--kind", c.kind, "-o", filepath.Join(dir, c.kind+".png")}, c.args...)
		var so, se bytes.Buffer
		if err := run(&so, &se, append(args, data)); err != nil {
			t.Errorf("%s: %v", c.kind, err)
			continue
		}
		p := got.p
		if p == nil {
			t.Fatalf("%s: plotHook not called", c.kind)
		}
		for _, l := range strings.Split(p.Title.Text, "\n") {
			if tw := p.Title.TextStyle.Width(l); tw > got.w-2*plots.Margin {
				t.Errorf("%s: title line %q is %.0f pt wide, the figure %.0f pt", c.kind, l, tw, got.w)
			}
		}
		if !strings.Contains(p.X.Label.Text, "[") && !strings.Contains(p.X.Label.Text, "log scale") {
			t.Errorf("%s: x axis %q has no unit", c.kind, p.X.Label.Text)
		}
		switch c.kind {
		case "hist", "drift":
			// The run-time axis (in the unit of the group's median) must
			// end far below the largest outlier.
			var g *analysis.Group
			for _, sum := range analysis.Analyze(d, analysis.DefaultOptions) {
				if strings.Contains(sum.Key.String(), "Bcast/msize=8/") {
					g = d.Groups[slices.IndexFunc(d.Groups, func(x *analysis.Group) bool { return x.Key == sum.Key })]
					break
				}
			}
			_, sc := analysis.TimeUnit(analysis.Median(g.Runtimes))
			top, ax := slices.Max(g.Runtimes)*sc, p.X.Max
			if c.kind == "drift" {
				ax = p.Y.Max
			}
			if ax > 0.5*top {
				t.Errorf("%s: the run-time axis runs to %g, the largest outlier is %g: the bulk is squashed", c.kind, ax, top)
			}
			if c.kind == "hist" && !strings.Contains(p.Title.Text, "not shown") {
				t.Errorf("hist: the title does not count the outliers left out: %q", p.Title.Text)
			}
		case "compare":
			rows, err := analysis.CompareBy(d, "library_with_a_long_name", analysis.DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.RatioCI.Valid() && r.RatioCI.Hi > p.X.Max {
					t.Errorf("compare: ratio interval up to %g beyond the axis (%g)", r.RatioCI.Hi, p.X.Max)
				}
			}
		case "box", "violin", "mpiruns":
			// Tick labels top to bottom: the groups of one size are adjacent.
			ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
			var names []string
			for i := len(ticks) - 1; i >= 0; i-- {
				if ticks[i].Label != "" {
					names = append(names, strings.ReplaceAll(ticks[i].Label, "\n", " "))
				}
			}
			for i := 0; i+1 < len(names); i += 2 {
				size := func(s string) string { return strings.SplitN(s, ",", 3)[1] }
				if size(names[i]) != size(names[i+1]) {
					t.Errorf("%s: rows %q and %q are not the two libraries at one size", c.kind, names[i], names[i+1])
				}
			}
		}
	}
}
