package reprobench_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// What "reprobench run --calls MPI_Bcast,MPI_Allreduce --nrep 50" does, as
// a Go program (here on 2 simulated ranks; under mpirun, c is mpi.World()
// and clk a timing clock): agree on a seed and run id, build the factorial
// in design's order for that seed from the library's defaults, check it,
// and run it.
func ExamplePrepare() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		opt := reprobench.DefaultOptions()
		opt.Dir = dir
		opt, err := reprobench.Prepare(c, opt) // the seed orders the experiments
		if err != nil {
			return err
		}
		base := reprobench.DefaultBase()
		base.Nrep, base.Warmup = 50, 10
		f := reprobench.Factorial{Calls: []mpi.Call{mpi.CallBcast, mpi.CallAllreduce}, Sizes: []int{8}, Methods: []window.Method{window.Barrier}}
		exps, err := f.Experiments(base, *opt.Seed, opt.Mpirun, c.Size())
		if err != nil {
			return err
		}
		if err := reprobench.CheckExperiments(exps, opt, c.Size()); err != nil {
			return err // a usage error: the same on every rank
		}
		opt.Clock = clk
		res, err := reprobench.Run(c, exps, opt)
		if res != nil { // rank 0
			fmt.Println(len(res.Summaries), "experiments,", res.Rows, "rows, seed drawn:", res.Metadata.SeedGenerated)
		}
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2 experiments, 100 rows, seed drawn: true
}

// A design file's experiments for one mpirun, as "reprobench run --design
// FILE --mpirun 1" reads them: empty cells take the base's levels.
func ExampleFromDesignFile() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "d.csv")
	_ = design.WriteFile(path, &design.Design{Seed: 5, HasSeed: true, Experiments: []design.Experiment{
		{Mpirun: 1, Exp: 0, Call: "MPI_Bcast", MsizeBytes: 8},
		{Mpirun: 1, Exp: 1, Call: "MPI_Allreduce", MsizeBytes: 64, Factors: factor.Values{}.WithText(factor.ProcSync, "dissemination")},
	}})
	d, err := design.ReadFile(path, reprobench.Vocabulary())
	if err != nil {
		fmt.Println(err)
		return
	}
	exps, err := reprobench.FromDesignFile(d, 1, reprobench.DefaultBase(), d.Seed, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ex := range exps {
		fmt.Println(ex.Exp, ex.Call, ex.MsizeBytes, ex.Sync.Method, ex.Runtime, ex.Nrep, ex.Warmup)
	}
	// Output:
	// 0 MPI_Bcast 8 window global 1000 100
	// 1 MPI_Allreduce 64 dissemination local 1000 100
}
