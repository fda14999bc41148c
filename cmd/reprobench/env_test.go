package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// notUnderMPI clears the variables by which env detects a launcher, in case
// the tests themselves run under one.
func notUnderMPI(t *testing.T) {
	for _, v := range mpiLaunchVars {
		t.Setenv(v, "")
	}
}

func runEnvJSON(t *testing.T, args ...string) envReport {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, append([]string{"env", "--json"}, args...)); err != nil {
		t.Fatalf("env: %v\n%s", err, errb.String())
	}
	var r envReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return r
}

func findClock(r envReport, name string) (envClock, bool) {
	for _, c := range r.Clocks {
		if c.Name == name {
			return c, true
		}
	}
	return envClock{}, false
}

func TestEnvJSONFixedFrequency(t *testing.T) {
	notUnderMPI(t)
	r := runEnvJSON(t, "--tsc-hz", "2.1e9")
	if r.GoVersion == "" || r.Kernel == "" || r.CPUs < 1 || r.CPUModel == "" || r.MPI.UnderMPI || r.MPI.Build == "" {
		t.Errorf("report %+v", r)
	}
	m, ok := findClock(r, "monotonic")
	if !ok || m.Source != "monotonic" || !(m.ResolutionNs > 0) || !(m.OverheadNs > 0) || m.TickNs != 1 || m.Invariant != nil {
		t.Errorf("monotonic: %+v", m)
	}
	if !r.TSC.Invariant() {
		t.Logf("no invariant TSC here: %+v", r.Unavailable)
		return
	}
	c, ok := findClock(r, "tsc_lfence")
	if !ok {
		t.Fatalf("no tsc_lfence clock: %+v", r)
	}
	if c.FrequencyHz != 2.1e9 || c.FrequencyMethod != timing.MethodFixed || c.Invariant == nil || !*c.Invariant ||
		c.UncertaintyPPM != nil || !(c.OverheadNs > 0) || !(c.ResolutionNs > 0) {
		t.Errorf("tsc_lfence: %+v", c)
	}
	if _, ok := findClock(r, "tsc"); !ok && !r.TSC.CPUIDRDTSCP {
		if len(r.Unavailable) == 0 || !strings.Contains(r.Unavailable[0].Error, "--allow-unadvertised-rdtscp") {
			t.Errorf("RDTSCP refusal not explained: %+v", r.Unavailable)
		}
	}
}

// One real calibration (1 s).
func TestEnvJSONCalibrated(t *testing.T) {
	notUnderMPI(t)
	if !timing.DetectTSC().Invariant() {
		t.Skip("no invariant TSC here")
	}
	r := runEnvJSON(t)
	c, ok := findClock(r, "tsc_lfence")
	if !ok {
		t.Fatalf("no tsc_lfence clock: %+v", r)
	}
	if c.FrequencyMethod != timing.MethodLeastSquares || c.UncertaintyPPM == nil || !(*c.UncertaintyPPM > 0) ||
		c.Calibration == nil || c.Calibration.SpanS < 1 || c.FrequencyHz < timing.MinTSCHz {
		t.Errorf("tsc_lfence: %+v", c)
	}
	// The calibration's accuracy is asserted in package timing
	// (TestCalibrateAccuracy on a synthetic counter, TestTSCMatchesMonotonic
	// on this one); here that env reports it with its uncertainty.
	t.Logf("%v", c.Calibration)
}

