package badargs

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
)

// Case is one invalid call. Call is made by every rank (a rejected call
// does not communicate); Want is its error on a communicator of size p.
type Case struct {
	Name string
	Call func(c mpi.Comm) error
	Want func(p int) string
}

func fixed(s string) func(int) string { return func(int) string { return s } }

// Cases returns the list.
func Cases() []Case {
	b8 := make([]byte, 8)
	return []Case{
		{"send to rank p", func(c mpi.Comm) error { return c.Send(b8, c.Size(), 0) },
			func(p int) string { return fmt.Sprintf("mpi: MPI_Send: rank %d out of range [0,%d)", p, p) }},
		{"recv from -1", func(c mpi.Comm) error { return c.Recv(b8, -1, 0) },
			func(p int) string { return fmt.Sprintf("mpi: MPI_Recv: rank -1 out of range [0,%d)", p) }},
		{"negative tag", func(c mpi.Comm) error { return c.Send(b8, 0, -1) },
			fixed(fmt.Sprintf("mpi: MPI_Send: tag -1 out of range [0,%d)", mpi.TagInternal))},
		{"binding's tag", func(c mpi.Comm) error { return c.Send(b8, 0, mpi.TagInternal) },
			fixed(fmt.Sprintf("mpi: MPI_Send: tag %d out of range [0,%d)", mpi.TagInternal, mpi.TagInternal))},
		{"sendrecv bad recv tag", func(c mpi.Comm) error { return c.Sendrecv(b8, 0, 1, b8, 0, 1<<30) },
			fixed(fmt.Sprintf("mpi: MPI_Sendrecv: tag %d out of range [0,%d)", 1<<30, mpi.TagInternal))},
		{"bcast negative count", func(c mpi.Comm) error { return c.Bcast(b8, -1, mpi.Byte, 0) },
			fixed("mpi: MPI_Bcast: negative count -1")},
		{"bcast bad datatype", func(c mpi.Comm) error { return c.Bcast(b8, 1, mpi.Datatype(99), 0) },
			fixed("mpi: MPI_Bcast: invalid datatype Datatype(99)")},
		{"negative count and bad datatype", func(c mpi.Comm) error { return c.Bcast(b8, -1, mpi.Datatype(99), 0) },
			fixed("mpi: MPI_Bcast: negative count -1")},
		{"bcast root p", func(c mpi.Comm) error { return c.Bcast(b8, 1, mpi.Byte, c.Size()) },
			func(p int) string { return fmt.Sprintf("mpi: MPI_Bcast: root %d out of range [0,%d)", p, p) }},
		{"bcast short buffer", func(c mpi.Comm) error { return c.Bcast(b8, 2, mpi.Float64, 0) },
			fixed("mpi: MPI_Bcast: buffer has 8 bytes, need 16")},
		{"allreduce on bytes", func(c mpi.Comm) error { return c.Allreduce(b8, b8, 8, mpi.Byte, mpi.Sum) },
			fixed("mpi: MPI_Allreduce: mpi: reduction MPI_SUM is not defined on MPI_BYTE; use int32, int64, float32 or float64")},
		{"allreduce short receive buffer", func(c mpi.Comm) error { return c.Allreduce(make([]byte, 16), b8, 2, mpi.Float64, mpi.Sum) },
			fixed("mpi: MPI_Allreduce: receive buffer has 8 bytes, need 16")},
		{"reduce bad op", func(c mpi.Comm) error { return c.Reduce(b8, b8, 1, mpi.Float64, mpi.ReduceOp(99), 0) },
			fixed("mpi: MPI_Reduce: mpi: invalid reduction ReduceOp(99)")},
		{"gather short send buffer", func(c mpi.Comm) error { return c.Gather(b8, make([]byte, 64*c.Size()), 2, mpi.Float64, 0) },
			fixed("mpi: MPI_Gather: send buffer has 8 bytes, need 16")},
	}
}
