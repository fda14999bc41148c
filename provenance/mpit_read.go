package provenance

import (
	"bufio"
	"context"
	"encoding/json"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// defaultsEnv is the environment variable that turns a process into the
// defaults helper: with defaultsEnv=1, a program that links this package
// prints its MPI library's control variables as JSON on standard output
// and exits before main runs (package init). readMPIT runs the program's
// own executable so, in a scrubbed environment.
const defaultsEnv = "REPROBENCH_MPIT_DEFAULTS"

func init() {
	if os.Getenv(defaultsEnv) != "1" {
		return
	}
	vs, err := mpi.ControlVariables()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provenance: defaults helper:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(vs); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// keptEnv are the variables the defaults helper keeps: what loads the
// library and finds its installation, nothing that configures it.
var keptEnv = []string{"PATH", "LD_LIBRARY_PATH", "TMPDIR", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"}

// defaultsFrom describes how readMPIT finds the defaults.
const defaultsFrom = "this program re-executed with " + defaultsEnv + "=1, MPI_T initialized without MPI_Init, in an environment " +
	"of PATH, LD_LIBRARY_PATH and TMPDIR only (no OMPI_*, MPIR_CVAR_*, MPICH_* variables) and HOME an empty directory " +
	"(no $HOME/.openmpi/mca-params.conf); the installation's own parameter files (e.g. /etc/openmpi/openmpi-mca-params.conf) count as default"

// defaults runs the defaults helper (defaultsFrom) and returns the
// control variables it read, with a 30 s timeout.
func defaults() ([]mpi.ControlVariable, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "reprobench-mpit-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	env := []string{defaultsEnv + "=1", "HOME=" + home}
	for _, k := range keptEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env, cmd.Dir = env, home
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("defaults helper %s: %w: %s", exe, err, strings.TrimSpace(stderr.String()))
	}
	var vs []mpi.ControlVariable
	if err := json.Unmarshal(out, &vs); err != nil {
		return nil, fmt.Errorf("defaults helper %s: %w", exe, err)
	}
	return vs, nil
}

// readMPIT reads the library's control variables in this process and
// their defaults (defaults), and returns those that differ, with where
// each was set when an environment variable or a parameter file names it
// (all: every variable as well), and every variable read. Call it outside
// any timed part, from the thread that initialized MPI; it starts one
// process.
func readMPIT(all bool) (*MPIT, []mpi.ControlVariable) {
	vs, err := mpi.ControlVariables()
	if err != nil {
		return &MPIT{Error: err.Error(), DefaultsFrom: unavailable("no control variables")}, nil
	}
	defs, derr := defaults()
	m := &MPIT{DefaultsFrom: defaultsFrom}
	if derr != nil {
		m.DefaultsFrom = unavailable(derr.Error())
	}
	return compareCvars(m, vs, defs, derr == nil, all, os.Getenv, paramFiles()), vs
}

// compareCvars fills m from the values vs and the defaults defs (known
// when haveDefaults): Count, Differ (a value different from a known
// default; a variable the defaults lack counts as differing only when an
// environment variable or a file sets it) and, with all, All.
func compareCvars(m *MPIT, vs, defs []mpi.ControlVariable, haveDefaults, all bool, getenv func(string) string, files []paramFile) *MPIT {
	def := map[string]string{}
	for _, d := range defs {
		if !d.Bound {
			def[d.Name] = d.Value
		}
	}
	m.Count = len(vs)
	for _, v := range vs {
		c := Cvar{Name: v.Name, Value: v.Value, Enum: v.Enum, Type: v.Type, Source: cvarSource(v.Name, getenv, files), PerJob: isPerJob(v.Name)}
		d, known := def[v.Name]
		if known {
			c.Default = d
		}
		if all {
			m.All = append(m.All, c)
		}
		if v.Bound {
			continue
		}
		if (haveDefaults && known && d != v.Value) || (!known && c.Source != "") {
			m.Differ = append(m.Differ, c)
		}
	}
	return m
}

// paramFile is one parameter file's settings.
type paramFile struct {
	path string
	set  map[string]string
}

// paramFiles reads Open MPI's user and system parameter files, where they
// exist.
func paramFiles() []paramFile {
	var out []paramFile
	paths := []string{}
	if h, err := os.UserHomeDir(); err == nil {
		paths = append(paths, filepath.Join(h, ".openmpi", "mca-params.conf"))
	}
	paths = append(paths, "/etc/openmpi/openmpi-mca-params.conf")
	for _, p := range paths {
		if set, err := readParamFile(p); err == nil {
			out = append(out, paramFile{p, set})
		}
	}
	return out
}

// readParamFile reads "name = value" lines, skipping comments.
func readParamFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	set := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			set[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return set, s.Err()
}

// cvarSource names where the variable name was set: an environment
// variable (Open MPI's OMPI_MCA_name; MPICH's MPIR_CVAR_X itself or
// MPICH_X), or a parameter file; "" when none says.
func cvarSource(name string, getenv func(string) string, files []paramFile) string {
	cands := []string{"OMPI_MCA_" + name, name}
	if rest, ok := strings.CutPrefix(name, "MPIR_CVAR_"); ok {
		cands = append(cands, "MPICH_"+rest, "MPIR_PARAM_"+rest)
	}
	for _, k := range cands {
		if getenv(k) != "" {
			return "environment " + k
		}
	}
	for _, f := range files {
		if _, ok := f.set[name]; ok {
			return "file " + f.path
		}
	}
	return ""
}