func TestEnvText(t *testing.T) {
	notUnderMPI(t)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"env", "--tsc-hz", "2.1e9"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"\ncpu ", "\nkernel ", "\ngo ", "go1.", "\nmpi ", "not launched by mpirun", "clock ", "resolution", "overhead", "\nmonotonic "} {
		if !strings.Contains("\n"+s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestWriteEnvText(t *testing.T) {
	inv := true
	u := 0.0042
	f := timing.Frequency{Hz: 2096005018, Method: timing.MethodLeastSquares, UncertaintyPPM: u, Reference: "CLOCK_MONOTONIC_RAW", Samples: 101, SpanS: 1}
	r := envReport{
		CPUModel: "AMD EPYC", CPUs: 2, Kernel: "Linux 6.1", GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64",
		MPI: envMPI{Build: "openmpi", UnderMPI: true, LibraryVersion: "MPICH Version:\t4.0.2\nMPICH Release date:\t2022", Ranks: 2, WtickNs: 1},
		TSC: timing.TSCFacts{Arch: "amd64", Supported: true, CPUIDInvariant: true, CPUInfoRead: true, ConstantTSC: true, NonstopTSC: true},
		Clocks: []envClock{
			{Name: "monotonic", Source: "monotonic", ResolutionNs: 30, OverheadNs: 26.25, TickNs: 1},
			{Name: "tsc_lfence", Source: "tsc_lfence", ResolutionNs: 20.04, OverheadNs: 18.13, TickNs: 0.477,
				Invariant: &inv, FrequencyHz: f.Hz, FrequencyMethod: f.Method, UncertaintyPPM: &u, Calibration: &f},
			{Name: "mpi_wtime", Source: "mpi_wtime", ResolutionNs: 1000, OverheadNs: 60.4, TickNs: 1},
		},
		Unavailable: []envUnavailable{{Name: "tsc", Error: "RDTSCP not advertised"}},
	}
	var b bytes.Buffer
	if err := writeEnvText(&b, r); err != nil {
		t.Fatal(err)
	}
	want := `cpu     AMD EPYC (2 CPUs usable by this process)
kernel  Linux 6.1
go      go1.26.8 linux/amd64
mpi     MPICH Version: 4.0.2 (2 ranks, MPI_Wtick 1 ns)
tsc     invariant yes (CPUID invariant yes, RDTSCP no; /proc/cpuinfo constant_tsc yes, nonstop_tsc yes, rdtscp no)

clock       source      resolution  overhead  frequency
monotonic   monotonic   30 ns       26.2 ns   tick 1 ns
tsc_lfence  tsc_lfence  20 ns       18.1 ns   2.096005 GHz ± 0.0042 ppm (least squares vs CLOCK_MONOTONIC_RAW, 101 points over 1.00 s)
mpi_wtime   mpi_wtime   1 µs        60.4 ns   tick 1 ns
tsc unavailable: RDTSCP not advertised
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestEnvUsageErrors(t *testing.T) {
	notUnderMPI(t)
	for _, args := range [][]string{
		{"env", "--tsc-hz", "2100"}, // MHz given as Hz
		{"env", "--tsc-hz", "-1"},
		{"env", "--calibrate", "100ms"},
		{"env", "extra"},
		{"env", "--no-such-flag"},
	} {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, args); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// TestEnvUnderMPI runs "reprobench env" under mpirun with two ranks: rank 0
// alone prints, with the MPI library version and MPI_Wtime.
func TestEnvUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and launches mpirun")
	}
	if !mpi.Available {
		t.Skip("this build has no MPI (nompi or no cgo): the command it would launch has none either")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.BuildShared(t, f, ".", ".")
			out := mpirun.MustRun(t, f, 2, 120*time.Second, nil, bin, "env", "--json", "--tsc-hz", "2.1e9")
			var r envReport
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v (only rank 0 must print)\n%s", err, out)
			}
			if !r.MPI.UnderMPI || r.MPI.Ranks != 2 || r.MPI.LibraryVersion == "" || r.MPI.Error != "" || r.MPI.Build != f.Name {
				t.Errorf("mpi: %+v", r.MPI)
			}
			w, ok := findClock(r, "mpi_wtime")
			if !ok || w.Source != "mpi_wtime" || !(w.OverheadNs > 0) || !(w.ResolutionNs > 0) {
				t.Errorf("mpi_wtime: %+v", w)
			}
			// Informative: timing.Measure's figures are asserted on clocks
			// of known cost (timing's TestMeasureSynthetic).
			t.Logf("%s: %s; MPI_Wtime resolution %.3g ns, overhead %.3g ns", f.Name, r.MPI.LibraryVersion, w.ResolutionNs, w.OverheadNs)
		})
	}
}
