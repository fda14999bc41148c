package mpi

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/reprobench/reprobench/factor"
)

// The operation table: one row (an Op) per benchmarkable call, as the Go
// compiler declares each SSA operation once, in one table. A row says
// everything reprobench knows about its call — its name and family, the
// Observation fields it reads, its buffer-size rule and datatypes, its C
// entry, its Go reference semantics, its simulator model and its expected
// result — and everything else reads the row:
//
//   - the binding's C dispatch (rb_call in rbmpi.h) expands RB_OPS, the
//     table as C sees it, which TestOpsHeader writes to rbmpi_ops.h from
//     the rows (call numbers and C entries cannot drift apart; the binding
//     also compares RB_OPS_HASH with opsHash at init);
//   - the binding's Go path (ObserveGo, for clocks C cannot read) runs
//     Op.Go;
//   - package mpitest runs the model Op.Sim names (each Model is
//     implemented there, in one place);
//   - Observation.Validate, BufferSizes and the engine read Params, Types,
//     Buffers and MinRanks;
//   - the checkers (mpi/internal/opcheck under mpitest and under mpirun)
//     compare every observation's receive buffer with Op.Result;
//   - "reprobench ops", the --calls help and docs/cli.md print the rows.
//
// Why one table in this package, with names for what lives elsewhere. The
// row must be readable where MPI is absent (package mpi builds without cgo),
// and package mpi may import neither mpitest nor its checkers. So a row
// holds plain values and Go functions over the Comm interface, and names
// the two things that live in other languages or packages: its C entry (a
// function of rbmpi_<family>.h, reached through the generated RB_OPS) and
// its simulator model (a Model code that mpitest implements). Function
// values registered at init by the owning packages would make the row
// incomplete until those packages are linked in, and the table's content
// would depend on the import graph; a name is checked instead (the C
// compiler rejects an unknown entry, and mpitest's tests reject a model it
// does not implement).
//
// Adding an operation is a row here (and a Call constant), its C entry, and
// its simulator model when no existing Model fits; then
//
//	go test -tags nompi ./mpi -run TestOpsHeader -update-ops-header
//	go test ./cmd/reprobench -run TestCLIReference -update-cli-doc
//
// regenerate rbmpi_ops.h and docs/cli.md.

// Call is an MPI operation that a benchmark times: the index of its row in
// the operation table (Ops).
type Call int

// The benchmarkable operations, in the order of the table.
const (
	CallBarrier Call = iota
	CallBcast
	CallReduce
	CallAllreduce
	CallScan
	CallExscan
	CallGather
	CallScatter
	CallAllgather
	CallAlltoall
	CallReduceScatterBlock
	CallPingPong
	// vcoll: v-collectives, Reduce_scatter, the Sendrecv ring and
	// Neighbor_alltoall (mpi/vcoll.go).
	CallAllgatherv
	CallAlltoallv
	CallGatherv
	CallScatterv
	CallReduceScatter
	CallSendrecv
	CallNeighborAlltoall
	// guide: the right-hand sides of the performance guidelines,
	// each one observation (mpi/guide.go).
	CallReduceBcast
	CallReduceScatterBlockAllgather
	CallScatterAllgather
	CallGatherBcast
	CallExscanReduceLocal
	CallReducePlusScatter
	// nbc: the non-blocking collectives, post then wait
	// (see nbc.go).
	CallIbarrier
	CallIbcast
	CallIreduce
	CallIallreduce
	CallIgather
	CallIscatter
	CallIallgather
	CallIalltoall
	CallIreduceScatterBlock
	CallIscan
	// p2p: bandwidth and one-sided; see p2p.go.
	CallBW
	CallBiBW
	CallMBWMR
	CallPut
	CallGet
	CallAccumulate
	// MPI-4 persistent collectives: the request made once by Prepare.
	CallAllreduceInit
	numCalls
)

// Family is a group of operations that share a C header, the Observation
// fields beyond the common ones, and the resources Prepare makes.
type Family int

