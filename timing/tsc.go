package timing

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
)

// Errors returned by NewTSC. They are wrapped with the details of the
// machine; test for them with errors.Is.
var (
	// ErrNoTSC: the architecture has no time-stamp counter this package can
	// read (only amd64 is supported).
	ErrNoTSC = errors.New("timing: no usable time-stamp counter")
	// ErrNoRDTSCP: the processor does not advertise RDTSCP.
	ErrNoRDTSCP = errors.New("timing: RDTSCP not advertised")
	// ErrNotInvariant: the TSC does not tick at a constant rate in every
	// power state, so ticks cannot be converted to seconds.
	ErrNotInvariant = errors.New("timing: TSC is not invariant")
	// ErrAbsurdFrequency: a fixed or calibrated frequency outside
	// [MinTSCHz, MaxTSCHz].
	ErrAbsurdFrequency = errors.New("timing: absurd TSC frequency")
)

// The range of TSC frequencies NewTSC accepts. Real x86 time-stamp counters
// tick between a few hundred MHz and a few GHz; anything outside this range is
// a typo (MHz given as Hz) or a failed calibration.
const (
	MinTSCHz = 50e6
	MaxTSCHz = 20e9
)

// TSCFacts is what the processor (CPUID) and the kernel (/proc/cpuinfo) say
// about the time-stamp counter. DetectTSC gathers them.
type TSCFacts struct {
	Arch        string `json:"arch"`         // GOARCH
	Supported   bool   `json:"supported"`    // the architecture has a TSC we can read (amd64)
	CPUIDRDTSCP bool   `json:"cpuid_rdtscp"` // CPUID 0x80000001 EDX bit 27
	// CPUIDInvariant is CPUID 0x80000007 EDX bit 8: the TSC ticks at a
	// constant rate in all P-, C- and T-states.
	CPUIDInvariant bool `json:"cpuid_invariant"`
	SSE2           bool `json:"sse2"` // LFENCE is available (golang.org/x/sys/cpu)
	// CPUInfoRead tells whether /proc/cpuinfo could be read; the three flags
	// below are meaningful only then.
	CPUInfoRead bool   `json:"cpuinfo_read"`
	ConstantTSC bool   `json:"constant_tsc"` // kernel flag: constant rate across P-states
	NonstopTSC  bool   `json:"nonstop_tsc"`  // kernel flag: keeps ticking in deep C-states
	RDTSCPFlag  bool   `json:"rdtscp_flag"`  // kernel flag "rdtscp"
	CPUModel    string `json:"cpu_model,omitempty"`
}

// DetectTSC executes CPUID and reads /proc/cpuinfo. It never fails: what it
// cannot find out is reported as false.
func DetectTSC() TSCFacts {
	f := TSCFacts{Arch: runtime.GOARCH, Supported: tscArchSupported}
	if f.Supported {
		cpuidFacts(&f)
	}
	if r, err := os.Open("/proc/cpuinfo"); err == nil {
		parseCPUInfo(r, &f)
		r.Close()
	}
	return f
}

// CPUInfo is what /proc/cpuinfo says about the first processor.
type CPUInfo struct {
	Model string   // "model name" (x86), "Model name", "cpu model" or "Processor" (others)
	Flags []string // "flags" (x86) or "Features" (Arm)
}

// Has reports whether flag is among c's flags.
func (c CPUInfo) Has(flag string) bool { return slices.Contains(c.Flags, flag) }

// ParseCPUInfo reads the model name and flags of the first processor from
// r in /proc/cpuinfo's format; ok reports whether a flags line was found.
// It is the one /proc/cpuinfo parser of reprobench (design's environment
// capture uses it too).
func ParseCPUInfo(r io.Reader) (c CPUInfo, ok bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, found := strings.Cut(sc.Text(), ":")
		if !found {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name", "Model name", "cpu model", "Processor":
			if c.Model == "" {
				c.Model = val
			}
		case "flags", "Features":
			if !ok {
				ok = true
				c.Flags = strings.Fields(val)
			}
		}
		if ok && c.Model != "" {
			return c, ok, nil
		}
	}
	return c, ok, sc.Err()
}

