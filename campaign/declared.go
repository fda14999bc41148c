package campaign

import (
	"fmt"
	"strconv"
	"strings"
)

// A run of singletons is the silent failure of a cluster launch: with a
// launcher or PMI plugin that does not connect the ranks to the MPI library
// of the binary (srun --mpi=none for Debian's MPICH, mpirun of Open MPI for
// an MPICH binary), every process initializes MPI alone, as a job of one,
// measures alone and writes a complete result of np 1.
// Every launcher tells the processes it starts how many it started, in
// their environment; a process whose communicator has another size was not
// connected, and must not measure. Declared reads those declarations, and
// CheckSize compares them with the communicator; package reprobench runs it
// collectively (pipeline.CheckLaunch) before a run writes anything.

// A Declaration is a process count that a launcher declared to this process
// in its environment.
type Declaration struct {
	// Var is the environment variable, Value its text.
	Var, Value string
	// Launcher says who sets Var, for people.
	Launcher string
	// Np is the count. It is 0 when Value is not a positive integer.
	Np int
	// Node marks the count of the processes on this node (Np must equal
	// the ranks of the communicator that share this node), not of the job.
	Node bool
}

// A launchVar is one variable of a launcher: a count of the job's
// processes, or (node) of this node's.
type launchVar struct {
	name string
	node bool
}

// A family is the variables one launcher sets.
type family struct {
	name string
	// counts are its count variables, in order of preference.
	counts []launchVar
	// started reports whether this launcher started this process (one of
	// its variables is set, not only a count).
	started func(getenv func(string) string) bool
	// firstOnly: only the first count set is read (Slurm's
	// SLURM_NTASKS is what older Slurm sets without SLURM_STEP_NUM_TASKS).
	firstOnly bool
}

func anySet(names ...string) func(func(string) string) bool {
	return func(getenv func(string) string) bool {
		for _, n := range names {
			if getenv(n) != "" {
				return true
			}
		}
		return false
	}
}

// inSrunStep reports whether srun started this process as a task of a job
// step (the batch script's own step has no numeric SLURM_STEP_ID).
func inSrunStep(getenv func(string) string) bool {
	_, err := strconv.Atoi(getenv("SLURM_STEP_ID"))
	return err == nil && getenv("SLURM_PROCID") != ""
}

// launcherFamilies are the launchers whose declarations Declared reads, the
// one that started this process first. A launcher's variables are set for
// the processes it starts and inherited by everything below them, so when
// an MPI launcher runs inside a Slurm step (mpirun in an sbatch script,
// MPICH's mpiexec starting its proxies through srun), the step's counts
// are the outer launcher's (its daemons, the batch step's one task), and
// only the MPI launcher's count describes this job. Hence the order: Open
// MPI's launcher (mpirun/orterun, prterun) sets OMPI_COMM_WORLD_SIZE and
// OMPI_COMM_WORLD_LOCAL_SIZE; a PMI-1/PMI-2 launcher sets PMI_SIZE (MPICH's
// and Intel MPI's mpiexec, hydra, which also sets MPI_LOCALNRANKS, and
// srun --mpi=pmi2); MVAPICH's mpirun_rsh sets MV2_COMM_WORLD_SIZE; Slurm's
// srun sets SLURM_STEP_NUM_TASKS (and SLURM_NTASKS) for every task of a step,
// whatever PMI plugin it uses — the count of a PMIx launch under srun,
// whose size PMIx gives only through its own API. Outside a step
// (SLURM_STEP_ID unset, or the batch script's own step) nothing of Slurm's
// is a count of this job's processes.
var launcherFamilies = []family{
	{name: "Open MPI's mpirun", counts: []launchVar{{"OMPI_COMM_WORLD_SIZE", false}, {"OMPI_COMM_WORLD_LOCAL_SIZE", true}},
		started: anySet("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")},
	{name: "a PMI launcher (MPICH's mpiexec, srun --mpi=pmi2)", counts: []launchVar{{"PMI_SIZE", false}, {"MPI_LOCALNRANKS", true}},
		started: anySet("PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS")},
	{name: "MVAPICH's mpirun_rsh", counts: []launchVar{{"MV2_COMM_WORLD_SIZE", false}, {"MV2_COMM_WORLD_LOCAL_SIZE", true}},
		started: anySet("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK")},
	{name: "srun", counts: []launchVar{{"SLURM_STEP_NUM_TASKS", false}, {"SLURM_NTASKS", false}},
		started: inSrunStep, firstOnly: true},
}

