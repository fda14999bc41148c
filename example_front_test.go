package reprobench_test

import (
	"fmt"
	"os"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// Measure your own MPI code: a ring shift as an Experiment's Func, from the
// verified defaults, run to raw data. Here on 2 simulated ranks (mpitest,
// whose rank clock Options.Clock takes); under mpirun the same program
// passes mpi.World() and leaves Clock nil.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		send, recv := make([]float64, 128), make([]float64, 128)
		next, prev := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
		ex := reprobench.DefaultExperiment(reprobench.DefaultMethod)
		ex.Name, ex.MsizeBytes, ex.Type = "ring_shift", 8*len(send), mpi.Float64
		ex.Nrep, ex.Warmup = 20, 5 // the defaults are 1000 and 100
		ex.Func = func() error { return mpi.Sendrecv(c, send, next, 1, recv, prev, 1) }
		opt := reprobench.DefaultOptions()
		opt.Dir, opt.RunID, opt.Clock = dir, "ring", r.Clock()
		res, err := reprobench.Run(c, []reprobench.Experiment{ex}, opt)
		if res != nil { // rank 0
			e := res.Metadata.Experiments[0]
			fmt.Println(e.Call, e.MsizeBytes, "bytes:", res.Rows, "rows,", e.Method, "on", res.Metadata.ClockSyncSpec)
		}
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ring_shift 1024 bytes: 20 rows, window on twolevel
}
