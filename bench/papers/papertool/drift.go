package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
)

// clockcheckJSON is the part of "reprobench clockcheck --json" we use.
type clockcheckJSON struct {
	Algorithm     string  `json:"algorithm"`
	Ranks         int     `json:"ranks"`
	Simulated     bool    `json:"simulated"`
	SyncDurationS float64 `json:"sync_duration_s"`
	Messages      int     `json:"messages"`
	Checks        []struct {
		AfterS          float64  `json:"after_s"`
		MaxAbsOffsetS   float64  `json:"max_abs_offset_s"`
		MedianAbsOffset float64  `json:"median_abs_offset_s"`
		TrueMaxAbsErr   *float64 `json:"true_max_abs_error_s"`
	} `json:"checks"`
}

// driftResult summarizes one clockcheck run.
type driftResult struct {
	Label         string  `json:"label"`
	Algorithm     string  `json:"algorithm"`
	Ranks         int     `json:"ranks"`
	Simulated     bool    `json:"simulated"`
	SyncDurationS float64 `json:"sync_duration_s"`
	// SlopePPM is the Theil-Sen slope (median of the pairwise slopes, robust
	// to a single disturbed check) of max |offset| over the time since the
	// synchronization, in µs per s (= ppm).
	SlopePPM       float64 `json:"max_abs_offset_slope_ppm"`
	MaxAbsOffsetS0 float64 `json:"max_abs_offset_at_0_s"`
	MaxAbsOffsetSL float64 `json:"max_abs_offset_at_last_s"`
	LastAfterS     float64 `json:"last_after_s"`
	// WorstS is the largest max |offset| of any check, at WorstAfterS.
	WorstS      float64 `json:"worst_max_abs_offset_s"`
	WorstAfterS float64 `json:"worst_after_s"`
}

// cmdDrift tabulates and plots |offset| over time for several clockcheck
// runs given as LABEL=FILE.json (Hunold & Carpen-Amarie 2016, §4.2, Fig. 7).
func cmdDrift(args []string) error {
	fs := flag.NewFlagSet("drift", flag.ContinueOnError)
	out := fs.String("out", ".", "output directory")
	name := fs.String("name", "drift", "output file prefix")
	title := fs.String("title", "", "plot title")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var rows [][]string
	var results []driftResult
	var lines []any
	for _, arg := range fs.Args() {
		label, path, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("drift: want LABEL=FILE.json, got %q", arg)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var c clockcheckJSON
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(c.Checks) == 0 {
			return fmt.Errorf("%s: no checks", path)
		}
		r := driftResult{Label: label, Algorithm: c.Algorithm, Ranks: c.Ranks, Simulated: c.Simulated, SyncDurationS: c.SyncDurationS}
		var pts plotter.XYs
		var xs, ys []float64
		for _, ck := range c.Checks {
			truth := ""
			if ck.TrueMaxAbsErr != nil {
				truth = g(*ck.TrueMaxAbsErr)
			}
			rows = append(rows, []string{label, c.Algorithm, strconv.Itoa(c.Ranks), strconv.FormatBool(c.Simulated), g(c.SyncDurationS),
				g(ck.AfterS), g(ck.MaxAbsOffsetS), g(ck.MedianAbsOffset), truth})
			// Log axis: clamp to 1 ns so a zero cannot break the plot.
			pts = append(pts, plotter.XY{X: ck.AfterS, Y: math.Max(1e6*ck.MaxAbsOffsetS, 1e-3)})
			xs, ys = append(xs, ck.AfterS), append(ys, ck.MaxAbsOffsetS)
			if ck.MaxAbsOffsetS > r.WorstS {
				r.WorstS, r.WorstAfterS = ck.MaxAbsOffsetS, ck.AfterS
			}
		}
		var slopes []float64
		for i := range xs {
			for j := i + 1; j < len(xs); j++ {
				if xs[j] != xs[i] {
					slopes = append(slopes, (ys[j]-ys[i])/(xs[j]-xs[i]))
				}
			}
		}
		slices.Sort(slopes)
		r.SlopePPM = 1e6 * analysis.Median(slopes)
		r.MaxAbsOffsetS0 = c.Checks[0].MaxAbsOffsetS
		last := c.Checks[len(c.Checks)-1]
		r.MaxAbsOffsetSL, r.LastAfterS = last.MaxAbsOffsetS, last.AfterS
		results = append(results, r)
		lines = append(lines, label, pts)
		fmt.Printf("%-17s sync %7.3f s  max|offset| at 0 s %9.3g µs, at %g s %9.3g µs, worst %9.3g µs (at %g s), Theil-Sen slope %8.3f ppm  (%s)\n",
			label, c.SyncDurationS, 1e6*r.MaxAbsOffsetS0, r.LastAfterS, 1e6*r.MaxAbsOffsetSL, 1e6*r.WorstS, r.WorstAfterS, r.SlopePPM, c.Algorithm)
	}
	if err := writeCSV(filepath.Join(*out, *name+".csv"), []string{"label", "algorithm", "ranks", "simulated", "sync_duration_s",
		"after_s", "max_abs_offset_s", "median_abs_offset_s", "true_max_abs_error_s"}, rows); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, *name+".json"), results); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = *title
	p.X.Label.Text = "time since the clock synchronization (s)"
	p.Y.Label.Text = "max |offset| to rank 0 (µs, log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(*out, *name+".png"))
}
