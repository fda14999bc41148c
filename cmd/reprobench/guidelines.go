package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/guidelines"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/plots"
)

func init() {
	register(command{
		name:    "guidelines",
		summary: "find where an MPI library is slower than itself: run (or read) a campaign of performance guidelines and decide each per size",
		run:     runGuidelines,
	})
}

const guidelinesSynopsis = `[--np P] [--mpiruns N] [--sizes LIST] [--nrep N] [--table FILE] [--launcher 'mpirun -np {np}'] [--out DIR] [--run-id ID] [--seed S] [--json FILE] [--plot FILE] [--fail-on-violation] [-- RUN FLAGS]
       reprobench guidelines --data [--table FILE] [--sizes LIST] [--json FILE] [--plot FILE] [--fail-on-violation] RAW.csv...
       reprobench guidelines --list [--table FILE]

A performance guideline says that a collective is not slower than a composition of
others that does the same job, e.g. MPI_Allreduce(n) <= Reduce+Bcast(n); the right-hand
sides with "+" are mock-ups that run the composition as one observation. --list prints
the table (name, guideline; sizes: n, p*n, one elem, 0), the format --table reads.

Without --data, guidelines designs a campaign (every side of every guideline at every
size, once per mpirun, shuffled per mpirun with --seed), writes it to
DIR/ID-guidelines-design.csv, runs it with "reprobench launch" (the RUN FLAGS after --
go to every "reprobench run"), then decides. With --data it decides on existing raw
data (e.g. DIR/ID-mpirun*.csv of such a campaign). An interrupted campaign continues
with "reprobench launch --resume --out DIR --run-id ID", then --data DIR/ID-mpirun*.csv.

Decision, per guideline and size, in each context (np, datatype, labels): one-sided
Wilcoxon signed-rank test of lhs <= rhs on the per-mpirun medians (Tukey-filtered)
paired by mpirun; Holm's correction over every (guideline, size) of the context, so
the family-wise error rate is at most --alpha; the size of a violation is the
Hodges-Lehmann shift lhs - rhs with its --level interval. With m mpiruns the smallest
p is 2^-m: T tests need m >= log2(T/alpha) (10 for 33 tests at 0.05).

Table columns: size (n), mpir (paired mpiruns), lhs and rhs (medians of per-mpirun
medians), lhs/rhs, shift lhs-rhs [CI], p (one-sided), p_holm with stars (* <= 0.05,
** <= 0.01, *** <= 0.001), verdict (VIOLATED, ok, not decided).
Exit status: 0; 1 on an error or, with --fail-on-violation, when any guideline is
violated; 2 on a usage error. The JSON (--json) is described in docs/guidelines.md.`

