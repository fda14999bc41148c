package mpitest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/reprobench/reprobench/mpi"
)

// Collectives are built from point-to-point messages on the communicator's
// collective context, so they cost simulated time like any message:
//
//	Barrier, SyncDissemination  dissemination, ⌈log2 P⌉ rounds
//	Bcast                      binomial tree from root
//	Reduce                     binomial tree to root
//	Allreduce                  Reduce to 0, then Bcast
//	Scan, Exscan               recursive doubling (Hillis–Steele), ⌈log2 P⌉ rounds
//	Gather, Scatter            linear: root exchanges one message with every rank
//	Allgather                  Gather to 0, then Bcast
//	Alltoall                   pairwise exchange, P−1 rounds
//	ReduceScatterBlock         Reduce to 0, then Scatter
//
// Reductions combine in a fixed order, so floating-point results are
// identical on every rank and for every run.

// Internal tags of collective messages.
const (
	tagBarrier int32 = iota + 1
	tagBcast
	tagReduce
	tagScan
	tagExscan
	tagGather
	tagScatter
	tagAlltoall
	tagDissem
	tagPingPong
)

func (c *comm) csend(dst int, tag int32, data []byte) error {
	return c.r.send(c, dst, mkey{ctx: c.ctx | 1, src: int32(c.rank), tag: tag}, data)
}

func (c *comm) crecv(buf []byte, src int, tag int32, op string) error {
	return c.r.recv(c, buf, src, mkey{ctx: c.ctx | 1, src: int32(src), tag: tag}, op)
}

// scratch returns the rank's i-th scratch buffer with length n.
func (c *comm) scratch(i, n int) []byte {
	s := c.r.scratch[i]
	if cap(s) < n {
		s = make([]byte, n)
		c.r.scratch[i] = s
	}
	return s[:n]
}

// checkColl validates the common arguments of a collective and returns the
// size in bytes of count elements.
func (c *comm) checkColl(fn string, count int, dt mpi.Datatype, root int) (int, error) {
	if err := c.check(fn); err != nil {
		return 0, err
	}
	return mpi.CheckColl(fn, c.size, count, dt, root) // shared with the cgo binding
}

func needBuf(fn, which string, buf []byte, n int) error { return mpi.CheckBuffer(fn, which, buf, n) }

func checkOp(fn string, dt mpi.Datatype, op mpi.ReduceOp) error { return mpi.CheckOp(fn, dt, op) }

// Barrier is a dissemination barrier.
func (c *comm) Barrier() error {
	if err := c.check("MPI_Barrier"); err != nil {
		return err
	}
	return c.dissemination(tagBarrier, "MPI_Barrier")
}

func (c *comm) dissemination(tag int32, fn string) error {
	p := c.size
	for d := 1; d < p; d *= 2 {
		if err := c.csend((c.rank+d)%p, tag, nil); err != nil {
			return err
		}
		if err := c.crecv(nil, (c.rank-d+p)%p, tag, fn); err != nil {
			return err
		}
	}
	return nil
}

// Bcast broadcasts along a binomial tree rooted at root, or with the
// algorithm RBSIM_BCAST_ALGORITHM selects (algorithms.go).
func (c *comm) Bcast(buf []byte, count int, dt mpi.Datatype, root int) error {
	n, err := c.checkColl("MPI_Bcast", count, dt, root)
	if err != nil {
		return err
	}
	if err := needBuf("MPI_Bcast", "", buf, n); err != nil {
		return err
	}
	return c.bcastAlg(buf[:n], root, "MPI_Bcast", c.r.w.algs[simBcast])
}

func (c *comm) bcast(buf []byte, root int, fn string) error {
	return c.bcastN(buf, len(buf), root, fn)
}

