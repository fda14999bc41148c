package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi"
)

func init() {
	register(command{
		name:    "launch",
		summary: "run a campaign of N separate mpiruns of \"reprobench run\" (or srun), with timeouts, a manifest, and --resume",
		run:     runLaunch,
	})
}

const launchSynopsis = `--mpiruns N|auto --np P [--launcher 'mpirun -np {np}'] [--batch 'sbatch …' [--array]] [--timeout D] [--design FILE] [--out DIR] [--run-id ID] [--seed S] [--fail-fast] -- RUN FLAGS
       reprobench launch --resume [--out DIR] [--run-id ID] [--timeout D] [--fail-fast]

Each mpirun i (0-based) runs, without a shell:
  LAUNCHER EXE run --out DIR --run-id ID --mpirun i --seed S_i [--design DIR/ID-design.csv] RUN FLAGS
and is complete when DIR/ID-mpirun<iii>.json exists. The campaign is recorded in
DIR/ID-campaign.json (launcher argv, seeds, status, exit status, stderr and stdout tails of
failures); stdout and stderr of every attempt go to DIR/ID-logs/. A failed or
timed-out mpirun is recorded and the campaign goes on (unless --fail-fast).
--resume runs only the mpiruns without their .json; the leftovers of an incomplete
attempt (.partial files, a .csv written before the .json) are moved, not deleted,
to DIR/ID-aside/mpirun<iii>-attempt<k>/ first. Completed outputs are never touched.
Under Slurm: an srun launcher outside an allocation makes each mpirun a job of its own, inside
one (salloc, sbatch) a named step of it; --batch makes each mpirun a batch job, --batch with
--array the tasks of one job array. See docs/clusters.md, "Running under Slurm".`

// launchStderrIsTerminal is replaced in tests.
var launchStderrIsTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && campaign.IsTerminal(f)
}

