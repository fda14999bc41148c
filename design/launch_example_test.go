package design_test

import (
	"fmt"

	"github.com/reprobench/reprobench/design"
)

// ShellJoin makes the one command string of sbatch --wrap for a batch
// campaign (launch --batch): every argument survives /bin/sh unchanged.
func ExampleShellJoin() {
	fmt.Println(design.ShellJoin([]string{"srun", "-n", "2", "--mpi=pmix", "rb", "run", "--label", "who=it's me"}))
	// Output: 'srun' '-n' '2' '--mpi=pmix' 'rb' 'run' '--label' 'who=it'\''s me'
}

// SrunMPI reads the PMI plugin off an srun command line; the launcher
// records it with each Slurm job.
func ExampleSrunMPI() {
	fmt.Printf("%q %q\n", design.SrunMPI([]string{"srun", "-n", "2", "--mpi=pmi2"}), design.SrunMPI([]string{"srun", "-n", "2"}))
	// Output: "pmi2" ""
}

// CheckMpiruns bounds a campaign before anything is built for it.
func ExampleCheckMpiruns() {
	fmt.Println(design.CheckMpiruns(30) == nil, design.CheckMpiruns(100_000_000) != nil)
	// Output: true true
}
