package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/plots"
	"github.com/reprobench/reprobench/report"
)

func init() {
	register(command{
		name:    "report",
		summary: "one self-contained HTML page of a campaign (or two, compared): summary, groups, comparison, method, machine, the 12 rules of Hoefler and Belli checked",
		run:     runReport,
	})
}

const reportSynopsis = `[-o FILE.html] [--title T] [--tukey K] [--level L] [--alpha A] [--percentiles 50,90,99] RAW.csv... [-- RAW.csv...]

Reads raw files and, beside each, the metadata sidecar of every mpirun in it
and the campaign manifest of its run id, and writes one HTML page that a
reader can judge without any other file: what was measured, the headline
medians with their intervals, every group's distribution and per-mpirun
medians, the comparison of B with A when two data sets are given, how the
times were measured (process and clock synchronization, windows, warm-up,
timer), the machine and the commands to reproduce the campaign, and the 12
rules of Hoefler and Belli (SC15), each met, partly met, not met, or marked
as what the data cannot show. The page has inline CSS and SVG, no script,
and loads nothing from the network.`

func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("report", reportSynopsis, stderr)
	var o anOptions
	o.register(false, fs, "")
	out := fs.String("o", "report.html", "output file")
	title := fs.String("title", "", "page title (default: from the run ids)")
	alpha := fs.Float64("alpha", 0.05, "significance level of the comparison and of the normality tests")
	pcts := fs.String("percentiles", "50,90,99", "tail percentiles of each group, as in analyze --percentiles (docs/percentiles.md); \"none\" leaves the table out")
	compute := fs.String("compute", "", "application regions: the region `names`, comma-separated, that are useful computation for the POP efficiencies (default: those the recorder marked)")
	iters := fs.String("region-iters", "", "the timeline of application regions (package region) shows iterations [`FROM:TO`); default: 4 from the middle of the run")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	var regionIters [2]int64
	if *iters != "" {
		a, b, ok := strings.Cut(*iters, ":")
		from, err1 := strconv.ParseInt(a, 10, 64)
		to, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || from < 0 || to <= from {
			return fmt.Errorf("%w: --region-iters %q: want FROM:TO with 0 ≤ FROM < TO", errUsage, *iters)
		}
		regionIters = [2]int64{from, to}
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("%w: --alpha must be in (0, 1)", errUsage)
	}
	opt.Alpha = *alpha
	if *pcts != "none" {
		if opt.Percentiles, err = analysis.ParsePercentiles(*pcts); err != nil {
			return fmt.Errorf("%w: --percentiles: %v", errUsage, err)
		}
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no input files", errUsage)
	}
	sets := [][]string{rest}
	if i := slices.Index(rest, "--"); i >= 0 {
		if i == 0 || i == len(rest)-1 || slices.Contains(rest[i+1:], "--") {
			return fmt.Errorf("%w: want RAW.csv... -- RAW.csv... (two data sets separated by one --)", errUsage)
		}
		sets = [][]string{rest[:i], rest[i+1:]}
	}
	var sides []*report.Side
	for i, files := range sets {
		s, err := report.Load(files, o.keepDup)
		if err != nil {
			return err
		}
		name := ""
		if len(sets) == 2 {
			name = string(rune('A' + i))
		}
		reportDropped(stderr, "report", name, s.Data, nil)
		for _, m := range s.Missing {
			fmt.Fprintln(stderr, "report: not found:", m)
		}
		sides = append(sides, s)
	}
	r, err := report.New(sides, report.Options{Analysis: opt, Title: *title, Generated: time.Now(),
		Generator: generator(), Command: append([]string{"reprobench", "report"}, args...), RegionIters: regionIters, RegionCompute: splitNonEmpty(*compute)})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		return err
	}
	// Atomic, so that a page a browser has open is never half written;
	// readable by all, as a page to share.
	if err := design.WriteAtomic(*out, b.Bytes(), true); err != nil {
		return err
	}
	if err := os.Chmod(*out, 0o644); err != nil {
		return err
	}
	groups := 0
	for _, g := range r.Groups {
		groups += len(g)
	}
	count := map[report.Status]int{}
	for _, ru := range r.Rules {
		count[ru.Status]++
	}
	var parts []string
	for _, st := range []report.Status{report.Met, report.PartlyMet, report.NotMet, report.NotShown, report.NotApplicable} {
		if count[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	path, err := filepath.Abs(*out)
	if err != nil {
		path = *out
	}
	fmt.Fprintf(stdout, "report: %s (%d groups, %s)\n", path, groups, plots.HumanBytes(b.Len()))
	fmt.Fprintf(stdout, "report: the 12 rules: %s\n", strings.Join(parts, ", "))
	return nil
}

// generator names this binary for the report's footer: its module version
// and commit.
func generator() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "reprobench"
	}
	s := "reprobench " + bi.Main.Version
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" && len(st.Value) >= 12 {
			s += ", commit " + st.Value[:12]
		}
		if st.Key == "vcs.modified" && st.Value == "true" {
			s += " (modified)"
		}
	}
	return s
}

// splitNonEmpty splits a comma-separated list; "" is none.
func splitNonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
