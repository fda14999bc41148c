package region

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// DefaultCapacity is the number of records a rank preallocates when
// Options.Capacity is 0: 65536 records of 40 bytes, 2.5 MiB per rank.
const DefaultCapacity = 1 << 16

// MaxDepth is the deepest nesting of open regions; a Begin beyond it
// records nothing (counted as dropped), and its End closes nothing.
const MaxDepth = 64

// Overflow is what a recorder does when its buffer is full.
type Overflow int

// The overflow policies.
const (
	// DropNewest: a Begin on a full buffer records nothing; the records
	// kept are the first Capacity ones, a prefix of the rank's regions.
	DropNewest Overflow = iota
)

// String names the policy as the sidecar records it.
func (o Overflow) String() string {
	if o == DropNewest {
		return "drop_newest"
	}
	return fmt.Sprintf("Overflow(%d)", int(o))
}

// Options configure a Recorder.
type Options struct {
	// Capacity is the number of records each rank preallocates; 0 means
	// DefaultCapacity. A record is one Begin/End pair.
	Capacity int
	// Disabled makes every method of the recorder return at once and Close
	// write nothing, at the cost of one load and branch per call.
	Disabled bool
	// Sync, when not nil, synchronizes the clocks at New and at Close
	// (unless NoEndSync); nil leaves the clocks unsynchronized: only
	// runtime_s is then meaningful, the global columns are NaN.
	Sync *clocksync.Algorithm
	// NoEndSync skips the synchronization at Close: the global times then
	// come from the start's model alone, and the stated bound grows with
	// the time since it (see the package doc).
	NoEndSync bool
	// RefuseNoBound makes Close fail on rank 0, writing nothing, when the
	// clocks were synchronized but some rank states no bound on its global
	// clock (its synchronizations stated none: ranks descheduled with no
	// worst case, too few undisturbed fit points). By default Close then
	// falls back to the local completion time: the global columns are
	// left out (NaN) and Record.NoBound says why.
	RefuseNoBound bool
	// Notes is where the recorder writes its one-time notes at run time
	// (the first misuse of each kind, the first drop) and, on rank 0, the
	// one-line account at Close; nil means standard error.
	Notes io.Writer
	// NoProvenance leaves out the provenance record (Result.Provenance,
	// the sidecar's provenance; the MPI library and processor names then
	// come from Output.Meta only). Package provenance allgathers a record
	// of each rank at New and at Close, so its memory grows with the rank
	// count on every rank: the only part of Close that does.
	NoProvenance bool
	// Spill makes each rank append its records to its own file as it goes
	// (StartWith only; Start sets it): in the spill directory of the
	// output (spillDir), whenever the rank is outside every region (End of
	// its outermost region, SetIter) and has at least SpillEvery new
	// records, in one write. A run that dies leaves the files, which
	// Recover reads. The time spent is measured and stated per rank
	// (RankLog.SpillS). The format is docs/data-format.md's.
	Spill bool
	// SpillEvery is the spill interval in records; 0 means
	// DefaultSpillEvery.
	SpillEvery int
}

// record is one region occurrence on one rank. start and end are ticks of
// the rank's clock.
type record struct {
	start, end timing.Ticks
	iter       int64
	name       int32 // index into Recorder.names
	labels     int32 // index into Recorder.labelSets
	parent     int32 // index of the enclosing record, −1 at the top
	depth      int16
	closed     bool
}

type transKey struct {
	from       int32
	key, value string
}

// Recorder records regions on one rank. Its methods must be called from
// the goroutine that owns the rank (an MPI process is single-threaded);
// every method is a no-op on a nil or disabled Recorder.
type Recorder struct {
	off bool
	clk timing.Clock
	c   mpi.Comm
	opt Options

	recs  []record
	n     int
	stack [MaxDepth]int32
	depth int

	names   []string
	nameIdx map[string]int32

	labelSets []string // canonical "k=v,k=v", sorted by key; index 0 is ""
	labelIdx  map[string]int32
	trans     map[transKey]int32
	cur       int32
	iter      int64

	dropped     int64
	misuse      int64
	kinds       [numMisuse]int64
	firstMisuse string
	compute     []string
	out         *Output // StartWith's, for Stop
	spill       *spiller
	incomplete  bool // a recovered run (Recover)
	endFn       func()

	startUTC time.Time
	// the CPU-time sample at the end of New (cpuload.Read) and its error
	load0     cpuload.Sample
	prov      *provenance.Binding // provenance of the recording, Finished at Close
	loadErr   error
	startSync *syncPoint
	pairNs    float64
}

// syncPoint is one synchronization: its result and the local time at its
// end, seconds.
type syncPoint struct {
	res    *clocksync.Result
	bound  clocksync.Bound // this rank's own (Result.Bound is the largest on rank 0)
	localS float64
}