// Declared returns the process counts that the launchers of this process
// declared in its environment (getenv, e.g. os.Getenv): the one of
// reprobench launch (expectNpEnv), if set, and those of the launcher that
// started this process, the first of Open MPI's mpirun, a PMI launcher
// (MPICH's mpiexec, srun --mpi=pmi2), MVAPICH's mpirun_rsh and srun whose
// variables are set (an outer launcher's inherited counts describe other
// processes). Of Slurm's, only the first set of SLURM_STEP_NUM_TASKS and
// SLURM_NTASKS counts.
func Declared(getenv func(string) string) []Declaration {
	var out []Declaration
	if v := getenv(expectNpEnv); v != "" {
		out = append(out, declaration(expectNpEnv, v, "reprobench launch", false))
	}
	for _, f := range launcherFamilies {
		if !f.started(getenv) {
			continue
		}
		for _, v := range f.counts {
			if s := getenv(v.name); s != "" {
				out = append(out, declaration(v.name, s, f.name, v.node))
				if f.firstOnly {
					break
				}
			}
		}
		break
	}
	return out
}

func declaration(name, value, launcher string, node bool) Declaration {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 1 {
		n = 0
	}
	return Declaration{Var: name, Value: value, Launcher: launcher, Np: n, Node: node}
}

// SrunPMI is the srun --mpi plugin that each MPI library's Debian build
// needs (mpi.BuildFlavor → plugin): Debian's Open MPI 4.1 talks PMIx and
// not PMI-2; its MPICH 4.0 (hydra's simple PMI) talks PMI-1/PMI-2 and not
// PMIx. Measured with Slurm 22.05.8: any other plugin starts singletons.
var SrunPMI = map[string]string{"openmpi": "pmix", "mpich": "pmi2"}

// mpiLauncher is the launcher of each MPI library's Debian build.
var mpiLauncher = map[string]string{"openmpi": "Open MPI's mpirun (mpirun.openmpi)", "mpich": "MPICH's mpiexec (mpiexec.mpich)"}

// A SizeError says that this process's communicator has not the size that
// a launcher declared: the processes did not join one MPI job.
type SizeError struct {
	// Np is the communicator's size; NodeNp the number of its ranks on
	// this node.
	Np, NodeNp int
	// Wrong are the declarations that disagree (or cannot be read).
	Wrong []Declaration
	// Flavor is the MPI library the binary is built with (mpi.BuildFlavor).
	Flavor string
	// MPIType is srun's PMI plugin (SLURM_MPI_TYPE), "" outside srun.
	MPIType string
	// Hint names the likely cause and the fix.
	Hint string
}

// Error names the declarations, the communicator's size, the likely cause
// and the fix.
func (e *SizeError) Error() string {
	var what []string
	for _, d := range e.Wrong {
		who := d.Launcher
		if d.Node {
			who += ", this node"
		}
		what = append(what, fmt.Sprintf("%s=%s (%s)", d.Var, d.Value, who))
	}
	return fmt.Sprintf("the launcher declared %s, but this process's MPI communicator has %d process(es) (%d on this node): "+
		"the processes did not join one MPI job and each would measure alone, so nothing is measured and nothing is written; likely cause: %s",
		strings.Join(what, ", "), e.Np, e.NodeNp, e.Hint)
}

