package window

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// GlobalClock maps local ticks of the base clock to global seconds and
// back. *clocksync.GlobalClock satisfies it; Identity is the global clock of
// a run without clock synchronization.
type GlobalClock interface {
	// ToGlobal maps a local timestamp (ticks of the base clock) to global seconds.
	ToGlobal(local timing.Ticks) float64
	// ToLocal maps global seconds to the local tick at which the base clock
	// reaches that global time.
	ToLocal(global float64) timing.Ticks
}

// Identity is the GlobalClock that takes the local clock as global time:
// correct on one rank, or for methods that need no global time.
type Identity struct{ Clock timing.Clock }

// ToGlobal returns the local timestamp in seconds.
func (i Identity) ToGlobal(local timing.Ticks) float64 { return i.Clock.Freq().Seconds(local) }

// ToLocal returns the global time in local ticks.
func (i Identity) ToLocal(global float64) timing.Ticks { return i.Clock.Freq().FromSeconds(global) }

// Method is a process synchronization method (see the package doc).
type Method int

// The methods.
const (
	Barrier Method = iota
	DoubleBarrier
	Dissemination
	Fixed
	AdaptiveSKaMPI
	AdaptiveNBCBench
	RoundTime
	numMethods
)

var methodNames = [...]string{"barrier", "double_barrier", "dissemination", "window",
	"adaptive_skampi", "adaptive_nbcbench", "roundtime"}

// Methods returns every method in a fixed order.
func Methods() []Method {
	m := make([]Method, numMethods)
	for i := range m {
		m[i] = Method(i)
	}
	return m
}

// MethodNames returns the names of every method, for vocabularies.
func MethodNames() []string { return append([]string(nil), methodNames[:]...) }

