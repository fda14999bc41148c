package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/plots"
)

func init() {
	register(command{
		name:    "plot",
		summary: "plot raw observations: box, violin, mpiruns, hist, qq, acf, compare (with stars) or drift, to PNG or SVG",
		run:     runPlot,
	})
}

func runPlot(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("plot", "--kind box|violin|mpiruns|hist|qq|acf|compare|drift|qreg -o FILE.png|.svg [--group SUBSTR] FILES... [-- B-FILES...]", stderr)
	var o anOptions
	o.register(false, fs, "")
	kind := fs.String("kind", "box", "plot kind: box, violin, mpiruns (each mpirun's median and interquartile range relative to the group's median), hist, qq, acf, compare, drift, qreg (quantile differences B−A over τ, Hoefler & Belli 2015, Fig. 4)")
	outFile := fs.String("o", "", "output file; the extension (.png, .svg, .pdf) selects the format")
	group := fs.String("group", "", "only groups whose name contains this substring (hist, qq, acf and drift plot the first match)")
	by := fs.String("by", "", "for --kind compare: compare the values of this label within one data set")
	width := fs.Float64("width", 8, "width in inches")
	height := fs.Float64("height", 0, "height in inches (0: 5, or enough for one readable row per group with box, violin, mpiruns and compare)")
	logFlag := fs.String("log", "auto", "log scale for the run-time axis of box and violin: auto (when the largest median exceeds the smallest by more than 10×), on or off")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	lm, err := plots.ParseLogMode(*logFlag)
	if err != nil {
		return fmt.Errorf("%w: --log: %v", errUsage, err)
	}
	ext := strings.ToLower(filepath.Ext(*outFile))
	if err := plots.CheckSize(*width, *height, ext); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *outFile != "" && ext != ".png" && ext != ".svg" && ext != ".pdf" {
		return fmt.Errorf("%w: output must end in .png, .svg or .pdf", errUsage)
	}
	size := plots.Size{Width: *width, Height: *height}
	if *outFile == "" {
		return fmt.Errorf("%w: -o FILE is required", errUsage)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: no input files", errUsage)
	}
	files := fs.Args()
	var bFiles []string
	if i := slices.Index(files, "--"); i >= 0 {
		files, bFiles = files[:i], files[i+1:]
	}
	d, err := anReadFiles(os.Stdin, files, o.keepDup)
	if err != nil {
		return err
	}
	sums := analysis.Analyze(d, opt)
	var sel []analysis.GroupSummary
	for _, s := range sums {
		if strings.Contains(s.Key.String(), *group) && s.N > 0 {
			sel = append(sel, s)
		}
	}
	if len(sel) == 0 && *kind != "compare" && *kind != "qreg" {
		return fmt.Errorf("no group with observations matches %q", *group)
	}
	groupData := func(k analysis.GroupKey) *analysis.Group {
		for _, g := range d.Groups {
			if g.Key == k {
				return g
			}
		}
		return nil
	}
	// Say what the figure leaves out: the plotted groups' invalid and bad
	// observations.
	use := func(k analysis.GroupKey) bool { return strings.Contains(k.String(), *group) }
	if len(sel) > 0 && (*kind == "hist" || *kind == "qq" || *kind == "acf" || *kind == "drift") {
		use = func(k analysis.GroupKey) bool { return k == sel[0].Key }
	}
	setA := ""
	if len(bFiles) > 0 {
		setA = "A"
	}
	reportDropped(stderr, "plot", setA, d, use)
	var fig plots.Figure
	switch *kind {
	case "box", "violin":
		if len(sel) > 40 {
			return fmt.Errorf("%d groups: too many for one plot, select with --group", len(sel))
		}
		fig, err = plots.Distributions(d, sel, opt, *kind == "violin", lm, size)
		if errors.Is(err, plots.ErrLogAxis) {
			err = fmt.Errorf("%w: --log on: %v", errUsage, err)
		}
	case "mpiruns":
		if len(sel) > 40 {
			return fmt.Errorf("%d groups: too many for one plot, select with --group", len(sel))
		}
		fig, err = plots.Mpiruns(d, sel, opt, size)
	case "hist", "qq", "acf", "drift":
		if len(sel) > 1 {
			fmt.Fprintf(stderr, "plot: %d groups match; plotting %s (choose with --group)\n", len(sel), sel[0].Key)
		}
		g := groupData(sel[0].Key)
		switch *kind {
		case "hist":
			fig, err = plots.Hist(g, sel[0], size)
		case "qq":
			fig, err = plots.QQ(g, sel[0], opt.TukeyK, size)
		case "acf":
			fig, err = plots.ACF(g, size)
		case "drift":
			fig, err = plots.Drift(d, g, opt.TukeyK, size)
		}
	case "qreg":
		ga, gb, nameA, nameB, perr := qregPair(d, bFiles, *by, *group, o.keepDup, stderr)
		if perr != nil {
			return perr
		}
		fmt.Fprintf(stderr, "plot: quantile regression of %s (%s) against %s (%s)\n", gb.Key, nameB, ga.Key, nameA)
		fig, err = plots.QReg(ga, gb, nameA, nameB, *by, opt, size)
	case "compare":
		var rows []analysis.Comparison
		switch {
		case *by != "":
			rows, err = analysis.CompareBy(d, *by, opt)
		case len(bFiles) > 0:
			var db *analysis.Dataset
			if db, err = anReadFiles(os.Stdin, bFiles, o.keepDup); err == nil {
				reportDropped(stderr, "plot", "B", db, use)
				var onlyA, onlyB []analysis.GroupKey
				rows, onlyA, onlyB = analysis.Compare(d, db, opt)
				if len(rows) == 0 {
					err = fmt.Errorf("nothing to compare: no group of A (%d) matches one of B (%d), even without the labels that name the sides (%s); to compare label values within one data set use --by LABEL",
						len(onlyA), len(onlyB), strings.Join(analysis.SideLabels(d, db), ", "))
				}
			}
		default:
			return fmt.Errorf("%w: --kind compare needs A-FILES -- B-FILES or --by LABEL", errUsage)
		}
		if err == nil {
			var keep []analysis.Comparison
			for _, r := range rows {
				if strings.Contains(r.Key.String(), *group) {
					keep = append(keep, r)
				}
			}
			if len(keep) == 0 {
				return fmt.Errorf("nothing to compare")
			}
			if len(keep) > 40 {
				return fmt.Errorf("%d comparisons: too many for one plot, select with --group", len(keep))
			}
			for _, r := range keep {
				for _, wn := range r.Warnings {
					fmt.Fprintf(stderr, "plot: warning: %s: %s\n", r.Key, wn)
				}
			}
			fig, err = plots.Compare(keep, opt.Level, size)
		}
	default:
		return fmt.Errorf("%w: unknown --kind %q", errUsage, *kind)
	}
	if err != nil {
		return err
	}
	for _, wn := range fig.Warnings {
		fmt.Fprintln(stderr, "plot: "+wn)
	}
	if plotHook != nil {
		plotHook(*kind, fig.Plot, fig.Width, fig.Height)
	}
	return fig.Save(*outFile)
}