// bcastN is bcast of n bytes; with buf nil its messages carry no content
// (Rank.sendN).
func (c *comm) bcastN(buf []byte, n int, root int, fn string) error {
	p := c.size
	vr := (c.rank - root + p) % p
	mask := 1
	for mask < p {
		if vr&mask != 0 {
			if err := c.r.recvN(c, buf, n, (vr-mask+root)%p, mkey{ctx: c.ctx | 1, src: int32((vr - mask + root) % p), tag: tagBcast}, fn); err != nil {
				return err
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < p {
			if _, err := c.r.sendN(c.world((vr+mask+root)%p), mkey{ctx: c.ctx | 1, src: int32(c.rank), tag: tagBcast}, buf, n, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Reduce combines along a binomial tree to root, or with the algorithm
// RBSIM_REDUCE_ALGORITHM selects (algorithms.go).
func (c *comm) Reduce(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, root int) error {
	const fn = "MPI_Reduce"
	n, err := c.checkColl(fn, count, dt, root)
	if err != nil {
		return err
	}
	if err := checkOp(fn, dt, op); err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n); err != nil {
		return err
	}
	if c.rank == root {
		if err := needBuf(fn, "receive", recv, n); err != nil {
			return err
		}
	}
	return c.reduceAlg(send[:n], recv, count, dt, op, root, fn, c.r.w.algs[simReduce])
}

// reduce leaves the result in recv[:len(send)] at root; recv is unused
// elsewhere.
func (c *comm) reduce(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, root int, fn string) error {
	p, n := c.size, len(send)
	vr := (c.rank - root + p) % p
	acc := c.scratch(0, n)
	copy(acc, send)
	tmp := c.scratch(1, n)
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			return c.csend((vr-mask+root)%p, tagReduce, acc)
		}
		if vr+mask < p {
			if err := c.crecv(tmp, (vr+mask+root)%p, tagReduce, fn); err != nil {
				return err
			}
			combine(acc, tmp, count, dt, op)
		}
	}
	copy(recv[:n], acc)
	return nil
}

// Allreduce is Reduce to rank 0 followed by Bcast, or the algorithm
// RBSIM_ALLREDUCE_ALGORITHM selects (algorithms.go).
func (c *comm) Allreduce(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) error {
	const fn = "MPI_Allreduce"
	n, err := c.checkColl(fn, count, dt, 0)
	if err != nil {
		return err
	}
	if err := checkOp(fn, dt, op); err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n); err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n); err != nil {
		return err
	}
	return c.allreduceAlg(send[:n], recv, count, dt, op, fn, c.r.w.algs[simAllreduce])
}

// Scan is an inclusive prefix reduction by recursive doubling.
func (c *comm) Scan(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) error {
	return c.scan(send, recv, count, dt, op, false)
}

// Exscan is an exclusive prefix reduction; recv on rank 0 is unchanged.
func (c *comm) Exscan(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) error {
	return c.scan(send, recv, count, dt, op, true)
}

func (c *comm) scan(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, excl bool) error {
	fn, tag := "MPI_Scan", tagScan
	if excl {
		fn, tag = "MPI_Exscan", tagExscan
	}
	n, err := c.checkColl(fn, count, dt, 0)
	if err != nil {
		return err
	}
	if err := checkOp(fn, dt, op); err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n); err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n); err != nil {
		return err
	}
	p := c.size
	partial := c.scratch(0, n) // reduction of ranks (r−2d, r]
	copy(partial, send[:n])
	tmp := c.scratch(1, n)
	have := false // whether recv holds the exclusive prefix yet
	if !excl {
		copy(recv, send[:n])
	}
	for d := 1; d < p; d *= 2 {
		if c.rank+d < p {
			if err := c.csend(c.rank+d, tag, partial); err != nil {
				return err
			}
		}
		if c.rank-d >= 0 {
			if err := c.crecv(tmp, c.rank-d, tag, fn); err != nil {
				return err
			}
			// tmp reduces ranks below ours: combine it first.
			if excl {
				if have {
					combineInto(recv[:n], tmp, recv[:n], count, dt, op)
				} else {
					copy(recv[:n], tmp)
					have = true
				}
			} else {
				combineInto(recv[:n], tmp, recv[:n], count, dt, op)
			}
			combineInto(partial, tmp, partial, count, dt, op)
		}
	}
	return nil
}

// Gather: every rank sends its block to root.
func (c *comm) Gather(send, recv []byte, count int, dt mpi.Datatype, root int) error {
	const fn = "MPI_Gather"
	n, err := c.checkColl(fn, count, dt, root)
	if err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n); err != nil {
		return err
	}
	if c.rank == root {
		if err := needBuf(fn, "receive", recv, n*c.size); err != nil {
			return err
		}
	}
	return c.gather(send[:n], recv, root, fn)
}

func (c *comm) gather(send, recv []byte, root int, fn string) error {
	n := len(send)
	if c.rank != root {
		return c.csend(root, tagGather, send)
	}
	for i := 0; i < c.size; i++ {
		if i == root {
			copy(recv[i*n:(i+1)*n], send)
			continue
		}
		if err := c.crecv(recv[i*n:(i+1)*n], i, tagGather, fn); err != nil {
			return err
		}
	}
	return nil
}

// Scatter: root sends every rank its block.
func (c *comm) Scatter(send, recv []byte, count int, dt mpi.Datatype, root int) error {
	const fn = "MPI_Scatter"
	n, err := c.checkColl(fn, count, dt, root)
	if err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n); err != nil {
		return err
	}
	if c.rank == root {
		if err := needBuf(fn, "send", send, n*c.size); err != nil {
			return err
		}
	}
	return c.scatter(send, recv[:n], root, fn)
}