// String returns the method's name as used on the command line.
func (m Method) String() string {
	if m < 0 || m >= numMethods {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// Windowed reports whether the method starts observations at deadlines in
// global time (and so needs synchronized clocks).
func (m Method) Windowed() bool { return m >= Fixed && m < numMethods }

// LibraryBarrier reports whether the method synchronizes each observation
// with the MPI library's own MPI_Barrier (barrier and double_barrier), whose
// exit skew then enters the timing and differs between libraries
// (Hunold & Carpen-Amarie 2016, §4.6).
func (m Method) LibraryBarrier() bool { return m == Barrier || m == DoubleBarrier }

// ParseMethod accepts a method name (case-insensitive; "fixed" and
// "fixed_window" mean window, "skampi" and "nbcbench" the adaptive policies).
func ParseMethod(s string) (Method, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	switch n {
	case "fixed", "fixed_window":
		return Fixed, nil
	case "skampi", "adaptive":
		return AdaptiveSKaMPI, nil
	case "nbcbench":
		return AdaptiveNBCBench, nil
	case "mpi_barrier":
		return Barrier, nil
	}
	for i, name := range methodNames {
		if n == name {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("window: unknown process synchronization %q (want one of %s)", s, strings.Join(methodNames[:], ", "))
}

// AdaptTrigger is what an adaptive policy counts against
// Config.InvalidFraction in a batch.
type AdaptTrigger int

// The triggers.
const (
	// AdaptOnInvalid counts every invalid observation, late or expired: the
	// SKaMPI and NBCBench policies as published.
	AdaptOnInvalid AdaptTrigger = iota
	// AdaptOnExpired counts only observations that ran past the next
	// observation's deadline, the sign of a window too short for the
	// operation. A late start on an otherwise idle rank is noise (an
	// interrupt, a descheduled or paused CPU covering the deadline): a
	// wider window cannot prevent it, and on a noisy machine the published
	// policies keep widening the window for it (measured on a 2-core VM:
	// 100 µs → 3.2 ms, valid p99 1.3 → 4.0 µs, late share unchanged).
	AdaptOnExpired
)

var adaptTriggerNames = [...]string{"invalid", "expired"}

// String returns the trigger's name as used on the command line.
func (a AdaptTrigger) String() string {
	if a < 0 || int(a) >= len(adaptTriggerNames) {
		return fmt.Sprintf("AdaptTrigger(%d)", int(a))
	}
	return adaptTriggerNames[a]
}

// ParseAdaptTrigger accepts "invalid" or "expired".
func ParseAdaptTrigger(s string) (AdaptTrigger, error) {
	for i, n := range adaptTriggerNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return AdaptTrigger(i), nil
		}
	}
	return 0, fmt.Errorf("window: unknown adaptation trigger %q (want invalid or expired)", s)
}

// Code is the error code of an observation: bits, reduced across ranks
// with OR. It is the raw data's errorcode column (rawdata.ErrorCodes).
type Code uint8

// The bits of a Code.
const (
	CodeValid     Code = 0
	CodeLate      Code = 1 // started more than LateTolerance after its deadline
	CodeExpired   Code = 2 // ended after the next observation's deadline
	CodeDiscarded Code = 4 // its batch was repeated by the NBCBench policy
	// CodeWrongResult: the result check (engine.Experiment.VerifyResults)
	// found this observation's receive buffer different from the
	// operation's expected result on some rank. Set by the engine, never
	// by a Sync.
	CodeWrongResult Code = rawdata.ErrorCodeWrongResult
)

// String returns "valid", or the names of the set bits joined by "+"
// ("late", "expired", "discarded", "wrong-result"; "late+expired"), or "Code(N)" with
// undefined bits.
func (c Code) String() string {
	if c == CodeValid {
		return "valid"
	}
	if c&^(CodeLate|CodeExpired|CodeDiscarded|CodeWrongResult) != 0 {
		return fmt.Sprintf("Code(%d)", uint8(c))
	}
	var parts []string
	for _, b := range []struct {
		bit  Code
		name string
	}{{CodeLate, "late"}, {CodeExpired, "expired"}, {CodeDiscarded, "discarded"}, {CodeWrongResult, "wrong-result"}} {
		if c&b.bit != 0 {
			parts = append(parts, b.name)
		}
	}
	return strings.Join(parts, "+")
}

// Valid reports whether the observation is valid (no bit set).
func (c Code) Valid() bool { return c == CodeValid }

// Config configures a Sync. Zero fields take the defaults noted.
type Config struct {
	Method Method
	// Window is the initial window per observation (windowed methods);
	// default 100 µs.
	Window time.Duration
	// Batch is the number of observations between two broadcasts of a start
	// time, and between two decisions of an adaptive policy; default 100.
	Batch int
	// LateTolerance is how far after its deadline an observation may start
	// and still be valid; default 1 µs. The critical path takes its first
	// timestamp at the first clock reading at or after the deadline, so a
	// punctual start is late by about one clock read.
	LateTolerance time.Duration
	// StartDelay is the lead that covers the broadcast of a batch's start
	// time: rank 0 places the batch's first deadline StartDelay plus the
	// current window after its clock's now; default 50 µs plus one (the
	// initial) window.
	StartDelay time.Duration
	// InvalidFraction is the share of invalid observations in a batch at
	// which an adaptive policy acts; default 0.25.
	InvalidFraction float64
	// AdaptOn is what the adaptive policies count against InvalidFraction:
	// every invalid observation (default, as published) or only expired ones.
	AdaptOn AdaptTrigger
	// MaxWindow caps the window the adaptive policies may reach; default
	// 100 × Window. (Neither SKaMPI nor NBCBench caps it, but a rank that is
	// regularly descheduled makes observations late whatever the window, and
	// the window would then grow without bound.)
	MaxWindow time.Duration
	// SleepGuard: when an observation's deadline is more than SleepGuard
	// ahead, the rank sleeps (time.Sleep, yielding the CPU) until SleepGuard
	// before it, and only then busy-waits in the critical path. On a shared
	// machine a rank that busy-waits through long windows uses up its
	// scheduler share and may be descheduled across its deadlines. Zero
	// (the default) never sleeps: measured on a 2-core VM shared with other
	// busy processes, a 300 µs guard made things worse (wake-ups arrive
	// milliseconds late), so sleeping is opt-in.
	SleepGuard time.Duration
	// MaxRepeats bounds how often the NBCBench policy repeats one batch;
	// default 20.
	MaxRepeats int
	// RoundFactor is k of round-time: start = now + k·(Bcast time);
	// default 4.
	RoundFactor float64
	// Budget ends a round-time experiment when it has run this long (rank
	// 0's clock); default 10 s. Round-time also stops after 10·n attempts.
	Budget time.Duration
	// NoiseGuard turns on the noise guard for the windowed methods
	// (NoiseGuard, package noiseguard): rank 0 learns each node's
	// periodic noise from the late observations and places window starts
	// where no detour is predicted. It biases the data on purpose:
	// observations that would overlap periodic noise are not taken. Use it
	// to measure the operation; leave it off (the default) to measure the
	// operation as an application meets it. The barrier methods ignore it.
	NoiseGuard bool
	// NoiseGuardBefore is the guard before a start: no predicted detour may
	// end less than this before it; default 5 µs.
	NoiseGuardBefore time.Duration
	// ProcHold says whether Run may set runtime.GOMAXPROCS, a setting of
	// the whole process, to 1 while it runs; the default (ProcHoldAuto)
	// does while its observations run in C through the real binding.
	// Sync.Wait records it.
	ProcHold ProcHold
}

// ProcHold is Config.ProcHold: whether Run may change runtime.GOMAXPROCS,
// which holds for the whole process, while it runs.
type ProcHold int

const (
	// ProcHoldAuto holds GOMAXPROCS at 1 while Run's observations of a
	// built-in call run in C through the real binding (an
	// mpi.BatchObserver) with no Go code between them: a batch in one cgo
	// call, or the overlap measurement's one cgo call per observation. It
	// restores the value it found when the last Run of the process that
	// holds it returns (wait.go says why): the verified default. RunFunc
	// and round-time never hold.
	ProcHoldAuto ProcHold = iota
	// ProcHoldNever leaves GOMAXPROCS alone, for a program whose other
	// goroutines must keep running while it measures; the Go runtime's
	// monitor thread may then preempt ranks that busy-wait for a start.
	ProcHoldNever
	numProcHolds
)

// String returns "auto" or "never".
func (h ProcHold) String() string {
	switch h {
	case ProcHoldAuto:
		return "auto"
	case ProcHoldNever:
		return "never"
	}
	return fmt.Sprintf("ProcHold(%d)", int(h))
}

// MaxWindowLimit bounds Config.Window and Config.MaxWindow: one
// observation per second at most (a window of an hour would make a run hang
// by value).
const MaxWindowLimit = time.Second

// Check rejects values that WithDefaults would silently replace or that
// cannot run: negative durations and counts, a window or maximal window
// above MaxWindowLimit, a maximal window below the window, a NaN or
// negative round-time factor or invalid fraction. Zero fields mean the
// documented defaults.
func (c Config) Check() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("window: "+format, a...) }
	switch {
	case c.Method < 0 || c.Method >= numMethods:
		return bad("unknown method %d", int(c.Method))
	case c.Window < 0 || c.Window > MaxWindowLimit:
		return bad("window %v out of range [0, %v] (0: default 100µs)", c.Window, MaxWindowLimit)
	case c.MaxWindow < 0 || c.MaxWindow > MaxWindowLimit:
		return bad("maximal window %v out of range [0, %v] (0: 100 × window)", c.MaxWindow, MaxWindowLimit)
	case c.MaxWindow > 0 && c.MaxWindow < c.Window:
		return bad("maximal window %v is below the window %v", c.MaxWindow, c.Window)
	case c.Batch < 0, c.MaxRepeats < 0:
		return bad("negative batch %d or max repeats %d", c.Batch, c.MaxRepeats)
	case c.NoiseGuardBefore < 0 || c.NoiseGuardBefore > MaxWindowLimit:
		return bad("noise guard before a start %v out of range [0, %v] (0: default 5µs)", c.NoiseGuardBefore, MaxWindowLimit)
	case c.LateTolerance < 0, c.StartDelay < 0, c.SleepGuard < 0, c.Budget < 0:
		return bad("negative late tolerance %v, start delay %v, sleep guard %v or budget %v", c.LateTolerance, c.StartDelay, c.SleepGuard, c.Budget)
	case !(c.InvalidFraction >= 0 && c.InvalidFraction <= 1):
		return bad("invalid fraction %v out of range [0, 1]", c.InvalidFraction)
	case !(c.RoundFactor >= 0) || math.IsInf(c.RoundFactor, 0):
		return bad("round-time factor %v is not a non-negative finite number", c.RoundFactor)
	case c.AdaptOn != AdaptOnInvalid && c.AdaptOn != AdaptOnExpired:
		return bad("unknown adaptation trigger %d", int(c.AdaptOn))
	case c.ProcHold < 0 || c.ProcHold >= numProcHolds:
		return bad("unknown GOMAXPROCS hold %d", int(c.ProcHold))
	}
	return nil
}