func runLaunch(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("launch", launchSynopsis, stderr)
	mpiruns := &launchMpirunsFlag{}
	fs.Var(mpiruns, "mpiruns", "number of mpiruns (default: the design's; the mpirun is a factor), or auto: add mpiruns until every group's headline interval is within --ci-width (docs/adaptive.md)")
	auto := launchAutoFlags(fs) // launch_adaptive.go
	np := fs.Int("np", 0, "processes per mpirun, replaces {np} in the launcher (default: the design's largest np)")
	launcher := fs.String("launcher", "mpirun -np {np}", "launcher command template, split into words without a shell (quotes and \\ work; nothing is expanded); e.g. 'srun -n {np}'")
	timeout := fs.Duration("timeout", 0, "kill a mpirun's process group and all its processes after this long (0: no limit)")
	resume := fs.Bool("resume", false, "continue the campaign in --out (--run-id, or the only *-campaign.json there): run only the incomplete mpiruns")
	out := fs.String("out", "results", "output directory")
	runID := fs.String("run-id", "", "run id, the prefix of every output file (default: the UTC start time, e.g. 20261122T035900Z)")
	seedStr := fs.String("seed", "", "campaign seed (uint64; default: the design's seed, else random); mpirun i gets a seed derived from it")
	designFile := fs.String("design", "", "design file (reprobench design) passed to every run; copied to DIR/ID-design.csv first")
	failFast := fs.Bool("fail-fast", false, "stop at the first mpirun that fails or times out")
	grace := fs.Duration("grace", campaign.DefaultGrace, "after --timeout (or an interrupt), how long a mpirun may take to end after SIGTERM before SIGKILL; srun cancels its job step on SIGTERM, and a Slurm job still alive after that is cancelled with scancel")
	batch := fs.String("batch", "", "submit every mpirun as a Slurm batch job of its own with this command, e.g. 'sbatch -t 30 -p PART'; launch adds the job's size, output and the --launcher command, and records each job's id and nodes (docs/clusters.md)")
	array := fs.Bool("array", false, "with --batch: submit the mpiruns as the tasks of one Slurm job array (sbatch --array, task i runs mpirun i, several may run at once) instead of one job each; launch follows the tasks with scontrol, cancels a task past --timeout, and --resume asks Slurm which tasks finished")
	exe := fs.String("exe", "", "benchmark binary to launch instead of this reprobench (it must accept \"run\" and the flags above)")
	algorithm := fs.String(factor.Algorithm.Row().Flag, "", launchAlgorithmHelp) // launch_algorithm.go
	sim := fs.Bool("sim", false, "rehearse the campaign: every mpirun is \"reprobench run --sim\" on a simulated world of --np ranks, without a launcher; --sim-* run flags set the model (docs/simulation.md)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		return fmt.Errorf("%w: launch: %s", errUsage, fmt.Sprintf(format, a...))
	}
	runArgs := fs.Args()
	if len(runArgs) > 0 && !launchHadDashDash(args, runArgs) {
		return usage("unexpected argument %q: the run's flags go after --", runArgs[0])
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := campaign.Options{Timeout: *timeout, Grace: *grace, FailFast: *failFast, Progress: stderr, Bar: launchStderrIsTerminal(stderr)}
	if *timeout < 0 || *grace <= 0 {
		return usage("--timeout must not be negative, --grace must be positive")
	}
	// Bounded before anything is read or allocated for the mpiruns.
	if mpiruns.n != 0 {
		if err := campaign.CheckMpiruns(mpiruns.n); err != nil {
			return usage("--mpiruns: %v", err)
		}
	}

	if *sim {
		if err := launchSimChecks(set, runArgs); err != nil {
			return usage("%v", err)
		}
	}

	if *resume {
		path := ""
		if *runID != "" {
			if err := campaign.CheckRunID(*runID); err != nil {
				return usage("%v", err)
			}
			path = campaign.ManifestPath(*out, *runID)
		} else {
			var err error
			if path, err = campaign.FindManifest(*out); err != nil {
				return err
			}
		}
		// The original command with --resume added is accepted; only
		// what really differs from the manifest is refused, by name.
		if m, err := campaign.ReadManifest(path); err == nil {
			if diff := launchResumeChanges(m, set, mpiruns.n, *np, *launcher, *batch, *array, *seedStr, *designFile, *exe, runArgs); len(diff) > 0 {
				return usage("--resume: the campaign's parameters come from its manifest %s, but this command changes: %s", path, strings.Join(diff, "; "))
			}
		}
		fmt.Fprintf(stderr, "launch: resuming %s\n", path)
		m, err := campaign.Resume(ctx, path, opts)
		return launchSummary(stderr, m, err)
	}

	// A new campaign.
	if *runID == "" {
		*runID = time.Now().UTC().Format("20060102T150405Z")
	}
	if err := campaign.CheckRunID(*runID); err != nil {
		return usage("%v", err)
	}
	if err := campaign.CheckRunArgs(runArgs); err != nil {
		return usage("%v", err)
	}
	tmpl, err := campaign.SplitCommand(*launcher)
	if err != nil {
		return usage("--launcher: %v", err)
	}
	if *sim {
		tmpl = nil
	} else if *exe == "" {
		tmpl = launchSrunPMI(stderr, tmpl)
	}
	if !*sim && !strings.Contains(*launcher, "{np}") {
		fmt.Fprintf(stderr, "launch: warning: --launcher %q has no {np}; --np is not passed to it\n", *launcher)
	}
	program := *exe
	if program == "" {
		if program, err = os.Executable(); err != nil {
			return fmt.Errorf("launch: cannot find this program: %w", err)
		}
	} else if program, err = filepath.Abs(program); err != nil {
		return err
	}

	c := campaign.Campaign{Dir: *out, RunID: *runID, Mpiruns: mpiruns.n, Np: *np, Launcher: tmpl,
		Program: []string{program, "run"}, RunArgs: runArgs}
	if *batch != "" {
		b, err := campaign.SplitCommand(*batch)
		if err != nil {
			return usage("--batch: %v", err)
		}
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		c.Batch, c.Array = launchBatch(b, abs, *runID, *array), *array
	} else if *array {
		return usage("--array needs --batch, e.g. --batch sbatch --array")
	}
	seedKnown := false
	if *seedStr != "" {
		if c.Seed, err = strconv.ParseUint(*seedStr, 10, 64); err != nil {
			return usage("--seed %q: want a decimal uint64", *seedStr)
		}
		seedKnown = true
	}
	if *designFile != "" {
		d, err := design.ReadFile(*designFile, designCLIVocabulary())
		if err != nil {
			return err
		}
		ms := d.Mpiruns()
		if len(ms) == 0 {
			return usage("design %s has no experiments", *designFile)
		}
		if err := campaign.CheckMpiruns(len(ms)); err != nil {
			return usage("design %s: %v", *designFile, err)
		}
		for i, m := range ms {
			if m != i {
				return usage("design %s: its mpiruns must be numbered 0..%d, but it has %v", *designFile, len(ms)-1, ms)
			}
		}
		if c.Mpiruns == 0 {
			c.Mpiruns = len(ms)
		} else if c.Mpiruns != len(ms) {
			return usage("--mpiruns %d but design %s has %d mpiruns", c.Mpiruns, *designFile, len(ms))
		}
		if c.Np == 0 {
			c.Np = d.MaxNp()
		} else if d.MaxNp() > c.Np {
			return usage("design %s needs %d processes but --np is %d", *designFile, d.MaxNp(), c.Np)
		}
		if *exe == "" {
			// reprobench run measures every experiment on all ranks of
			// its mpirun.
			for _, e := range d.Experiments {
				if e.Np != 0 && e.Np != c.Np {
					return usage("%s:%d: experiment %d wants np=%d, but reprobench run uses all %d ranks of the mpirun; make one design (and campaign) per process count", e.File, e.Line, e.Exp, e.Np, c.Np)
				}
			}
		}
		if !seedKnown && d.HasSeed {
			c.Seed, seedKnown = d.Seed, true
		}
	}
	rule, err := auto.rule(mpiruns.auto, *designFile != "", *array) // launch_adaptive.go
	if err != nil {
		return usage("%v", err)
	}
	if rule != nil {
		c.Mpiruns = rule.Min
	}
	if *algorithm != "" {
		if rule != nil || *array {
			return usage("--algorithm varies the algorithm per mpirun in whole blocks: not with --mpiruns auto or --array")
		}
		if c.PerMpirun, err = launchAlgorithm(stderr, *algorithm, *sim); err != nil {
			return usage("%v", err)
		}
		if n := len(c.PerMpirun.Levels); c.Mpiruns%n != 0 {
			return usage("--algorithm has %d levels: --mpiruns %d must be a multiple of %d", n, c.Mpiruns, n)
		}
	}
	if c.Mpiruns < 1 {
		return usage("--mpiruns N is required (N ≥ 1) without a design")
	}
	if c.Np < 1 {
		return usage("--np P is required (P ≥ 1)")
	}
	if *designFile != "" {
		if _, err := os.Stat(campaign.ManifestPath(*out, *runID)); err == nil {
			return usage("campaign %s exists in %s: use --resume or another --run-id", *runID, *out)
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		copyPath := filepath.Join(*out, *runID+"-design.csv")
		if err := launchCopyDesign(*designFile, copyPath); err != nil {
			return err
		}
		c.DesignFile = copyPath
	}
	if *sim {
		// The ranks are the simulated world's; the model's other fields
		// come from the run flags (--sim-model, --sim-latency-us, …).
		c.Program = append(c.Program, "--sim", "--sim-ranks", strconv.Itoa(c.Np))
	}
	if *exe == "" {
		if err := launchCheckRunFlags(c); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "launch: note: the run flags are not checked before the first mpirun with --exe\n")
	}
	if !seedKnown {
		c.Seed = randomSeed()
	}
	env := design.CollectEnvironment()
	c.Environment = &env
	if *sim {
		fmt.Fprintf(stderr, "launch: run id %s, seed %d, %d simulated mpiruns × %d ranks, output in %s\n",
			c.RunID, c.Seed, c.Mpiruns, c.Np, *out)
	} else {
		fmt.Fprintf(stderr, "launch: run id %s, seed %d, %d mpiruns × %d processes, launcher %q, output in %s\n",
			c.RunID, c.Seed, c.Mpiruns, c.Np, campaign.ExpandLauncher(tmpl, c.Np), *out)
	}
	if rule != nil {
		fmt.Fprintf(stderr, "launch: --mpiruns auto: %d to %d mpiruns, until every group's headline interval is within ±%g %%\n", rule.Min, rule.Max, 100*rule.Width)
		m, err := campaign.Until(ctx, c, opts, rule.Max, rule.NextLook, launch.MpirunJudge(*rule))
		launchAutoSummary(stderr, m)
		return launchSummary(stderr, m, err)
	}
	m, err := campaign.Start(ctx, c, opts)
	return launchSummary(stderr, m, err)
}

// launchSimChecks refuses, for launch --sim, the flags that choose how real
// mpiruns are started (there is none to start) and run flags that would
// contradict the simulated world of --np ranks.
func launchSimChecks(set map[string]bool, runArgs []string) error {
	for _, f := range []string{"launcher", "batch", "array", "exe"} {
		if set[f] {
			return fmt.Errorf("--sim runs no launcher: remove --%s", f)
		}
	}
	for _, a := range runArgs {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "sim" || name == "sim-ranks") {
			return fmt.Errorf("run flag %s: launch --sim sets it (the ranks are --np)", a)
		}
	}
	return nil
}

