package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/report"
	"github.com/reprobench/reprobench/tune"
)

func init() {
	register(command{
		name:    "tune",
		summary: "choose each collective's algorithm per size by statistics: run the catalogue's candidates, decide, write the library's decision file, confirm it on fresh mpiruns with the regression gate",
		run:     runTune,
	})
}

const tuneSynopsis = `--library openmpi|mpich|sim [--calls MPI_Allreduce,...] [--sizes 8,1K,...] [--np N] [--out DIR] [--run-id ID] [--seed N] [-- RUN-FLAGS...]`

// runTune maps the flags to tune.LoopConfig, runs tune.Loop, prints the
// decision table and the gate's verdict, and exits with the gate's status
// (0 no regression, 3 regression, 4 undecided).
func runTune(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("tune", tuneSynopsis, stderr)
	lib := fs.String("library", "", "the MPI library whose catalogue of algorithms to tune: openmpi, mpich, or sim (the simulated world: every mpirun is \"reprobench run --sim\" without a launcher)")
	calls := fs.String("calls", "MPI_Allreduce", "collectives, comma-separated: MPI_Allreduce, MPI_Bcast, MPI_Reduce; each is tuned by a campaign of its own")
	sizesSpec := fs.String("sizes", "8,1K,64K,1M", "message sizes, bytes (8,1K, pow2:A..B): the cells of the decision")
	np := fs.Int("np", 2, "processes per mpirun")
	segs := fs.String("segsizes", "", "segment sizes in bytes, comma-separated: one more candidate per segmented algorithm and size")
	candidates := fs.String("candidates", "", "only these candidates, comma-separated (\"ring,segmented_ring+segsize=1024\"; the default is always run); default: every algorithm of the catalogue")
	launcher := fs.String("launcher", "mpirun -np {np}", "launcher command template (as launch's)")
	out := fs.String("out", "results", "output directory")
	runID := fs.String("run-id", "tune", "prefix of the campaigns' run ids (ID-allreduce, …, ID-confirm) and of the decision files; an existing campaign of the same id is resumed")
	seed := fs.Uint64("seed", 1, "seed of the tuning campaigns; the confirmation uses seed+1")
	threshold := fs.Float64("threshold", tune.DefaultThreshold, "a candidate replaces the default only when faster by at least this fraction; the gate tolerates this much slowdown")
	alpha := fs.Float64("alpha", tune.DefaultAlpha, "family-wise error rate of the replacements and of the gate")
	perCell := fs.Bool("family-cell", false, "Holm's correction over each cell's candidates instead of over a collective's whole campaign")
	perCand := fs.Int("mpiruns-per-candidate", 0, "mpiruns per candidate (0: the plan's; fewer can replace no default)")
	perSide := fs.Int("confirm-mpiruns-per-side", 0, "confirmation mpiruns per side (0: as many as the gate needs to decide every cell)")
	mpichBase := fs.String("mpich-base", "", "MPICH: the library's own MPIR-level selection JSON (maint/tuning/coll/mpir/generic.json of its release), which the written file extends (default: the one compiled into the installed libmpich, found through pkg-config mpich)")
	timeout := fs.Duration("timeout", 0, "kill a mpirun after this long (0: no limit)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		return fmt.Errorf("%w: tune: %s", errUsage, fmt.Sprintf(format, a...))
	}
	runArgs := fs.Args()
	if len(runArgs) > 0 && !launchHadDashDash(args, runArgs) {
		return usage("unexpected argument %q: the run's flags go after --", runArgs[0])
	}
	cfg := tune.LoopConfig{Calls: strings.Split(*calls, ","), Np: *np, Dir: *out, RunID: *runID, Seed: *seed, RunArgs: runArgs,
		MpirunsPerCandidate: *perCand, ConfirmMpirunsPerSide: *perSide, Log: stderr,
		Options: tune.Options{Threshold: *threshold, Alpha: *alpha}}
	if *perCell {
		cfg.Options.Family = tune.FamilyCell
	}
	program, err := os.Executable()
	if err != nil {
		return fmt.Errorf("tune: cannot find this program: %w", err)
	}
	cfg.Program = []string{program, "run"}
	switch *lib {
	case "openmpi":
		cfg.Library = tune.OpenMPI
	case "mpich":
		cfg.Library = tune.MPICH
	case "sim":
		cfg.Library = tune.Simulated
		cfg.Program = append(cfg.Program, "--sim", "--sim-ranks", strconv.Itoa(*np))
	default:
		return usage("--library %q: want openmpi, mpich or sim", *lib)
	}
	if cfg.Library != tune.Simulated {
		if cfg.Launcher, err = campaign.SplitCommand(*launcher); err != nil {
			return usage("--launcher: %v", err)
		}
	}
	if cfg.Library == tune.MPICH && *mpichBase != "" {
		if cfg.MPICHBase, err = os.ReadFile(*mpichBase); err != nil {
			return err
		}
	}
	sz, err := parseSizes(*sizesSpec, *seed)
	if err != nil {
		return usage("--sizes: %v", err)
	}
	for _, s := range sz {
		cfg.Sizes = append(cfg.Sizes, int64(s))
	}
	if *candidates != "" {
		cfg.Candidates = strings.Split(*candidates, ",")
	}
	if *segs != "" {
		for _, s := range strings.Split(*segs, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return usage("--segsizes %q: %v", *segs, err)
			}
			cfg.Segsizes = append(cfg.Segsizes, n)
		}
	}
	if err := campaign.CheckRunArgs(runArgs); err != nil {
		return usage("%v", err)
	}
	for _, a := range runArgs {
		if n := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); strings.HasPrefix(a, "-") && (n == "calls" || n == "sizes" || n == "sim" || n == "sim-ranks") {
			return usage("run flag %s: tune sets it", a)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.Campaign = campaign.Options{Timeout: *timeout, Progress: stderr}
	res, err := tune.Loop(ctx, cfg)
	if res != nil && len(res.Decisions) > 0 {
		tunePrintDecisions(stdout, res.Decisions)
	}
	if err != nil {
		return err
	}
	for _, m := range res.Missing {
		fmt.Fprintf(stdout, "warning: %s\n", m)
	}
	fmt.Fprintf(stdout, "\ndecision file: %s (sidecar %s)\n", res.DecisionFile, res.DecisionsJSON)
	fmt.Fprintf(stdout, "\nconfirmation (%d fresh mpiruns, default = A, decision file = B):\n", res.ConfirmMpiruns)
	tunePrintGate(stdout, res.Gate)
	if err := tuneWriteReport(stdout, cfg, res); err != nil {
		return err
	}
	switch res.Gate.Verdict {
	case analysis.Regression:
		return &exitStatusError{status: exitRegression, msg: "tune: the decision file is slower than the default: " + res.Gate.Summary()}
	case analysis.Undecided:
		return &exitStatusError{status: exitUndecided, msg: "tune: the confirmation cannot decide: " + res.Gate.Summary()}
	}
	return nil
}