// New creates the calling rank's recorder on c and clk (collective when
// opt.Sync is set: it synchronizes the clocks, and every rank must call it).
// It preallocates the records, and measures the cost of a Begin/End pair
// on this rank (recorded in the sidecar). A disabled recorder
// (opt.Disabled) communicates nothing and allocates no buffer. It returns
// an error for a negative capacity or a failed synchronization.
func New(c mpi.Comm, clk timing.Clock, opt Options) (*Recorder, error) {
	if opt.Disabled {
		return &Recorder{off: true}, nil
	}
	if c == nil || clk == nil {
		return nil, fmt.Errorf("region: New needs a communicator and a clock")
	}
	if opt.Capacity < 0 {
		return nil, fmt.Errorf("region: capacity %d is negative", opt.Capacity)
	}
	if opt.Capacity == 0 {
		opt.Capacity = DefaultCapacity
	}
	r := newRecorder(c, clk, opt, opt.Capacity)
	r.pairNs = r.calibrate()
	if opt.Sync != nil {
		sp, err := syncNow(c, clk, opt.Sync)
		if err != nil {
			return nil, fmt.Errorf("region: clock synchronization at the start: %w", err)
		}
		r.startSync = sp
	}
	r.startUTC = time.Now().UTC()
	r.load0, r.loadErr = cpuload.Read()
	if !opt.NoProvenance {
		var err error
		if r.prov, err = provenance.Start(c, provenance.Options{Simulated: timing.SleepFunc(clk) != nil}); err != nil {
			return nil, fmt.Errorf("region: %w", err)
		}
	}
	return r, nil
}

func newRecorder(c mpi.Comm, clk timing.Clock, opt Options, capacity int) *Recorder {
	r := &Recorder{clk: clk, c: c, opt: opt, recs: make([]record, capacity),
		nameIdx: map[string]int32{}, labelSets: []string{""}, labelIdx: map[string]int32{"": 0},
		trans: map[transKey]int32{}, iter: -1}
	r.endFn = r.endTop
	return r
}

// calibrate measures the cost of an enabled Begin/End pair, in
// nanoseconds (median of 7 rounds of 64 pairs on a scratch recorder).
func (r *Recorder) calibrate() float64 {
	s := newRecorder(r.c, r.clk, r.opt, 64)
	s.Begin("calibration")
	s.End("calibration")
	per := make([]float64, 7)
	for k := range per {
		s.n = 0
		t0 := r.clk.Now()
		for range 64 {
			s.Begin("calibration")
			s.End("calibration")
		}
		t1 := r.clk.Now()
		per[k] = r.clk.Freq().Seconds(t1-t0) / 64 * 1e9
	}
	slices.Sort(per)
	return per[len(per)/2]
}

func syncNow(c mpi.Comm, clk timing.Clock, a *clocksync.Algorithm) (*syncPoint, error) {
	g := clocksync.NewGlobalClock(clk)
	res, err := a.Sync(c, g)
	if err != nil {
		return nil, err
	}
	sp := &syncPoint{res: res, bound: res.Bound, localS: clk.Freq().Seconds(clk.Now())}
	if c.Rank() == 0 && len(res.PerRank) > 0 {
		sp.bound = res.PerRank[0].Bound
	}
	return sp, nil
}

// Enabled reports whether r records (not nil, not disabled).
func (r *Recorder) Enabled() bool { return r != nil && !r.off }

// Begin opens region name on the calling rank: it takes a record, stamps
// it with the current labels and iteration, and reads the clock last.
// Name must be a valid label value, not empty (no commas, quotes or line
// breaks): another is checked when first seen, counted as a BadName misuse
// at once, and not recorded.
func (r *Recorder) Begin(name string) {
	if r == nil || r.off {
		return
	}
	r.begin(name)
}

func (r *Recorder) begin(name string) {
	id, ok := r.nameIdx[name]
	if !ok {
		id = r.internName(name)
	}
	if id < 0 || r.depth == MaxDepth || r.n == len(r.recs) {
		switch {
		case id < 0:
			r.noteMisuse(BadName, "Begin("+name+")")
		case r.depth == MaxDepth:
			r.noteDrop(fmt.Sprintf("nesting deeper than MaxDepth (%d)", MaxDepth))
		default:
			r.noteDrop(fmt.Sprintf("the buffer of %d records is full", len(r.recs)))
		}
		if r.depth < MaxDepth {
			r.stack[r.depth] = -1
			r.depth++
		}
		return
	}
	i := int32(r.n)
	r.n++
	p := &r.recs[i]
	p.name, p.labels, p.iter, p.depth, p.closed, p.parent = id, r.cur, r.iter, int16(r.depth), false, -1
	if r.depth > 0 {
		p.parent = r.stack[r.depth-1]
	}
	r.stack[r.depth] = i
	r.depth++
	p.start = r.clk.Now()
}

// End closes the innermost open region, reading the clock first. A name
// other than that region's, or an End without an open region, is counted
// as a misuse (recorded in the sidecar; the first is described); the
// innermost region is closed all the same.
func (r *Recorder) End(name string) {
	if r == nil || r.off {
		return
	}
	r.end(name)
}

