package mpitest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Config configures a simulated world. Only Ranks is required.
type Config struct {
	// Ranks is the number of ranks, at least 1.
	Ranks int
	// Seed determines every random draw (clock parameters, latencies,
	// wander).
	Seed uint64
	// Clock is the distribution of the clocks' parameters; its zero value
	// gives the defaults (see ClockDist).
	Clock ClockDist
	// Clocks, when not nil, gives every rank's clock explicitly
	// (len(Clocks) == Ranks) and overrides Clock.
	Clocks []ClockParams
	// NodeClocks makes the ranks of one node (see RanksPerNode) share one
	// clock, drawn once per node from Clock, as processes on one host share
	// its time-stamp counter. Ignored when Clocks is set.
	NodeClocks bool
	// WanderStep is the interval of the frequency random walk; default 1 s.
	WanderStep time.Duration
	// Latency is the network model; its zero value gives the defaults.
	Latency Latency
	// RanksPerNode places world ranks r on node r/RanksPerNode; 0 puts every
	// rank on one node. It decides SplitShared and, with Latency.InterNode,
	// which links are inter-node.
	RanksPerNode int
	// Log records every point-to-point message (those of collectives
	// included) for World.Log. It costs memory per message.
	Log bool
	// EagerLimit, when positive, makes a blocking MPI_Send of more than
	// EagerLimit bytes wait until the receiver has posted the matching
	// receive, as real MPI libraries do above their eager limit (the
	// rendezvous protocol; Open MPI's shared-memory transport switches at
	// 4 KiB). A program that relies on buffering, such as two ranks that
	// both Send before they Recv, then deadlocks here as it can on a real
	// machine, and Run reports it. The sender's time advances to when the
	// receive was posted plus a latency, and the data leaves only then.
	// Zero (the default) buffers every send. Sendrecv, Isend and the
	// collectives stay buffered: MPI guarantees they cannot deadlock so.
	EagerLimit int

	// guide: CallDelay, when not nil, is the latency-model hook per
	// call: every rank spends CallDelay(call, count, type) of virtual time
	// at the start of each execution of call by Observe (a software
	// overhead of the library, e.g. a bad algorithm choice at one size).
	// It must be a pure function. See guide.go.
	CallDelay func(call mpi.Call, count int, dt mpi.Datatype) time.Duration
	// nbc: Progress is the progress model of the non-blocking
	// collectives (see Progress); the zero value is ProgressInWait.
	Progress Progress
	// NodeNoise, when not nil, gives each node's periodic noise (see
	// PeriodicNoise): the ranks of a node share it. It is called once per
	// node by New.
	NodeNoise func(node int) []PeriodicNoise
	// CorruptResult, when not nil, is a test hook for result checks
	// (mpi.VerifyResult, engine.Experiment.VerifyResults): after every
	// execution of a call by Observe, each rank calls it with its world
	// rank, the call and the number of executions of calls by Observe on
	// that rank so far (1 for the first); when it returns true the rank
	// flips bit 4 of the first byte of its receive buffer, a wrong result
	// that costs no virtual time. It must be a pure function.
	CorruptResult func(rank int, call mpi.Call, exec int64) bool
	// Deschedule makes ranks lose their CPU while they wait for messages
	// (see Deschedule); the zero value deschedules nothing.
	Deschedule Deschedule
	// Cvars sets the simulated control variables (algorithms.go: the
	// algorithm and segment size of MPI_Allreduce, MPI_Bcast and
	// MPI_Reduce), by name, as the environment of an mpirun sets a
	// library's (CvarsFromEnv); nil leaves every one at its default.
	Cvars map[string]string
}

// World is a simulated MPI world: Config.Ranks ranks, each with its own
// virtual time and clock, exchanging messages through a latency model. Run
// executes a function on every rank; the methods ClockAt, TrueOffset, … give
// the ground truth of the clocks at any true time.
//
// The ground-truth methods are safe for concurrent use, also while Run is
// running.
type World struct {
	cfg   Config
	ranks []*Rank
	intra linkModel
	inter linkModel
	split bool // intra != inter
	// latSeed is the latency draws' stream: hash4's state after the seed
	// and domLatency, computed once (see linkModel.draw).
	latSeed uint64

	noise []*nodeNoise // per node; nil without Config.NodeNoise

	algs [numSimColls]simAlg // the simulated algorithms (Config.Cvars)

	running atomic.Int64 // ranks neither blocked nor finished
	aborted atomic.Bool
	runMu   sync.Mutex // one Run at a time
	inRun   atomic.Bool

	splitMu sync.Mutex // guards splits
	splits  map[splitKey]*splitResult

	deadMu      sync.Mutex // serializes checkDeadlock
	deadlock    *DeadlockError
	releaseMsgs int64 // Messages() at the last release of polling ranks
	fruitless   int   // consecutive releases without new messages
}

