package campaign_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/design"
)

// ShellJoin makes the one command string of sbatch --wrap for a batch
// campaign (launch --batch): every argument survives /bin/sh unchanged.
func ExampleShellJoin() {
	fmt.Println(campaign.ShellJoin([]string{"srun", "-n", "2", "--mpi=pmix", "rb", "run", "--label", "who=it's me"}))
	// Output: 'srun' '-n' '2' '--mpi=pmix' 'rb' 'run' '--label' 'who=it'\''s me'
}

// SrunMPI reads the PMI plugin off an srun command line; the launcher
// records it with each Slurm job.
func ExampleSrunMPI() {
	fmt.Printf("%q %q\n", campaign.SrunMPI([]string{"srun", "-n", "2", "--mpi=pmi2"}), campaign.SrunMPI([]string{"srun", "-n", "2"}))
	// Output: "pmi2" ""
}

// CheckSize refuses the singletons that "srun -n 2 --mpi=none" starts from
// an MPICH binary: srun declared 2 tasks, each process's communicator has 1.
func ExampleCheckSize() {
	env := map[string]string{"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "2"}
	getenv := func(k string) string { return env[k] }
	for _, d := range campaign.Declared(getenv) {
		fmt.Printf("%s=%d (%s)\n", d.Var, d.Np, d.Launcher)
	}
	var se *campaign.SizeError
	if err := campaign.CheckSize(1, 1, "mpich", getenv); errors.As(err, &se) {
		fmt.Println(se.Hint)
	}
	// Output:
	// SLURM_STEP_NUM_TASKS=2 (srun)
	// srun started the tasks without a PMI plugin (--mpi=none, or the cluster's MpiDefault=none: SLURM_MPI_TYPE is unset), which does not connect the ranks of this binary's MPI library (mpich, Debian's build): use srun --mpi=pmi2 (srun --mpi=list shows the plugins; a site may name it with a version, e.g. pmix_v4)
}

// CheckMpiruns bounds a campaign before anything is built for it.
func ExampleCheckMpiruns() {
	fmt.Println(campaign.CheckMpiruns(30) == nil, campaign.CheckMpiruns(100_000_000) != nil)
	// Output: true true
}

// A launcher template is split into arguments without a shell, and {np}
// is replaced by the number of processes.
func ExampleSplitCommand() {
	t, _ := campaign.SplitCommand("mpirun -np {np} --bind-to core -x 'OMPI_MCA_x=a b'")
	fmt.Printf("%q\n", campaign.ExpandLauncher(t, 4))
	// Output:
	// ["mpirun" "-np" "4" "--bind-to" "core" "-x" "OMPI_MCA_x=a b"]
}

// A campaign of 10 mpiruns of "reprobench run" with 2 processes each,
// resumed after an interruption. (Not run: it needs MPI.)
func ExampleStart() {
	env := design.CollectEnvironment()
	c := campaign.Campaign{
		Dir: "results", RunID: "allreduce-2025", Mpiruns: 10, Np: 2,
		Launcher:    []string{"mpirun", "-np", "{np}"},
		Program:     []string{"/usr/local/bin/reprobench", "run"},
		RunArgs:     []string{"--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "1000"},
		Seed:        12345,
		Environment: &env,
	}
	o := campaign.Options{Timeout: 10 * time.Minute, Progress: os.Stderr}
	m, err := campaign.Start(context.Background(), c, o)
	if errors.Is(err, campaign.ErrIncomplete) {
		// Some mpiruns failed (recorded in results/allreduce-2025-campaign.json);
		// run only the missing ones again.
		m, err = campaign.Resume(context.Background(), campaign.ManifestPath("results", "allreduce-2025"), o)
	}
	if err != nil {
		fmt.Println(err)
	}
	if m == nil {
		return
	}
	// The manifest states every mpirun's status and each attempt's.
	count := map[string]int{}
	for _, r := range m.Runs {
		count[r.Status]++
		for _, a := range r.Attempts {
			if s := a.Slurm; s != nil { // under Slurm: the job (a *campaign.SlurmJob)
				var job campaign.SlurmJob = *s
				fmt.Println("mpirun", r.Mpirun, "ran as Slurm job", job.JobID, job.State)
			}
		}
	}
	for _, st := range []string{campaign.StatusPending, campaign.StatusRunning, campaign.StatusOK, campaign.StatusFailed,
		campaign.StatusTimedOut, campaign.StatusInterrupted, campaign.StatusAbandoned} {
		fmt.Println(st, count[st])
	}
}

// The mpiruns of a job array are submitted as one index list, and
// scontrol's task lists are read back.
func ExampleCompactList() {
	fmt.Println(campaign.CompactList([]int{0, 1, 2, 5, 7, 8}), campaign.ExpandList("1-7:2%1"))
	// Output: 0-2,5,7-8 [1 3 5 7]
}
