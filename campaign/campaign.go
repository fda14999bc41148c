package campaign

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/rawdata"
)

// ManifestFormat identifies the format of campaign manifests.
const ManifestFormat = "reprobench-campaign/1"

// Statuses of a mpirun (RunRecord.Status) and of one attempt at it.
const (
	StatusPending     = "pending"     // not started yet
	StatusRunning     = "running"     // started; if the launcher died, it stays so in the manifest
	StatusOK          = "ok"          // exited 0 and its JSON sidecar exists
	StatusFailed      = "failed"      // exited non-zero, or 0 without a sidecar, or could not start
	StatusTimedOut    = "timed_out"   // killed after Options.Timeout
	StatusInterrupted = "interrupted" // killed because the launcher was interrupted
	StatusAbandoned   = "abandoned"   // the launcher died while it ran (found by a resume)
)

// maxMpiruns bounds the mpiruns of one campaign, checked before any memory
// is committed to them (10^8 mpiruns built up front would take the
// launcher's memory past 24 GB). The manifest holds a
// record of every mpirun (its argv and attempts: about 0.5 KB) and is
// rewritten after each start and end, so a campaign costs memory and
// manifest bytes proportional to its mpiruns on every save: 10000 mpiruns
// keep the manifest at a few MB. Split larger campaigns into several run
// ids.
const maxMpiruns = 10000

// CheckMpiruns accepts 1 ≤ n ≤ maxMpiruns.
func CheckMpiruns(n int) error {
	if n < 1 || n > maxMpiruns {
		return fmt.Errorf("campaign: %d mpiruns: need 1 to %d per campaign (MaxMpiruns: the manifest, rewritten after every mpirun, grows with them); split the campaign into several run ids", n, maxMpiruns)
	}
	return nil
}

// stderrTailLines is how many last lines of a failed attempt's stderr the
// manifest keeps (the whole stderr is in the attempt's log file).
const stderrTailLines = 50

// outputBase returns DIR/RUNID-mpirunNNN, the path of the outputs of one
// mpirun without extension (rawdata.OutputBase, which defines the files).
func outputBase(dir, runID string, mpirun int) string { return rawdata.OutputBase(dir, runID, mpirun) }

// sidecarPath returns the path of the JSON metadata sidecar of a mpirun,
// whose existence means the mpirun is complete (rawdata.SidecarPath).
func sidecarPath(dir, runID string, mpirun int) string {
	return rawdata.SidecarPath(dir, runID, mpirun)
}

// ManifestPath returns DIR/RUNID-campaign.json.
func ManifestPath(dir, runID string) string {
	return filepath.Join(dir, runID+"-campaign.json")
}

// asideDir returns DIR/RUNID-aside, where the leftovers of incomplete
// mpirun attempts are moved before a mpirun is run again.
func asideDir(dir, runID string) string { return filepath.Join(dir, runID+"-aside") }

// asideSuffix ends the name of every file moved into asideDir, so that a
// glob for the data (*.csv, find -name '*.csv') cannot pick up the
// incomplete copies and count their observations.
const asideSuffix = ".aside"

// LogDir returns DIR/RUNID-logs, which holds the stdout and stderr of every
// attempt.
func LogDir(dir, runID string) string { return filepath.Join(dir, runID+"-logs") }

// CheckRunID accepts the run ids rawdata.CheckRunID accepts.
func CheckRunID(id string) error { return rawdata.CheckRunID(id) }

// contractFlags are the flags of "reprobench run" that the launcher sets
// itself; user run flags must not set them.
var contractFlags = []string{"out", "run-id", "mpirun", "seed", "design"}

// Manifest records a campaign: how every mpirun is launched, with which
// seed, and what became of each attempt. It is rewritten atomically
// (temporary file, fsync, rename) after every change.
type Manifest struct {
	Format  string `json:"format"`
	RunID   string `json:"run_id"`
	Dir     string `json:"dir"` // absolute
	Created string `json:"created_utc"`
	Updated string `json:"updated_utc"`
	// Launcher is the launcher template ("{np}" not yet replaced); empty
	// when the program runs without one (a simulated mpirun).
	Launcher []string `json:"launcher"`
	Np       int      `json:"np"`
	Mpiruns  int      `json:"mpiruns"`
	// Program is the benchmark command after the launcher (the reprobench
	// binary and "run").
	Program []string `json:"program"`
	// RunArgs are the user's flags of the run, after the contract flags.
	RunArgs []string `json:"run_args"`
	// Batch is the batch-submission template of a campaign whose mpiruns
	// are Slurm batch jobs (Campaign.Batch), "{np}" not yet replaced.
	Batch []string `json:"batch,omitempty"`
	// Array is true when the mpiruns are the tasks of Slurm job arrays
	// (Campaign.Array); each run record's argv is then the command its
	// array task runs.
	Array        bool   `json:"array,omitempty"`
	DesignFile   string `json:"design_file,omitempty"`
	DesignSHA256 string `json:"design_sha256,omitempty"`
	// Seed is the campaign seed; mpirun i gets design.RunSeed(Seed, i).
	Seed uint64 `json:"seed"`
	// Environment is the launcher host's environment at creation.
	Environment *design.Environment `json:"launcher_environment,omitempty"`
	Runs        []RunRecord         `json:"runs"`
	// Auto is the stop rule's last look of a campaign whose number of
	// mpiruns was adaptive (Until); nil otherwise.
	Auto *AutoMpiruns `json:"auto_mpiruns,omitempty"`
	// PerMpirun is the factor varied per mpirun (Campaign.PerMpirun); each
	// run record holds its level and environment.
	PerMpirun *MpirunFactor `json:"per_mpirun,omitempty"`
}