// New validates cfg and returns a world whose ranks all start at true time 0.
func New(cfg Config) (*World, error) {
	if cfg.Ranks < 1 {
		return nil, fmt.Errorf("mpitest: Config.Ranks = %d, need at least 1", cfg.Ranks)
	}
	if cfg.Clocks != nil && len(cfg.Clocks) != cfg.Ranks {
		return nil, fmt.Errorf("mpitest: len(Config.Clocks) = %d, want Ranks = %d", len(cfg.Clocks), cfg.Ranks)
	}
	if cfg.RanksPerNode < 0 {
		return nil, fmt.Errorf("mpitest: negative Config.RanksPerNode %d", cfg.RanksPerNode)
	}
	if cfg.WanderStep < 0 {
		return nil, fmt.Errorf("mpitest: negative Config.WanderStep %v", cfg.WanderStep)
	}
	if cfg.WanderStep == 0 {
		cfg.WanderStep = defaultWanderStep
	}
	for i, p := range cfg.Clocks {
		if p.DriftPPM <= -1e5 || p.DriftPPM >= 1e5 || p.WanderPPM < 0 {
			return nil, fmt.Errorf("mpitest: Config.Clocks[%d]: drift %v ppm or wander %v ppm out of range", i, p.DriftPPM, p.WanderPPM)
		}
		for _, s := range p.Slews {
			if math.IsNaN(s.AtS) || math.IsInf(s.AtS, 0) || !(math.Abs(s.PPM) < 1e5) {
				return nil, fmt.Errorf("mpitest: Config.Clocks[%d]: slew %+v out of range", i, s)
			}
		}
	}
	if d := cfg.Clock; d.Slews < 0 || d.SlewPPM > MaxSlewPPM || d.SlewWithin < 0 {
		return nil, fmt.Errorf("mpitest: ClockDist: %d slews of up to %v ppm within %v: want a count ≥ 0, at most %v ppm, a span ≥ 0",
			d.Slews, d.SlewPPM, d.SlewWithin, MaxSlewPPM)
	}
	if p := cfg.Latency.SpikeProb; p > 1 {
		return nil, fmt.Errorf("mpitest: Latency.SpikeProb = %v > 1", p)
	}
	if err := cfg.Deschedule.check(cfg.Ranks); err != nil {
		return nil, err
	}
	w := &World{cfg: cfg, latSeed: hashPrefix(cfg.Seed, domLatency)}
	var err error
	if w.algs, err = parseCvars(cfg.Cvars); err != nil {
		return nil, err
	}
	w.intra = cfg.Latency.resolve()
	w.inter = w.intra
	if cfg.Latency.InterNode != nil && cfg.RanksPerNode > 0 {
		if p := cfg.Latency.InterNode.SpikeProb; p > 1 {
			return nil, fmt.Errorf("mpitest: Latency.InterNode.SpikeProb = %v > 1", p)
		}
		w.inter = cfg.Latency.InterNode.resolve()
		w.split = true
	}
	dist := cfg.Clock.resolved()
	if dist.DriftPPM >= 1e5 {
		return nil, fmt.Errorf("mpitest: ClockDist.DriftPPM = %v too large", dist.DriftPPM)
	}
	w.ranks = make([]*Rank, cfg.Ranks)
	for i := range w.ranks {
		var p ClockParams
		src := i
		switch {
		case cfg.Clocks != nil:
			p = cfg.Clocks[i]
		case cfg.NodeClocks && cfg.RanksPerNode > 0:
			src = w.node(i)
			p = dist.draw(cfg.Seed, src)
		case cfg.NodeClocks:
			src = 0
			p = dist.draw(cfg.Seed, 0)
		default:
			p = dist.draw(cfg.Seed, i)
		}
		r := &Rank{w: w, id: i, wake: make(chan struct{}, 1), queues: make(map[mkey]*queue)}
		r.clk = newClockModel(p, hash4(cfg.Seed, domWander, uint64(src), 99), cfg.WanderStep)
		r.clock = &simClock{r: r}
		r.world = &comm{r: r, ctx: worldCtx, rank: i, size: cfg.Ranks, isWorld: true}
		r.desched = newDescheduler(cfg.Deschedule, cfg.Seed, i)
		w.ranks[i] = r
	}
	if err := w.initNoise(); err != nil { // periodic noise (Config.NodeNoise)
		return nil, err
	}
	return w, nil
}

