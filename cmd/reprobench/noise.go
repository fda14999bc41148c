package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/timing"
)

func init() {
	register(command{
		name: "noise",
		summary: "measure this machine's noise (selfish detour on every CPU at once) and the share of windowed " +
			"observations it must make late",
		run: runNoise,
	})
}

// noiseReport is the JSON form of "reprobench noise".
type noiseReport struct {
	DurationS    float64               `json:"duration_s"`
	ThresholdS   float64               `json:"threshold_s"`
	ToleranceS   float64               `json:"late_tolerance_s"`
	CPUs         []timing.NoiseSummary `json:"cpus"`
	Simultaneous *float64              `json:"simultaneous_fraction"` // null with one CPU or no detours
	// CoveredS is how long every CPU was spinning at once (less than
	// DurationS when a thread began late); ExpectedLate judges that span
	// and is null when it is empty.
	CoveredS     float64  `json:"covered_s"`
	ExpectedLate *float64 `json:"expected_late_fraction"`
	DetoursCSV   string   `json:"detours_csv,omitempty"`
	// Periodic are the periodic sources fitted to every CPU's detours
	// together (noiseguard.FromDetours), their times in CLOCK_MONOTONIC
	// seconds: what "run --noise-guard on --noise-guard-seed FILE" starts
	// from (reprobench.Options.NoiseSources, read by readNoiseSources).
	Periodic []noiseguard.Source `json:"periodic_sources"`
}

