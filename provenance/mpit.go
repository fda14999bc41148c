package provenance

import "strings"

// MPIT is the MPI library's configuration read through its MPI_T control
// variables (cvars) at initialization.
type MPIT struct {
	// Count is the number of control variables the library reported.
	Count int `json:"count"`
	// DefaultsFrom says where the defaults came from (MPI_T reports none
	// in the libraries supported): a run of the same binary in a clean
	// environment, or unavailable and why.
	DefaultsFrom string `json:"defaults_from"`
	// Differ are the variables whose value differs from the default, by
	// name.
	Differ []Cvar `json:"differ"`
	// All, when asked for, are every variable read.
	All []Cvar `json:"all,omitempty"`
	// Error is why MPI_T could not be read, if it could not.
	Error string `json:"error,omitempty"`
	// Checked are the control variables the launcher expected
	// (Options.Expect, ExpectEnv), read back after the measurements.
	Checked []CvarCheck `json:"checked,omitempty"`
}

// Cvar is one MPI_T control variable.
type Cvar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Default is the value in a clean environment; "" when unknown.
	Default string `json:"default,omitempty"`
	// Source is where the value was set when known: the environment
	// variable that names it, or a parameter file.
	Source string `json:"source,omitempty"`
	// Enum are the names of the variable's enumerated values
	// (MPI_T_enum), "value=name", where the library has them.
	Enum []string `json:"enum,omitempty"`
	// Type is the MPI datatype of the value (int, unsigned, double, char,
	// …).
	Type string `json:"type,omitempty"`
	// PerJob marks a variable the launcher or the job's own paths set
	// (session directories, URIs, ids, paths under $HOME): it differs
	// from one mpirun to the next by design, and comparisons skip it.
	PerJob bool `json:"per_job,omitempty"`
}

// perJob are substrings of the names of control variables that the
// launcher or the process's own paths set for each job (session
// directories, URIs, job and process ids, paths under $HOME or the working
// directory): recorded, and marked PerJob so that comparisons skip them.
var perJob = []string{"session_dir", "_uri", "jobid", "vpid", "snapshot_dir", "tmpdir", "param_files", "param_file_path",
	"component_path", "num_procs", "node_rank", "app_num", "num_nodes", "ess_base_", "orte_ess_"}

// perJobNames are per-job variables by their whole name.
var perJobNames = map[string]bool{"ess": true, "pmix": true}

// isPerJob reports whether name is a per-job variable (perJob,
// perJobNames).
func isPerJob(name string) bool {
	if perJobNames[name] {
		return true
	}
	for _, s := range perJob {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