// parseCPUInfo sets f's model name and TSC flags from r.
func parseCPUInfo(r io.Reader, f *TSCFacts) {
	c, ok, _ := ParseCPUInfo(r)
	if f.CPUModel == "" {
		f.CPUModel = c.Model
	}
	f.CPUInfoRead = ok
	f.ConstantTSC, f.NonstopTSC, f.RDTSCPFlag = c.Has("constant_tsc"), c.Has("nonstop_tsc"), c.Has("rdtscp")
}

// Invariant reports whether the TSC ticks at a constant rate whatever the
// power state: CPUID says so and, when /proc/cpuinfo could be read, the kernel
// agrees (constant_tsc and nonstop_tsc).
func (f TSCFacts) Invariant() bool {
	if !f.Supported || !f.CPUIDInvariant {
		return false
	}
	return !f.CPUInfoRead || (f.ConstantTSC && f.NonstopTSC)
}

// check tells whether a TSC clock may be built on this machine.
func (f TSCFacts) check(cfg TSCConfig) error {
	if !f.Supported {
		return fmt.Errorf("%w: GOARCH=%s (only amd64 is supported); use the monotonic clock", ErrNoTSC, f.Arch)
	}
	if cfg.Fenced && !f.SSE2 {
		return fmt.Errorf("%w: LFENCE needs SSE2, which the processor does not report", ErrNoTSC)
	}
	if !cfg.Fenced && !f.CPUIDRDTSCP && !cfg.AllowUnadvertisedRDTSCP {
		detail := "CPUID 0x80000001 EDX bit 27 is clear"
		if f.CPUInfoRead && f.RDTSCPFlag {
			detail += " (although /proc/cpuinfo lists rdtscp)"
		}
		return fmt.Errorf("%w: %s; read the TSC with LFENCE;RDTSC (Fenced) instead, "+
			"or set AllowUnadvertisedRDTSCP if you know the instruction executes (some hypervisors hide the bit)", ErrNoRDTSCP, detail)
	}
	if !f.Invariant() && !cfg.AllowNonInvariant {
		var why []string
		if !f.CPUIDInvariant {
			why = append(why, "CPUID 0x80000007 EDX bit 8 (invariant TSC) is clear")
		}
		if f.CPUInfoRead && !f.ConstantTSC {
			why = append(why, "/proc/cpuinfo lacks constant_tsc")
		}
		if f.CPUInfoRead && !f.NonstopTSC {
			why = append(why, "/proc/cpuinfo lacks nonstop_tsc")
		}
		return fmt.Errorf("%w: %s; its ticks do not measure time when the core changes frequency or sleeps "+
			"(set AllowNonInvariant to use it anyway, e.g. with a fixed frequency and pinned, busy cores)",
			ErrNotInvariant, strings.Join(why, ", "))
	}
	return nil
}

func checkTSCHz(hz float64, method string) error {
	if !(hz >= MinTSCHz && hz <= MaxTSCHz) {
		return fmt.Errorf("%w: %s frequency %g Hz is outside [%g, %g] Hz", ErrAbsurdFrequency, method, hz, MinTSCHz, MaxTSCHz)
	}
	return nil
}

// TSCConfig configures NewTSC. The zero value reads the counter with RDTSCP,
// requires an invariant TSC and calibrates the frequency for one second.
type TSCConfig struct {
	// Fenced reads the counter with LFENCE; RDTSC instead of RDTSCP.
	Fenced bool
	// Hz fixes the frequency in ticks per second (the Hunold & Carpen-Amarie 2016, §4.2.1
	// recommendation: the nominal TSC frequency, identical on every rank). Zero
	// calibrates it against CLOCK_MONOTONIC_RAW.
	Hz float64
	// Calibration configures the calibration when Hz is zero.
	Calibration CalibrationConfig
	// AllowNonInvariant builds the clock even if the TSC is not invariant.
	AllowNonInvariant bool
	// AllowUnadvertisedRDTSCP uses RDTSCP even when CPUID does not advertise
	// it. If the instruction really is missing, reading the clock kills the
	// process with SIGILL.
	AllowUnadvertisedRDTSCP bool
}

