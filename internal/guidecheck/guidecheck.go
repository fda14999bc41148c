package guidecheck

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/reprobench/reprobench/guidelines"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Check runs every guideline of gs at every count (elements of the
// left-hand side's contribution) and type on c, both sides with clk, and
// returns the number of comparisons made and the mismatches. Every rank
// must call it with the same arguments; root is the root of both sides. Inputs are small integers (exact
// in every type and every summation order); the reduction is op.
func Check(c mpi.Comm, clk timing.Clock, gs []guidelines.Guideline, counts []int, types []mpi.Datatype, op mpi.ReduceOp, root int) (checks int, errs []error) {
	p, rank := c.Size(), c.Rank()
	for _, g := range gs {
		lc, err := mpi.ParseCall(g.Lhs.Call)
		if err != nil {
			return checks, append(errs, fmt.Errorf("%s: %w", g.Name, err))
		}
		rc, err := mpi.ParseCall(g.Rhs.Call)
		if err != nil {
			return checks, append(errs, fmt.Errorf("%s: %w", g.Name, err))
		}
		for _, dt := range types {
			es := dt.Size()
			for _, count := range counts {
				lp, rp := g.At(count*es, p, es)
				lo := observation(lc, lp.MsizeBytes/es, dt, op, p, root)
				ro := observation(rc, rp.MsizeBytes/es, dt, op, p, root)
				fill(lo.Send, dt, rank)
				ln := lo.Count * es
				switch g.Input {
				case guidelines.InputReplicated:
					for k := 0; k+ln <= len(ro.Send) && ln > 0; k += ln {
						copy(ro.Send[k:], lo.Send[:ln])
					}
				default:
					copy(ro.Send, lo.Send)
				}
				where := fmt.Sprintf("%s, %v, count %d, rank %d/%d", g.Name, dt, count, rank, p)
				if err := c.Observe(lo, clk); err != nil {
					errs = append(errs, fmt.Errorf("%s: lhs %v: %w", where, lc, err))
					continue
				}
				if err := c.Observe(ro, clk); err != nil {
					errs = append(errs, fmt.Errorf("%s: rhs %v: %w", where, rc, err))
					continue
				}
				want := result(lo, rank, p)
				if want == nil {
					continue // nothing to compare on this rank (a root-only result, the barrier)
				}
				got := result(ro, rank, p)
				if g.Output == guidelines.OutputRankBlock {
					if len(got) < (rank+1)*len(want) {
						errs = append(errs, fmt.Errorf("%s: rhs result of %d bytes has no block %d of %d bytes", where, len(got), rank, len(want)))
						continue
					}
					got = got[rank*len(want) : (rank+1)*len(want)]
				}
				checks++
				if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
					errs = append(errs, fmt.Errorf("%s: %v gives %v, %v gives %v", where, lc, show(want, dt), rc, show(got, dt)))
				}
			}
		}
	}
	return checks, errs
}

func observation(call mpi.Call, count int, dt mpi.Datatype, op mpi.ReduceOp, p, root int) *mpi.Observation {
	s, r := mpi.BufferSizes(call, count, dt, p)
	if call == mpi.CallBcast {
		r = max(r, s)
	}
	return &mpi.Observation{Call: call, Send: make([]byte, s), Recv: make([]byte, r), Count: count, Type: dt, Op: op,
		Root: root, Sync: mpi.SyncBarrier}
}

// fill writes small integers that differ by rank and element.
func fill(b []byte, dt mpi.Datatype, rank int) {
	es := dt.Size()
	for i := 0; i+es <= len(b); i += es {
		v := float64((rank*131+i/es*7)%997 + 1)
		put(b[i:], dt, v)
	}
}

func put(b []byte, dt mpi.Datatype, v float64) {
	ne := binary.NativeEndian
	switch dt {
	case mpi.Int32:
		ne.PutUint32(b, uint32(int32(v)))
	case mpi.Int64:
		ne.PutUint64(b, uint64(int64(v)))
	case mpi.Float32:
		ne.PutUint32(b, math.Float32bits(float32(v)))
	case mpi.Float64:
		ne.PutUint64(b, math.Float64bits(v))
	default:
		b[0] = byte(v)
	}
}

func show(b []byte, dt mpi.Datatype) string {
	ne := binary.NativeEndian
	es := dt.Size()
	var out []string
	for i := 0; i+es <= len(b) && len(out) < 8; i += es {
		switch dt {
		case mpi.Int32:
			out = append(out, fmt.Sprint(int32(ne.Uint32(b[i:]))))
		case mpi.Int64:
			out = append(out, fmt.Sprint(int64(ne.Uint64(b[i:]))))
		case mpi.Float32:
			out = append(out, fmt.Sprint(math.Float32frombits(ne.Uint32(b[i:]))))
		case mpi.Float64:
			out = append(out, fmt.Sprint(math.Float64frombits(ne.Uint64(b[i:]))))
		default:
			out = append(out, fmt.Sprint(b[i]))
		}
	}
	return fmt.Sprint(out)
}

// result returns the bytes of o's result on this rank, or nil when the
// call leaves none here (a root-only result on another rank, the barrier,
// Exscan on rank 0).
func result(o *mpi.Observation, rank, p int) []byte {
	n := o.Count * o.Type.Size()
	switch o.Call {
	case mpi.CallBarrier:
		return nil
	case mpi.CallBcast:
		if rank == o.Root {
			return o.Send[:n]
		}
		// The real binding receives into Recv; package mpitest broadcasts
		// into every rank's Send (its documented semantics) and leaves Recv
		// zero, which the inputs (all ≥ 1) never are.
		if n > 0 && bytes.Count(o.Recv[:n], []byte{0}) == n {
			return o.Send[:n]
		}
		return o.Recv[:n]
	case mpi.CallReduce:
		if rank != o.Root {
			return nil
		}
		return o.Recv[:n]
	case mpi.CallGather:
		if rank != o.Root {
			return nil
		}
		return o.Recv[:p*n]
	case mpi.CallExscan:
		if rank == 0 {
			return nil
		}
		return o.Recv[:n]
	case mpi.CallAllgather, mpi.CallAlltoall, mpi.CallGatherBcast:
		return o.Recv[:p*n]
	}
	return o.Recv[:n]
}