// The families.
const (
	// FamilyColl: the blocking collectives and the ping-pong
	// (rbmpi_coll.h).
	FamilyColl Family = iota
	// FamilyVColl: the v-collectives, MPI_Reduce_scatter, the
	// MPI_Sendrecv ring and MPI_Neighbor_alltoall (vcoll.go,
	// rbmpi_vcoll.h); count vectors made before the timed part.
	FamilyVColl
	// FamilyGuide: the mock-ups of the performance guidelines (guide.go,
	// rbmpi_guide.h).
	FamilyGuide
	// FamilyNBC: the non-blocking collectives, post then wait, and their
	// overlap measurement (nbc.go, rbmpi_nbc.h).
	FamilyNBC
	// FamilyP2P: bandwidth windows and one-sided operations (p2p.go,
	// rbmpi_p2p.h); request arrays and RMA windows made by Prepare.
	FamilyP2P
	numFamilies
)

var familyNames = [...]string{"coll", "vcoll", "guide", "nbc", "p2p"}

// String returns the family's short name ("coll", "vcoll", …).
func (f Family) String() string {
	if f < 0 || f >= numFamilies {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyNames[f]
}

// Param is a set of Observation fields beyond Call, Send, Recv, Count,
// Type, Reps and the synchronization, which an operation reads.
type Param uint

// The parameters an operation may take.
const (
	// ParamOp: Observation.Op, a reduction; numeric datatypes only
	// (CheckReduce).
	ParamOp Param = 1 << iota
	// ParamRoot: Observation.Root, the root of a rooted call (or the
	// first rank of a pair).
	ParamRoot
	// ParamPeer: Observation.Peer, the second rank of a pair.
	ParamPeer
	// ParamSkew: Observation.Skew, uneven count vectors.
	ParamSkew
	// ParamBWWindow: Observation.BWWindow, messages per bandwidth window.
	ParamBWWindow
	// ParamRMASync: Observation.RMASync, the one-sided synchronization.
	ParamRMASync
	// ParamOverlap: Observation.Overlap and its kernel fields.
	ParamOverlap
	// ParamInPlace: the in_place factor (MPI_IN_PLACE; InPlaceInput).
	ParamInPlace
	// ParamRootShift: the root_shift factor, the root rotating over
	// the calls of an observation (Observation.RootOf).
	ParamRootShift
	// ParamBufOffset: the buf_offset factor, the buffers' offset from
	// a page boundary; every row with buffers takes it (init).
	ParamBufOffset
)

var paramNames = [...]string{"op", "root", "peer", factor.Skew.String(), factor.BWWindow.String(), factor.RMASync.String(), "overlap",
	factor.InPlace.String(), factor.RootShift.String(), factor.BufOffset.String()}

// String lists the parameters, comma-separated ("op,root"), or "-".
func (ps Param) String() string {
	var s []string
	for i, n := range paramNames {
		if ps&(1<<i) != 0 {
			s = append(s, n)
		}
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// Model names the simulator's model of an operation (Op.Sim). Package
// mpitest implements every model, in one place (mpitest/models.go), and
// its tests fail for a row whose model it does not implement.
type Model int

// The simulator's models.
const (
	// ModelReference runs the row's Go reference semantics (Op.Go) on the
	// simulated communicator, whose collectives are virtual-time models of
	// their own (mpitest/coll.go).
	ModelReference Model = iota
	// ModelPingPong: the ping-pong's two messages on the collective
	// context (so the message log marks them internal).
	ModelPingPong
	// ModelVColl: the v-collectives, the ring and the neighbour exchange
	// from point-to-point messages (mpitest/vcoll.go).
	ModelVColl
	// ModelTwin: the messages of the row's twin (Op.Twin), as a
	// non-blocking collective posted then waited for; its overlap has its
	// own progress model (mpitest/nbc.go).
	ModelTwin
	// ModelP2P: bandwidth windows and one-sided operations
	// (mpitest/p2p.go), with Prepare.
	ModelP2P
	// ModelPersistent: a persistent request, which Prepare makes from the
	// observation and each call starts and waits for: the twin's messages
	// with the arguments and buffers Prepare bound (mpitest/persistent.go).
	ModelPersistent
	numModels
)

var modelNames = [...]string{"reference", "pingpong", "vcoll", "twin", "p2p", "persistent"}

// String returns the model's name ("reference", "twin", …).
func (m Model) String() string {
	if m < 0 || m >= numModels {
		return fmt.Sprintf("Model(%d)", int(m))
	}
	return modelNames[m]
}

// Models returns every model in a fixed order.
func Models() []Model {
	ms := make([]Model, numModels)
	for i := range ms {
		ms[i] = Model(i)
	}
	return ms
}

// Timer says whose clock a benchmark of the field reads for one
// observation of the operation (runtime types osu and imb).
type Timer int

// Whose clock the runtime types osu and imb read.
const (
	// TimerDefined: the operation's own definition (docs/data-format.md:
	// the collectives' average over ranks, the ping-pong's root).
	TimerDefined Timer = iota
	// TimerRoot: rank Root (the sender of bw and bibw, the origin of a
	// one-sided call), as osu_bw.
	TimerRoot
	// TimerRank0: rank 0 (the first sender of mbw_mr).
	TimerRank0
)

// Buffers is a buffer-size rule: the bytes of the send and receive buffers
// of one call on the rank that needs the most (the engine gives every rank
// the same buffers).
type Buffers struct {
	// Doc states the rule with n = count·size (the bytes of one rank's
	// contribution), p ranks and skew k: "send n, recv p·n".
	Doc string
	// Size computes it for count elements of size bytes on p ranks with
	// skew k ≥ 1 (1 for the rows without ParamSkew).
	Size func(count, size, p, k int) (send, recv int)
}

// The buffer-size rules of the table.
var (
	bufNone    = Buffers{"none", func(_, _, _, _ int) (int, int) { return 0, 0 }}
	bufSame    = Buffers{"send n, recv n", func(c, s, _, _ int) (int, int) { return c * s, c * s }}
	bufGather  = Buffers{"send n, recv p·n", func(c, s, p, _ int) (int, int) { return c * s, c * s * p }}
	bufScatter = Buffers{"send p·n, recv n", func(c, s, p, _ int) (int, int) { return c * s * p, c * s }}
	bufAll     = Buffers{"send p·n, recv p·n", func(c, s, p, _ int) (int, int) { return c * s * p, c * s * p }}
	// bufSplit: the mock-ups that split count over p ranks (guide.go).
	bufSplit = Buffers{"send p·⌈count/p⌉ elements, recv the same", func(c, s, p, _ int) (int, int) {
		b := guideBlock(c, p) * p * s
		return b, b
	}}
	// vcoll, skew k (vcoll.go, SkewedBufferSizes):
	bufGatherv   = Buffers{"send k·n, recv (p−1+k)·n", func(c, s, p, k int) (int, int) { return c * s * k, c * s * (p - 1 + k) }}
	bufScatterv  = Buffers{"send (p−1+k)·n, recv k·n", func(c, s, p, k int) (int, int) { return c * s * (p - 1 + k), c * s * k }}
	bufAlltoallv = Buffers{"send k·p·n, recv (p−1+k)·n", func(c, s, p, k int) (int, int) { return c * s * k * p, c * s * (p - 1 + k) }}
	bufNeighbor  = Buffers{"send 4·n, recv 4·n", func(c, s, _, _ int) (int, int) { return 4 * c * s, 4 * c * s }}
)

// The datatype sets of the table.
var (
	allTypes     = []Datatype{Byte, Int32, Int64, Float32, Float64}
	numericTypes = []Datatype{Int32, Int64, Float32, Float64}
)

// Op is one row of the operation table: one benchmarkable call.
type Op struct {
	// Call is the row's index (set from the table's keys).
	Call Call
	// Name is what the raw data records and ParseCall accepts: MPI's name
	// ("MPI_Allreduce"), or reprobench's for a composition ("pingpong",
	// "Reduce+Bcast").
	Name string
	// Family is the row's family.
	Family Family
	// Doc says what one call does, in one line (help, docs/cli.md).
	Doc string
	// Params are the Observation fields the call reads beyond the common
	// ones.
	Params Param
	// Buffers is the buffer-size rule (BufferSizes, SkewedBufferSizes).
	Buffers Buffers
	// Types are the datatypes the call takes.
	Types []Datatype
	// MinRanks is the smallest communicator the call runs on.
	MinRanks int
	// Twin, when not nil, is the row whose result this one computes and
	// whose messages the simulator exchanges for it (ModelTwin): the
	// blocking twin of a non-blocking collective.
	Twin *Op
	// Timer is whose clock the runtime types osu and imb read.
	Timer Timer

	// C is the row's C entry: a function of rbmpi_<family>.h that
	// executes one call, int f(const rb_args *a, void *s, void *r, int
	// rank, MPI_Comm c). rbmpi_ops.h lists it in RB_OPS; rb_call
	// dispatches to it.
	C string
	// Phased says that C takes a sixth argument, the phase
	// (RB_PHASE_CALL, RB_PHASE_PREPARE, RB_PHASE_RELEASE), and that
	// Prepare and its release call it too: to make what the call needs
	// outside the timed part (a request array, an RMA window) and to free
	// it. Such an entry gets a non-const rb_args.
	Phased bool
	// Bound says that what the phased entry's prepare phase makes keeps
	// the addresses of the buffers Prepare was given (a persistent
	// request), so every call must use those buffers: the engine refuses
	// the cache modes that move them, and a call on others fails
	// (ErrBoundBuffers).
	Bound bool
	// Go is the reference semantics in Go, through the methods of a Comm:
	// the binding's path for clocks C cannot read, and, with
	// ModelReference, the simulator's model. nil: the call runs only in C.
	Go func(c Comm, o *Observation) error
	// Sim names the simulator's model (package mpitest).
	Sim Model
	// Result is the correctness check: the bytes one call leaves at the
	// start of rank x.Rank's receive buffer, computed from every rank's
	// send buffer; nil where the call defines nothing there (the root-only
	// results, the barrier, the one-sided calls' windows).
	Result func(x *Inputs) []byte
}

// Takes reports whether the operation reads every parameter of ps.
func (op *Op) Takes(ps Param) bool { return op.Params&ps == ps }

// CEnum returns the name of the call's constant in C (rbmpi_ops.h): RB_
// and the upper-case name without MPI_, with "+" spelled _PLUS_
// ("MPI_Allreduce" → RB_ALLREDUCE, "Reduce+Bcast" → RB_REDUCE_PLUS_BCAST).
func (op *Op) CEnum() string {
	n := strings.TrimPrefix(op.Name, "MPI_")
	return "RB_" + strings.ToUpper(strings.ReplaceAll(n, "+", "_PLUS_"))
}

// ops is the table. Rows reference named buffer rules, type sets and
// result functions (opresult.go), so that a reader sees each row whole.
// It is filled by init: the rows' Go functions name calls in their errors
// (Call.String reads the table), which a package-level initializer could
// not do without an initialization cycle.
var ops [numCalls]Op

func init() {
	ops = [numCalls]Op{
		// coll: one MPI call each (rbmpi_coll.h).
		CallBarrier: {Name: "MPI_Barrier", Family: FamilyColl, Doc: "every rank waits for all",
			Buffers: bufNone, Types: allTypes, C: "rb_barrier_call", Go: goBarrier, Sim: ModelReference},
		CallBcast: {Name: "MPI_Bcast", Family: FamilyColl, Doc: "the root's n bytes (its send buffer) to every other rank's receive buffer",
			Params: ParamRoot | ParamRootShift, Buffers: bufSame, Types: allTypes, C: "rb_bcast_call", Go: goBcast, Sim: ModelReference, Result: resultBcast},
		CallReduce: {Name: "MPI_Reduce", Family: FamilyColl, Doc: "every rank's count elements reduced with op into the root's receive buffer",
			Params: ParamOp | ParamRoot | ParamRootShift, Buffers: bufSame, Types: numericTypes, C: "rb_reduce_call", Go: goReduce, Sim: ModelReference, Result: resultReduce},
		CallAllreduce: {Name: "MPI_Allreduce", Family: FamilyColl, Doc: "every rank's count elements reduced with op, the result on every rank",
			Params: ParamInPlace | ParamOp, Buffers: bufSame, Types: numericTypes, C: "rb_allreduce_call", Go: goAllreduce, Sim: ModelReference, Result: resultAllreduce},
		CallScan: {Name: "MPI_Scan", Family: FamilyColl, Doc: "inclusive prefix reduction: rank r gets ranks 0..r reduced",
			Params: ParamOp, Buffers: bufSame, Types: numericTypes, C: "rb_scan_call", Go: goScan, Sim: ModelReference, Result: resultScan},
		CallExscan: {Name: "MPI_Exscan", Family: FamilyColl, Doc: "exclusive prefix reduction: rank r > 0 gets ranks 0..r−1 reduced",
			Params: ParamOp, Buffers: bufSame, Types: numericTypes, C: "rb_exscan_call", Go: goExscan, Sim: ModelReference, Result: resultExscan},
		CallGather: {Name: "MPI_Gather", Family: FamilyColl, Doc: "every rank's n bytes to the root, in rank order",
			Params: ParamInPlace | ParamRoot | ParamRootShift, Buffers: bufGather, Types: allTypes, C: "rb_gather_call", Go: goGather, Sim: ModelReference, Result: resultGather},
		CallScatter: {Name: "MPI_Scatter", Family: FamilyColl, Doc: "the root's p blocks of n bytes, block r to rank r",
			Params: ParamInPlace | ParamRoot | ParamRootShift, Buffers: bufScatter, Types: allTypes, C: "rb_scatter_call", Go: goScatter, Sim: ModelReference, Result: resultScatter},
		CallAllgather: {Name: "MPI_Allgather", Family: FamilyColl, Doc: "every rank's n bytes to every rank, in rank order",
			Params: ParamInPlace, Buffers: bufGather, Types: allTypes, C: "rb_allgather_call", Go: goAllgather, Sim: ModelReference, Result: resultAllgather},
		CallAlltoall: {Name: "MPI_Alltoall", Family: FamilyColl, Doc: "block d of every rank's p blocks of n bytes to rank d",
			Params: ParamInPlace, Buffers: bufAll, Types: allTypes, C: "rb_alltoall_call", Go: goAlltoall, Sim: ModelReference, Result: resultAlltoall},
		CallReduceScatterBlock: {Name: "MPI_Reduce_scatter_block", Family: FamilyColl, Doc: "p blocks of count elements reduced with op, block r to rank r",
			Params: ParamOp, Buffers: bufScatter, Types: numericTypes, C: "rb_reduce_scatter_block_call", Go: goReduceScatterBlock, Sim: ModelReference, Result: resultReduceScatterBlock},
		CallPingPong: {Name: "pingpong", Family: FamilyColl, Doc: "root sends n bytes to peer, peer sends its n bytes back (MPI_Send, MPI_Recv); other ranks idle",
			Params: ParamRoot | ParamPeer, Buffers: bufSame, Types: allTypes, MinRanks: 2, C: "rb_pingpong_call", Go: goPingPong, Sim: ModelPingPong, Result: resultPingPong},

		// vcoll (vcoll.go; rbmpi_vcoll.h dispatches on the call).
		CallAllgatherv: {Name: "MPI_Allgatherv", Family: FamilyVColl, Doc: "every rank's block to every rank (the last rank's k·n bytes with skew k)",
			Params: ParamSkew, Buffers: bufGatherv, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultAllgatherv},
		CallAlltoallv: {Name: "MPI_Alltoallv", Family: FamilyVColl, Doc: "a block from every rank to every rank (the last rank's blocks k·n bytes)",
			Params: ParamSkew, Buffers: bufAlltoallv, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultAlltoallv},
		CallGatherv: {Name: "MPI_Gatherv", Family: FamilyVColl, Doc: "every rank's block to the root (the last rank's k·n bytes)",
			Params: ParamRoot | ParamSkew | ParamRootShift, Buffers: bufGatherv, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultGatherv},
		CallScatterv: {Name: "MPI_Scatterv", Family: FamilyVColl, Doc: "a block of the root's to every rank (k·n bytes to the last)",
			Params: ParamRoot | ParamSkew | ParamRootShift, Buffers: bufScatterv, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultScatterv},
		CallReduceScatter: {Name: "MPI_Reduce_scatter", Family: FamilyVColl, Doc: "p blocks reduced with op, block r to rank r (the last block k·count elements)",
			Params: ParamOp | ParamSkew, Buffers: bufScatterv, Types: numericTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultReduceScatter},
		CallSendrecv: {Name: "MPI_Sendrecv", Family: FamilyVColl, Doc: "a ring: n bytes to rank+1, n bytes from rank−1 (mod p)",
			Buffers: bufSame, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultSendrecv},
		CallNeighborAlltoall: {Name: "MPI_Neighbor_alltoall", Family: FamilyVColl, Doc: "n bytes to and from each of 4 neighbours on a periodic 2-D grid",
			Buffers: bufNeighbor, Types: allTypes, C: "rb_vcoll_call", Go: goC, Sim: ModelVColl, Result: resultNeighborAlltoall},

		// guide (guide.go; rbmpi_guide.h dispatches on the call). Each
		// computes its guideline's left-hand side, so its result is that
		// call's.
		CallReduceBcast: {Name: "Reduce+Bcast", Family: FamilyGuide, Doc: "MPI_Allreduce's result by MPI_Reduce then MPI_Bcast",
			Params: ParamOp | ParamRoot, Buffers: bufSame, Types: numericTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultAllreduce},
		CallReduceScatterBlockAllgather: {Name: "Reduce_scatter_block+Allgather", Family: FamilyGuide, Doc: "MPI_Allreduce's result by MPI_Reduce_scatter_block then MPI_Allgather (in place)",
			Params: ParamOp, Buffers: bufSplit, Types: numericTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultAllreduce},
		CallScatterAllgather: {Name: "Scatter+Allgather", Family: FamilyGuide, Doc: "MPI_Bcast's result (on every rank) by MPI_Scatter then MPI_Allgather (in place)",
			Params: ParamRoot, Buffers: bufSplit, Types: allTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultScatterAllgather},
		CallGatherBcast: {Name: "Gather+Bcast", Family: FamilyGuide, Doc: "MPI_Allgather's result by MPI_Gather then MPI_Bcast of p·n bytes",
			Params: ParamRoot, Buffers: bufGather, Types: allTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultAllgather},
		CallExscanReduceLocal: {Name: "Exscan+Reduce_local", Family: FamilyGuide, Doc: "MPI_Scan's result by MPI_Exscan then MPI_Reduce_local",
			Params: ParamOp, Buffers: bufSame, Types: numericTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultScan},
		CallReducePlusScatter: {Name: "Reduce+Scatter", Family: FamilyGuide, Doc: "MPI_Reduce_scatter_block's result by MPI_Reduce of p·count then MPI_Scatter",
			Params: ParamOp | ParamRoot, Buffers: bufAll, Types: numericTypes, C: "rb_guide_call", Go: executeGuide, Sim: ModelReference, Result: resultReduceScatterBlock},

		// nbc (nbc.go; rbmpi_nbc.h dispatches on the call): post, then
		// MPI_Wait; C only. Buffers, types and result are the twin's.
		CallIbarrier: {Name: "MPI_Ibarrier", Family: FamilyNBC, Doc: "MPI_Barrier posted, then waited for",
			Params: ParamOverlap, Buffers: bufNone, Types: allTypes, Twin: &ops[CallBarrier], C: "rb_nbc_call", Sim: ModelTwin},
		CallIbcast: {Name: "MPI_Ibcast", Family: FamilyNBC, Doc: "MPI_Bcast posted, then waited for",
			Params: ParamRoot | ParamRootShift | ParamOverlap, Buffers: bufSame, Types: allTypes, Twin: &ops[CallBcast], C: "rb_nbc_call", Sim: ModelTwin, Result: resultBcast},
		CallIreduce: {Name: "MPI_Ireduce", Family: FamilyNBC, Doc: "MPI_Reduce posted, then waited for",
			Params: ParamOp | ParamRoot | ParamRootShift | ParamOverlap, Buffers: bufSame, Types: numericTypes, Twin: &ops[CallReduce], C: "rb_nbc_call", Sim: ModelTwin, Result: resultReduce},
		CallIallreduce: {Name: "MPI_Iallreduce", Family: FamilyNBC, Doc: "MPI_Allreduce posted, then waited for",
			Params: ParamOp | ParamOverlap, Buffers: bufSame, Types: numericTypes, Twin: &ops[CallAllreduce], C: "rb_nbc_call", Sim: ModelTwin, Result: resultAllreduce},
		CallIgather: {Name: "MPI_Igather", Family: FamilyNBC, Doc: "MPI_Gather posted, then waited for",
			Params: ParamRoot | ParamRootShift | ParamOverlap, Buffers: bufGather, Types: allTypes, Twin: &ops[CallGather], C: "rb_nbc_call", Sim: ModelTwin, Result: resultGather},
		CallIscatter: {Name: "MPI_Iscatter", Family: FamilyNBC, Doc: "MPI_Scatter posted, then waited for",
			Params: ParamRoot | ParamRootShift | ParamOverlap, Buffers: bufScatter, Types: allTypes, Twin: &ops[CallScatter], C: "rb_nbc_call", Sim: ModelTwin, Result: resultScatter},
		CallIallgather: {Name: "MPI_Iallgather", Family: FamilyNBC, Doc: "MPI_Allgather posted, then waited for",
			Params: ParamOverlap, Buffers: bufGather, Types: allTypes, Twin: &ops[CallAllgather], C: "rb_nbc_call", Sim: ModelTwin, Result: resultAllgather},
		CallIalltoall: {Name: "MPI_Ialltoall", Family: FamilyNBC, Doc: "MPI_Alltoall posted, then waited for",
			Params: ParamOverlap, Buffers: bufAll, Types: allTypes, Twin: &ops[CallAlltoall], C: "rb_nbc_call", Sim: ModelTwin, Result: resultAlltoall},
		CallIreduceScatterBlock: {Name: "MPI_Ireduce_scatter_block", Family: FamilyNBC, Doc: "MPI_Reduce_scatter_block posted, then waited for",
			Params: ParamOp | ParamOverlap, Buffers: bufScatter, Types: numericTypes, Twin: &ops[CallReduceScatterBlock], C: "rb_nbc_call", Sim: ModelTwin, Result: resultReduceScatterBlock},
		CallIscan: {Name: "MPI_Iscan", Family: FamilyNBC, Doc: "MPI_Scan posted, then waited for",
			Params: ParamOp | ParamOverlap, Buffers: bufSame, Types: numericTypes, Twin: &ops[CallScan], C: "rb_nbc_call", Sim: ModelTwin, Result: resultScan},

		// p2p (p2p.go; rbmpi_p2p.h): Prepare makes the request array or the
		// RMA window through the phased entry.
		CallBW: {Name: "bw", Family: FamilyP2P, Doc: "osu_bw's window: root sends w messages of n bytes to peer (MPI_Isend, MPI_Waitall), peer acknowledges",
			Params: ParamRoot | ParamPeer | ParamBWWindow, Buffers: bufSame, Types: allTypes, MinRanks: 2, Timer: TimerRoot,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P, Result: resultBW},
		CallBiBW: {Name: "bibw", Family: FamilyP2P, Doc: "osu_bibw's window: root and peer each send w messages of n bytes to the other",
			Params: ParamRoot | ParamPeer | ParamBWWindow, Buffers: bufSame, Types: allTypes, MinRanks: 2, Timer: TimerRoot,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P, Result: resultPingPong},
		CallMBWMR: {Name: "mbw_mr", Family: FamilyP2P, Doc: "osu_mbw_mr: every rank i < p/2 runs bw towards rank i+p/2 at once (p even)",
			Params: ParamBWWindow, Buffers: bufSame, Types: allTypes, MinRanks: 2, Timer: TimerRank0,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P, Result: resultMBWMR},
		CallPut: {Name: "MPI_Put", Family: FamilyP2P, Doc: "root writes n bytes to displacement 0 of peer's window, synchronized by rma_sync",
			Params: ParamRoot | ParamPeer | ParamRMASync, Buffers: bufSame, Types: allTypes, MinRanks: 2, Timer: TimerRoot,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P},
		CallGet: {Name: "MPI_Get", Family: FamilyP2P, Doc: "root reads n bytes from displacement 0 of peer's window, synchronized by rma_sync",
			Params: ParamRoot | ParamPeer | ParamRMASync, Buffers: bufSame, Types: allTypes, MinRanks: 2, Timer: TimerRoot,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P, Result: resultGet},
		CallAccumulate: {Name: "MPI_Accumulate", Family: FamilyP2P, Doc: "root reduces n bytes into displacement 0 of peer's window with op, synchronized by rma_sync",
			Params: ParamOp | ParamRoot | ParamPeer | ParamRMASync, Buffers: bufSame, Types: numericTypes, MinRanks: 2, Timer: TimerRoot,
			C: "rb_p2p_op", Phased: true, Go: callP2PGo, Sim: ModelP2P},

		// Persistent collectives (MPI-4.0 §6.12; osu_allreduce_persistent).
		CallAllreduceInit: {Name: "MPI_Allreduce_init", Family: FamilyColl, Doc: "persistent MPI_Allreduce: the request made once per experiment by Prepare " +
			"(MPI_Allreduce_init; Open MPI 4.1: MPIX_Allreduce_init), each call MPI_Start then MPI_Wait",
			Params: ParamOp, Buffers: bufSame, Types: numericTypes, Twin: &ops[CallAllreduce],
			C: "rb_allreduce_init", Phased: true, Bound: true, Go: goC, Sim: ModelPersistent, Result: resultAllreduce},
	}
	for i := range ops {
		op := &ops[i]
		op.Call = Call(i)
		op.MinRanks = max(op.MinRanks, 1)
		if op.Buffers.Doc != bufNone.Doc {
			op.Params |= ParamBufOffset
		}
	}
}

// Ops returns the operation table, one row per call in the order of Call.
// The rows are shared: do not modify them.
func Ops() []*Op {
	out := make([]*Op, numCalls)
	for i := range ops {
		out[i] = &ops[i]
	}
	return out
}

// Op returns the call's row, or nil for an invalid call.
func (c Call) Op() *Op {
	if !c.Valid() {
		return nil
	}
	return &ops[c]
}

// opsHash is a 32-bit FNV-1a hash of what C must agree on in the table:
// each row's C constant, entry and phasing, in order, then the factor
// table's C slots (factor.Factor.CName), in order. rbmpi_ops.h records
// it as RB_OPS_HASH, and the binding refuses to start when they differ (a
// stale header would run the wrong operation without any error).
func opsHash() uint32 {
	h := fnv.New32a()
	for i := range ops {
		fmt.Fprintf(h, "%s %s %v;", ops[i].CEnum(), ops[i].C, ops[i].Phased)
	}
	for _, f := range factor.Table() {
		fmt.Fprintf(h, "%s;", f.CName())
	}
	return h.Sum32()
}

// CallsTaking returns the calls whose rows take every parameter of ps, in
// the order of the table (CallsTaking(ParamSkew): the v-collectives).
func CallsTaking(ps Param) []Call {
	var out []Call
	for i := range ops {
		if ops[i].Takes(ps) {
			out = append(out, Call(i))
		}
	}
	return out
}

// CallNames joins the names of cs with ", ".
func CallNames(cs []Call) string {
	n := make([]string, len(cs))
	for i, c := range cs {
		n[i] = c.String()
	}
	return strings.Join(n, ", ")
}

// Calls returns every benchmarkable call in a fixed order.
func Calls() []Call {
	cs := make([]Call, numCalls)
	for i := range cs {
		cs[i] = Call(i)
	}
	return cs
}

// Valid reports whether c is a known call.
func (c Call) Valid() bool { return c >= 0 && c < numCalls }

// String returns the row's name, such as "MPI_Allreduce", or "pingpong".
func (c Call) String() string {
	if !c.Valid() {
		return fmt.Sprintf("Call(%d)", int(c))
	}
	return ops[c].Name
}

// Reduces reports whether the call applies a reduction operation
// (ParamOp).
func (c Call) Reduces() bool { return c.Valid() && ops[c].Takes(ParamOp) }

// ParseCall accepts a row's name ("MPI_Allreduce", "pingpong"), in any
// case, with or without the MPI_ prefix ("allreduce").
func ParseCall(s string) (Call, error) {
	for i := range ops {
		n := ops[i].Name
		if strings.EqualFold(s, n) || strings.EqualFold("MPI_"+s, n) {
			return Call(i), nil
		}
	}
	names := make([]string, len(ops))
	for i := range ops {
		names[i] = ops[i].Name
	}
	return 0, fmt.Errorf("mpi: unknown call %q (want one of %s)", s, strings.Join(names, ", "))
}

// BufferSizes returns the number of bytes the send and receive buffers of
// call need on a communicator of size p when count elements of type d form
// one rank's contribution: the row's rule (Op.Buffers) with uniform counts.
// For Gather, Scatter, Allgather, Alltoall and Reduce_scatter_block the
// larger buffer holds p·count elements.
func BufferSizes(call Call, count int, d Datatype, p int) (send, recv int) {
	if !call.Valid() {
		return count * d.Size(), count * d.Size()
	}
	return ops[call].Buffers.Size(count, d.Size(), p, 1)
}

// checkTypes refuses a datatype the row does not list.
func (op *Op) checkTypes(d Datatype) error {
	for _, t := range op.Types {
		if t == d {
			return nil
		}
	}
	names := make([]string, len(op.Types))
	for i, t := range op.Types {
		names[i] = t.ShortName()
	}
	return fmt.Errorf("mpi: %v takes %s, not %v", op.Name, strings.Join(names, ", "), d.ShortName())
}

// CheckType validates the datatype and, for a reduction, the operation
// (CheckReduce) of an observation of the row.
func (op *Op) CheckType(d Datatype, rop ReduceOp) error {
	if op.Takes(ParamOp) {
		if err := CheckReduce(d, rop); err != nil {
			return err
		}
	}
	return op.checkTypes(d)
}

// CheckRanks refuses a communicator of fewer than MinRanks ranks.
func (op *Op) CheckRanks(p int) error {
	if p < op.MinRanks {
		return fmt.Errorf("mpi: %v needs at least %d ranks, have %d", op.Name, op.MinRanks, p)
	}
	return nil
}
