package design

import (
	"context"
	"github.com/reprobench/reprobench/timing"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Environment describes the machine, the build and the launch environment of
// a benchmark: the factors of Table VI of Hunold & Carpen-Amarie 2016 that the process itself
// can see, and the environment capture that Stanisic et al. 2017, §V asks for. What only
// MPI can report (library version, binding, processor names) is added by the
// engine. Fields that could not be read are empty and explained in
// Unavailable.
type Environment struct {
	TimeUTC    string   `json:"time_utc"` // RFC 3339, when collected
	Hostname   string   `json:"hostname"`
	Kernel     string   `json:"kernel"` // uname: sysname release version machine
	Executable string   `json:"executable,omitempty"`
	Args       []string `json:"args,omitempty"`

	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// CgoEnabled is the CGO_ENABLED build setting of the binary.
	CgoEnabled bool `json:"cgo_enabled"`
	// BuildSettings are the binary's build settings (runtime/debug:
	// -tags, CGO_CFLAGS, CGO_LDFLAGS, GOAMD64, vcs.*, …).
	BuildSettings map[string]string `json:"build_settings,omitempty"`
	// CgoEnv are the CGO_* and CC variables of the process environment.
	CgoEnv map[string]string `json:"cgo_env,omitempty"`
	// CCompiler is the first line of "CC --version", CC from "go env CC"
	// when go is installed, else $CC, else cc.
	CCompiler string `json:"c_compiler,omitempty"`
	// ModulePath and ModuleVersion identify the benchmark binary's main
	// module.
	ModulePath    string `json:"module_path,omitempty"`
	ModuleVersion string `json:"module_version,omitempty"`
	// GitCommit is vcs.revision of the build, else "git rev-parse HEAD" of
	// the working directory; GitModified is vcs.modified ("true"/"false",
	// empty when unknown).
	GitCommit   string `json:"git_commit,omitempty"`
	GitModified string `json:"git_modified,omitempty"`

	CPUModel string `json:"cpu_model"`
	// CPUs is the number of logical CPUs usable by this process; OnlineCPUs
	// the number online in the machine.
	CPUs       int `json:"cpus"`
	OnlineCPUs int `json:"online_cpus,omitempty"`
	// Governors and FrequenciesKHz are the cpufreq scaling governor and
	// current frequency of each CPU (index = CPU number), when readable.
	Governors      []string `json:"governors,omitempty"`
	FrequenciesKHz []int    `json:"frequencies_khz,omitempty"`
	// TSC flags of /proc/cpuinfo.
	ConstantTSC  bool `json:"constant_tsc"`
	NonstopTSC   bool `json:"nonstop_tsc"`
	RDTSCP       bool `json:"rdtscp"`
	TSCKnownFreq bool `json:"tsc_known_freq"`

	// MPIEnv are the variables of the MPI libraries and launchers
	// (OMPI_*, MPICH_*, PMI_*, PMIX_*, HYDRA_*, I_MPI_*, SLURM_*, …).
	MPIEnv map[string]string `json:"mpi_env,omitempty"`

	// Unavailable says what could not be collected, and why.
	Unavailable []string `json:"unavailable,omitempty"`
}

// mpiEnvPrefixes are the prefixes of environment variables recorded in
// Environment.MPIEnv.
var mpiEnvPrefixes = []string{"OMPI_", "OPAL_", "PRTE_", "MPICH_", "MPIR_", "MPIEXEC_", "PMI_", "PMIX_", "HYDRA_", "I_MPI_", "SLURM_", "MV2_", "UCX_"}

// CollectEnvironment describes this process's machine and build. It never
// fails: what cannot be read is listed in Unavailable. It runs at most two
// short external commands ("go env CC" and "CC --version", and "git
// rev-parse HEAD" when the build carries no revision), each with a 2 s
// timeout, and none that is not installed.
func CollectEnvironment() Environment {
	e := Environment{
		TimeUTC:    time.Now().UTC().Format(time.RFC3339Nano),
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		CPUs:       runtime.NumCPU(),
		Args:       os.Args,
	}
	miss := func(what string, err error) {
		e.Unavailable = append(e.Unavailable, what+": "+err.Error())
	}
	var err error
	if e.Hostname, err = os.Hostname(); err != nil {
		miss("hostname", err)
	}
	if e.Executable, err = os.Executable(); err != nil {
		miss("executable", err)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		miss("uname", err)
	} else {
		s := func(b []byte) string { return strings.TrimRight(string(b), "\x00") }
		e.Kernel = strings.Join([]string{s(u.Sysname[:]), s(u.Release[:]), s(u.Version[:]), s(u.Machine[:])}, " ")
	}

	if bi, ok := debug.ReadBuildInfo(); ok {
		e.ModulePath, e.ModuleVersion = bi.Main.Path, bi.Main.Version
		e.BuildSettings = map[string]string{}
		for _, s := range bi.Settings {
			e.BuildSettings[s.Key] = s.Value
		}
		e.CgoEnabled = e.BuildSettings["CGO_ENABLED"] == "1"
		e.GitCommit = e.BuildSettings["vcs.revision"]
		e.GitModified = e.BuildSettings["vcs.modified"]
	} else {
		e.Unavailable = append(e.Unavailable, "build info: not recorded in the binary")
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CGO_") || k == "CC" {
			if e.CgoEnv == nil {
				e.CgoEnv = map[string]string{}
			}
			e.CgoEnv[k] = v
		}
		for _, p := range mpiEnvPrefixes {
			if strings.HasPrefix(k, p) {
				if e.MPIEnv == nil {
					e.MPIEnv = map[string]string{}
				}
				e.MPIEnv[k] = v
				break
			}
		}
	}
	e.CCompiler = cCompiler(miss)
	if e.GitCommit == "" {
		if _, err := exec.LookPath("git"); err == nil {
			if out, err := command("git", "rev-parse", "HEAD"); err == nil {
				e.GitCommit = out
			}
		}
	}

	cpuinfo(&e, miss)
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		e.OnlineCPUs = countCPUList(strings.TrimSpace(string(b)))
	}
	cpufreq(&e)
	return e
}