// launchSrunPMI makes an srun launcher use the PMI plugin that this
// binary's MPI library needs (campaign.SrunPMI): without --mpi it adds it (Slurm's
// default, MpiDefault, is often none, which starts singletons), and with
// another one it warns (sites name plugins differently, e.g. pmix_v4; run
// refuses singletons anyway).
func launchSrunPMI(stderr io.Writer, tmpl []string) []string {
	want, ok := campaign.SrunPMI[mpi.BuildFlavor]
	if len(tmpl) == 0 || filepath.Base(tmpl[0]) != "srun" || !ok {
		return tmpl
	}
	if got := campaign.SrunMPI(tmpl); got == "" {
		fmt.Fprintf(stderr, "launch: this binary is built with %s: adding --mpi=%s to srun\n", mpi.BuildFlavor, want)
		return append([]string{tmpl[0], "--mpi=" + want}, tmpl[1:]...)
	} else if got != want && !strings.HasPrefix(got, want) {
		fmt.Fprintf(stderr, "launch: warning: srun --mpi=%s, but this binary is built with %s, which needs --mpi=%s (a wrong plugin starts singletons, which run refuses)\n", got, mpi.BuildFlavor, want)
	}
	return tmpl
}

// launchCheckRunFlags validates the run flags (and the design) of c for
// c.Np processes as "reprobench run --check-np" does, in this process and
// without MPI, before any mpirun starts: bad flags are one usage error now,
// not the same failure in every mpirun of the campaign.
func launchCheckRunFlags(c campaign.Campaign) error {
	args := []string{"--check-np", strconv.Itoa(c.Np), "--out", c.Dir, "--run-id", c.RunID, "--mpirun", "0", "--seed", "0"}
	if c.DesignFile != "" {
		args = append(args, "--design", c.DesignFile)
	}
	err := runRun(io.Discard, io.Discard, append(args, c.RunArgs...))
	if errors.Is(err, flag.ErrHelp) {
		err = errors.New("-h asks for help")
	}
	if err != nil {
		return fmt.Errorf("%w: launch: the run flags fail for %d processes, so no mpirun was started: %v (see reprobench run -h)",
			errUsage, c.Np, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	}
	return nil
}

// launchHadDashDash reports whether the remaining arguments rest came after
// a "--" in args.
func launchHadDashDash(args, rest []string) bool {
	i := len(args) - len(rest) - 1
	return i >= 0 && args[i] == "--"
}

func launchSummary(stderr io.Writer, m *campaign.Manifest, err error) error {
	if m != nil {
		done := m.Mpiruns - len(m.Incomplete())
		launchNotes(stderr, m)
		fmt.Fprintf(stderr, "launch: campaign %s: %d of %d mpiruns complete; manifest %s\n",
			m.RunID, done, m.Mpiruns, campaign.ManifestPath(m.Dir, m.RunID))
		for _, r := range m.Runs {
			if r.Complete || len(r.Attempts) == 0 {
				continue
			}
			a := r.Attempts[len(r.Attempts)-1]
			tail, log := a.StderrTail, a.StderrLog
			if len(tail) == 0 && len(a.StdoutTail) > 0 {
				tail, log = a.StdoutTail, a.StdoutLog // e.g. MPICH's hydra reports there
			}
			fmt.Fprintf(stderr, "launch: mpirun %d %s: %s (log: %s)\n", r.Mpirun, a.Status, a.Error, log)
			for _, l := range launchSalient(tail, 5) {
				fmt.Fprintf(stderr, "    %s\n", l)
			}
		}
	}
	return err
}

// launchBatch is the batch template of a campaign in dir (absolute) from
// the user's --batch command b: one job per mpirun (sbatch --wait, the
// mpirun's command as --wrap), or with array the job array's options
// (campaign.Campaign.Array adds --array, --job-name, --parsable and the
// script). Each job's or task's own output goes to DIR/ID-logs/.
func launchBatch(b []string, dir, runID string, array bool) []string {
	logs := campaign.LogDir(dir, runID)
	if array {
		return append(append([]string{}, b...), "--ntasks={np}", "--output="+filepath.Join(logs, "slurm-%A_%a.out"))
	}
	return append(append([]string{}, b...), "--wait", "--ntasks={np}", "--output="+filepath.Join(logs, "slurm-%j.out"), "--wrap")
}

// launchResumeChanges lists the flags of a --resume command line that
// differ from the campaign's manifest m (empty: the original command).
func launchResumeChanges(m *campaign.Manifest, set map[string]bool, mpiruns, np int, launcher, batch string, array bool, seed, designFile, exe string, runArgs []string) []string {
	var diff []string
	if set["sim"] && !slices.Contains(m.Program, "--sim") {
		diff = append(diff, "--sim (campaign: real mpiruns)")
	}
	if set["mpiruns"] && mpiruns != m.Mpiruns {
		diff = append(diff, fmt.Sprintf("--mpiruns %d (campaign: %d)", mpiruns, m.Mpiruns))
	}
	if set["np"] && np != m.Np {
		diff = append(diff, fmt.Sprintf("--np %d (campaign: %d)", np, m.Np))
	}
	if set["launcher"] {
		if t, err := campaign.SplitCommand(launcher); err != nil || !slices.Equal(t, m.Launcher) {
			diff = append(diff, fmt.Sprintf("--launcher %q (campaign: %q)", launcher, strings.Join(m.Launcher, " ")))
		}
	}
	if set["batch"] {
		if t, err := campaign.SplitCommand(batch); err != nil || !slices.Equal(launchBatch(t, m.Dir, m.RunID, m.Array), m.Batch) {
			diff = append(diff, fmt.Sprintf("--batch %q (campaign: %q)", batch, strings.Join(m.Batch, " ")))
		}
	}
	if set["array"] && array != m.Array {
		diff = append(diff, fmt.Sprintf("--array=%v (campaign: %v)", array, m.Array))
	}
	if set["seed"] && seed != strconv.FormatUint(m.Seed, 10) {
		diff = append(diff, fmt.Sprintf("--seed %s (campaign: %d)", seed, m.Seed))
	}
	if set["design"] {
		b, err := os.ReadFile(designFile)
		if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != m.DesignSHA256 {
			diff = append(diff, fmt.Sprintf("--design %s (not the campaign's design: content differs or unreadable)", designFile))
		}
	}
	if set["exe"] {
		if a, err := filepath.Abs(exe); err != nil || len(m.Program) == 0 || a != m.Program[0] {
			diff = append(diff, fmt.Sprintf("--exe %s (campaign: %s)", exe, strings.Join(m.Program[:min(1, len(m.Program))], "")))
		}
	}
	if len(runArgs) > 0 && !slices.Equal(runArgs, m.RunArgs) {
		diff = append(diff, fmt.Sprintf("run flags %q (campaign: %q)", strings.Join(runArgs, " "), strings.Join(m.RunArgs, " ")))
	}
	return diff
}

// launchNotes prints, once per campaign, the distinct notes and warnings
// that the runs of m wrote to their stderr logs ("reprobench run: note:
// …"): advice that otherwise sits unseen in DIR/ID-logs/.
func launchNotes(stderr io.Writer, m *campaign.Manifest) {
	seen := map[string]bool{}
	var notes []string
	for _, r := range m.Runs {
		for _, a := range r.Attempts {
			b, err := os.ReadFile(a.StderrLog)
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				ll := strings.ToLower(l)
				if (strings.Contains(ll, "note:") || strings.Contains(ll, "warning:")) && !seen[l] {
					seen[l] = true
					notes = append(notes, l)
				}
			}
		}
	}
	if len(notes) == 0 {
		return
	}
	const most = 10
	fmt.Fprintf(stderr, "launch: the runs said (each once; all their output is in %s):\n", campaign.LogDir(m.Dir, m.RunID))
	for _, l := range notes[:min(most, len(notes))] {
		fmt.Fprintf(stderr, "    %s\n", l)
	}
	if len(notes) > most {
		fmt.Fprintf(stderr, "    … and %d more\n", len(notes)-most)
	}
}

// launchSalient picks up to n lines of a log tail to show: the first
// ones that look like our own errors ("reprobench:", "error", "panic"),
// else the last n (launchers end their stderr with boilerplate).
func launchSalient(tail []string, n int) []string {
	var pick []string
	for _, l := range tail {
		ll := strings.ToLower(l)
		if strings.Contains(ll, "reprobench:") || strings.Contains(ll, "error") || strings.Contains(ll, "panic") {
			pick = append(pick, l)
			if len(pick) == n {
				return pick
			}
		}
	}
	if len(pick) > 0 {
		return pick
	}
	return tail[max(0, len(tail)-n):]
}

// launchCopyDesign copies the design file src to dst, unless dst already
// holds the same bytes; a different dst is an error (never overwritten).
func launchCopyDesign(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(dst); err == nil {
		if bytes.Equal(old, b) {
			return nil
		}
		return fmt.Errorf("launch: %s exists with other contents; choose another run id", dst)
	}
	return design.WriteAtomic(dst, b, false)
}
