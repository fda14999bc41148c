package provenance

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// rankProbe is what one rank reads about its own process and node.
type rankProbe struct {
	Node       string   `json:"node"`
	OnlineCPUs string   `json:"online_cpus"`
	Mask       string   `json:"mask"`
	CPU        int      `json:"cpu"` // -1: unknown
	CPUSource  string   `json:"cpu_source"`
	Clock      string   `json:"clock_source"`
	Adjtimex   Adjtimex `json:"adjtimex"`
	CPUFacts   CPUFacts `json:"cpu_facts"`
	Launcher   Launcher `json:"launcher"`
}

var (
	nodeOnce  sync.Once
	nodeProbe rankProbe
)

// local reads this process's facts: the node's (once per process, cached)
// and the calling thread's affinity mask and CPU (each call). node is the
// processor name to record.
func local(node string) rankProbe {
	nodeOnce.Do(func() {
		p := &nodeProbe
		p.OnlineCPUs = readTrim("/sys/devices/system/cpu/online")
		p.Clock = readTrim("/sys/devices/system/clocksource/clocksource0/current_clocksource")
		p.Adjtimex = readAdjtimex()
		p.CPUFacts = readCPUFacts("/sys")
		p.Launcher = findLauncher(os.Getppid())
	})
	p := nodeProbe
	p.Node = node
	p.Mask = affinity()
	p.CPU, p.CPUSource = currentCPU()
	return p
}

// readTrim returns the trimmed content of a file, or Unavailable and why.
func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return unavailable(err.Error())
	}
	return strings.TrimSpace(string(b))
}

// selected returns the bracketed choice of a sysfs mode file such as
// "always [madvise] never", or Unavailable and why.
func selected(path string) string {
	s := readTrim(path)
	if IsUnavailable(s) {
		return s
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// readCPUFacts reads the CPU facts under the sysfs root sys ("/sys").
func readCPUFacts(sys string) CPUFacts {
	cpuDir := filepath.Join(sys, "devices/system/cpu")
	per := func(file string) string {
		dirs, _ := filepath.Glob(filepath.Join(cpuDir, "cpu[0-9]*"))
		slices.SortFunc(dirs, func(a, b string) int { return cpuNum(a) - cpuNum(b) })
		var vals []string
		missing := 0
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, "cpufreq", file))
			if err != nil {
				missing++
				continue
			}
			if v := strings.TrimSpace(string(b)); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			if _, err := os.Stat(filepath.Join(cpuDir, "cpu0", "cpufreq")); err != nil {
				return unavailable("no cpufreq driver (" + filepath.Join(cpuDir, "cpu0", "cpufreq") + " missing)")
			}
			return unavailable("cpufreq/" + file + " not readable")
		}
		return strings.Join(vals, ",")
	}
	f := CPUFacts{Governor: per("scaling_governor"), MinKHz: per("cpuinfo_min_freq"), MaxKHz: per("cpuinfo_max_freq"), CurKHz: per("scaling_cur_freq")}
	switch {
	case exists(filepath.Join(cpuDir, "intel_pstate/no_turbo")):
		f.Turbo = onOff(readTrim(filepath.Join(cpuDir, "intel_pstate/no_turbo")), true)
	case exists(filepath.Join(cpuDir, "cpufreq/boost")):
		f.Turbo = onOff(readTrim(filepath.Join(cpuDir, "cpufreq/boost")), false)
	default:
		f.Turbo = unavailable("neither intel_pstate/no_turbo nor cpufreq/boost in " + cpuDir)
	}
	f.SMT = readTrim(filepath.Join(cpuDir, "smt/control"))
	f.THP = selected(filepath.Join(sys, "kernel/mm/transparent_hugepage/enabled"))
	f.THPDefrag = selected(filepath.Join(sys, "kernel/mm/transparent_hugepage/defrag"))
	return f
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// onOff turns a 0/1 file into "on"/"off", inverted for no_turbo.
func onOff(v string, inverted bool) string {
	if IsUnavailable(v) {
		return v
	}
	on := v == "1"
	if inverted {
		on = !on
	}
	if on {
		return "on"
	}
	return "off"
}

func cpuNum(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "cpu"))
	return n
}

// launchers are the executable names findLauncher stops at.
var launchers = []string{"mpirun", "mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpiexec.openmpi", "mpirun.openmpi", "mpirun.mpich", "orterun", "prterun", "srun"}

// findLauncher walks up from pid (at most 8 levels) to the first process
// whose executable name is a launcher.
func findLauncher(pid int) Launcher {
	for level := 0; level < 8 && pid > 1; level++ {
		argv := cmdline(pid)
		name := ""
		if len(argv) > 0 {
			name = filepath.Base(argv[0])
		}
		comm := readTrim("/proc/" + strconv.Itoa(pid) + "/comm")
		for _, l := range launchers {
			if name == l || comm == l {
				if name != l {
					name = comm
				}
				return Launcher{Name: name, Argv: argv, How: "process " + strconv.Itoa(pid) + ", " + strconv.Itoa(level+1) + " level(s) above the rank"}
			}
		}
		pid = parentOf(pid)
	}
	return Launcher{How: unavailable("no launcher (" + strings.Join(launchers, ", ") + ") among the rank's parent processes")}
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// parentOf reads the parent pid from /proc/PID/stat (0 on failure).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := statFields(string(b))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// statFields returns the fields of a /proc stat line after the command
// name: index 0 is field 3 (state).
func statFields(s string) []string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// currentCPU returns the CPU the calling thread last ran on, from
// /proc/thread-self/stat (field 39), and how it was read; -1 and why
// when it could not be. It costs a file read (a few µs): call it between
// timed spans only.
func currentCPU() (int, string) {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return -1, unavailable(err.Error())
	}
	f := statFields(string(b))
	const processor = 39 - 3 // field 39 of stat(5), counted from field 3
	if len(f) <= processor {
		return -1, unavailable("/proc/thread-self/stat has no processor field")
	}
	n, err := strconv.Atoi(f[processor])
	if err != nil {
		return -1, unavailable("/proc/thread-self/stat: " + err.Error())
	}
	return n, "/proc/thread-self/stat"
}