// internName checks a region name seen for the first time and interns
// it: its index, or −1 (also interned) for a name that cannot be a label
// value.
func (r *Recorder) internName(name string) int32 {
	id := int32(-1)
	if name != "" && rawdata.CheckLabel(regionLabel, name) == nil {
		id = int32(len(r.names))
		r.names = append(r.names, strings.Clone(name))
	}
	r.nameIdx[strings.Clone(name)] = id
	return id
}

func (r *Recorder) end(name string) {
	t := r.clk.Now()
	if r.depth == 0 {
		r.noteMisuse(EndWithoutBegin, "End("+name+")")
		return
	}
	r.depth--
	i := r.stack[r.depth]
	if i < 0 {
		return
	}
	p := &r.recs[i]
	p.end, p.closed = t, true
	if r.names[p.name] != name {
		r.noteMisuse(EndMismatch, "End("+name+") in "+r.names[p.name])
	}
	if r.spill != nil {
		r.maybeSpill()
	}
}

// endTop closes the innermost open region without a name check.
func (r *Recorder) endTop() {
	t := r.clk.Now()
	if r.depth == 0 {
		r.noteMisuse(EndWithoutBegin, "the closing call of Region")
		return
	}
	r.depth--
	if i := r.stack[r.depth]; i >= 0 {
		r.recs[i].end, r.recs[i].closed = t, true
	}
	if r.spill != nil {
		r.maybeSpill()
	}
}

func noop() {}

// Region opens region name and returns the function that closes it, for
// `defer rec.Region("compute")()`. It allocates nothing (the returned
// function is the recorder's own).
func (r *Recorder) Region(name string) func() {
	if r == nil || r.off {
		return noop
	}
	r.begin(name)
	return r.endFn
}

// SetIter sets the iteration stamped on the records begun from now on
// (the iter column; −1, the initial value, means none).
func (r *Recorder) SetIter(i int64) {
	if r == nil || r.off {
		return
	}
	r.iter = i
	if r.spill != nil {
		r.maybeSpill()
	}
}

// SetLabel sets grouping label key to value for the records begun from
// now on; an empty value removes it. The key follows rawdata.CheckLabelKey
// and must not be "region"; a bad key or value is counted as a BadLabel
// misuse when first seen, and ignored. The first time a combination of labels is seen it is interned
// (allocating); afterwards SetLabel allocates nothing.
func (r *Recorder) SetLabel(key, value string) {
	if r == nil || r.off {
		return
	}
	if to, ok := r.trans[transKey{r.cur, key, value}]; ok {
		r.cur = to
		return
	}
	r.setLabelSlow(key, value)
}

func (r *Recorder) setLabelSlow(key, value string) {
	if key == regionLabel || rawdata.CheckLabel(key, value) != nil {
		r.noteMisuse(BadLabel, "SetLabel("+key+", "+value+")")
		return
	}
	m := parseLabels(r.labelSets[r.cur])
	if value == "" {
		delete(m, key)
	} else {
		m[key] = value
	}
	canon := canonLabels(m)
	id, ok := r.labelIdx[canon]
	if !ok {
		id = int32(len(r.labelSets))
		r.labelSets = append(r.labelSets, canon)
		r.labelIdx[canon] = id
	}
	r.trans[transKey{r.cur, strings.Clone(key), strings.Clone(value)}] = id
	r.cur = id
}

// regionLabel is the label that holds a row's region name.
const regionLabel = rawdata.RegionLabel

func parseLabels(s string) map[string]string {
	m := map[string]string{}
	if s == "" {
		return m
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func canonLabels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// Span is one recorded region occurrence of the calling rank, as
// Recorder.Spans returns it: ticks of the rank's own clock.
type Span struct {
	Name   string
	Labels string       // canonical "key=value,…", sorted by key; "" for none
	Iter   int64        // −1: none
	Depth  int          // 0 at the top
	Parent int          // index of the enclosing span, −1 at the top
	Start  timing.Ticks // ticks
	End    timing.Ticks // ticks; meaningful only when Closed
	Closed bool
}

// Spans returns the calling rank's records so far, in the order of their
// Begin (nil for a nil or disabled recorder). It allocates; it is for
// tests and for programs that analyze their own records.
func (r *Recorder) Spans() []Span {
	if r == nil || r.off {
		return nil
	}
	out := make([]Span, r.n)
	for i, p := range r.recs[:r.n] {
		out[i] = Span{Name: r.names[p.name], Labels: r.labelSets[p.labels], Iter: p.iter, Depth: int(p.depth),
			Parent: int(p.parent), Start: p.start, End: p.end, Closed: p.closed}
	}
	return out
}

// Dropped returns the number of Begins that recorded nothing because the
// buffer was full or the nesting too deep.
func (r *Recorder) Dropped() int64 {
	if r == nil {
		return 0
	}
	return r.dropped
}
