package campaign

import (
	"errors"
	"strings"
	"testing"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// The environments are those the launchers set here (Open MPI 4.1.4,
// MPICH 4.0.2, Slurm 22.05.8; printenv under each), cut to the
// variables that matter.
var (
	envOmpiMpirun = []string{"OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "PMIX_RANK", "0"}
	envHydra      = []string{"PMI_SIZE", "2", "PMI_RANK", "0", "MPI_LOCALNRANKS", "2", "MPI_LOCALRANKID", "0"}
	// srun --mpi=none sets no SLURM_MPI_TYPE.
	envSrunNone = []string{"SLURM_JOB_ID", "7", "SLURM_STEP_ID", "0", "SLURM_PROCID", "0", "SLURM_STEP_NUM_TASKS", "2", "SLURM_NTASKS", "2"}
	envSrunPMI2 = join(envSrunNone, []string{"SLURM_MPI_TYPE", "pmi2", "PMI_SIZE", "2", "PMI_RANK", "0", "PMI_FD", "5", "PMI_JOBID", "7.0"})
	envSrunPMIx = join(envSrunNone, []string{"SLURM_MPI_TYPE", "pmix", "PMIX_RANK", "0", "PMIX_NAMESPACE", "slurm.pmix.7.0"})
	// The batch script's own step: a job of 4 tasks, no srun step.
	envBatch = []string{"SLURM_JOB_ID", "8", "SLURM_STEP_ID", "batch", "SLURM_NTASKS", "4", "SLURM_PROCID", "0"}
)

func join(a ...[]string) []string {
	var out []string
	for _, x := range a {
		out = append(out, x...)
	}
	return out
}

func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		name       string
		env        []string
		np, nodeNp int
		flavor     string
		wrong      []string // the variables reported, nil: accepted
		hint       string   // in the message
	}{
		{"by hand", nil, 1, 1, "openmpi", nil, ""},
		{"mpirun", envOmpiMpirun, 2, 2, "openmpi", nil, ""},
		{"hydra", envHydra, 2, 2, "mpich", nil, ""},
		{"srun pmi2 mpich", envSrunPMI2, 2, 2, "mpich", nil, ""},
		{"srun pmix openmpi", envSrunPMIx, 2, 2, "openmpi", nil, ""},
		{"batch step alone", envBatch, 1, 1, "mpich", nil, ""},
		// The singletons: one rank per srun step.
		{"srun none mpich", envSrunNone, 1, 1, "mpich", []string{"SLURM_STEP_NUM_TASKS"}, "use srun --mpi=pmi2"},
		{"srun none openmpi", envSrunNone, 1, 1, "openmpi", []string{"SLURM_STEP_NUM_TASKS"}, "use srun --mpi=pmix"},
		{"srun pmix mpich", envSrunPMIx, 1, 1, "mpich", []string{"SLURM_STEP_NUM_TASKS"}, "--mpi=pmix, which does not connect"},
		{"srun pmi2 openmpi", envSrunPMI2, 1, 1, "openmpi", []string{"PMI_SIZE"}, "use srun --mpi=pmix"},
		{"openmpi's mpirun, mpich binary", envOmpiMpirun, 1, 1, "mpich", []string{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"}, "use MPICH's mpiexec"},
		{"hydra, openmpi binary", envHydra, 1, 1, "openmpi", []string{"PMI_SIZE", "MPI_LOCALNRANKS"}, "use Open MPI's mpirun"},
		// An MPI launcher inside a Slurm step (mpirun in an sbatch
		// script, hydra's proxies started by srun): the step's counts
		// are the outer launcher's and are not read.
		{"mpirun in a step", join(envSrunNone, envOmpiMpirun), 2, 2, "openmpi", nil, ""},
		{"hydra in a batch job", join(envBatch, envHydra), 2, 2, "mpich", nil, ""},
		{"hydra's proxies by srun", join([]string{"SLURM_STEP_ID", "0", "SLURM_PROCID", "0", "SLURM_STEP_NUM_TASKS", "1"}, envHydra), 2, 2, "mpich", nil, ""},
		// Node-local counts are compared with the ranks on this node.
		{"hydra, 2 nodes", []string{"PMI_SIZE", "4", "PMI_RANK", "0", "MPI_LOCALNRANKS", "2"}, 4, 2, "mpich", nil, ""},
		{"hydra, wrong node count", []string{"PMI_SIZE", "4", "PMI_RANK", "0", "MPI_LOCALNRANKS", "2"}, 4, 4, "mpich", []string{"MPI_LOCALNRANKS"}, ""},
		// launch's own declaration is always checked.
		{"launch", join(envSrunPMI2, []string{expectNpEnv, "2"}), 2, 2, "mpich", nil, ""},
		{"launch without {np}", join(envOmpiMpirun, []string{expectNpEnv, "4"}), 2, 2, "openmpi", []string{expectNpEnv}, "must pass {np}"},
		{"launch, srun none", join(envSrunNone, []string{expectNpEnv, "2"}), 1, 1, "mpich", []string{expectNpEnv, "SLURM_STEP_NUM_TASKS"}, "use srun --mpi=pmi2"},
		{"not a count", []string{expectNpEnv, "two"}, 2, 2, "mpich", []string{expectNpEnv}, ""},
		// Older Slurm without SLURM_STEP_NUM_TASKS.
		{"srun, SLURM_NTASKS only", []string{"SLURM_STEP_ID", "3", "SLURM_PROCID", "1", "SLURM_NTASKS", "2"}, 1, 1, "mpich", []string{"SLURM_NTASKS"}, "srun --mpi=pmi2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckSize(c.np, c.nodeNp, c.flavor, envOf(c.env...))
			if c.wrong == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *SizeError
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want a *SizeError", err)
			}
			var got []string
			for _, d := range se.Wrong {
				got = append(got, d.Var)
			}
			if strings.Join(got, ",") != strings.Join(c.wrong, ",") {
				t.Errorf("wrong declarations %v, want %v", got, c.wrong)
			}
			msg := err.Error()
			if !strings.Contains(msg, "did not join one MPI job") || !strings.Contains(msg, c.hint) {
				t.Errorf("message %q: want the cause and %q", msg, c.hint)
			}
			for _, v := range c.wrong {
				if !strings.Contains(msg, v+"=") {
					t.Errorf("message %q does not name %s", msg, v)
				}
			}
		})
	}
}

// Before MPI_Init, a process that srun started with a plugin its library
// cannot use gets a note naming the right one (Debian's Open MPI ends the
// process inside MPI_Init, where CheckSize never runs).
func TestSrunPluginNote(t *testing.T) {
	for _, c := range []struct {
		env    []string
		flavor string
		want   string // "" for no note
	}{
		{envSrunNone, "openmpi", "without a PMI plugin"},
		{envSrunPMI2, "openmpi", "use srun --mpi=pmix"},
		{envSrunPMIx, "openmpi", ""},
		{join(envSrunNone, []string{"SLURM_MPI_TYPE", "pmix_v4"}), "openmpi", ""},
		{envSrunPMIx, "mpich", "use srun --mpi=pmi2"},
		{envSrunPMI2, "mpich", ""},
		{envOmpiMpirun, "openmpi", ""},
		{join(envSrunNone, envOmpiMpirun), "openmpi", ""}, // mpirun inside a step
		{join(envBatch, envHydra), "mpich", ""},
		{nil, "mpich", ""},
	} {
		got := SrunPluginNote(c.flavor, envOf(c.env...))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s under %v: note %q, want %q", c.flavor, c.env, got, c.want)
		}
	}
}