// tunePrintDecisions writes one line per cell and candidate.
func tunePrintDecisions(w io.Writer, ds []tune.Decision) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tcandidate\tmpiruns\tmedian\tratio to default [interval]\tHolm p\tchosen")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%v\t\t\t%s\n", d.Cell, d.Default, d.DefaultN, d.DefaultMedian, tuneMark(d.Chosen == d.Default))
		for _, c := range d.Candidates {
			fmt.Fprintf(tw, "\t%s\t%d\t%v\t%.3f [%.3f, %.3f]\t%.3g\t%s\n", c.Name, c.N, c.Median, c.Ratio, c.RatioCI.Lo, c.RatioCI.Hi, c.PHolm, tuneMark(d.Chosen == c.Name))
		}
	}
	tw.Flush()
	for _, d := range ds {
		fmt.Fprintf(w, "%s: %s\n", d.Cell, d.Reason)
	}
}

func tuneMark(b bool) string {
	if b {
		return "*"
	}
	return ""
}

// tunePrintGate writes the gate's rows and verdict.
func tunePrintGate(w io.Writer, g analysis.GateReport) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tmpiruns A+B\ttuned/default\tHolm p\tdecision")
	for _, r := range g.Rows {
		fmt.Fprintf(tw, "%s\t%d+%d\t%.3f\t%.3g\t%s\n", r.Group, r.NA, r.NB, r.Ratio, r.PHolm, r.Decision)
	}
	tw.Flush()
	fmt.Fprintln(w, g.Summary())
}

// tuneWriteReport writes the report's tuning section (report.NewTuningSection:
// per collective, the candidates' ratios to the default with their
// intervals across sizes, the decision and the confirmation's verdict per
// cell) to stdout and, as text and as an HTML fragment, to
// DIR/RUNID-tuning.txt and DIR/RUNID-tuning.html. A second invocation of
// the same loop resumes its finished campaigns without running anything
// and writes the section again.
func tuneWriteReport(stdout io.Writer, cfg tune.LoopConfig, res *tune.LoopResult) error {
	sec := report.NewTuningSection(res.Decisions, &res.Gate)
	var b bytes.Buffer
	if err := sec.WriteText(&b); err != nil {
		return err
	}
	h, err := sec.HTML()
	if err != nil {
		return err
	}
	base := filepath.Join(cfg.Dir, cfg.RunID+"-tuning")
	if err := os.WriteFile(base+".txt", b.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".html", []byte(h), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\nreport section: %s.txt, %s.html\n", b.String(), base, base)
	return nil
}