func runGuidelines(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("guidelines", guidelinesSynopsis, stderr)
	list := fs.Bool("list", false, "print the guidelines table and exit")
	table := fs.String("table", "", "guidelines table `file` (one \"NAME LHS(SIZE) <= RHS(SIZE)[; input=replicated][; output=rank-block]\" per line; default: the built-in table, see --list)")
	data := fs.Bool("data", false, "decide on the raw data files given as arguments instead of running a campaign")
	np := fs.Int("np", 2, "processes per mpirun (the p of the sizes p*n)")
	mpiruns := fs.Int("mpiruns", 10, "mpiruns: the unit of the test (see above for how many a decision needs)")
	sizes := fs.String("sizes", "8,1K,64K", "guideline sizes n in bytes (msize_bytes of the left-hand side), the syntax of \"reprobench design --sizes\"")
	nrep := fs.Int("nrep", 200, "observations per experiment and mpirun")
	datatype := fs.String("datatype", "float64", "element type of every experiment (reductions need a numeric one)")
	launcher := fs.String("launcher", "mpirun -np {np}", "launcher command template (see reprobench launch)")
	timeout := fs.Duration("timeout", 10*time.Minute, "kill a mpirun after this long (0: no limit)")
	out := fs.String("out", "results", "output directory of the campaign")
	runID := fs.String("run-id", "", "run id (default: the UTC start time with a -guidelines suffix)")
	seedStr := fs.String("seed", "", "campaign seed (uint64; default random, and printed)")
	alpha := fs.Float64("alpha", 0.05, "family-wise error rate of each context (Holm)")
	level := fs.Float64("level", 0.95, "confidence level of the Hodges-Lehmann intervals")
	tukey := fs.Float64("tukey", analysis.DefaultOptions.TukeyK, "Tukey's fence constant for the per-mpirun filter (0: none)")
	jsonOut := fs.String("json", "", "write the decisions as JSON to `file` (- for stdout)")
	plotOut := fs.String("plot", "", "write a plot per context to `file` (.png, .svg or .pdf; with several contexts, -N is added before the extension)")
	failOn := fs.Bool("fail-on-violation", false, "exit with status 1 when a guideline is violated (for CI)")
	var runArgs []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, runArgs = args[:i], args[i+1:]
	}
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		return fmt.Errorf("%w: guidelines: %s", errUsage, fmt.Sprintf(format, a...))
	}
	gs := guidelines.Default()
	if *table != "" {
		f, err := os.Open(*table)
		if err != nil {
			return err
		}
		gs, err = guidelines.ReadTable(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *table, err)
		}
	}
	for _, g := range gs {
		for _, s := range []guidelines.Side{g.Lhs, g.Rhs} {
			if _, err := mpi.ParseCall(s.Call); err != nil {
				return usage("guideline %s: %v", g.Name, err)
			}
		}
	}
	if *list {
		return guidelines.WriteTable(stdout, gs)
	}
	if !(*alpha > 0 && *alpha < 1) || !(*level > 0 && *level < 1) || *tukey < 0 {
		return usage("--alpha and --level must be in (0, 1), --tukey ≥ 0")
	}
	dt, err := mpi.ParseDatatype(*datatype)
	if err != nil {
		return usage("--datatype: %v", err)
	}
	seed := randomSeed()
	if *seedStr != "" {
		if seed, err = strconv.ParseUint(*seedStr, 10, 64); err != nil {
			return usage("--seed %q: want a decimal uint64", *seedStr)
		}
	}
	sizesSet := false
	fs.Visit(func(f *flag.Flag) { sizesSet = sizesSet || f.Name == "sizes" })
	var ns []int
	if !*data || sizesSet {
		if ns, err = design.ParseSizes(*sizes, seed); err != nil {
			return usage("--sizes: %v", err)
		}
	}
	opt := guidelines.Options{Alpha: *alpha, Level: *level, Sizes: ns, ElemBytes: func(name string) int {
		if d, err := mpi.ParseDatatype(name); err == nil {
			return d.Size()
		}
		return dt.Size()
	}}
	files := fs.Args()
	var launchErr error
	if !*data {
		if len(files) > 0 {
			return usage("unexpected argument %q: raw files need --data; run flags go after --", files[0])
		}
		for _, g := range gs {
			for _, s := range []guidelines.Side{g.Lhs, g.Rhs} {
				if c, _ := mpi.ParseCall(s.Call); c.Reduces() && mpi.CheckReduce(dt, mpi.Sum) != nil {
					return usage("guideline %s reduces, which %v cannot", g.Name, dt)
				}
			}
		}
		plan := guidelines.Plan{Guidelines: gs, SizesBytes: ns, Np: *np, Datatype: dt.ShortName(), ElemBytes: dt.Size(),
			Nrep: *nrep, Mpiruns: *mpiruns, Seed: seed,
			Comments: []string{"reprobench guidelines " + strings.Join(args, " ")}}
		if files, launchErr = guidelinesRun(stderr, plan, *launcher, *timeout, *out, *runID, runArgs); len(files) == 0 {
			return launchErr
		} else if launchErr != nil {
			fmt.Fprintf(stderr, "guidelines: the campaign did not complete (%v); deciding on the %d mpiruns that did\n", launchErr, len(files))
		}
	} else if len(files) == 0 || len(runArgs) > 0 {
		return usage("--data needs raw data files, and no run flags")
	}
	ds, err := anReadFiles(os.Stdin, files, false)
	if err != nil {
		return err
	}
	aopt := analysis.DefaultOptions
	aopt.TukeyK, aopt.Level = *tukey, *level
	rep := guidelines.NewReport(gs, guidelines.FromSummaries(analysis.Analyze(ds, aopt)), opt)
	rep.Sources = files
	if len(rep.Contexts) == 0 {
		return fmt.Errorf("guidelines: no data in %d files", len(files))
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if *jsonOut != "" {
		w, closeFn := stdout, func() error { return nil }
		if *jsonOut != "-" {
			f, err := os.Create(*jsonOut)
			if err != nil {
				return err
			}
			w, closeFn = f, f.Close
		}
		if err := errors.Join(rep.WriteJSON(w), closeFn()); err != nil {
			return err
		}
	}
	if *plotOut != "" {
		for i := range rep.Contexts {
			p, rows, err := rep.Plot(i)
			if err != nil {
				fmt.Fprintf(stderr, "guidelines: no plot of %s: %v\n", rep.Contexts[i].Name, err)
				continue
			}
			name := *plotOut
			if len(rep.Contexts) > 1 {
				ext := filepath.Ext(name)
				name = strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(i+1) + ext
			}
			if err := (plots.Figure{Plot: p, Width: 10 * vg.Inch, Height: vg.Length(1.4+0.3*float64(rows)) * vg.Inch}).Save(name); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "guidelines: plot of context %d in %s\n", i+1, name)
		}
	}
	if *failOn && rep.Violations > 0 {
		return errors.Join(launchErr, fmt.Errorf("guidelines: %d guideline violation(s)", rep.Violations))
	}
	return launchErr
}

