// Command mpitcheck prints, on rank 0, the provenance record's MPI_T part
// and the binding's notes as JSON, for the integration test of package
// provenance under a real mpirun.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "mpitcheck:", err)
		os.Exit(1)
	}
	b, err := provenance.Collect(mpi.World(), provenance.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpitcheck:", err)
		os.Exit(1)
	}
	rec, err := b.Finish(mpi.World(), "start and end")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpitcheck:", err)
		os.Exit(1)
	}
	if mpi.World().Rank() == 0 {
		out, _ := json.Marshal(struct {
			MPIT     *provenance.MPIT    `json:"mpi_t"`
			Notes    []string            `json:"notes"`
			Launcher provenance.Launcher `json:"launcher"`
		}{rec.MPIT, rec.Notes(), rec.Launcher})
		fmt.Println(string(out))
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "mpitcheck: finalize:", err)
		os.Exit(1)
	}
}