// node returns the node of world rank r.
func (w *World) node(r int) int {
	if w.cfg.RanksPerNode <= 0 {
		return 0
	}
	return r / w.cfg.RanksPerNode
}

// Size returns the number of ranks.
func (w *World) Size() int { return len(w.ranks) }

// Node returns the node of world rank r (r / RanksPerNode, or 0).
func (w *World) Node(r int) int { return w.node(r) }

// Run calls fn on every rank concurrently, each in its own goroutine, and
// waits for all of them. It returns the errors returned by fn and the panics
// of fn (with stacks), joined in rank order, and a *DeadlockError when every
// rank still running is blocked waiting for a message that can never come.
//
// Run may be called again after it returns: virtual time, clocks and
// unreceived messages carry over. After a deadlock the world is unusable.
func (w *World) Run(fn func(r *Rank) error) error {
	if !w.runMu.TryLock() {
		return errors.New("mpitest: Run called while the world is running")
	}
	defer w.runMu.Unlock()
	if w.aborted.Load() {
		return fmt.Errorf("mpitest: world aborted after a deadlock: %w", w.deadlock)
	}
	n := len(w.ranks)
	errs := make([]error, n)
	w.running.Store(int64(n))
	w.inRun.Store(true)
	var wg sync.WaitGroup
	wg.Add(n)
	for i, r := range w.ranks {
		r.exited = false
		r.exitErr = nil
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("mpitest: rank %d panicked: %v\n%s", i, p, debug.Stack())
				}
				r.mu.Lock()
				r.exited = true
				r.exitErr = errs[i]
				r.mu.Unlock()
				if w.running.Add(-1) == 0 {
					w.checkDeadlock()
				}
			}()
			returned := false
			defer func() {
				if !returned && errs[i] == nil {
					// Neither a return nor a panic: runtime.Goexit,
					// as t.Fatal calls.
					errs[i] = fmt.Errorf("mpitest: rank %d called runtime.Goexit (t.Fatal or t.FailNow in a rank function?)", i)
				}
			}()
			if err := fn(r); err != nil {
				errs[i] = fmt.Errorf("rank %d: %w", i, err)
			}
			returned = true
		}()
	}
	wg.Wait()
	w.inRun.Store(false)
	var out []error
	for _, e := range errs {
		if e != nil && !errors.Is(e, errAborted) {
			out = append(out, e)
		}
	}
	if w.deadlock != nil {
		out = append(out, w.deadlock)
	}
	return errors.Join(out...)
}

// errAborted is the error of operations interrupted by a deadlock.
var errAborted = errors.New("mpitest: world aborted: deadlock")

// DeadlockError reports that every rank still running was blocked.
type DeadlockError struct {
	Blocked []Blocked // the blocked ranks, in rank order
	Exited  []string  // how the other ranks ended ("rank 3 exited", "rank 1 exited with error: …")
}

// Blocked describes what one blocked rank waits for.
type Blocked struct {
	Rank      int    // world rank
	Op        string // the MPI operation, such as "MPI_Recv" or "MPI_Bcast"
	Peer      int    // rank (in the communicator) it waits for a message from
	PeerWorld int    // the same rank in the world
	Tag       int    // the tag, for point-to-point operations
	Internal  bool   // the message is internal to a collective (Tag is then meaningless)
	CommID    uint64 // identifies the communicator (0 is the world)
}

// String describes the blocked rank in one line.
func (b Blocked) String() string {
	comm := "the world"
	if b.CommID != 0 {
		comm = fmt.Sprintf("comm %#x", b.CommID)
	}
	if b.Internal && b.Tag == rndvAckTag {
		return fmt.Sprintf("rank %d: %s to rank %d (world rank %d) in %s waits for the matching receive",
			b.Rank, b.Op, b.Peer, b.PeerWorld, comm)
	}
	if b.Internal {
		return fmt.Sprintf("rank %d: %s waits for a message from rank %d (world rank %d) in %s",
			b.Rank, b.Op, b.Peer, b.PeerWorld, comm)
	}
	return fmt.Sprintf("rank %d: %s waits for a message from rank %d (world rank %d) with tag %d in %s",
		b.Rank, b.Op, b.Peer, b.PeerWorld, b.Tag, comm)
}