// RunRecord is the state of one mpirun of a campaign.
type RunRecord struct {
	Mpirun int    `json:"mpirun"`
	Seed   uint64 `json:"seed"`
	// Argv is the full command line, launcher included (its program
	// resolved through PATH when found), with no shell.
	Argv []string `json:"argv"`
	// Level is the mpirun's level of the per-mpirun factor
	// (Manifest.PerMpirun), and Env the environment added for it to every
	// attempt (the level's variable and settings); empty without one.
	Level  string   `json:"level,omitempty"`
	Env    []string `json:"env,omitempty"`
	Status string   `json:"status"`
	// Complete is true when the JSON sidecar exists.
	Complete bool `json:"complete"`
	// Attempts, oldest first; failed attempts stay recorded after a
	// successful retry.
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Attempt is one execution of a mpirun.
type Attempt struct {
	Status     string  `json:"status"`
	Started    string  `json:"started_utc"`
	Ended      string  `json:"ended_utc,omitempty"`
	DurationS  float64 `json:"duration_s,omitempty"`
	TimeoutS   float64 `json:"timeout_s,omitempty"`
	Pgid       int     `json:"pgid,omitempty"`
	ExitStatus *int    `json:"exit_status,omitempty"`
	Signal     string  `json:"signal,omitempty"`
	Error      string  `json:"error,omitempty"`
	// StderrTail is the last stderrTailLines lines of stderr of an attempt
	// that did not succeed.
	StderrTail []string `json:"stderr_tail,omitempty"`
	// StdoutTail is the same for stdout: some launchers report a failed
	// rank there (MPICH's hydra: "BAD TERMINATION OF ONE OF YOUR
	// APPLICATION PROCESSES").
	StdoutTail []string `json:"stdout_tail,omitempty"`
	StdoutLog  string   `json:"stdout_log,omitempty"`
	StderrLog  string   `json:"stderr_log,omitempty"`
	// MovedAside lists the leftover files of earlier attempts moved into
	// asideDir before this attempt started.
	MovedAside []string `json:"moved_aside,omitempty"`
	// Slurm describes the Slurm job of an attempt launched with srun
	// outside an allocation (nil otherwise).
	Slurm *SlurmJob `json:"slurm,omitempty"`
	// KilledStale lists processes of this mpirun (from an earlier attempt
	// whose launcher died, or ranks that outlived this attempt's launcher)
	// that were found running by their command line and killed.
	KilledStale []int `json:"killed_stale,omitempty"`
}

// Campaign describes a new campaign of Mpiruns mpiruns.
type Campaign struct {
	Dir      string   // output directory (created if missing)
	RunID    string   // see CheckRunID
	Mpiruns  int      // number of mpiruns (1 to maxMpiruns)
	Np       int      // processes per mpirun (replaces "{np}")
	Launcher []string // launcher template, e.g. ["mpirun", "-np", "{np}"]; empty: Program runs directly (a simulated mpirun, "launch --sim")
	Program  []string // e.g. [os.Executable(), "run"]
	RunArgs  []string // the user's run flags (must not set contractFlags)
	// Batch, when set, makes every mpirun a batch job of its own: its
	// argv is Batch ("{np}" replaced) followed by one argument, the
	// launcher, program and flags quoted for /bin/sh, e.g. Batch =
	// ["sbatch", "--wait", "--ntasks={np}", "--wrap"] with Launcher =
	// ["srun", "-n", "{np}", "--mpi=pmix"]. The submission command must
	// block until the job ends and exit with its status (sbatch --wait).
	// Each allocation may get other nodes: the allocation becomes a factor
	// like the mpirun (Hunold & Carpen-Amarie 2016, §5.2, Stanisic et al. 2017), and the manifest records
	// each job's id and nodes.
	Batch []string
	// Array, with Batch, submits the mpiruns as the tasks of one Slurm
	// job array instead (Batch + --array=LIST --job-name=NAME --parsable
	// SCRIPT, without --wait and --wrap): task i runs mpirun i
	// (SLURM_ARRAY_TASK_ID is the mpirun's index), Slurm may run several
	// at once, and the launcher follows them with scontrol. See
	// [Manifest.Array] and the package documentation.
	Array bool
	// DesignFile, when set, is passed as --design to every mpirun; its
	// SHA-256 is recorded and checked on resume.
	DesignFile string
	Seed       uint64
	// Environment is recorded in the manifest (nil: none).
	Environment *design.Environment
	// PerMpirun, when not nil, varies a factor of scope per mpirun (the
	// collective algorithm): mpirun i runs level AssignLevels(…, Seed)[i],
	// with that level's environment added to its own. Mpiruns must be a
	// multiple of its levels. Not with Array (a job array's tasks share
	// one environment).
	PerMpirun *MpirunFactor
}

// Options control how a campaign is executed; they are not part of its
// identity and may change on resume.
type Options struct {
	// Timeout per mpirun (0: none). A mpirun still running then gets
	// SIGTERM (mpirun passes it to its ranks; srun cancels its job step),
	// then, after Grace, SIGKILL to its process group and every process
	// under it; a Slurm job still alive then is cancelled (scancel).
	Timeout time.Duration
	// Grace is how long a mpirun may take to end after SIGTERM, on a
	// timeout or an interrupt, before SIGKILL (0: DefaultGrace).
	Grace time.Duration
	// FailFast stops the campaign at the first mpirun that does not
	// succeed.
	FailFast bool
	// Env is added to the environment of the launched processes.
	Env []string
	// Progress receives progress output (nil: none); with Bar, a progress
	// bar, otherwise one line per event.
	Progress io.Writer
	Bar      bool
	// StaleWait is how long a resume waits for processes of an abandoned
	// attempt to die after SIGKILL (0: 10 s).
	StaleWait time.Duration
}

// DefaultGrace is Options.Grace when 0.
const DefaultGrace = 10 * time.Second

// ErrIncomplete is returned (wrapped) when a campaign ends with mpiruns
// that are not complete.
var ErrIncomplete = errors.New("campaign incomplete")

// Start creates the manifest of c and runs its mpiruns. It refuses to start
// if the manifest or any output of c.RunID already exists in c.Dir (use
// Resume).
func Start(ctx context.Context, c Campaign, o Options) (*Manifest, error) {
	if err := CheckRunID(c.RunID); err != nil {
		return nil, err
	}
	if err := CheckMpiruns(c.Mpiruns); err != nil {
		return nil, err
	}
	if c.Np < 1 {
		return nil, fmt.Errorf("campaign: need at least 1 process (got %d)", c.Np)
	}
	if len(c.Program) == 0 {
		return nil, errors.New("campaign: empty program")
	}
	if err := CheckRunArgs(c.RunArgs); err != nil {
		return nil, err
	}
	if c.Array && len(c.Batch) == 0 {
		return nil, errors.New("campaign: a job array (Array) needs the batch command (Batch), e.g. sbatch")
	}
	if c.PerMpirun != nil {
		if c.Array {
			return nil, errors.New("campaign: a per-mpirun factor needs an environment per mpirun, which the tasks of a job array (Array) do not have")
		}
		if err := c.PerMpirun.check(c.Mpiruns); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockCampaign(dir, c.RunID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Checked under the lock, so two launchers cannot both start it.
	if _, err := os.Stat(ManifestPath(dir, c.RunID)); err == nil {
		return nil, fmt.Errorf("campaign: %s exists: resume that campaign (--resume) or choose another run id", ManifestPath(dir, c.RunID))
	}
	if old, _ := filepath.Glob(filepath.Join(dir, c.RunID+"-mpirun*")); len(old) > 0 {
		return nil, fmt.Errorf("campaign: outputs of run id %q already exist in %s (%s, …) but no manifest; choose another run id", c.RunID, dir, filepath.Base(old[0]))
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	m := &Manifest{Format: ManifestFormat, RunID: c.RunID, Dir: dir, Created: now, Updated: now,
		Launcher: c.Launcher, Np: c.Np, Mpiruns: c.Mpiruns, Program: c.Program, RunArgs: c.RunArgs,
		Seed: c.Seed, Environment: c.Environment, Batch: c.Batch, Array: c.Array, PerMpirun: c.PerMpirun}
	if m.RunArgs == nil {
		m.RunArgs = []string{}
	}
	if m.Launcher == nil {
		m.Launcher = []string{}
	}
	if c.DesignFile != "" {
		if m.DesignFile, err = filepath.Abs(c.DesignFile); err != nil {
			return nil, err
		}
		if m.DesignSHA256, err = fileSHA256(m.DesignFile); err != nil {
			return nil, err
		}
	}
	launcher := ExpandLauncher(c.Launcher, c.Np)
	if len(launcher) > 0 {
		if p, err := exec.LookPath(launcher[0]); err == nil {
			if p, err = filepath.Abs(p); err == nil {
				launcher[0] = p // record which mpirun, not just its name
			}
		}
	}
	var levels []int
	if c.PerMpirun != nil {
		levels = AssignLevels(len(c.PerMpirun.Levels), c.Mpiruns, c.Seed)
	}
	for i := 0; i < c.Mpiruns; i++ {
		r := m.newRun(i, launcher)
		if levels != nil {
			l := c.PerMpirun.Levels[levels[i]]
			r.Level, r.Env = l.Name, c.PerMpirun.mpirunEnv(l)
		}
		m.Runs = append(m.Runs, r)
	}
	if err := m.save(); err != nil {
		return nil, err
	}
	return m, m.execute(ctx, o)
}

// newRun returns the pending record of mpirun i of m, launched by
// launcher (expanded).
func (m *Manifest) newRun(i int, launcher []string) RunRecord {
	seed := design.RunSeed(m.Seed, i)
	argv := append(append([]string{}, launcher...), m.Program...)
	argv = append(argv, "--out", m.Dir, "--run-id", m.RunID, "--mpirun", strconv.Itoa(i), "--seed", strconv.FormatUint(seed, 10))
	if m.DesignFile != "" {
		argv = append(argv, "--design", m.DesignFile)
	}
	argv = append(argv, m.RunArgs...)
	if len(m.Batch) > 0 && !m.Array {
		argv = append(ExpandLauncher(m.Batch, m.Np), ShellJoin(argv))
		if p, err := exec.LookPath(argv[0]); err == nil {
			if p, err = filepath.Abs(p); err == nil {
				argv[0] = p
			}
		}
	}
	return RunRecord{Mpirun: i, Seed: seed, Argv: argv, Status: StatusPending}
}

// Resume continues the campaign whose manifest is at path: it runs only
// the mpiruns whose JSON sidecar is missing. Before re-running one, the
// leftovers of its earlier attempts (the .partial files of a killed run and
// any final file written before the sidecar) are moved, never deleted, to
// asideDir/mpirunNNN-attemptK; processes of an abandoned attempt that are
// still alive (found by process group and run id) are killed first.
// Completed mpiruns are never touched.
func Resume(ctx context.Context, path string, o Options) (*Manifest, error) {
	m, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	unlock, err := lockCampaign(m.Dir, m.RunID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if m.DesignFile != "" {
		sum, err := fileSHA256(m.DesignFile)
		if err != nil {
			return nil, fmt.Errorf("campaign: resume: design file: %w", err)
		}
		if sum != m.DesignSHA256 {
			return nil, fmt.Errorf("campaign: resume: design file %s changed since the campaign started (sha256 %s, recorded %s)", m.DesignFile, sum, m.DesignSHA256)
		}
	}
	return m, m.execute(ctx, o)
}

// FindManifest returns the path of the only campaign manifest in dir, or
// an error if there is none or several (then a run id must be given).
func FindManifest(dir string) (string, error) {
	ms, err := filepath.Glob(filepath.Join(dir, "*-campaign.json"))
	if err != nil {
		return "", err
	}
	switch len(ms) {
	case 0:
		return "", fmt.Errorf("campaign: no campaign manifest (*-campaign.json) in %s", dir)
	case 1:
		return ms[0], nil
	}
	return "", fmt.Errorf("campaign: %d campaign manifests in %s; say which with --run-id", len(ms), dir)
}

// ReadManifest reads a campaign manifest.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("campaign: %s: %w", path, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("campaign: %s: format %q, want %q", path, m.Format, ManifestFormat)
	}
	if err := CheckRunID(m.RunID); err != nil {
		return nil, fmt.Errorf("campaign: %s: %w", path, err)
	}
	if err := CheckMpiruns(m.Mpiruns); err != nil {
		return nil, fmt.Errorf("campaign: %s: %w", path, err)
	}
	if len(m.Runs) != m.Mpiruns {
		return nil, fmt.Errorf("campaign: %s: %d run records for %d mpiruns", path, len(m.Runs), m.Mpiruns)
	}
	for i, r := range m.Runs {
		if r.Mpirun != i || len(r.Argv) == 0 {
			return nil, fmt.Errorf("campaign: %s: run record %d is malformed", path, i)
		}
	}
	return &m, nil
}

// Incomplete returns the mpiruns of m whose sidecar does not exist.
func (m *Manifest) Incomplete() []int {
	var in []int
	for _, r := range m.Runs {
		if !exists(sidecarPath(m.Dir, m.RunID, r.Mpirun)) {
			in = append(in, r.Mpirun)
		}
	}
	return in
}

func (m *Manifest) path() string { return ManifestPath(m.Dir, m.RunID) }

func (m *Manifest) save() error {
	m.Updated = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return design.WriteAtomic(m.path(), append(b, '\n'), true)
}

// CheckRunArgs rejects user run flags that set one of contractFlags.
func CheckRunArgs(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name := strings.TrimLeft(a, "-")
		if len(name) == len(a) || len(a)-len(name) > 2 {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		for _, c := range contractFlags {
			if name == c {
				return fmt.Errorf("campaign: run flag %q is set by the launcher; remove it", a)
			}
		}
	}
	return nil
}

// ExpandLauncher replaces "{np}" in every argument of the template.
func ExpandLauncher(template []string, np int) []string {
	out := make([]string, len(template))
	for i, a := range template {
		out[i] = strings.ReplaceAll(a, "{np}", strconv.Itoa(np))
	}
	return out
}

// SplitCommand splits a launcher template into arguments without a shell:
// words are separated by white space; single quotes keep everything
// literally, double quotes keep white space and honour \" and \\, and a
// backslash outside quotes escapes the next character. Nothing is
// expanded ($VAR, globs, ~ stay as they are).
func SplitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("trailing backslash in %q", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty launcher command")
	}
	return args, nil
}

// execute runs the incomplete mpiruns of m in order.
func (m *Manifest) execute(ctx context.Context, o Options) error {
	if err := os.MkdirAll(LogDir(m.Dir, m.RunID), 0o755); err != nil {
		return err
	}
	todo := m.Incomplete()
	isTodo := map[int]bool{}
	for _, i := range todo {
		isTodo[i] = true
	}
	// Sync the recorded state with the files: the sidecar is the truth.
	for i := range m.Runs {
		r := &m.Runs[i]
		r.Complete = !isTodo[i]
		if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Status == StatusRunning {
			r.Attempts[n-1].Status = StatusAbandoned
			r.Attempts[n-1].Error = "the launcher died while this attempt ran"
		}
		switch {
		case r.Complete && r.Status != StatusOK:
			if len(r.Attempts) == 0 || r.Attempts[len(r.Attempts)-1].Status == StatusAbandoned {
				r.Status = StatusOK // finished after its launcher died
			}
		case !r.Complete && r.Status != StatusPending:
			if r.Status == StatusOK || r.Status == StatusRunning {
				r.Status = StatusAbandoned
			}
		}
	}
	if err := m.save(); err != nil {
		return err
	}
	p := newProgress(o, len(todo), m.Mpiruns-len(todo), m.Mpiruns)
	defer p.finish()
	if m.Array {
		return m.executeArray(ctx, o, p, todo)
	}
	var failed []int
	for _, i := range todo {
		if ctx.Err() != nil {
			break
		}
		p.start(i)
		st, err := m.attempt(ctx, i, o)
		if err != nil {
			return err // the manifest could not be written: stop
		}
		p.done(i, st, m.Runs[i].Attempts[len(m.Runs[i].Attempts)-1].DurationS)
		if st != StatusOK {
			failed = append(failed, i)
			if o.FailFast {
				break
			}
		}
	}
	return m.incompleteError(ctx, failed)
}

// incompleteError is nil when every mpirun of m is complete, else an
// ErrIncomplete naming the missing ones.
func (m *Manifest) incompleteError(ctx context.Context, failed []int) error {
	if in := m.Incomplete(); len(in) > 0 {
		why := ""
		if ctx.Err() != nil {
			why = " (interrupted)"
		}
		return fmt.Errorf("%w%s: mpiruns %v of %d not complete (failed now: %v); see %s and rerun with --resume",
			ErrIncomplete, why, in, m.Mpiruns, failed, m.path())
	}
	return nil
}

// attempt runs mpirun i once and records the outcome. The error is only
// for failures to record; the status says how the run went.
func (m *Manifest) attempt(ctx context.Context, i int, o Options) (string, error) {
	r := &m.Runs[i]
	k := len(r.Attempts) + 1
	a := Attempt{Status: StatusRunning, TimeoutS: o.Timeout.Seconds()}

	// Processes of an earlier attempt still running (the launcher died, or
	// a rank outlived its mpirun) would write the same files: kill them
	// first. If one of them completed the mpirun meanwhile, we are done.
	// A Slurm job of an attempt whose launcher died may still run (a
	// batch job outlives its sbatch): ask Slurm, and let it finish (at most
	// o.Timeout, then cancel it) rather than run the mpirun twice at once.
	if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Status == StatusAbandoned && r.Attempts[n-1].Slurm != nil {
		prev := r.Attempts[n-1].Slurm
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "campaign: mpirun %d: asking Slurm about job %s of the earlier attempt\n", i, prev.JobName)
		}
		slurmAwait(prev, o.Timeout)
		r.Attempts[n-1].Error += fmt.Sprintf("; its Slurm job %s ended %s", prev.JobID, prev.State)
		if prev.Cancelled {
			r.Attempts[n-1].Error += " (cancelled by the resume after the timeout)"
		}
	}
	killed, err := killStale(m.Dir, m.RunID, i, o.StaleWait)
	a.KilledStale = killed
	if err != nil {
		return "", fmt.Errorf("campaign: mpirun %d: %w", i, err)
	}
	if exists(sidecarPath(m.Dir, m.RunID, i)) {
		r.Status, r.Complete = StatusOK, true
		return StatusOK, m.save()
	}
	moved, err := moveAside(m.Dir, m.RunID, i, k)
	a.MovedAside = moved
	if err != nil {
		return "", fmt.Errorf("campaign: mpirun %d: moving leftovers aside: %w", i, err)
	}
	logBase := filepath.Join(LogDir(m.Dir, m.RunID), fmt.Sprintf("mpirun%03d-attempt%d", i, k))
	a.StdoutLog, a.StderrLog = logBase+".stdout", logBase+".stderr"
	stdout, err := os.OpenFile(a.StdoutLog, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(a.StderrLog, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	defer stderr.Close()

	argv := r.Argv
	name := fmt.Sprintf("rb-%s-m%d-a%d-%d-%x", m.RunID, i, k, os.Getpid(), time.Now().UnixNano()&0xffffffff)
	srunAt := -1
	if len(m.Batch) == 0 {
		srunAt = srunIndex(argv, len(m.Launcher))
	}
	switch alloc := os.Getenv("SLURM_JOB_ID"); {
	case filepath.Base(argv[0]) == "sbatch" || (srunAt >= 0 && alloc == ""):
		// A job of its own: name it, to find and cancel it. The name is
		// unique (launcher pid, start time): the same run id may have run
		// before in another directory.
		a.Slurm = &SlurmJob{JobName: name, MPI: SrunMPI(argv)}
		if len(m.Batch) > 0 {
			a.Slurm.MPI = SrunMPI(m.Launcher)
		}
	case srunAt >= 0:
		// A step of the allocation this launcher runs in (salloc, sbatch):
		// srun ignores SLURM_JOB_NAME there, so the step is named on its
		// command line, to find it and cancel only it after a timeout.
		a.Slurm = &SlurmJob{JobName: name, JobID: alloc, Step: true, MPI: SrunMPI(argv)}
		argv = append(append(append([]string{}, argv[:srunAt+1]...), "--job-name="+name), argv[srunAt+1:]...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Env = append(cmd.Env, r.Env...) // the mpirun's level of the per-mpirun factor
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", expectNpEnv, m.Np))
	if a.Slurm != nil && !a.Slurm.Step {
		cmd.Env = append(cmd.Env, "SLURM_JOB_NAME="+a.Slurm.JobName, "SBATCH_JOB_NAME="+a.Slurm.JobName)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Own process group so a timeout kills every process of the mpirun;
	// SIGKILL to the launcher (mpirun) if this launcher dies (Linux).
	cmd.SysProcAttr = sysProcAttr()

	start := time.Now()
	a.Started = start.UTC().Format(time.RFC3339Nano)
	type result struct {
		err     error
		started bool
	}
	startedPid := make(chan int, 1)
	res := make(chan result, 1)
	go func() {
		// Pdeathsig fires when the thread that started the child exits;
		// keep this goroutine on its thread until the child is reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			startedPid <- 0
			res <- result{err: err}
			return
		}
		startedPid <- cmd.Process.Pid
		res <- result{err: cmd.Wait(), started: true}
	}()
	pgid := <-startedPid
	if pgid > 0 {
		a.Pgid = pgid
		r.Status = StatusRunning
		r.Attempts = append(r.Attempts, a)
		if err := m.save(); err != nil {
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-res
			return "", err
		}
		r.Attempts = r.Attempts[:len(r.Attempts)-1]
	}
	var timeout <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	grace := o.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	var out result
	var graceC <-chan time.Time
	killedFor := ""
	stop := func(why string) { // SIGTERM now, SIGKILL after the grace
		if killedFor != "" {
			return
		}
		killedFor = why
		if pgid > 0 {
			syscall.Kill(-pgid, syscall.SIGTERM)
		}
		graceC = time.After(grace)
	}
	// A step is forgotten by Slurm as soon as it ends (there is no
	// accounting to ask later): learn its id and nodes while it runs.
	var poll <-chan time.Time
	if a.Slurm != nil && a.Slurm.Step {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		poll = t.C
	}
	// sbatch --wait learns that its job ended by polling, 2 s after the
	// submission, then 8 s and 32 s later (Slurm 22.05: jobs of 0.1 s, 3 s
	// and 12 s returned after 2 s, 10 s and 42 s). A batch mpirun whose
	// sidecar exists is done, so once it appears the launcher asks Slurm
	// itself and ends sbatch when the job has ended: the mpirun costs its
	// own time, not sbatch's next poll. Until then only the file is looked
	// at, which costs the measurement nothing.
	var batchPoll <-chan time.Time
	batchEnded := false
	if a.Slurm != nil && !a.Slurm.Step && len(m.Batch) > 0 {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		batchPoll = t.C
	}
	for done := false; !done; {
		select {
		case <-poll:
			if slurmStepSeen(a.Slurm) {
				poll = nil
			}
		case <-batchPoll:
			if killedFor == "" && pgid > 0 && exists(sidecarPath(m.Dir, m.RunID, i)) {
				if id, state, _, _ := slurmQuery(a.Slurm.JobName); id != "" && !slurmAlive(state) {
					batchEnded, batchPoll, timeout = true, nil, nil
					syscall.Kill(-pgid, syscall.SIGTERM)
				}
			}
		case out = <-res:
			done = true
		case <-timeout:
			stop(StatusTimedOut)
			timeout = nil
		case <-ctx.Done():
			stop(StatusInterrupted)
			ctx = context.Background() // once
		case <-graceC:
			killTree(pgid)
			graceC = nil
		}
	}
	if a.Slurm != nil {
		// Slurm first: scancel reaches the ranks on every node, the
		// local kill below only those on this one.
		if a.Slurm.Step {
			slurmFinishStep(a.Slurm, killedFor != "", grace)
		} else {
			slurmFinish(a.Slurm, killedFor != "", grace)
		}
	}
	if batchEnded && killedFor == "" {
		// sbatch was ended by us: the job's own exit code is the status.
		out.err = batchExit(a.Slurm)
		if code, _, ok := strings.Cut(a.Slurm.ExitCode, ":"); ok {
			if n, err := strconv.Atoi(code); err == nil {
				a.ExitStatus = &n
			}
		}
	}
	if pgid > 0 {
		// No process of the mpirun outlives it: its group (the id cannot
		// be reused while a member lives, so this hits only stragglers),
		// and ranks that left the group and were orphaned (Open MPI puts
		// every rank in a process group of its own).
		syscall.Kill(-pgid, syscall.SIGKILL)
		if k, err := killStale(m.Dir, m.RunID, i, o.StaleWait); err != nil {
			a.Error = err.Error()
		} else if len(k) > 0 {
			a.KilledStale = append(a.KilledStale, k...)
		}
	}
	end := time.Now()
	a.Ended = end.UTC().Format(time.RFC3339Nano)
	a.DurationS = end.Sub(start).Seconds()
	complete := exists(sidecarPath(m.Dir, m.RunID, i))
	if complete && a.Slurm != nil && a.Slurm.Step && a.Slurm.StepID == "" {
		sidecarStep(a.Slurm, sidecarPath(m.Dir, m.RunID, i)) // too short to be seen
	}
	switch {
	case !out.started:
		a.Status, a.Error = StatusFailed, "could not start: "+out.err.Error()
	case killedFor != "":
		a.Status = killedFor
		a.Error = fmt.Sprintf("stopped (SIGTERM to process group %d, SIGKILL after %v) after %.3g s", pgid, grace, a.DurationS)
		if a.Slurm != nil && a.Slurm.Cancelled {
			a.Error += fmt.Sprintf("; Slurm %s %s cancelled", map[bool]string{false: "job", true: "step"}[a.Slurm.Step], a.Slurm.ID())
		}
	case out.err != nil:
		a.Status, a.Error = StatusFailed, out.err.Error()
	case !complete:
		a.Status, a.Error = StatusFailed, "exited with status 0 but wrote no sidecar "+filepath.Base(sidecarPath(m.Dir, m.RunID, i))
	default:
		a.Status = StatusOK
	}
	if ps := cmd.ProcessState; ps != nil && !(batchEnded && killedFor == "") {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				a.Signal = ws.Signal().String()
			} else {
				st := ws.ExitStatus()
				a.ExitStatus = &st
			}
		}
	}
	if a.Status != StatusOK {
		stderr.Sync()
		stdout.Sync()
		a.StderrTail = tailLines(a.StderrLog, stderrTailLines)
		a.StdoutTail = tailLines(a.StdoutLog, stderrTailLines)
		if complete {
			a.Error += " (its sidecar exists, so its data is complete)"
		}
	}
	r.Attempts = append(r.Attempts, a)
	r.Status, r.Complete = a.Status, complete
	if complete && a.Status != StatusOK {
		r.Status = StatusOK
	}
	return a.Status, m.save()
}

// batchExit is the outcome of a batch job that the launcher saw end (its
// sbatch --wait stopped early): nil when it COMPLETED with exit code 0:0,
// otherwise an error with Slurm's state and exit code (EXIT:SIGNAL).
func batchExit(j *SlurmJob) error {
	if j.State == "COMPLETED" && j.ExitCode == "0:0" {
		return nil
	}
	return fmt.Errorf("batch job %s ended %s with exit code %s", j.JobID, j.State, j.ExitCode)
}

// moveAside moves every file of mpirun i of runID (RUNID-mpirunNNN.*: the
// .partial files and final files written before the sidecar) into
// asideDir/mpirunNNN-attemptK, each name ending in asideSuffix. It is only
// called for mpiruns without a sidecar.
func moveAside(dir, runID string, i, k int) ([]string, error) {
	base := outputBase(dir, runID, i)
	files, err := filepath.Glob(base + ".*")
	if err != nil || len(files) == 0 {
		return nil, err
	}
	dest := filepath.Join(asideDir(dir, runID), fmt.Sprintf("mpirun%03d-attempt%d", i, k))
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	var moved []string
	for _, f := range files {
		to := filepath.Join(dest, filepath.Base(f)+asideSuffix)
		if exists(to) {
			return moved, fmt.Errorf("%s already exists", to)
		}
		if err := os.Rename(f, to); err != nil {
			return moved, err
		}
		moved = append(moved, to)
	}
	return moved, design.SyncDir(dir)
}

// killStale kills, with SIGKILL, every process on this machine whose
// command line carries "--out DIR", "--run-id RUNID" and "--mpirun I": the
// launcher and ranks of an earlier attempt at mpirun i of this campaign,
// whatever their process group. It waits for them to exit (at most wait,
// 0: 10 s). Processes on other nodes (srun) are out of its reach.
func killStale(dir, runID string, i int, wait time.Duration) ([]int, error) {
	if wait <= 0 {
		wait = 10 * time.Second
	}
	var killed []int
	deadline := time.Now().Add(wait)
	for {
		pids := staleProcesses(dir, runID, i)
		if len(pids) == 0 {
			return killed, nil
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("processes %v of an earlier attempt do not die", pids)
		}
		for _, p := range pids {
			if syscall.Kill(p, syscall.SIGKILL) == nil && !containsInt(killed, p) {
				killed = append(killed, p)
			}
			// Reap it if it is our child (an orphan may be reparented
			// to a subreaper; otherwise this fails harmlessly).
			var ws syscall.WaitStatus
			syscall.Wait4(p, &ws, syscall.WNOHANG, nil)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func containsInt(l []int, x int) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

// procInfo is what /proc says about a live (not zombie) process.
type procInfo struct {
	pid, ppid int
	cmdline   string // NUL-separated, with a leading NUL
}

// processes lists the live processes of this machine from /proc.
func processes() []procInfo {
	ents, _ := os.ReadDir("/proc")
	var ps []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may contain spaces and ')'.
		j := bytes.LastIndexByte(stat, ')')
		if j < 0 {
			continue
		}
		f := strings.Fields(string(stat[j+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		ps = append(ps, procInfo{pid: pid, ppid: ppid, cmdline: "\x00" + string(cl)})
	}
	return ps
}

// staleProcesses lists the live processes (other than this one) that run
// mpirun i of runID with output directory dir.
func staleProcesses(dir, runID string, i int) []int {
	want := []string{"\x00--out\x00" + dir + "\x00", "\x00--run-id\x00" + runID + "\x00", "\x00--mpirun\x00" + strconv.Itoa(i) + "\x00"}
	var pids []int
	self := os.Getpid()
	for _, p := range processes() {
		ok := p.pid != self
		for _, w := range want {
			ok = ok && strings.Contains(p.cmdline, w)
		}
		if ok {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// killTree kills process pid, its process group and all its descendants
// (found through /proc before any is killed, since orphans lose their
// parent), with SIGKILL.
func killTree(pid int) {
	if pid <= 0 {
		return // kill(0) and kill(-1) would hit our own group or everything
	}
	children := map[int][]int{}
	for _, p := range processes() {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	tree := []int{pid}
	for k := 0; k < len(tree); k++ {
		tree = append(tree, children[tree[k]]...)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// lockCampaign takes an exclusive lock on DIR/RUNID-campaign.lock so that
// two launchers never run the same campaign; the kernel releases it when
// the process dies, even by SIGKILL.
func lockCampaign(dir, runID string) (func(), error) {
	path := filepath.Join(dir, runID+"-campaign.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("campaign: campaign %s in %s is in use by another launcher (%v)", runID, dir, err)
	}
	return func() { f.Close() }, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tailLines returns the last n lines of the file at path (reading at most
// its last 64 KiB).
func tailLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const max = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		f.Seek(st.Size()-max, io.SeekStart)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, max), max)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return lines
}

// expectNpEnv names the environment variable through which the launcher
// tells every rank how many processes it launched (Campaign.Np): it is one
// of the declarations CheckSize compares with the communicator, which
// differs when a launcher or PMI does not connect the ranks (a run of
// singletons).
const expectNpEnv = "RB_EXPECT_NP"