// guidelinesRun writes the campaign's design and runs it through
// "reprobench launch" (its code, so the campaign gets the launcher's
// manifest, timeouts, logs and --resume), and returns the raw files of the
// mpiruns that completed, with the launcher's error if some did not.
func guidelinesRun(stderr io.Writer, plan guidelines.Plan, launcher string, timeout time.Duration, out, runID string, runArgs []string) ([]string, error) {
	d, err := plan.Design()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if runID == "" {
		runID = time.Now().UTC().Format("20060102T150405Z") + "-guidelines"
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(out, runID+"-guidelines-design.csv")
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%w: guidelines: %s exists: choose another --run-id (or decide on its data with --data)", errUsage, path)
	}
	if err := design.WriteFile(path, d); err != nil {
		return nil, err
	}
	var tb strings.Builder
	if err := guidelines.WriteTable(&tb, plan.Guidelines); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, runID+"-guidelines.txt"), []byte(tb.String()), 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "guidelines: %d guidelines × %d sizes: %d experiments per mpirun, %d mpiruns, seed %d\nguidelines: design in %s\n",
		len(plan.Guidelines), len(plan.SizesBytes), len(plan.Points()), plan.Mpiruns, plan.Seed, path)
	largs := []string{"--design", path, "--out", out, "--run-id", runID, "--np", strconv.Itoa(plan.Np),
		"--launcher", launcher, "--timeout", timeout.String(), "--seed", strconv.FormatUint(plan.Seed, 10), "--"}
	lerr := runLaunch(stderr, stderr, append(largs, runArgs...))
	if errors.Is(lerr, errUsage) {
		return nil, lerr
	}
	// Only completed mpiruns: those with their JSON sidecar (launch's rule).
	all, err := filepath.Glob(filepath.Join(out, runID+"-mpirun*[0-9].csv"))
	var files []string
	for _, f := range all {
		if _, e := os.Stat(strings.TrimSuffix(f, ".csv") + ".json"); e == nil {
			files = append(files, f)
		}
	}
	if err != nil || len(files) == 0 {
		return nil, errors.Join(lerr, fmt.Errorf("guidelines: campaign %s left no raw data in %s", runID, out))
	}
	return files, lerr
}