// CheckSize compares a communicator of np ranks, nodeNp of them on this
// node, with what the launchers declared (Declared(getenv)), and returns a
// *SizeError when a declaration disagrees or is not a count. flavor is the
// MPI library the binary is built with (mpi.BuildFlavor): the error says
// which launcher or srun --mpi plugin that library needs. Without any
// declaration (a process started by hand) it returns nil.
func CheckSize(np, nodeNp int, flavor string, getenv func(string) string) error {
	e := &SizeError{Np: np, NodeNp: nodeNp, Flavor: flavor, MPIType: getenv("SLURM_MPI_TYPE")}
	for _, d := range Declared(getenv) {
		want := np
		if d.Node {
			want = nodeNp
		}
		if d.Np != want {
			e.Wrong = append(e.Wrong, d)
		}
	}
	if len(e.Wrong) == 0 {
		return nil
	}
	e.Hint = sizeHint(e, getenv)
	return e
}

// sizeHint names the likely cause of e: srun's PMI plugin, or the
// launcher of another MPI library.
func sizeHint(e *SizeError, getenv func(string) string) string {
	own := mpiLauncher[e.Flavor]
	if own == "" {
		own = "the mpirun of the MPI library this binary is built with"
	}
	switch {
	case srunDirect(getenv):
		if note := SrunPluginNote(e.Flavor, getenv); note != "" {
			return note
		}
		return fmt.Sprintf("srun --mpi=%s is the plugin this binary's MPI library (%s) needs, yet the ranks were not connected: check srun --mpi=list and the MPI library's PMI support", e.MPIType, e.Flavor)
	case getenv("OMPI_COMM_WORLD_SIZE") != "" && e.Flavor != "openmpi":
		return fmt.Sprintf("Open MPI's mpirun started a binary built with %s: use %s, or a binary built for Open MPI", e.Flavor, own)
	case getenv("PMI_SIZE") != "" && getenv("OMPI_COMM_WORLD_SIZE") == "" && e.Flavor == "openmpi":
		return "a PMI launcher (MPICH's mpiexec?) started a binary built with Open MPI: use " + own + ", or a binary built with -tags mpich"
	case len(e.Wrong) == 1 && e.Wrong[0].Var == expectNpEnv:
		return "the launch --launcher command does not start {np} processes of one MPI job: it must pass {np} to the MPI library's own launcher, here " + own
	}
	return "launch it with " + own + " (this binary is built with " + e.Flavor + ")"
}

// srunDirect reports whether srun started this process itself, as a task
// of a step (not an MPI launcher inside a step: its mpirun or hydra's
// proxies).
func srunDirect(getenv func(string) string) bool {
	return inSrunStep(getenv) && getenv("OMPI_COMM_WORLD_SIZE") == "" && getenv("MPI_LOCALNRANKS") == ""
}

// SrunPluginNote returns, for a process that srun started itself, a note
// naming the PMI plugin this binary's MPI library (flavor, mpi.BuildFlavor)
// needs when srun used another one (SLURM_MPI_TYPE; unset for --mpi=none),
// and "" otherwise. A program prints it before MPI_Init, since there the
// library may end the process with its own message (Debian's Open MPI
// does: "OMPI was not built with SLURM's PMI support"), and otherwise
// starts singletons, which CheckSize refuses. Plugins of other names on
// other sites (pmix_v4) match by prefix.
func SrunPluginNote(flavor string, getenv func(string) string) string {
	want, ok := SrunPMI[flavor]
	if !ok || !srunDirect(getenv) {
		return ""
	}
	got := getenv("SLURM_MPI_TYPE")
	if got != "" && strings.HasPrefix(got, want) {
		return ""
	}
	how := "srun's PMI plugin --mpi=" + got
	if got == "" {
		how = "srun started the tasks without a PMI plugin (--mpi=none, or the cluster's MpiDefault=none: SLURM_MPI_TYPE is unset)"
	}
	return fmt.Sprintf("%s, which does not connect the ranks of this binary's MPI library (%s, Debian's build): use srun --mpi=%s (srun --mpi=list shows the plugins; a site may name it with a version, e.g. pmix_v4)",
		how, flavor, want)
}