// WithDefaults returns c with every zero field replaced by its documented
// default: the configuration a Sync made from c runs (Sync.Config), and
// so the one its raw data must record.
func (c Config) WithDefaults() Config {
	if c.Window <= 0 {
		c.Window = 100 * time.Microsecond
	}
	if c.Batch <= 0 {
		c.Batch = 100
	}
	if c.LateTolerance <= 0 {
		c.LateTolerance = time.Microsecond
	}
	if c.StartDelay <= 0 {
		c.StartDelay = 50*time.Microsecond + c.Window
	}
	if c.InvalidFraction <= 0 {
		c.InvalidFraction = 0.25
	}
	if c.MaxWindow <= 0 {
		c.MaxWindow = 100 * c.Window
	}
	if c.MaxRepeats <= 0 {
		c.MaxRepeats = 20
	}
	if c.RoundFactor <= 0 {
		c.RoundFactor = 4
	}
	if c.Budget <= 0 {
		c.Budget = 10 * time.Second
	}
	if c.NoiseGuardBefore <= 0 {
		c.NoiseGuardBefore = 5 * time.Microsecond
	}
	return c
}

// Adaptation records one change of the window by an adaptive policy; it is
// part of the sidecar's schema, so package rawdata defines it.
type Adaptation = rawdata.Adaptation