func (c *comm) scatter(send, recv []byte, root int, fn string) error {
	n := len(recv)
	if c.rank != root {
		return c.crecv(recv, root, tagScatter, fn)
	}
	for i := 0; i < c.size; i++ {
		if i == root {
			continue
		}
		if err := c.csend(i, tagScatter, send[i*n:(i+1)*n]); err != nil {
			return err
		}
	}
	copy(recv, send[root*n:(root+1)*n])
	return nil
}

// Allgather is Gather to rank 0 followed by Bcast.
func (c *comm) Allgather(send, recv []byte, count int, dt mpi.Datatype) error {
	const fn = "MPI_Allgather"
	n, err := c.checkColl(fn, count, dt, 0)
	if err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n); err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n*c.size); err != nil {
		return err
	}
	return c.allgather(send[:n], recv, n, fn)
}

func (c *comm) allgather(send, recv []byte, n int, fn string) error {
	if err := c.gather(send[:n], recv, 0, fn); err != nil {
		return err
	}
	return c.bcast(recv[:n*c.size], 0, fn)
}

// Alltoall is a pairwise exchange in P−1 rounds.
func (c *comm) Alltoall(send, recv []byte, count int, dt mpi.Datatype) error {
	const fn = "MPI_Alltoall"
	n, err := c.checkColl(fn, count, dt, 0)
	if err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n*c.size); err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n*c.size); err != nil {
		return err
	}
	p, r := c.size, c.rank
	copy(recv[r*n:(r+1)*n], send[r*n:(r+1)*n])
	for i := 1; i < p; i++ {
		dst, src := (r+i)%p, (r-i+p)%p
		if err := c.csend(dst, tagAlltoall, send[dst*n:(dst+1)*n]); err != nil {
			return err
		}
		if err := c.crecv(recv[src*n:(src+1)*n], src, tagAlltoall, fn); err != nil {
			return err
		}
	}
	return nil
}

// ReduceScatterBlock is Reduce to rank 0 followed by Scatter.
func (c *comm) ReduceScatterBlock(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) error {
	const fn = "MPI_Reduce_scatter_block"
	n, err := c.checkColl(fn, count, dt, 0)
	if err != nil {
		return err
	}
	if err := checkOp(fn, dt, op); err != nil {
		return err
	}
	if err := needBuf(fn, "send", send, n*c.size); err != nil {
		return err
	}
	if err := needBuf(fn, "receive", recv, n); err != nil {
		return err
	}
	all := c.scratch(2, n*c.size)
	if err := c.reduce(send[:n*c.size], all, count*c.size, dt, op, 0, fn); err != nil {
		return err
	}
	return c.scatter(all, recv[:n], 0, fn)
}

// combine sets acc[i] = acc[i] op x[i] for count elements.
func combine(acc, x []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) {
	combineInto(acc, acc, x, count, dt, op)
}

type number interface {
	~int32 | ~int64 | ~float32 | ~float64
}

func apply[T number](op mpi.ReduceOp, a, b T) T {
	switch op {
	case mpi.Min:
		if b < a {
			return b
		}
		return a
	case mpi.Max:
		if b > a {
			return b
		}
		return a
	}
	return a + b
}

// combineInto sets dst[i] = a[i] op b[i] for count elements; dst may alias
// a or b. Buffers need not be aligned.
func combineInto(dst, a, b []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) {
	ne := binary.NativeEndian
	switch dt {
	case mpi.Int32:
		for i := 0; i < count; i++ {
			k := 4 * i
			v := apply(op, int32(ne.Uint32(a[k:])), int32(ne.Uint32(b[k:])))
			ne.PutUint32(dst[k:], uint32(v))
		}
	case mpi.Int64:
		for i := 0; i < count; i++ {
			k := 8 * i
			v := apply(op, int64(ne.Uint64(a[k:])), int64(ne.Uint64(b[k:])))
			ne.PutUint64(dst[k:], uint64(v))
		}
	case mpi.Float32:
		for i := 0; i < count; i++ {
			k := 4 * i
			v := apply(op, f32(ne.Uint32(a[k:])), f32(ne.Uint32(b[k:])))
			ne.PutUint32(dst[k:], f32bits(v))
		}
	case mpi.Float64:
		for i := 0; i < count; i++ {
			k := 8 * i
			v := apply(op, f64(ne.Uint64(a[k:])), f64(ne.Uint64(b[k:])))
			ne.PutUint64(dst[k:], f64bits(v))
		}
	default:
		panic(fmt.Sprintf("mpitest: reduction on %v", dt))
	}
}

func f32(u uint32) float32     { return math.Float32frombits(u) }
func f32bits(f float32) uint32 { return math.Float32bits(f) }
func f64(u uint64) float64     { return math.Float64frombits(u) }
func f64bits(f float64) uint64 { return math.Float64bits(f) }
