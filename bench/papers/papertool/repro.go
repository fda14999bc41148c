package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/bench/internal/stats"
)

// reproSummary is the reproducibility metric of Hunold & Carpen-Amarie 2016
// (§6.3) for one method and group: trial values normalized by their minimum.
type reproSummary struct {
	Method        string    `json:"method"`
	Group         string    `json:"group"`
	Trials        int       `json:"trials"`
	MinS          float64   `json:"min_s"`
	MedianS       float64   `json:"median_s"`
	MaxS          float64   `json:"max_s"`
	MaxNormalized float64   `json:"max_normalized"`
	IQRNormalized float64   `json:"iqr_normalized"`
	CoV           float64   `json:"cov"`
	Normalized    []float64 `json:"normalized"`
}

// cmdRepro computes one value per trial and group for two methods and the
// normalized values value/min over trials. "ours": DIR/tNN/*-mpirunNNN.csv
// hold the mpiruns of trial NN; the value is the mean of the per-mpirun
// medians after Tukey's filter (Hunold & Carpen-Amarie 2016, Alg. 6 and
// §6.3, which take the mean of a trial's n values). "loop":
// DIR/tNN/*-mpirunNNN.csv hold one mpirun of loop-averaged observations; the
// value is their median (one observation: the IMB/OSU number itself).
func cmdRepro(args []string) error {
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	out := fs.String("out", ".", "output directory")
	ours := fs.String("ours", "", "directory of the trials of our method")
	loop := fs.String("loop", "", "directory of the trials of the loop-averaged method")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ours == "" || *loop == "" {
		return fmt.Errorf("repro: want -ours DIR -loop DIR")
	}
	var rows [][]string
	var sums []reproSummary
	type mg struct{ method, group string }
	values := map[mg][]float64{}
	var groups []string
	for _, m := range []struct{ name, dir string }{{"ours", *ours}, {"loop", *loop}} {
		trials, err := filepath.Glob(filepath.Join(m.dir, "t[0-9]*"))
		if err != nil {
			return err
		}
		slices.Sort(trials)
		if len(trials) == 0 {
			return fmt.Errorf("repro: no trials in %s", m.dir)
		}
		for ti, tdir := range trials {
			files, err := filepath.Glob(filepath.Join(tdir, "*-mpirun[0-9][0-9][0-9].csv"))
			if err != nil {
				return err
			}
			all, err := readAll(files)
			if err != nil {
				return err
			}
			perGroup := map[string]*analysis.Group{}
			unitIdx := map[string]int32{}
			for _, o := range all {
				if o.code != 0 {
					continue
				}
				gr := perGroup[o.key]
				if gr == nil {
					gr = &analysis.Group{}
					perGroup[o.key] = gr
					if !slices.Contains(groups, o.key) {
						groups = append(groups, o.key)
					}
				}
				u := o.unit(false)
				if _, ok := unitIdx[u]; !ok {
					unitIdx[u] = int32(len(unitIdx))
				}
				gr.Runtimes = append(gr.Runtimes, o.runtime)
				gr.Mpirun = append(gr.Mpirun, unitIdx[u])
			}
			for key, gr := range perGroup {
				var v float64
				if m.name == "ours" {
					s := analysis.AnalyzeGroup(gr, analysis.Options{TukeyK: 1.5, Level: 0.95, Alpha: 0.05})
					v = analysis.Mean(s.MpirunMedians)
				} else {
					v = analysis.Median(gr.Runtimes)
				}
				values[mg{m.name, key}] = append(values[mg{m.name, key}], v)
				rows = append(rows, []string{m.name, key, strconv.Itoa(ti), g(v)})
			}
		}
	}
	slices.SortFunc(groups, func(a, b string) int {
		if c := strings.Compare(callOf(a), callOf(b)); c != 0 {
			return c
		}
		return msizeOf(a) - msizeOf(b)
	})
	for i := range rows {
		// normalized value, filled below
		rows[i] = append(rows[i], "")
	}
	var lines []any
	for mi, method := range []string{"ours", "loop"} {
		var pts plotter.XYs
		for gi, key := range groups {
			v := values[mg{method, key}]
			if len(v) == 0 {
				continue
			}
			nv := stats.Normalize(v)
			s := analysis.Summarize(v)
			ns := analysis.Summarize(nv)
			sum := reproSummary{Method: method, Group: key, Trials: len(v), MinS: s.Min, MedianS: s.Median, MaxS: s.Max,
				MaxNormalized: ns.Max, IQRNormalized: ns.Q3 - ns.Q1, CoV: s.CoV, Normalized: nv}
			sums = append(sums, sum)
			k := 0
			for i := range rows {
				if rows[i][0] == method && rows[i][1] == key {
					rows[i][4] = g(nv[k])
					k++
				}
			}
			for j, x := range nv {
				// Spread the points of a group a little so they do not hide each other.
				pts = append(pts, plotter.XY{X: float64(gi) + 0.3*float64(mi) - 0.15 + 0.01*float64(j-len(nv)/2), Y: x})
			}
		}
		label := "ours (mean of per-mpirun medians)"
		if method == "loop" {
			label = "loop average (IMB/OSU style)"
		}
		lines = append(lines, label, pts)
	}
	slices.SortFunc(sums, func(a, b reproSummary) int {
		return strings.Compare(a.Group+a.Method, b.Group+b.Method)
	})
	for _, s := range sums {
		fmt.Printf("%-34s %-5s %2d trials  median %9.4g µs  [min %9.4g, max %9.4g]  max normalized %.4f  IQR normalized %.4f  CoV %.2f%%\n",
			s.Group, s.Method, s.Trials, 1e6*s.MedianS, 1e6*s.MinS, 1e6*s.MaxS, s.MaxNormalized, s.IQRNormalized, 100*s.CoV)
	}
	if err := writeCSV(filepath.Join(*out, "repro_trials.csv"), []string{"method", "group", "trial", "value_s", "normalized"}, rows); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, "repro_summary.json"), sums); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = "normalized run time over trials (value / min over trials)"
	p.Y.Label.Text = "normalized run time (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	names := make([]string, len(groups))
	for i, k := range groups {
		names[i] = strings.Replace(strings.TrimPrefix(k, "MPI_"), "/", " ", -1)
	}
	p.NominalX(names...)
	if err := plotutil.AddScatters(p, lines...); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	if ymax := maxY(lines); !math.IsNaN(ymax) {
		p.Y.Min, p.Y.Max = 0.95, math.Max(ymax*1.1, 1.2)
	}
	return p.Save(8*vg.Inch, 4.5*vg.Inch, filepath.Join(*out, "repro_normalized.png"))
}

// maxY returns the largest Y of the point sets among lines.
func maxY(lines []any) float64 {
	m := math.NaN()
	for _, l := range lines {
		if pts, ok := l.(plotter.XYs); ok {
			for _, p := range pts {
				if math.IsNaN(m) || p.Y > m {
					m = p.Y
				}
			}
		}
	}
	return m
}

// callOf returns the call of a group key.
func callOf(key string) string { return strings.SplitN(key, "/", 2)[0] }

// msizeOf returns the message size of a group key (0 if absent).
func msizeOf(key string) int {
	for _, part := range strings.Split(key, "/") {
		if v, ok := strings.CutPrefix(part, "msize="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}