// Record is what happened in each observation of one Run on the calling
// rank: observation i's timestamps, deadline, lateness, buffer offset and
// error code (its late, expired and discarded flags), and for the overlap
// measurement of a non-blocking collective its pure and compute phases.
// Its slices are allocated once (NewRecord) and reused, so Run does not
// allocate.
type Record struct {
	N        int            // observations recorded (round-time and NBCBench: attempts, so N may exceed the n asked for)
	Start    []timing.Ticks // local ticks of the start timestamp
	End      []timing.Ticks // local ticks of the end timestamp
	Late     []timing.Ticks // how late the start was on this rank, start − deadline (0 without a deadline)
	Code     []Code         // error code, reduced across ranks (every rank holds the same)
	Deadline []timing.Ticks // local ticks of the deadline (0 without one)
	Offset   []int64        // byte offset of the buffers the observation used (Sync.Buffers; 0 without)
	// Pure and Compute are the ticks of the overlap measurement's pure
	// phase and of its compute kernel on this rank (mpi.Observation.Pure
	// and Compute, with mpi.Observation.Overlap set); 0 for other
	// observations.
	Pure, Compute []timing.Ticks
}

// NewRecord returns a Record with room for capacity observations.
func NewRecord(capacity int) *Record {
	return &Record{Start: make([]timing.Ticks, capacity), End: make([]timing.Ticks, capacity),
		Late: make([]timing.Ticks, capacity), Code: make([]Code, capacity), Deadline: make([]timing.Ticks, capacity),
		Offset: make([]int64, capacity), Pure: make([]timing.Ticks, capacity), Compute: make([]timing.Ticks, capacity)}
}

// phases records observation k's overlap phases from o (0 unless
// o.Overlap).
func (r *Record) phases(k int, o *mpi.Observation) {
	r.Pure[k], r.Compute[k] = 0, 0
	if o.Overlap {
		r.Pure[k], r.Compute[k] = o.Pure, o.Compute
	}
}

// Cap returns how many observations the Record holds.
func (r *Record) Cap() int { return len(r.Start) }

// Capacity returns the Record capacity Run needs for n observations with
// this configuration.
func (c Config) Capacity(n int) int {
	c = c.WithDefaults()
	switch c.Method {
	case RoundTime:
		return 10 * n
	case AdaptiveNBCBench:
		return n + c.MaxRepeats*c.Batch
	}
	return n
}

// Sync runs observations under one process synchronization method. It
// keeps the current window between Runs, so a warm-up Run adapts the window
// the measured Run then starts with; Reset restores the initial window.
// A Sync belongs to one rank; every rank of the communicator makes one with
// the same Config and calls its methods collectively.
type Sync struct {
	cfg     Config
	comm    mpi.Comm
	clk     timing.Clock
	g       GlobalClock
	windowS float64
	bcastS  float64   // round-time: measured MPI_Bcast time
	red     []float64 // per-batch flags and durations sent to the reduction
	redOut  []float64 // and its result (MPI forbids aliasing the two)
	one     []float64 // scalar broadcasts (its own allocation: cgo forbids pointers into a struct holding Go pointers)
	// History lists every window change since the last Reset.
	History []Adaptation
	// Sleep, when set, replaces time.Sleep for the coarse wait before a
	// deadline (see Config.SleepGuard). When nil, a simulated clock's own
	// Sleep is used (timing.SleepFunc: mpitest's clocks wait in virtual
	// time), else time.Sleep.
	Sleep func(time.Duration)
	// Before, when set, is called before each observation with its index in
	// the Record. It must not allocate to keep Run allocation-free, and must
	// not communicate. It takes every observation out of the batch (one cgo
	// call each), which costs the tail (see mpi.ObserveBatch); for cache
	// control use Buffers.
	Before func(i int)
	// Guard is the noise guard's state when Config.NoiseGuard is set; New
	// makes one with every rank on one node when it is nil. Give the Syncs
	// of a run one Guard per rank (NewNoiseGuard, with the ranks' nodes)
	// so that what was learned carries over.
	Guard  *NoiseGuard
	starts []float64    // the batch's start times (noise guard)
	busyS  float64      // the operation's typical duration, at most a window (noise guard)
	durs   []float64    // scratch for the median duration (noise guard)
	procs  int          // GOMAXPROCS during the last Run (Wait)
	fn     func() error // RunFunc's work, nil in Run
	// Buffers, when set, varies o's buffers from one observation to the
	// next as its Mode says (cycled or random offsets, cold caches), within
	// the batches (mpi.Observation.Offsets and Flush). Run records each
	// observation's offset in Record.Offset.
	Buffers *cache.Buffers
}