// command runs name with a 2 s timeout and returns the first line of its
// output.
func command(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

func cCompiler(miss func(string, error)) string {
	cc := ""
	if _, err := exec.LookPath("go"); err == nil {
		cc, _ = command("go", "env", "CC")
	}
	if cc == "" {
		cc = os.Getenv("CC")
	}
	if cc == "" {
		cc = "cc"
	}
	fields := strings.Fields(cc) // CC may carry flags
	if len(fields) == 0 {
		return ""
	}
	if _, err := exec.LookPath(fields[0]); err != nil {
		miss("C compiler", err)
		return ""
	}
	v, err := command(fields[0], append(fields[1:], "--version")...)
	if err != nil {
		miss("C compiler", err)
		return ""
	}
	return v
}

func cpuinfo(e *Environment, miss func(string, error)) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		miss("/proc/cpuinfo", err)
		return
	}
	defer f.Close()
	c, _, err := timing.ParseCPUInfo(f)
	if err != nil {
		miss("/proc/cpuinfo", err)
	}
	e.CPUModel = c.Model
	e.ConstantTSC, e.NonstopTSC, e.RDTSCP, e.TSCKnownFreq = c.Has("constant_tsc"), c.Has("nonstop_tsc"), c.Has("rdtscp"), c.Has("tsc_known_freq")
}

// countCPUList counts the CPUs of a sysfs list such as "0-3,8,10-11"
// (timing.ParseCPUList), or returns 0 when it is malformed.
func countCPUList(s string) int {
	cpus, err := timing.ParseCPUList(s)
	if err != nil {
		return 0
	}
	return len(cpus)
}

func cpufreq(e *Environment) {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*")
	type cpu struct {
		n   int
		gov string
		khz int
	}
	var cpus []cpu
	for _, d := range dirs {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu"))
		if err != nil {
			continue
		}
		c := cpu{n: n, khz: -1}
		if b, err := os.ReadFile(filepath.Join(d, "cpufreq", "scaling_governor")); err == nil {
			c.gov = strings.TrimSpace(string(b))
		}
		if b, err := os.ReadFile(filepath.Join(d, "cpufreq", "scaling_cur_freq")); err == nil {
			if k, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				c.khz = k
			}
		}
		cpus = append(cpus, c)
	}
	sort.Slice(cpus, func(i, j int) bool { return cpus[i].n < cpus[j].n })
	anyGov, anyFreq := false, false
	for _, c := range cpus {
		anyGov = anyGov || c.gov != ""
		anyFreq = anyFreq || c.khz >= 0
	}
	if !anyGov && !anyFreq {
		e.Unavailable = append(e.Unavailable, "cpufreq: no scaling_governor or scaling_cur_freq in /sys/devices/system/cpu/cpu*/cpufreq")
		return
	}
	for _, c := range cpus {
		if anyGov {
			e.Governors = append(e.Governors, c.gov)
		}
		if anyFreq {
			e.FrequenciesKHz = append(e.FrequenciesKHz, c.khz)
		}
	}
}