// TSC is a Clock on the x86 time-stamp counter: ticks are raw counter values
// minus the value read when the clock was made; Hz is the fixed or calibrated
// counter frequency. Reading it costs one RDTSCP (or LFENCE; RDTSC) and a
// function call. It is safe for concurrent use, but readings from different
// cores are comparable only when the kernel keeps the cores' counters in step
// (pin the process to be sure).
type TSC struct {
	rate   Freq
	epoch  int64
	fenced bool
	freq   Frequency
	facts  TSCFacts
}

var _ Clock = (*TSC)(nil)

// NewTSC checks the processor with DetectTSC and returns a TSC clock, or an
// error (ErrNoTSC, ErrNoRDTSCP, ErrNotInvariant, ErrAbsurdFrequency, or a
// calibration failure) that says what is wrong and how to proceed. Unless
// cfg.Hz is set, it calibrates, which takes cfg.Calibration.Duration (1 s by
// default).
func NewTSC(cfg TSCConfig) (*TSC, error) {
	return newTSC(cfg, DetectTSC(), MonotonicRaw(), nil)
}

// newTSC is NewTSC with the facts, the calibration reference and (if not
// nil) the counter injected, for tests.
func newTSC(cfg TSCConfig, facts TSCFacts, ref Reference, counter func() int64) (*TSC, error) {
	if err := facts.check(cfg); err != nil {
		return nil, err
	}
	c := &TSC{fenced: cfg.Fenced, facts: facts}
	read := c.raw
	if counter != nil {
		read = counter
	}
	if cfg.Hz != 0 {
		if err := checkTSCHz(cfg.Hz, "fixed"); err != nil {
			return nil, err
		}
		c.freq = Frequency{Hz: cfg.Hz, Method: MethodFixed}
	} else {
		f, err := Calibrate(read, ref, cfg.Calibration)
		if err != nil {
			return nil, err
		}
		if err := checkTSCHz(f.Hz, "calibrated"); err != nil {
			return nil, err
		}
		c.freq = f
	}
	c.rate = NewFreq(c.freq.Hz)
	c.epoch = read()
	return c, nil
}

func (c *TSC) raw() int64 {
	if c.fenced {
		return int64(rdtscFenced())
	}
	return int64(rdtscp())
}

// Freq returns the counter frequency (fixed or calibrated).
func (c *TSC) Freq() Freq { return c.rate }

// Now returns the counter ticks since the clock was made.
func (c *TSC) Now() Ticks {
	if c.fenced {
		return Ticks(int64(rdtscFenced()) - c.epoch)
	}
	return Ticks(int64(rdtscp()) - c.epoch)
}

// NowCPU returns Now and the TSC_AUX value RDTSCP reads with it, which Linux
// sets to the number of the core (low 12 bits) and NUMA node (above). Two
// readings with different values were taken on different cores. Linux writes
// TSC_AUX only when CPUID advertises RDTSCP (or RDPID): where the bit is
// hidden (Facts().CPUIDRDTSCP false) the value is whatever the hypervisor
// left there and means nothing. For a Fenced clock aux is always zero.
func (c *TSC) NowCPU() (ticks Ticks, aux uint32) {
	if c.fenced {
		return c.Now(), 0
	}
	t, a := rdtscpAux()
	return Ticks(int64(t) - c.epoch), a
}

// Name returns "tsc" (RDTSCP) or "tsc_lfence" (LFENCE; RDTSC).
func (c *TSC) Name() string {
	if c.fenced {
		return "tsc_lfence"
	}
	return "tsc"
}

// Source returns SourceTSC or SourceTSCFenced, the raw counter value at the
// epoch, and the frequency.
func (c *TSC) Source() Source {
	k := SourceTSC
	if c.fenced {
		k = SourceTSCFenced
	}
	return Source{Kind: k, Epoch: c.epoch, Hz: c.Freq().Hz()}
}

// Frequency returns how the frequency was obtained, for metadata.
func (c *TSC) Frequency() Frequency { return c.freq }

// Facts returns what DetectTSC found when the clock was made.
func (c *TSC) Facts() TSCFacts { return c.facts }

// Invariant reports whether the TSC is invariant (false only when the clock
// was forced with AllowNonInvariant).
func (c *TSC) Invariant() bool { return c.facts.Invariant() }