// Absent reports whether g is no global clock: nil, or an interface
// holding a nil pointer (a nil *clocksync.GlobalClock), which every function
// of this package treats as "no global clock" instead of calling it.
func Absent(g GlobalClock) bool {
	if g == nil {
		return true
	}
	v := reflect.ValueOf(g)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// ErrNoGlobalClock is returned by New for a windowed method without a
// global clock.
var ErrNoGlobalClock = errors.New("window: windowed process synchronization needs a global clock (synchronize the clocks)")

// New returns a Sync for the calling rank of c reading clk (which must be
// the base clock of g).
func New(c mpi.Comm, clk timing.Clock, g GlobalClock, cfg Config) (*Sync, error) {
	if c == nil || clk == nil {
		return nil, errors.New("window: New needs a communicator and a clock")
	}
	cfg = cfg.WithDefaults()
	if cfg.Method < 0 || cfg.Method >= numMethods {
		return nil, fmt.Errorf("window: invalid method %v", cfg.Method)
	}
	if Absent(g) {
		g = nil
	}
	if cfg.Method.Windowed() && g == nil {
		return nil, ErrNoGlobalClock
	}
	if cfg.AdaptOn < 0 || int(cfg.AdaptOn) >= len(adaptTriggerNames) {
		return nil, fmt.Errorf("window: invalid adaptation trigger %v", cfg.AdaptOn)
	}
	if g == nil {
		g = Identity{clk}
	}
	s := &Sync{cfg: cfg, comm: c, clk: clk, g: g, History: make([]Adaptation, 0, 64), red: make([]float64, 3*cfg.Batch), redOut: make([]float64, 3*cfg.Batch), one: make([]float64, 1)}
	s.reset()
	if cfg.NoiseGuard && cfg.Method.Windowed() {
		if err := s.initGuard(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Config returns the configuration with defaults applied.
func (s *Sync) Config() Config { return s.cfg }

// reset restores the initial window and clears History.
func (s *Sync) reset() {
	s.windowS = s.cfg.Window.Seconds()
	s.History = s.History[:0]
	s.bcastS = 0
}

// Window returns the current window, rounded to the nanosecond (History
// holds the adaptations' exact values in seconds, for the raw data).
func (s *Sync) Window() time.Duration { return time.Duration(math.Round(s.windowS * 1e9)) }

// Run executes n observations of the built-in call o under the method
// and records what happened in rec from index 0 (rec.N is set): each
// observation's timestamps, flags and, with o.Overlap, its pure and
// compute phases. o's call and buffers are set by the caller; Run sets
// o.Sync and o.Deadline. warmUp marks the adaptations of a warm-up run in
// History. Every rank calls Run collectively with the same n.
//
// The observations run a batch at a time (mpi.ObserveBatch: one cgo call
// per batch with the real binding), or one at a time when Go code must run
// between them (a Before hook, a sleep guard, round-time) or when each
// one's phases must be read (o.Overlap: one cgo call each). While they run
// in C through the real binding, Run holds runtime.GOMAXPROCS at 1 as
// Config.ProcHold says (wait.go; Sync.Wait records it).
func (s *Sync) Run(o *mpi.Observation, n int, rec *Record, warmUp bool) error {
	if o == nil || rec == nil {
		return errors.New("window: Run needs an Observation and a Record (NewRecord(Config().Capacity(n)))")
	}
	return s.run(o, n, rec, warmUp)
}

// run is Run, and RunFunc's loop with s.fn set.
func (s *Sync) run(o *mpi.Observation, n int, rec *Record, warmUp bool) error {
	if need := s.cfg.Capacity(n); rec.Cap() < need {
		return fmt.Errorf("window: Record holds %d observations, %v needs %d for n=%d", rec.Cap(), s.cfg.Method, need, n)
	}
	if s.holdsOneP() {
		defer holdOneP()()
	}
	s.procs = runtime.GOMAXPROCS(0)
	rec.N = 0
	if s.guarded() {
		if err := s.prepareGuard(); err != nil {
			return err
		}
	}
	switch s.cfg.Method {
	case Barrier, DoubleBarrier, Dissemination:
		o.Sync = [...]mpi.SyncKind{mpi.SyncBarrier, mpi.SyncDoubleBarrier, mpi.SyncDissemination}[s.cfg.Method]
		o.Deadline = 0
		if s.batched() {
			if err := s.observeBatch(o, nil, rec, 0, n); err != nil {
				return err
			}
		}
		for i := range n {
			if !s.batched() {
				s.before(o, rec, i)
				if err := s.observe(o); err != nil {
					return err
				}
				rec.Start[i], rec.End[i] = o.Start, o.End
				rec.phases(i, o)
			}
			rec.Late[i], rec.Code[i], rec.Deadline[i] = 0, 0, 0
		}
		rec.N = n
		return nil
	case RoundTime:
		return s.runRoundTime(o, n, rec, warmUp)
	}
	return s.runWindows(o, n, rec, warmUp)
}

// RunFunc is Run for the caller's own code: every observation waits as the
// method prescribes (barrier, window start, round-time start), then times
// work() on every rank, with the same flags, adaptation and Record. work
// must be collective if the method's semantics need it (every rank calls it
// once per observation). Unlike Run's built-in calls, which execute a batch
// in one cgo call, this runs in Go, one observation at a time
// (mpi.ObserveFunc), and never holds GOMAXPROCS: work may use goroutines.
// Sync.Buffers and its cache modes apply between the observations.
func (s *Sync) RunFunc(work func() error, n int, rec *Record, warmUp bool) error {
	if work == nil {
		return errors.New("window: RunFunc of a nil function")
	}
	if rec == nil {
		return errors.New("window: RunFunc needs a Record (NewRecord(Config().Capacity(n)))")
	}
	s.fn = work
	defer func() { s.fn = nil }()
	return s.run(&mpi.Observation{Call: mpi.CallBarrier}, n, rec, warmUp)
}

// observe runs one observation: the built-in call o (one cgo call with
// the real binding), or RunFunc's work timed in Go.
func (s *Sync) observe(o *mpi.Observation) error {
	if s.fn != nil {
		return mpi.ObserveFunc(s.comm, o, s.clk, s.fn)
	}
	return s.comm.Observe(o, s.clk)
}

// broadcastStart has rank 0 pick a start time StartDelay (plus one window)
// ahead in global time and broadcasts it.
func (s *Sync) broadcastStart(aheadS float64) (float64, error) {
	s.one[0] = 0
	if s.comm.Rank() == 0 {
		s.one[0] = s.g.ToGlobal(s.clk.Now()) + aheadS
		if s.guarded() && s.cfg.Method == RoundTime {
			s.one[0] = s.Guard.place(s.one[0], s.cfg.NoiseGuardBefore.Seconds(), s.busyS)
		}
	}
	err := mpi.Bcast(s.comm, s.one[:1], 0)
	return s.one[0], err
}

// runWindows implements the fixed window and the adaptive policies
// (Hunold & Carpen-Amarie 2016, Alg. 1 for the window; the SKaMPI and
// NBCBench rules of its Alg. 10 and 14 for the adaptation).
func (s *Sync) runWindows(o *mpi.Observation, n int, rec *Record, warmUp bool) error {
	o.Sync = mpi.SyncDeadline
	tol := s.clk.Freq().Ticks(s.cfg.LateTolerance)
	done, repeats := 0, 0
	for done < n {
		b := min(s.cfg.Batch, n-done)
		first := rec.N
		w := s.windowS
		var t0 float64
		var err error
		if s.guarded() {
			err = s.broadcastStarts(s.cfg.StartDelay.Seconds()+w, w, b)
		} else {
			t0, err = s.broadcastStart(s.cfg.StartDelay.Seconds() + s.windowS)
		}
		if err != nil {
			return err
		}
		if s.batched() {
			for i := range b {
				rec.Deadline[first+i] = s.g.ToLocal(s.slot(t0, w, i))
			}
			if err := s.observeBatch(o, rec.Deadline[first:first+b], rec, first, first+b); err != nil {
				return err
			}
		}
		for i := range b {
			k := first + i
			if s.batched() {
				o.Start, o.End, o.Deadline = rec.Start[k], rec.End[k], rec.Deadline[k]
			} else {
				s.before(o, rec, k)
				o.Deadline = s.g.ToLocal(s.slot(t0, w, i))
				s.sleepUntilNear(o.Deadline)
				if err := s.observe(o); err != nil {
					return err
				}
				rec.phases(k, o)
			}
			var late, exp float64
			if o.Start-o.Deadline > tol {
				late = 1
			}
			if o.End > s.g.ToLocal(s.slot(t0, w, i)+w) {
				exp = 1
			}
			rec.Start[k], rec.End[k], rec.Deadline[k] = o.Start, o.End, o.Deadline
			rec.Late[k] = o.Start - o.Deadline
			s.red[i], s.red[b+i], s.red[2*b+i] = late, exp, s.clk.Freq().Seconds(o.End-o.Start)
		}
		rec.N += b
		nred := 3 * b
		if s.guarded() {
			nred = s.guardLateness(rec.Late[first : first+b])
		}
		red := s.redOut[:nred]
		if err := mpi.Allreduce(s.comm, s.red[:nred], red, mpi.Max); err != nil {
			return err
		}
		invalid, expired, sum := 0, 0, 0.0
		for i := range b {
			c := CodeValid
			if red[i] != 0 {
				c |= CodeLate
			}
			if red[b+i] != 0 {
				c |= CodeExpired
				expired++
			}
			if c != 0 {
				invalid++
			}
			rec.Code[first+i] = c
			sum += red[2*b+i]
		}
		mean := sum / float64(b)
		if s.guarded() {
			s.busyS = s.typicalDuration(red[2*b:3*b], w)
			if s.comm.Rank() == 0 {
				s.Guard.learn(s.starts, red[3*b:], b, s.cfg.LateTolerance.Seconds(), s.clk)
			}
		}
		counted := invalid
		if s.cfg.AdaptOn == AdaptOnExpired {
			counted = expired
		}
		tooMany := float64(counted) >= s.cfg.InvalidFraction*float64(b)
		switch {
		case s.cfg.Method == AdaptiveSKaMPI && tooMany && w < s.cfg.MaxWindow.Seconds():
			nw := math.Min(math.Max(2*w, 1.5*mean), s.cfg.MaxWindow.Seconds())
			s.History = append(s.History, Adaptation{AtObservation: first, InvalidCount: invalid, ExpiredCount: expired,
				BatchSize: b, MeanDurationS: mean, OldWindowS: w, NewWindowS: nw, WarmUp: warmUp})
			s.windowS = nw
			done += b
		case s.cfg.Method == AdaptiveNBCBench && tooMany && repeats < s.cfg.MaxRepeats && w < s.cfg.MaxWindow.Seconds():
			nw := math.Min(1.5*w, s.cfg.MaxWindow.Seconds())
			s.History = append(s.History, Adaptation{AtObservation: first, InvalidCount: invalid, ExpiredCount: expired,
				BatchSize: b, MeanDurationS: mean, OldWindowS: w, NewWindowS: nw, RepeatedBatch: true, WarmUp: warmUp})
			s.windowS = nw
			for i := range b {
				rec.Code[first+i] |= CodeDiscarded
			}
			repeats++
		default:
			done += b
		}
	}
	return nil
}

// observeBatch runs observations first … last−1 of rec as one batch
// (mpi.ObserveBatch), their buffers planned by s.Buffers. The overlap
// measurement (o.Overlap) runs them one mpi.ObserveBatch each, the real
// binding's one cgo call per observation, and records each one's phases.
func (s *Sync) observeBatch(o *mpi.Observation, deadlines []timing.Ticks, rec *Record, first, last int) error {
	if s.Buffers != nil {
		s.Buffers.Plan(o, rec.Offset[first:last])
		defer s.Buffers.Unplan(o)
	} else {
		clear(rec.Offset[first:last])
	}
	if !o.Overlap {
		clear(rec.Pure[first:last])
		clear(rec.Compute[first:last])
		return mpi.ObserveBatch(s.comm, o, s.clk, deadlines, rec.Start[first:last], rec.End[first:last])
	}
	offs := o.Offsets
	for k := first; k < last; k++ {
		j := k - first
		var dl []timing.Ticks
		if deadlines != nil {
			dl = deadlines[j : j+1]
		}
		if offs != nil {
			o.Offsets = offs[j : j+1]
		}
		if err := mpi.ObserveBatch(s.comm, o, s.clk, dl, rec.Start[k:k+1], rec.End[k:k+1]); err != nil {
			o.Offsets = offs
			return err
		}
		rec.phases(k, o)
	}
	o.Offsets = offs
	return nil
}

// before prepares observation k of an unbatched run: the Before hook, then
// the buffers of s.Buffers.
func (s *Sync) before(o *mpi.Observation, rec *Record, k int) {
	if s.Before != nil {
		s.Before(k)
	}
	rec.Offset[k] = 0
	if s.Buffers != nil {
		s.Buffers.Before(k)
		o.Send, o.Recv = s.Buffers.Send, s.Buffers.Recv
		rec.Offset[k] = s.Buffers.Offset()
	}
}

// batched reports whether observations can run a batch at a time
// (mpi.ObserveBatch: one cgo call for the real binding). A Before hook or a
// sleep guard needs Go code between observations, and RunFunc's work is Go
// code, so those run one by one.
func (s *Sync) batched() bool { return s.Before == nil && s.cfg.SleepGuard <= 0 && s.fn == nil }

// sleepUntilNear sleeps until SleepGuard before deadline (local ticks), if
// that is in the future.
func (s *Sync) sleepUntilNear(deadline timing.Ticks) {
	if s.cfg.SleepGuard <= 0 {
		return
	}
	if d := s.clk.Freq().Duration(deadline-s.clk.Now()) - s.cfg.SleepGuard; d > 0 {
		if s.Sleep != nil {
			s.Sleep(d)
		} else {
			timing.Sleep(s.clk, d)
		}
	}
}

// measureBcast times MPI_Bcast of one float64 on rank 0 after a barrier,
// the minimum of 10 (round-time's unit of waiting).
func (s *Sync) measureBcast() error {
	best := math.Inf(1)
	for range 10 {
		if err := s.comm.Barrier(); err != nil {
			return err
		}
		t0 := s.clk.Now()
		if err := mpi.Bcast(s.comm, s.one[:1], 0); err != nil {
			return err
		}
		best = math.Min(best, s.clk.Freq().Seconds(s.clk.Now()-t0))
	}
	s.one[0] = best
	if err := mpi.Bcast(s.comm, s.one[:1], 0); err != nil {
		return err
	}
	s.bcastS = math.Max(s.one[0], 1e-6)
	return nil
}

// runRoundTime implements round-time: each round a barrier, a start time
// k·(Bcast time) ahead broadcast by rank 0, the timed call; a late start is
// recorded with CodeLate and redone; the budget (rank 0's clock) or 10·n
// attempts end the experiment.
func (s *Sync) runRoundTime(o *mpi.Observation, n int, rec *Record, warmUp bool) error {
	if s.bcastS == 0 {
		if err := s.measureBcast(); err != nil {
			return err
		}
	}
	o.Sync = mpi.SyncDeadline
	tol := s.clk.Freq().Ticks(s.cfg.LateTolerance)
	begin := s.clk.Now()
	budget := s.clk.Freq().Ticks(s.cfg.Budget)
	valid := 0
	for k := 0; valid < n && k < rec.Cap(); k++ {
		s.before(o, rec, k)
		if err := s.comm.Barrier(); err != nil {
			return err
		}
		t0, err := s.broadcastStart(s.cfg.RoundFactor * s.bcastS)
		if err != nil {
			return err
		}
		o.Deadline = s.g.ToLocal(t0)
		s.sleepUntilNear(o.Deadline)
		if err := s.observe(o); err != nil {
			return err
		}
		rec.phases(k, o)
		rec.Start[k], rec.End[k], rec.Deadline[k] = o.Start, o.End, o.Deadline
		rec.Late[k] = o.Start - o.Deadline
		s.red[0], s.red[1] = 0, 0
		if o.Start-o.Deadline > tol {
			s.red[0] = 1
		}
		if s.comm.Rank() == 0 && o.End-begin > budget {
			s.red[1] = 1
		}
		nred := 2
		if s.guarded() {
			// Each node's lateness after the two flags (guardLateness).
			nodes := s.Guard.nNodes
			clear(s.red[2 : 2+nodes])
			if s.red[0] != 0 {
				s.red[2+s.Guard.node(s.comm.Rank())] = s.clk.Freq().Seconds(rec.Late[k])
			}
			nred = 2 + nodes
		}
		if err := mpi.Allreduce(s.comm, s.red[:nred], s.redOut[:nred], mpi.Max); err != nil {
			return err
		}
		if s.guarded() {
			s.busyS = min(s.clk.Freq().Seconds(o.End-o.Start), s.windowS)
			if s.comm.Rank() == 0 {
				s.one[0] = t0
				s.Guard.learn(s.one[:1], s.redOut[2:nred], 1, s.cfg.LateTolerance.Seconds(), s.clk)
			}
		}
		rec.Code[k] = 0
		if s.redOut[0] != 0 {
			rec.Code[k] = CodeLate
		} else {
			valid++
		}
		rec.N = k + 1
		if s.redOut[1] != 0 {
			break
		}
	}
	return nil
}
