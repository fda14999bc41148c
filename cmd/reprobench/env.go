package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/timing"
)

func init() {
	register(command{
		name:    "env",
		summary: "describe this machine: clocks (resolution, read overhead, TSC frequency), CPU, kernel, Go and MPI versions",
		run:     runEnv,
	})
}

// envReport is the output of "reprobench env"; its JSON form is for
// metadata.
type envReport struct {
	CPUModel  string `json:"cpu_model"`
	CPUs      int    `json:"cpus"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	MPI       envMPI `json:"mpi"`
	// TSC is what CPUID and /proc/cpuinfo say about the time-stamp counter.
	TSC    timing.TSCFacts `json:"tsc"`
	Clocks []envClock      `json:"clocks"`
	// Unavailable lists the clocks that could not be built, and why.
	Unavailable []envUnavailable `json:"unavailable,omitempty"`
	// Provenance is the clock's discipline, the CPU facts and the binding
	// (every rank's under MPI, this process's otherwise).
	Provenance *provenance.Record `json:"provenance,omitempty"`
}

type envMPI struct {
	Build          string  `json:"build"`     // MPI library the binary is linked with ("none" without)
	UnderMPI       bool    `json:"under_mpi"` // launched by mpirun/mpiexec/srun
	LibraryVersion string  `json:"library_version,omitempty"`
	Ranks          int     `json:"ranks,omitempty"`
	WtickNs        float64 `json:"wtick_ns,omitempty"`
	Error          string  `json:"error,omitempty"`
}

type envClock struct {
	Name         string  `json:"name"`
	Source       string  `json:"source"`
	ResolutionNs float64 `json:"resolution_ns"`
	OverheadNs   float64 `json:"overhead_ns"`
	TickNs       float64 `json:"tick_ns"`
	// For the TSC only.
	Invariant       *bool             `json:"invariant,omitempty"`
	FrequencyHz     float64           `json:"frequency_hz,omitempty"`
	FrequencyMethod string            `json:"frequency_method,omitempty"`
	UncertaintyPPM  *float64          `json:"uncertainty_ppm,omitempty"`
	Calibration     *timing.Frequency `json:"calibration,omitempty"`
}

type envUnavailable struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// mpiLaunchVars are set by the launchers: Open MPI, PMI (MPICH's hydra,
// Slurm), PMIx.
var mpiLaunchVars = []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}

func underMPI() bool {
	for _, v := range mpiLaunchVars {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

type envOptions struct {
	tscHz             float64
	calibrate         time.Duration
	allowNonInvariant bool
	allowRDTSCP       bool
}

func runEnv(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("env", "[--json] [--tsc-hz HZ] [--calibrate 1s] [--allow-unadvertised-rdtscp] [--allow-non-invariant]", stderr)
	asJSON := fs.Bool("json", false, "print JSON for machines instead of text")
	var o envOptions
	fs.Float64Var(&o.tscHz, "tsc-hz", 0, "fix the TSC frequency in Hz (e.g. the nominal 2.1e9) instead of calibrating it")
	fs.DurationVar(&o.calibrate, "calibrate", time.Second, "how long to calibrate the TSC frequency against CLOCK_MONOTONIC_RAW (at least 1s)")
	fs.BoolVar(&o.allowRDTSCP, "allow-unadvertised-rdtscp", false, "read the TSC with RDTSCP even if CPUID does not advertise it (SIGILL if it is really missing)")
	fs.BoolVar(&o.allowNonInvariant, "allow-non-invariant", false, "use the TSC even if it is not invariant")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: env takes no arguments", errUsage)
	}
	if o.tscHz != 0 {
		if o.tscHz < timing.MinTSCHz || o.tscHz > timing.MaxTSCHz {
			return fmt.Errorf("%w: --tsc-hz %g is outside [%g, %g] Hz", errUsage, o.tscHz, timing.MinTSCHz, timing.MaxTSCHz)
		}
	} else if o.calibrate < time.Second {
		return fmt.Errorf("%w: --calibrate %v: the calibration must last at least 1s", errUsage, o.calibrate)
	}

	r, rank, err := collectEnv(o)
	if err != nil {
		return err
	}
	if rank != 0 {
		return nil // under MPI, rank 0 speaks for the job
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeEnvText(stdout, r)
}

// collectEnv gathers the report; rank is this process's rank under MPI, 0
// otherwise.
func collectEnv(o envOptions) (r envReport, rank int, err error) {
	facts := timing.DetectTSC()
	r = envReport{
		CPUModel:  facts.CPUModel,
		CPUs:      runtime.NumCPU(),
		Kernel:    kernel(),
		GoVersion: runtime.Version(),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		MPI:       envMPI{Build: mpi.BuildFlavor, UnderMPI: underMPI()},
		TSC:       facts,
	}
	if r.CPUModel == "" {
		r.CPUModel = "unknown"
	}

	var clocks []timing.Clock
	if r.MPI.UnderMPI {
		if err := mpi.Init(); err != nil {
			r.MPI.Error = err.Error()
		} else {
			defer func() {
				if ferr := mpi.Finalize(); ferr != nil && err == nil {
					err = ferr
				}
			}()
			w := mpi.World()
			rank, r.MPI.Ranks = w.Rank(), w.Size()
			if v, err := mpi.LibraryVersion(); err != nil {
				r.MPI.Error = err.Error()
			} else {
				r.MPI.LibraryVersion = v
			}
			r.MPI.WtickNs = float64(mpi.Wtick())
			if b, err := provenance.Collect(w, provenance.Options{NoMPIT: true}); err == nil {
				r.Provenance = b.Record()
			}
		}
	}
	if r.Provenance == nil {
		r.Provenance = provenance.LocalRecord()
	}

	clocks = append(clocks, timing.NewMonotonic(), timing.NewMonotonicRaw())
	tscs, unavailable := envTSCs(o, facts)
	for _, c := range tscs {
		clocks = append(clocks, c)
	}
	r.Unavailable = unavailable
	if r.MPI.UnderMPI && r.MPI.Error == "" {
		if w := mpi.WtimeClock(); w != nil {
			clocks = append(clocks, w)
		}
	}

	for _, c := range clocks {
		m, err := timing.Measure(c)
		if err != nil {
			r.Unavailable = append(r.Unavailable, envUnavailable{Name: c.Name(), Error: err.Error()})
			continue
		}
		ec := envClock{Name: m.Name, Source: m.Source, ResolutionNs: m.ResolutionNs, OverheadNs: m.OverheadNs, TickNs: m.TickNs}
		if t, ok := c.(*timing.TSC); ok {
			inv := t.Invariant()
			f := tscs[0].Frequency() // all readers share the first one's frequency
			ec.Invariant, ec.FrequencyHz, ec.FrequencyMethod = &inv, f.Hz, f.Method
			if f.Method != timing.MethodFixed {
				// A fixed frequency's uncertainty is unknown: omitted, not 0.
				u := f.UncertaintyPPM
				ec.UncertaintyPPM, ec.Calibration = &u, &f
			}
		}
		r.Clocks = append(r.Clocks, ec)
	}
	return r, rank, nil
}

// envTSCs builds the TSC clocks, RDTSCP and LFENCE;RDTSC, calibrating the
// counter's frequency once (both read the same counter).
func envTSCs(o envOptions, facts timing.TSCFacts) ([]*timing.TSC, []envUnavailable) {
	var clocks []*timing.TSC
	var un []envUnavailable
	hz := o.tscHz
	for _, fenced := range []bool{false, true} {
		name := "tsc"
		if fenced {
			name = "tsc_lfence"
		}
		cfg := timing.TSCConfig{Fenced: fenced, Hz: hz, AllowNonInvariant: o.allowNonInvariant, AllowUnadvertisedRDTSCP: o.allowRDTSCP,
			Calibration: timing.CalibrationConfig{Duration: o.calibrate}}
		c, err := timing.NewTSC(cfg)
		if err != nil {
			msg := err.Error()
			switch {
			case errors.Is(err, timing.ErrNoRDTSCP):
				msg += " [flag --allow-unadvertised-rdtscp]"
			case errors.Is(err, timing.ErrNotInvariant):
				msg += " [flag --allow-non-invariant]"
			}
			un = append(un, envUnavailable{Name: name, Error: msg})
			if errors.Is(err, timing.ErrNoTSC) || errors.Is(err, timing.ErrNotInvariant) {
				break // the same for the other reader
			}
			continue
		}
		clocks = append(clocks, c)
		hz = c.Freq().Hz()
	}
	return clocks, un
}

func kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	s := func(b []byte) string { return strings.TrimRight(string(b), "\x00") }
	return s(u.Sysname[:]) + " " + s(u.Release[:]) + " " + s(u.Version[:])
}

// fmtNs formats nanoseconds with three significant digits and a unit.
func fmtNs(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.3g ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	}
	return fmt.Sprintf("%.3g s", ns/1e9)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func writeEnvText(w io.Writer, r envReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cpu\t%s (%d CPUs usable by this process)\n", r.CPUModel, r.CPUs)
	fmt.Fprintf(tw, "kernel\t%s\n", r.Kernel)
	fmt.Fprintf(tw, "go\t%s %s/%s\n", r.GoVersion, r.GOOS, r.GOARCH)
	switch {
	case !r.MPI.UnderMPI:
		fmt.Fprintf(tw, "mpi\tnot launched by mpirun (binary built for %s)\n", r.MPI.Build)
	case r.MPI.Error != "":
		fmt.Fprintf(tw, "mpi\terror: %s\n", r.MPI.Error)
	default:
		// The first line only (MPICH's runs to its configure flags; JSON has it all).
		v, _, _ := strings.Cut(r.MPI.LibraryVersion, "\n")
		v = strings.Join(strings.Fields(v), " ")
		fmt.Fprintf(tw, "mpi\t%s (%d ranks, MPI_Wtick %s)\n", v, r.MPI.Ranks, fmtNs(r.MPI.WtickNs))
	}
	f := r.TSC
	if f.Supported {
		cpuinfo := "unreadable"
		if f.CPUInfoRead {
			cpuinfo = fmt.Sprintf("constant_tsc %s, nonstop_tsc %s, rdtscp %s", yesNo(f.ConstantTSC), yesNo(f.NonstopTSC), yesNo(f.RDTSCPFlag))
		}
		fmt.Fprintf(tw, "tsc\tinvariant %s (CPUID invariant %s, RDTSCP %s; /proc/cpuinfo %s)\n",
			yesNo(f.Invariant()), yesNo(f.CPUIDInvariant), yesNo(f.CPUIDRDTSCP), cpuinfo)
	} else {
		fmt.Fprintf(tw, "tsc\tnone on %s\n", f.Arch)
	}
	for _, l := range r.Provenance.Lines() {
		fmt.Fprintln(tw, l)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "clock\tsource\tresolution\toverhead\tfrequency")
	for _, c := range r.Clocks {
		freq := "tick " + fmtNs(c.TickNs)
		if c.FrequencyMethod == timing.MethodFixed {
			freq = fmt.Sprintf("%.6f GHz (fixed)", c.FrequencyHz/1e9)
		} else if c.Calibration != nil {
			freq = c.Calibration.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Name, c.Source, fmtNs(c.ResolutionNs), fmtNs(c.OverheadNs), freq)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, u := range r.Unavailable {
		if _, err := fmt.Fprintf(w, "%s unavailable: %s\n", u.Name, u.Error); err != nil {
			return err
		}
	}
	return nil
}
