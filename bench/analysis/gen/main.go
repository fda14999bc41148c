// Command gen writes a synthetic raw observation file (the engine's CSV
// contract) for the analysis benchmarks: gen -rows N -seed S -label mpi_lib.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/reprobench/reprobench/analysis/synth"
)

func main() {
	rows := flag.Int("rows", 10_000_000, "approximate number of rows")
	seed := flag.Uint64("seed", 1, "random seed")
	mpiruns := flag.Int("mpiruns", 30, "number of mpiruns")
	runID := flag.String("run-id", "bench", "run_id column value")
	factor := flag.Float64("factor", 1.02, "run-time factor of the second mpi_lib value")
	flag.Parse()
	c := synth.Config{
		RunID: *runID, Mpiruns: *mpiruns,
		Calls:  []string{"MPI_Allreduce", "MPI_Bcast", "MPI_Alltoall", "MPI_Reduce"},
		Msizes: []int{8, 64, 512, 4096, 32768, 262144},
		Np:     16, Label: "mpi_lib", LabelValues: []string{"libA", "libB"}, Factors: []float64{1, *factor},
		MpirunSD: 0.02, NoiseSD: 0.05, InvalidFrac: 0.001, OutlierFrac: 0.002, Seed: *seed,
	}
	perRep := c.Mpiruns * len(c.Calls) * len(c.Msizes) * len(c.LabelValues)
	c.Reps = max(1, *rows/perRep)
	fmt.Fprintf(os.Stderr, "gen: seed=%d rows=%d\n", *seed, c.Rows())
	if err := synth.Write(os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
