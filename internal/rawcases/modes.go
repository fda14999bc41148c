package rawcases

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// ModesCSV returns a valid raw file of 20 mpiruns of one group, 8-byte
// MPI_Allreduce on 2 ranks, 30 repetitions each, whose runtime is 1.4×
// longer in the mpiruns whose prehistory_msgs (0–3, the mpirun modulo 4) is
// odd: two modes that the covariate explains. The values come from a fixed
// seed, so every call returns the same file.
func ModesCSV() string {
	r := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,prehistory_msgs\n")
	for m := range 20 {
		c := m % 4
		base := 1e-6 * math.Exp(0.03*r.NormFloat64())
		if c%2 == 1 {
			base *= 1.4
		}
		for rep := range 30 {
			fmt.Fprintf(&b, "r,%d,0,MPI_Allreduce,8,1,float64,2,%d,%g,0,barrier,%d\n", m, rep, base*(1+0.01*r.Float64()), c)
		}
	}
	return b.String()
}