// plotHook, when set (by tests), sees every figure before it is saved.
var plotHook func(kind string, p *plot.Plot, w, h vg.Length)

// qregPair finds the first pair of groups matching group for the quantile
// regression: two values of label by in d, or a group of d and the group
// of the data set in bFiles that matches it as compare matches (without
// the labels that name the sides).
func qregPair(d *analysis.Dataset, bFiles []string, by, group string, keepDup bool, stderr io.Writer) (ga, gb *analysis.Group, nameA, nameB string, err error) {
	match := func(g *analysis.Group) bool { return strings.Contains(g.Key.String(), group) && len(g.Runtimes) > 0 }
	switch {
	case by != "":
		for _, g := range d.Groups {
			if !match(g) || g.Key.LabelValue(by) == "" {
				continue
			}
			if ga == nil {
				ga = g
				continue
			}
			if g.Key.WithoutLabel(by) == ga.Key.WithoutLabel(by) && g.Key.LabelValue(by) != ga.Key.LabelValue(by) {
				gb = g
				break
			}
		}
		if ga != nil && gb != nil {
			if gb.Key.LabelValue(by) < ga.Key.LabelValue(by) {
				ga, gb = gb, ga
			}
			nameA, nameB = ga.Key.LabelValue(by), gb.Key.LabelValue(by)
		}
	case len(bFiles) > 0:
		db, err := anReadFiles(os.Stdin, bFiles, keepDup)
		if err != nil {
			return nil, nil, "", "", err
		}
		reportDropped(stderr, "plot", "B", db, func(k analysis.GroupKey) bool { return strings.Contains(k.String(), group) })
		// Matched as compare matches: without the labels that name the sides.
		side := analysis.SideLabels(d, db)
		strip := func(k analysis.GroupKey) analysis.GroupKey {
			for _, n := range side {
				k = k.WithoutLabel(n)
			}
			return k
		}
		for _, g := range d.Groups {
			if !match(g) {
				continue
			}
			for _, h := range db.Groups {
				if strip(h.Key) == strip(g.Key) && len(h.Runtimes) > 0 {
					ga, gb = g, h
					break
				}
			}
			if gb != nil {
				break
			}
		}
		nameA, nameB = "A", "B"
	default:
		return nil, nil, "", "", fmt.Errorf("%w: --kind qreg needs A-FILES -- B-FILES or --by LABEL", errUsage)
	}
	if ga == nil || gb == nil {
		return nil, nil, "", "", fmt.Errorf("no pair of groups to compare matches %q", group)
	}
	return ga, gb, nameA, nameB, nil
}