func runNoise(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("noise", "[--duration 1s] [--threshold 1us] [--cpus 0,1] [--late-tolerance 1us] [--out detours.csv] [--json]", stderr)
	dur := fs.Duration("duration", time.Second, "how long every CPU spins")
	thr := fs.Duration("threshold", time.Microsecond, "shortest gap between two clock readings that counts as a detour")
	cpuList := fs.String("cpus", "", "CPUs to spin on at once, one thread pinned to each, as a kernel CPU list (0,1 or 0-1; default: every CPU this process may use)")
	tol := fs.Duration("late-tolerance", time.Microsecond, "how late a windowed observation may start and still be valid (run's default), for the expected share of late starts")
	out := fs.String("out", "", "write every detour to this CSV file (cpu,start_s,length_s), raw")
	maxDetours := fs.Int("max-detours", 100_000, "detours kept per CPU (16 bytes each, allocated up front); more are counted, not kept")
	asJSON := fs.Bool("json", false, "print JSON for machines instead of text")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: reprobench noise [flags]

Measures the operating-system and hypervisor noise of this machine: one
thread pinned to each CPU spins reading CLOCK_MONOTONIC, all at the same
time, and every gap of at least --threshold between two readings is a
detour (Beckman et al.'s selfish-detour benchmark). It reports per CPU the
detours per second, the share of time lost, their lengths and their most
common period (a timer tick shows as 1000 us at HZ=1000), the share of the
detour time during which every CPU was stopped at once (a paused virtual
machine, aligned ticks), and the share of windowed observations
("reprobench run --proc-sync window") expected to start late from this
noise alone, with one rank per CPU, which no window size and no clock
synchronization removes. It is an estimate: on a 2-core VM it came within
0.5 percentage points of the late share of a pure-C windowed loop run
right next to it (bench/window/run.sh).

It keeps every probed CPU busy: run it alone, once per node (e.g. "srun
--ntasks-per-node=1 reprobench noise"), not under mpirun with several
ranks per node.

Flags:
`)
		printDefaults(fs, stderr)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: noise takes no arguments", errUsage)
	}
	if *dur < 10*time.Millisecond || *dur > time.Hour {
		return fmt.Errorf("%w: --duration %v: want between 10ms and 1h", errUsage, *dur)
	}
	if *thr < 100*time.Nanosecond {
		return fmt.Errorf("%w: --threshold %v: want at least 100ns (a clock reading takes tens of ns)", errUsage, *thr)
	}
	if *maxDetours < 1 {
		return fmt.Errorf("%w: --max-detours %d: want at least 1", errUsage, *maxDetours)
	}
	if *tol < 0 {
		return fmt.Errorf("%w: --late-tolerance %v is negative", errUsage, *tol)
	}
	cpus, err := parseCPUList(*cpuList)
	if err != nil {
		return err
	}
	if *out != "" {
		if _, err := os.Lstat(*out); err == nil {
			return fmt.Errorf("%s already exists; not overwriting raw data", *out)
		}
	}
	p, err := timing.MeasureNoise(timing.NoiseConfig{Duration: *dur, Threshold: *thr, CPUs: cpus, MaxDetours: *maxDetours})
	if err != nil {
		return err
	}
	r := noiseReport{DurationS: dur.Seconds(), ThresholdS: thr.Seconds(), ToleranceS: tol.Seconds(),
		CPUs: p.Summaries()}
	if lo, hi, ok := p.Covered(); ok {
		e := p.ExpectedLate(*tol)
		r.CoveredS, r.ExpectedLate = float64(hi-lo)/1e9, &e
	}
	if s := p.Simultaneous(); !math.IsNaN(s) {
		r.Simultaneous = &s
	}
	r.Periodic = periodicSources(p)
	if *out != "" {
		if err := writeDetours(*out, p); err != nil {
			return err
		}
		r.DetoursCSV = *out
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return printNoise(stdout, &r, *dur, *thr, *tol)
}

// printNoise prints the text report of r.
func printNoise(stdout io.Writer, r *noiseReport, dur, thr, tol time.Duration) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "noise: %d CPUs spun %v at once; detours are gaps of at least %v between clock readings\n",
		len(r.CPUs), dur, thr)
	fmt.Fprintln(tw, "cpu\tdetours\tper_s\tlost_%\tmedian_us\tp99_us\tmax_us\tperiod_us (share)")
	for _, c := range r.CPUs {
		per := "-"
		if c.PeriodNs > 0 {
			per = fmt.Sprintf("%.0f (%.0f%%)", c.PeriodNs/1e3, 100*c.PeriodShare)
		}
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%.2f\t%.1f\t%.1f\t%.1f\t%s\n", c.CPU, c.Count, c.PerSecond, 100*c.Fraction,
			c.MedianNs/1e3, c.P99Ns/1e3, c.MaxNs/1e3, per)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Simultaneous != nil {
		fmt.Fprintf(stdout, "every CPU in a detour at once: %.0f%% of the detour time\n", 100**r.Simultaneous)
	}
	if r.ExpectedLate == nil {
		fmt.Fprintln(stdout, "the CPUs never spun at the same time (threads started too late): no expected share of late starts")
	} else {
		fmt.Fprintf(stdout, "windowed observations expected to start more than %v late from this noise alone (one rank per CPU): %.2f%%\n",
			tol, 100**r.ExpectedLate)
		if r.CoveredS < 0.9*r.DurationS {
			fmt.Fprintf(stdout, "note: the CPUs spun together for only %.3f s of %.3f s (a thread started late: the machine is busy)\n", r.CoveredS, r.DurationS)
		}
	}
	for _, c := range r.CPUs {
		if c.Dropped > 0 {
			fmt.Fprintf(stdout, "CPU %d: %d detours beyond --max-detours were counted, not kept: its shares are too low\n", c.CPU, c.Dropped)
		}
	}
	if r.DetoursCSV != "" {
		fmt.Fprintf(stdout, "detours written to %s\n", r.DetoursCSV)
	}
	if len(r.Periodic) == 0 {
		fmt.Fprintln(stdout, "periodic sources: none found")
	}
	for _, s := range r.Periodic {
		fmt.Fprintf(stdout, "periodic source: every %.1f us, %.1f us long, starting %.1f us into each period of CLOCK_MONOTONIC (%d detours)\n",
			s.PeriodS*1e6, s.DurationS*1e6, s.PhaseS*1e6, s.Events)
	}
	return nil
}

// periodicSources fits the periodic noise sources of every CPU's detours
// together (a rank on any of them is held by them), times in
// CLOCK_MONOTONIC seconds.
func periodicSources(p *timing.NoiseProbe) []noiseguard.Source {
	var starts, lengths []float64
	for _, c := range p.CPUs {
		for _, d := range c.Detours {
			starts = append(starts, float64(p.EpochNs+d.StartNs)/1e9)
			lengths = append(lengths, float64(d.LengthNs)/1e9)
		}
	}
	if src := noiseguard.FromDetours(noiseguard.Config{}, starts, lengths); src != nil {
		return src
	}
	return []noiseguard.Source{} // "none found", not null
}

// noiseGuardFlags adds run's --noise-guard flags.
func noiseGuardFlags(fs *flag.FlagSet, o *runOptions) {
	fs.StringVar(&o.noiseGuard, factor.NoiseGuard.Row().Flag, "off", "on: place the windowed methods' starts away from the periodic noise learned from late observations (measures the operation without that noise); off: as an application meets it. Recorded as the noise_guard column (docs/windows.md)")
	fs.StringVar(&o.noiseGuardSeed, "noise-guard-seed", "", "`file` written by \"reprobench noise --json\" on this kind of node: its periodic_sources seed the noise guard (else it learns from scratch)")
}

// parseNoiseGuard accepts on and off.
func parseNoiseGuard(s string) (bool, error) {
	switch s {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("--noise-guard %q: want on or off", s)
}

// parseCPUList parses --cpus, a kernel CPU list ("0,2", "0-1";
// timing.ParseCPUList); empty means every allowed CPU.
func parseCPUList(s string) ([]int, error) {
	cpus, err := timing.ParseCPUList(s)
	if err != nil {
		return nil, fmt.Errorf("%w: --cpus: %v", errUsage, err)
	}
	return cpus, nil
}

// writeDetours writes every detour, raw, atomically; it never replaces an
// existing file.
func writeDetours(path string, p *timing.NoiseProbe) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"cpu", "start_s", "length_s"})
	for _, c := range p.CPUs {
		for _, d := range c.Detours {
			_ = cw.Write([]string{strconv.Itoa(c.CPU), strconv.FormatFloat(float64(d.StartNs)/1e9, 'f', 9, 64),
				strconv.FormatFloat(float64(d.LengthNs)/1e9, 'f', 9, 64)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return design.WriteAtomic(path, b.Bytes(), false)
}