// Error lists the blocked ranks, one per line, then the ranks that exited.
func (e *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mpitest: deadlock: all %d running ranks are blocked", len(e.Blocked))
	for _, x := range e.Blocked {
		b.WriteString("\n\t")
		b.WriteString(x.String())
	}
	for _, x := range e.Exited {
		b.WriteString("\n\t")
		b.WriteString(x)
	}
	return b.String()
}

// maxFruitless is the number of consecutive quiescence points at which
// polling ranks are released without any message having been sent in
// between, after which the world is declared deadlocked (a program polling
// with Test for a message that can never be sent).
const maxFruitless = 10000

// checkDeadlock is called by the goroutine that brought the number of
// running ranks to zero. No rank can then change state except through
// this function, so the snapshot is consistent.
//
// If some blocked ranks are in Test, the world is quiescent rather than
// deadlocked: no message can be sent before one of them proceeds, so their
// Test returns false and they are released. Otherwise the ranks are
// deadlocked and the world is aborted.
func (w *World) checkDeadlock() {
	w.deadMu.Lock()
	defer w.deadMu.Unlock()
	if w.aborted.Load() || w.running.Load() != 0 {
		return
	}
	var testers []*Rank
	var d DeadlockError
	for _, r := range w.ranks {
		r.mu.Lock()
		switch {
		case r.waiting != nil:
			q := r.waiting
			if q.test {
				testers = append(testers, r)
			}
			op := q.op
			if q.test {
				op = "MPI_Test (polling)"
			}
			d.Blocked = append(d.Blocked, Blocked{Rank: r.id, Op: op, Peer: q.peer, PeerWorld: q.peerWorld,
				Tag: int(q.key.tag), Internal: q.key.ctx&1 == 1, CommID: q.key.ctx >> 1})
		case r.exited && r.exitErr != nil:
			msg := r.exitErr.Error()
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			d.Exited = append(d.Exited, fmt.Sprintf("rank %d exited with error: %s", r.id, msg))
		case r.exited:
			d.Exited = append(d.Exited, fmt.Sprintf("rank %d exited", r.id))
		}
		r.mu.Unlock()
	}
	if len(d.Blocked) == 0 {
		return // everyone finished
	}
	if len(testers) > 0 {
		m := w.Messages()
		if m == w.releaseMsgs {
			w.fruitless++
		} else {
			w.fruitless = 0
		}
		w.releaseMsgs = m
		if w.fruitless < maxFruitless {
			for _, r := range testers {
				r.mu.Lock()
				r.waiting.released = true
				r.waiting = nil
				r.mu.Unlock()
			}
			w.running.Add(int64(len(testers)))
			for _, r := range testers {
				select {
				case r.wake <- struct{}{}:
				default:
				}
			}
			return
		}
	}
	w.deadlock = &d
	w.aborted.Store(true)
	for _, r := range w.ranks {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// Rank is one simulated process. Its methods, and those of its
// communicators, requests and clock, must be called from the goroutine Run
// started for it (as an MPI process is single-threaded, MPI_THREAD_FUNNELED).
type Rank struct {
	w      *World
	id     int
	now    float64 // true virtual time, seconds; owned by the rank's goroutine
	rxFree float64 // true time the rank's ingress finished its last receive
	clk    *clockModel
	clock  *simClock
	world  *comm
	noise  *nodeNoise // the node's periodic noise, or nil

	mu      sync.Mutex // guards queues, waiting, exited
	queues  map[mkey]*queue
	lastKey mkey     // one-entry cache of queues
	lastQ   *queue   // nil when invalid
	waiting *recvReq // the request the rank is blocked on
	exited  bool
	exitErr error
	wake    chan struct{}
	free    [][]byte // buffers of consumed messages, for reuse

	// owner-only state
	msgs     atomic.Int64      // messages sent
	linkSeq  []uint64          // messages sent per destination world rank (small worlds)
	linkMap  map[int32]*uint64 // the same for large worlds
	lastDst  int               // destination of lastCnt
	lastCnt  *uint64           // linkMap's counter of lastDst, nil before the first send
	blockRq  recvReq           // reused by blocking receives
	log      []Message         // sent messages, when Config.Log
	scratch  [3][]byte
	execs    int64        // executions of calls by Observe, counted for Config.CorruptResult
	desched  *descheduler // Config.Deschedule; nil when the rank is not descheduled
	cpuWait  float64      // seconds lost to desched
	cpuWaits int64
}

// Comm returns the rank's world communicator (MPI_COMM_WORLD).
func (r *Rank) Comm() mpi.Comm { return r.world }

// Clock returns the rank's simulated clock, ticking in nanoseconds
// (Hz() = 1e9). Each Now advances the rank's true time by the read overhead.
func (r *Rank) Clock() timing.Clock { return r.clock }

// ID returns the rank's world rank.
func (r *Rank) ID() int { return r.id }

// TrueNow returns the rank's true (virtual) time in seconds.
func (r *Rank) TrueNow() float64 { return r.now }

// Sleep advances the rank's true time by d without communicating, as if it
// computed or slept for d. Non-positive d does nothing.
func (r *Rank) Sleep(d time.Duration) {
	if d > 0 {
		r.now += d.Seconds()
	}
}

// Params returns the clock parameters of rank r.
func (w *World) Params(rank int) ClockParams { return w.ranks[rank].clk.p }

// ClockAt returns the ticks (nanoseconds) rank's clock reads at true time t
// seconds, quantized to its resolution. A read by the rank itself at true
// time t returns exactly this value.
func (w *World) ClockAt(rank int, t float64) timing.Ticks { return w.ranks[rank].clk.ticks(t) }

// ClockSecondsAt returns rank's clock at true time t in seconds, not
// quantized: t + OffsetS + drift and wander. ClockAt is the same reading
// in ticks, quantized as the rank reads it.
func (w *World) ClockSecondsAt(rank int, t float64) float64 { return w.ranks[rank].clk.local(t) }

// TrueOffset returns, in seconds, how far rank's clock is ahead of rank 0's
// clock at true time t: ClockSecondsAt(rank, t) − ClockSecondsAt(0, t), not quantized.
// This is the offset a clock synchronization algorithm estimates when it
// maps every clock to the clock of root 0. The offset from true time is
// ClockSecondsAt(rank, t) − t.
func (w *World) TrueOffset(rank int, t float64) float64 {
	return w.ranks[rank].clk.local(t) - w.ranks[0].clk.local(t)
}

// TrueDriftPPM returns the instantaneous frequency error of rank's clock
// against true time at true time t, in ppm (DriftPPM plus wander).
func (w *World) TrueDriftPPM(rank int, t float64) float64 {
	_, f := w.ranks[rank].clk.extra(t)
	return f * 1e6
}

// TrueTime returns the earliest true time, in seconds, at which rank's clock
// (unquantized) reads at least ticks. It inverts ClockSecondsAt: together they map
// a timestamp of one rank to the reading of another rank's clock at the same
// instant, which is the ground truth for a global clock.
func (w *World) TrueTime(rank int, ticks timing.Ticks) float64 {
	return w.ranks[rank].clk.trueTime(ticks)
}

// Messages returns the number of point-to-point messages simulated so far,
// including those that implement collectives.
func (w *World) Messages() int64 {
	var n int64
	for _, r := range w.ranks {
		n += r.msgs.Load()
	}
	return n
}

// TrueNow returns the true time of rank; it must not be called while Run is
// running (use Rank.TrueNow inside Run).
func (w *World) TrueNow(rank int) float64 {
	if w.inRun.Load() {
		panic("mpitest: World.TrueNow called during Run")
	}
	return w.ranks[rank].now
}

// Message is one simulated point-to-point message, as recorded when
// Config.Log is set.
type Message struct {
	Src, Dst int     // world ranks
	Seq      uint64  // index of the message on the link Src→Dst, from 0
	CommID   uint64  // the communicator (0 is the world)
	Tag      int     // the tag; for messages internal to collectives, an internal tag
	Internal bool    // the message implements a collective or Observe
	Bytes    int     // payload size
	SendS    float64 // true time the sender finished injecting it, seconds
	ArrivalS float64 // true time it arrived at Dst, seconds
}

// Log returns the messages recorded so far (Config.Log), sorted by send
// time, then sender, then destination and sequence number — an order that
// does not depend on scheduling. It must not be called during Run.
func (w *World) Log() []Message {
	if w.inRun.Load() {
		panic("mpitest: World.Log called during Run")
	}
	var out []Message
	for _, r := range w.ranks {
		out = append(out, r.log...)
	}
	slices.SortFunc(out, func(a, b Message) int {
		switch {
		case a.SendS != b.SendS:
			return cmp.Compare(a.SendS, b.SendS)
		case a.Src != b.Src:
			return a.Src - b.Src
		case a.Dst != b.Dst:
			return a.Dst - b.Dst
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return out
}
