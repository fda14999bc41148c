package opcheck

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

// Case is one check: a row at a datatype, count, root and skew.
type Case struct {
	Call  mpi.Call
	Type  mpi.Datatype
	Count int
	Root  int // the peer is Root+1 mod P, as the engine chooses it
	Skew  int // for the rows with mpi.ParamSkew; 0 otherwise
	Op    mpi.ReduceOp
}

func (k Case) String() string {
	s := fmt.Sprintf("%v %v count %d root %d", k.Call, k.Type.ShortName(), k.Count, k.Root)
	if k.Skew > 1 {
		s += fmt.Sprintf(" skew %d", k.Skew)
	}
	if k.Call.Reduces() {
		s += " " + k.Op.String()
	}
	return s
}

// Cases returns the cases of every row that runs on p ranks, at each of
// the row's types that types lists, each count and each root (roots at or
// beyond p are dropped), with skews 1 and 3 for the rows that take one
// and the reduction op. Rows without a Result are left out, and so are
// the rows that need what p cannot give (mbw_mr's even ranks).
func Cases(p int, types []mpi.Datatype, counts, roots []int, op mpi.ReduceOp) []Case {
	var out []Case
	for _, row := range mpi.Ops() {
		if row.Result == nil || row.CheckRanks(p) != nil || (row.Call == mpi.CallMBWMR && p%2 != 0) {
			continue
		}
		skews := []int{0}
		if row.Takes(mpi.ParamSkew) {
			skews = []int{1, 3}
		}
		for _, dt := range types {
			if row.CheckType(dt, op) != nil {
				continue
			}
			for _, count := range counts {
				for _, root := range roots {
					if root >= p {
						continue
					}
					for _, skew := range skews {
						out = append(out, Case{Call: row.Call, Type: dt, Count: count, Root: root, Skew: skew, Op: op})
					}
				}
			}
		}
	}
	return out
}

// Value is element i of rank q's send buffer: a small positive integer,
// exact in every datatype and in every order of summation over up to 40
// million ranks.
func Value(q, i int) float64 { return float64((q*31+i)%97 + 1) }

// poison fills receive buffers, so that an element the call should have
// written and did not is seen.
const poison = 0xA5

// sendBuffer returns rank q's send buffer of k on p ranks.
func sendBuffer(k Case, p, q int) []byte {
	s, _ := mpi.SkewedBufferSizes(k.Call, k.Count, k.Type, p, k.Skew)
	b := make([]byte, s)
	for i := range s / k.Type.Size() {
		elem.Put(k.Type, b, i, Value(q, i))
	}
	return b
}

// Run runs case k on c, collectively (every rank with the same k): Prepare,
// two observations with clk, the release; then it compares this rank's
// receive buffer with the row's Result. It returns nil, or what differs.
func Run(c mpi.Comm, clk timing.Clock, k Case) error {
	p, rank := c.Size(), c.Rank()
	row := k.Call.Op()
	_, rb := mpi.SkewedBufferSizes(k.Call, k.Count, k.Type, p, k.Skew)
	o := &mpi.Observation{Call: k.Call, Count: k.Count, Type: k.Type, Op: k.Op, Root: k.Root, Peer: (k.Root + 1) % p,
		Skew: k.Skew, Reps: 2, Sync: mpi.SyncBarrier, Send: sendBuffer(k, p, rank), Recv: make([]byte, rb)}
	for i := range o.Recv {
		o.Recv[i] = poison
	}
	release, err := mpi.Prepare(c, o)
	if err != nil {
		return fmt.Errorf("%v: prepare: %w", k, err)
	}
	err = c.Observe(o, clk)
	if rerr := release(); err == nil && rerr != nil {
		err = fmt.Errorf("release: %w", rerr)
	}
	if err != nil {
		return fmt.Errorf("%v: %w", k, err)
	}
	want := row.Result(&mpi.Inputs{Count: k.Count, Type: k.Type, Op: k.Op, Root: o.Root, Peer: o.Peer, Skew: k.Skew,
		P: p, Rank: rank, Send: func(q int) []byte { return sendBuffer(k, p, q) }})
	if want == nil {
		return nil
	}
	if len(want) > len(o.Recv) {
		return fmt.Errorf("%v: rank %d/%d: the result has %d bytes, the receive buffer %d", k, rank, p, len(want), len(o.Recv))
	}
	es, bad, first := k.Type.Size(), 0, ""
	for i := range len(want) / es {
		if g, w := elem.Get(k.Type, o.Recv, i), elem.Get(k.Type, want, i); g != w {
			if bad == 0 {
				first = fmt.Sprintf("element %d is %v, want %v", i, g, w)
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%v: rank %d/%d: %d of %d elements differ from the row's result; first: %s", k, rank, p, bad, len(want)/es, first)
	}
	return nil
}
