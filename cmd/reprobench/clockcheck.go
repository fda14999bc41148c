package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/clocksync/clocksim"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

func init() {
	register(command{
		name:    "clockcheck",
		summary: "synchronize the ranks' clocks and measure how far each global clock is from rank 0's, at once and after waiting (under mpirun, or --sim)",
		run:     runClockcheck,
	})
}

// clockcheckReport is the output of "reprobench clockcheck"; --json prints it.
type clockcheckReport struct {
	Algorithm    string          `json:"algorithm"`
	Ranks        int             `json:"ranks"`
	Simulated    bool            `json:"simulated"`
	Clock        string          `json:"clock"`
	SyncDuration float64         `json:"sync_duration_s"`
	Messages     int64           `json:"messages"`
	Seed         *uint64         `json:"seed,omitempty"`
	Skew         *clockcheckSkew `json:"skew,omitempty"`
	// Truth names where the true errors come from: "simulation", or
	// "shared clock" when every real rank runs on one host and reads one
	// CLOCK_MONOTONIC (clocksync.Harness.SharedNow); empty without them.
	Truth string `json:"truth,omitempty"`
	// Bound is the predicted error bound of the synchronization (the
	// largest over the ranks): |error| ≤ bound_at_sync_s + bound_slope·h,
	// h seconds after the sync; unknown for offset-only algorithms.
	Bound clocksync.Bound `json:"bound"`
	// Target is the accuracy target (--clock-accuracy or the spec's
	// accuracy=), TargetMet whether the bound meets it, BudgetExceeded how
	// many ranks ran out of time before meeting it.
	Target string `json:"target,omitempty"`
	// TargetSource says where the target came from: the default, the
	// flag, or the spec (and how to get the published fixed counts).
	TargetSource   string `json:"target_source,omitempty"`
	TargetMet      bool   `json:"target_met"`
	BudgetExceeded int    `json:"budget_exceeded_ranks,omitempty"`
	// Descheduled is set when ranks waited for a CPU during so much of
	// the sync that its statistical bound is not kept
	// (clocksync.DeschedulingRule): Bound is then the worst case, or
	// unknown (Descheduled.Action).
	Descheduled *clocksync.Descheduling `json:"descheduled,omitempty"`
	Checks      []clockcheckCheck       `json:"checks"`
	// PerRank is printed with --per-rank: each rank's model and fit.
	PerRank []clocksync.RankRecord `json:"per_rank,omitempty"`
}

type clockcheckSkew struct {
	Rank     int     `json:"rank"`
	OffsetS  float64 `json:"offset_s"`
	DriftPPM float64 `json:"drift_ppm"`
}

type clockcheckCheck struct {
	After     float64 `json:"after_s"`
	MaxAbs    float64 `json:"max_abs_offset_s"`
	MedianAbs float64 `json:"median_abs_offset_s"`
	// The exact error: in simulation, and on real ranks of one host with
	// --clock monotonic.
	TrueMaxAbs    *float64 `json:"true_max_abs_error_s,omitempty"`
	TrueMedianAbs *float64 `json:"true_median_abs_error_s,omitempty"`
	// The ping-pong check's own uncertainty: the largest ± of the
	// plausible offsets (SKaMPI's causality bounds), the largest RTT
	// behind them, and how many offsets were implausible (left out).
	MaxUncertainty float64 `json:"max_offset_uncertainty_s"`
	MaxRTT         float64 `json:"max_rtt_s"`
	Implausible    int     `json:"implausible_offsets"`
	// Bound is the predicted bound at this check (the largest over the
	// ranks, null when unknown), at BoundAt seconds after the sync: when the
	// truth was read, after the check's ping-pongs (more than After on a
	// loaded machine); Covered whether the true max |error| is
	// within it, RanksCovered how many ranks' true errors are within their
	// own bounds (where both are known).
	Bound        *float64  `json:"predicted_bound_s,omitempty"`
	BoundAt      *float64  `json:"bound_at_s,omitempty"`
	Covered      *bool     `json:"within_bound,omitempty"`
	RanksCovered *int      `json:"ranks_within_own_bound,omitempty"`
	RanksJudged  *int      `json:"ranks_judged,omitempty"`
	Offsets      []float64 `json:"offsets_s,omitempty"`     // with --per-rank
	TrueErrors   []float64 `json:"true_errors_s,omitempty"` // with --per-rank, where true errors exist
}

type clockcheckOptions struct {
	alg       *clocksync.Algorithm
	after     []time.Duration
	pingpongs int
	perRank   bool
	failAbove time.Duration

	targetSource string // where alg's accuracy target came from

	skewRank   int
	skewOffset time.Duration
	skewPPM    float64

	// Real ranks.
	clock string
	tscHz float64

	// Simulation.
	sim          bool
	ranks        int
	seed         uint64
	driftPPM     float64
	offsetS      float64
	latencyUs    float64
	jitterUs     float64
	spikeProb    float64
	deschedProb  float64
	ranksPerNode int
	nodeClocks   bool
}

func runClockcheck(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("clockcheck", "[--alg SPEC] [--after 0,1,5,10s] [--json] [--sim [--ranks N] [--drift-ppm X] …]", stderr)
	var o clockcheckOptions
	algSpec := fs.String("alg", clocksync.Default().Name, "clock synchronization algorithm and parameters, name[:key=value,…]; names: "+strings.Join(clocksync.Algorithms(), ", ")+" (see the clocksync package doc for the keys and defaults)")
	accText := fs.String("clock-accuracy", "auto", "accuracy `target` ERROR@HORIZON, e.g. 1us@10s: jk, hca3 and twolevel learn until every rank's stated bound at HORIZON meets ERROR, within the spec's budget; auto: "+clocksync.Default().Accuracy.String()+" unless --alg gives fixed counts; none: the published fixed counts (docs/clock-sync.md)")
	afterText := fs.String("after", "0,10s", "when to measure the offsets, after the synchronization: comma-separated durations (a bare number is seconds)")
	fs.IntVar(&o.pingpongs, "pingpongs", 10, "SKaMPI ping-pongs per rank and check (the paper's nrounds)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	fs.BoolVar(&o.perRank, "per-rank", false, "include every rank's model, fit and offsets in the JSON")
	fs.DurationVar(&o.failAbove, "fail-above", 0, "exit with an error if a check's max |offset| or, where known (simulation; real ranks of one host with --clock monotonic), its true max |error| exceeds this; 0 never fails")
	fs.IntVar(&o.skewRank, "skew-rank", -1, "rank whose clock is skewed by --skew-offset and --skew-ppm (timing.Skewed); -1: none")
	fs.DurationVar(&o.skewOffset, "skew-offset", 0, "offset added to the skewed rank's clock")
	fs.Float64Var(&o.skewPPM, "skew-ppm", 0, "drift of the skewed rank's clock, parts per million (positive runs fast)")
	fs.StringVar(&o.clock, "clock", "monotonic", "under mpirun: the clock to synchronize: monotonic, monotonic_raw, tsc (RDTSCP), tsc-fenced (LFENCE;RDTSC) or wtime")
	fs.Float64Var(&o.tscHz, "tsc-hz", 0, "with --clock tsc or tsc-fenced: fix the TSC frequency in Hz instead of calibrating it (the same on every rank)")
	fs.BoolVar(&o.sim, "sim", false, "run on the simulated world of mpitest instead of real ranks")
	fs.IntVar(&o.ranks, "ranks", 64, "--sim: number of ranks")
	fs.Uint64Var(&o.seed, "seed", 1, "--sim: seed of every random draw")
	fs.Float64Var(&o.driftPPM, "drift-ppm", mpitest.DefaultDriftPPM, "--sim: clock drifts uniform in ±X ppm")
	fs.Float64Var(&o.offsetS, "offset-s", mpitest.DefaultOffset.Seconds(), "--sim: clock offsets uniform in ±X seconds")
	fs.Float64Var(&o.latencyUs, "latency-us", float64(mpitest.DefaultBase)/float64(time.Microsecond), "--sim: one-way base latency, µs")
	fs.Float64Var(&o.jitterUs, "jitter-us", float64(mpitest.DefaultJitter)/float64(time.Microsecond), "--sim: mean of the exponential latency jitter, µs")
	fs.Float64Var(&o.spikeProb, "spike-prob", mpitest.DefaultSpikeProb, "--sim: probability of a 20 µs latency spike per message")
	fs.Float64Var(&o.deschedProb, "deschedule-prob", 0, "--sim: probability that rank 1 resumes 0.5–4 ms late from a receive it waited for, as a rank that yields its CPU to a busy task (mpitest.Deschedule)")
	fs.IntVar(&o.ranksPerNode, "ranks-per-node", 0, "--sim: ranks per node (SplitShared; 0: one node)")
	fs.BoolVar(&o.nodeClocks, "node-clocks", false, "--sim: the ranks of a node share one clock")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: clockcheck takes no arguments (give the algorithm with --alg)", errUsage)
	}
	var err error
	spec, err := clocksync.ParseSpec(*algSpec, clocksync.TargetText(*accText))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if o.alg, err = spec.New(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	o.targetSource = targetSource(*algSpec, *accText, spec)
	if o.after, err = parseAfter(*afterText); err != nil {
		return fmt.Errorf("%w: --after: %v", errUsage, err)
	}
	if o.pingpongs < 1 {
		return fmt.Errorf("%w: --pingpongs %d: need at least 1", errUsage, o.pingpongs)
	}
	if o.skewRank < -1 {
		return fmt.Errorf("%w: --skew-rank %d", errUsage, o.skewRank)
	}
	var rep *clockcheckReport
	if o.sim {
		if o.ranks < 1 {
			return fmt.Errorf("%w: --ranks %d: need at least 1", errUsage, o.ranks)
		}
		if o.skewRank >= o.ranks {
			return fmt.Errorf("%w: --skew-rank %d but only %d ranks", errUsage, o.skewRank, o.ranks)
		}
		if o.driftPPM < 0 || o.offsetS < 0 || o.latencyUs < 0 || o.jitterUs < 0 || o.spikeProb < 0 || o.spikeProb > 1 {
			return fmt.Errorf("%w: negative --drift-ppm, --offset-s, --latency-us, --jitter-us or --spike-prob outside [0,1]", errUsage)
		}
		if !(o.deschedProb >= 0 && o.deschedProb <= 1) || (o.deschedProb > 0 && o.ranks < 2) {
			return fmt.Errorf("%w: --deschedule-prob %v: want [0,1], and at least 2 ranks", errUsage, o.deschedProb)
		}
		// The simulated links have no asymmetry and no wander: unless
		// the spec says otherwise, its bound leaves out the terms
		// calibrated for them on real machines (bias=none).
		spec = clocksim.Spec(simConfig(o), *algSpec, spec)
		if o.alg, err = spec.New(); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		rep, err = clockcheckSim(o)
	} else {
		if !underMPI() {
			return fmt.Errorf("%w: not started by mpirun/mpiexec/srun; run under MPI (mpirun -np 2 reprobench clockcheck) or add --sim", errUsage)
		}
		rep, err = clockcheckMPI(o)
	}
	if err != nil || rep == nil { // rep is nil on ranks other than 0
		return err
	}
	if rep.Descheduled != nil && rep.Bound.Unknown {
		fmt.Fprintf(stderr, "reprobench clockcheck: WARNING: no bound stated (ranks descheduled): %v; the synchronization's error is unknown\n", rep.Descheduled)
	} else if rep.Descheduled != nil {
		fmt.Fprintf(stderr, "reprobench clockcheck: WARNING: ranks descheduled: %v; the bound stated is the worst case, %v\n", rep.Descheduled, rep.Bound)
	} else if rep.Target != "" && !rep.TargetMet {
		fmt.Fprintf(stderr, "reprobench clockcheck: WARNING: accuracy target %s not met: %d rank(s) ran out of the time budget (predicted bound %v)\n",
			rep.Target, rep.BudgetExceeded, rep.Bound)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := writeClockcheckText(stdout, rep); err != nil {
		return err
	}
	return rep.failed(o.failAbove)
}

// targetSource says where clockcheck's accuracy target came from, for its
// report: the default, --clock-accuracy, or the spec.
func targetSource(alg, acc string, s clocksync.Spec) string {
	a := strings.TrimSpace(acc)
	switch {
	case strings.EqualFold(a, "none"):
		return "--clock-accuracy none: the published fixed counts"
	case a != "" && !strings.EqualFold(a, "auto"):
		return "--clock-accuracy"
	case s.Accuracy.IsZero():
		if !slices.Contains(clocksync.AccuracyAlgorithms(), s.Name) {
			return ""
		}
		return "--alg " + alg + " gives fixed counts"
	case strings.Contains(strings.ToLower(alg), "accuracy="):
		return "--alg " + alg
	}
	return "the default; --clock-accuracy sets another, none the published fixed counts"
}

// parseAfter parses "0,1,5,10s": durations, bare numbers in seconds,
// ascending.
func parseAfter(s string) ([]time.Duration, error) {
	var ds []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		var d time.Duration
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			if math.IsNaN(v) || math.Abs(v) >= math.MaxInt64/1e9 { // beyond a time.Duration: it would wrap
				return nil, fmt.Errorf("%q seconds is not a duration (at most %.0f s)", f, math.MaxInt64/1e9)
			}
			d = time.Duration(math.Round(v * 1e9))
		} else if d, err = time.ParseDuration(f); err != nil {
			return nil, fmt.Errorf("%q is not a duration", f)
		}
		if d < 0 {
			return nil, fmt.Errorf("negative delay %v", d)
		}
		if len(ds) > 0 && d < ds[len(ds)-1] {
			return nil, fmt.Errorf("delays must ascend (%v after %v)", d, ds[len(ds)-1])
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return nil, errors.New("no delays")
	}
	return ds, nil
}

func (o *clockcheckOptions) skew() *clockcheckSkew {
	if o.skewRank < 0 {
		return nil
	}
	return &clockcheckSkew{Rank: o.skewRank, OffsetS: o.skewOffset.Seconds(), DriftPPM: o.skewPPM}
}

// check runs the synchronization and the harness on one rank; rank 0 fills
// rep.
func (o *clockcheckOptions) check(c mpi.Comm, clk timing.Clock, sleep func(time.Duration), h *clocksync.Harness, rep *clockcheckReport) error {
	g := clocksync.NewGlobalClock(clk)
	var so clocksync.SyncOptions
	if o.sim {
		so.Sleep = sleep // virtual time; real ranks keep exchanging between fit points
	}
	res, err := o.alg.SyncWith(c, g, so)
	if err != nil {
		return err
	}
	synced := clk.Now()
	h.After, h.Sleep = o.after, sleep
	h.Offset = &clocksync.SKaMPIPingPong{MinPingPongs: o.pingpongs, MaxPingPongs: o.pingpongs}
	if c.Rank() == 0 {
		h.Models = res.Models()
	}
	gap := clk.Freq().Seconds(clk.Now() - synced) // from the sync's end to the harness
	checks, err := h.Run(c, g)
	if err != nil || c.Rank() != 0 {
		return err
	}
	rep.Algorithm, rep.Ranks = res.Algorithm, res.Ranks
	rep.Clock = clk.Name()
	rep.SyncDuration, rep.Messages = res.Duration, res.Messages
	rep.Skew = o.skew()
	if o.perRank {
		rep.PerRank = res.PerRank
	}
	rep.Bound, rep.Target, rep.TargetMet, rep.BudgetExceeded = res.Bound, res.Target, res.TargetMet, res.BudgetExceeded
	rep.Descheduled = res.Descheduled
	rep.TargetSource = o.targetSource
	for _, ck := range checks {
		cc := clockcheckCheck{After: ck.After.Seconds(), MaxAbs: ck.MaxAbs, MedianAbs: ck.MedianAbs,
			TrueMaxAbs: ck.TrueMaxAbs, TrueMedianAbs: ck.TrueMedian,
			MaxUncertainty: ck.MaxUncertainty, MaxRTT: ck.MaxRTT, Implausible: ck.Implausible}
		if !res.Bound.Unknown {
			// The bound when the truth was read: the check's ping-pongs
			// come first, and under load they take milliseconds.
			at := gap + ck.Elapsed
			b := res.Bound.At(at)
			cc.Bound, cc.BoundAt = &b, &at
			if ck.TrueMaxAbs != nil {
				cov := *ck.TrueMaxAbs <= b
				n, m := clocksync.CoveredRanks(res.PerRank, ck.TrueOffsets, at)
				cc.Covered, cc.RanksCovered, cc.RanksJudged = &cov, &n, &m
			}
		}
		if o.perRank {
			cc.Offsets, cc.TrueErrors = ck.Offsets, ck.TrueOffsets
		}
		rep.Checks = append(rep.Checks, cc)
	}
	return nil
}

// offOr maps a flag value of 0 to mpitest.Off (whose zero means "default").
func offOr(v float64) float64 {
	if v == 0 {
		return mpitest.Off
	}
	return v
}

func offOrSeconds(s float64) time.Duration {
	if s == 0 {
		return mpitest.Off
	}
	return time.Duration(math.Round(s * 1e9))
}

func offOrDuration(us float64) time.Duration {
	if us == 0 {
		return mpitest.Off
	}
	return time.Duration(math.Round(us * 1e3))
}

// simConfig is the simulated world of clockcheck --sim.
func simConfig(o clockcheckOptions) mpitest.Config {
	cfg := mpitest.Config{
		Ranks: o.ranks,
		Seed:  o.seed,
		Clock: mpitest.ClockDist{Offset: offOrSeconds(o.offsetS), DriftPPM: offOr(o.driftPPM)},
		Latency: mpitest.Latency{
			Base:      offOrDuration(o.latencyUs),
			Jitter:    offOrDuration(o.jitterUs),
			SpikeProb: offOr(o.spikeProb),
		},
		RanksPerNode: o.ranksPerNode,
		NodeClocks:   o.nodeClocks,
	}
	if o.deschedProb > 0 {
		cfg.Deschedule = mpitest.Deschedule{Prob: o.deschedProb, Ranks: []int{1}}
	}
	return cfg
}

func clockcheckSim(o clockcheckOptions) (*clockcheckReport, error) {
	w, err := mpitest.New(simConfig(o))
	if err != nil {
		return nil, err
	}
	var skewed *timing.Skewed
	localAt := w.ClockAt
	if o.skewRank >= 0 {
		// The skew of timing.Skewed on top of the simulated clock; the
		// ground truth must see it too.
		skewed = &timing.Skewed{Offset: timing.Ticks(o.skewOffset), DriftPPM: o.skewPPM}
		localAt = func(rank int, t float64) timing.Ticks {
			if rank == o.skewRank {
				return skewed.Skew(w.ClockAt(rank, t))
			}
			return w.ClockAt(rank, t)
		}
	}
	rep := &clockcheckReport{Simulated: true, Seed: &o.seed, Truth: "simulation"}
	err = w.Run(func(r *mpitest.Rank) error {
		clk := r.Clock()
		if r.ID() == o.skewRank {
			s := *skewed
			s.Base = clk
			clk = &s
		}
		h := &clocksync.Harness{TrueNow: r.TrueNow, ClockAt: localAt}
		return o.check(r.Comm(), clk, r.Sleep, h, rep)
	})
	if err != nil {
		return nil, err
	}
	if o.skewRank >= 0 {
		rep.Clock = "mpitest (rank " + strconv.Itoa(o.skewRank) + " skewed)"
	}
	return rep, nil
}

func clockcheckMPI(o clockcheckOptions) (rep *clockcheckReport, err error) {
	if note := launch.LaunchNote(os.Getenv); note != "" {
		fmt.Fprintln(os.Stderr, "reprobench clockcheck: note:", note)
	}
	if err := mpi.Init(); err != nil {
		return nil, err
	}
	defer func() {
		if ferr := mpi.Finalize(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	c := mpi.World()
	// Singletons of a wrong launcher would each report a job of one.
	if err := launch.CheckLaunch(c, os.Getenv); err != nil {
		return nil, err
	}
	if o.skewRank >= c.Size() {
		return nil, fmt.Errorf("%w: --skew-rank %d but only %d ranks", errUsage, o.skewRank, c.Size())
	}
	var clk timing.Clock
	switch o.clock {
	case "monotonic":
		clk = timing.NewMonotonic()
	case "monotonic_raw":
		clk = timing.NewMonotonicRaw()
	case "wtime":
		clk = mpi.WtimeClock()
	case "tsc", "tsc-fenced":
		t, err := timing.NewTSC(timing.TSCConfig{Hz: o.tscHz, Fenced: o.clock == "tsc-fenced"})
		if err != nil {
			return nil, err
		}
		clk = t
	default:
		return nil, fmt.Errorf("%w: --clock %q: want monotonic, monotonic_raw, tsc, tsc-fenced or wtime", errUsage, o.clock)
	}
	name := clk.Name()
	h := &clocksync.Harness{}
	mono, isMono := clk.(*timing.Monotonic)
	// A node's drift (virtual cluster, clocksync.NodeSkewEnv), then a rank's.
	clk, nodeSkew, err := clocksync.NodeSkew(clk)
	if err != nil {
		return nil, err
	}
	var skewed *timing.Skewed
	if c.Rank() == o.skewRank {
		skewed = timing.NewSkewed(clk, o.skewOffset, o.skewPPM)
		clk = skewed
	}
	// On one kernel (one host, or namespaced nodes of one host) every rank
	// reads one CLOCK_MONOTONIC: the true errors are exact, no message timed.
	if isMono {
		if _, err := h.ShareHostClock(c, mono, nodeSkew, skewed); err != nil {
			return nil, err
		}
	}
	r := &clockcheckReport{}
	if err := o.check(c, clk, time.Sleep, h, r); err != nil {
		return nil, err
	}
	if h.SharedNow != nil {
		r.Truth = "shared clock"
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	r.Clock = name
	if o.skewRank >= 0 {
		r.Clock += " (rank " + strconv.Itoa(o.skewRank) + " skewed)"
	}
	return r, nil
}

// failed reports an error if a check exceeds the bound.
func (r *clockcheckReport) failed(bound time.Duration) error {
	if bound <= 0 {
		return nil
	}
	b := bound.Seconds()
	for _, ck := range r.Checks {
		if ck.MaxAbs > b {
			return fmt.Errorf("after %gs the max |offset| is %s, above --fail-above %v", ck.After, fmtSeconds(ck.MaxAbs), bound)
		}
		if ck.TrueMaxAbs != nil && *ck.TrueMaxAbs > b {
			return fmt.Errorf("after %gs the true max |error| is %s, above --fail-above %v", ck.After, fmtSeconds(*ck.TrueMaxAbs), bound)
		}
	}
	return nil
}

// fmtSeconds prints seconds with a unit chosen for people, three significant
// digits.
func fmtSeconds(s float64) string {
	a := math.Abs(s)
	switch {
	case math.IsNaN(s):
		return "NaN"
	case a == 0:
		return "0s"
	case a < 1e-6:
		return strconv.FormatFloat(s*1e9, 'g', 3, 64) + "ns"
	case a < 1e-3:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + "µs"
	case a < 1:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + "s"
}

func writeClockcheckText(w io.Writer, r *clockcheckReport) error {
	where := "real ranks"
	if r.Simulated {
		where = fmt.Sprintf("simulated ranks (seed %d)", *r.Seed)
	}
	fmt.Fprintf(w, "algorithm  %s\n", r.Algorithm)
	fmt.Fprintf(w, "ranks      %d %s, clock %s\n", r.Ranks, where, r.Clock)
	fmt.Fprintf(w, "sync       %s, %d messages\n", fmtSeconds(r.SyncDuration), r.Messages)
	if r.Bound.Unknown {
		why := r.Bound.Why
		if why == "" {
			why = "the algorithm states none"
		}
		fmt.Fprintf(w, "bound      unknown: %s\n", why)
		if r.Descheduled != nil {
			fmt.Fprintf(w, "           %v\n", r.Descheduled)
		}
	} else if r.Descheduled != nil {
		fmt.Fprintf(w, "bound      worst case |error| ≤ %s + %.3g ppm × time since sync (causality intervals; ranks descheduled)\n",
			fmtSeconds(r.Bound.AtSync), r.Bound.Slope*1e6)
		fmt.Fprintf(w, "           %v\n", r.Descheduled)
	} else {
		fmt.Fprintf(w, "bound      predicted |error| ≤ %s + %.3g ppm × time since sync (%d standard errors)\n",
			fmtSeconds(r.Bound.AtSync), r.Bound.Slope*1e6, clocksync.BoundZ)
	}
	if r.Target != "" {
		if r.TargetMet {
			fmt.Fprintf(w, "target     %s: met (%s)\n", r.Target, r.TargetSource)
		} else if r.Descheduled != nil {
			fmt.Fprintf(w, "target     %s: not met — ranks were descheduled (%s)\n", r.Target, r.TargetSource)
		} else {
			fmt.Fprintf(w, "target     %s: NOT MET — %d rank(s) ran out of the time budget; the bound above is what was reached (%s)\n", r.Target, r.BudgetExceeded, r.TargetSource)
		}
	} else if r.TargetSource != "" {
		fmt.Fprintf(w, "target     none (%s)\n", r.TargetSource)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "after\tmax |offset|\t± (RTT)\tmedian |offset|\t"
	if r.Truth != "" {
		head += "true max |error|\ttrue median |error|\t"
	}
	if !r.Bound.Unknown {
		head += "predicted bound\t"
	}
	fmt.Fprintln(tw, head)
	implausible := 0
	for _, ck := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t±%s (%s)\t%s\t", fmtSeconds(ck.After), fmtSeconds(ck.MaxAbs),
			fmtSeconds(ck.MaxUncertainty), fmtSeconds(ck.MaxRTT), fmtSeconds(ck.MedianAbs))
		if ck.TrueMaxAbs != nil {
			fmt.Fprintf(tw, "%s\t%s\t", fmtSeconds(*ck.TrueMaxAbs), fmtSeconds(*ck.TrueMedianAbs))
		}
		if ck.Bound != nil {
			mark := ""
			if ck.Covered != nil && !*ck.Covered {
				mark = " EXCEEDED"
			}
			fmt.Fprintf(tw, "%s%s\t", fmtSeconds(*ck.Bound), mark)
		}
		fmt.Fprintln(tw)
		implausible += ck.Implausible
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if implausible > 0 {
		fmt.Fprintf(w, "\n%d measured offset(s) were implausible (contradictory ping-pongs, or uncertain by more than 5µs) and are left out of the offsets above\n", implausible)
	}
	if r.Truth == "shared clock" {
		_, err := fmt.Fprintln(w, "\ntrue errors: exact, from the one CLOCK_MONOTONIC every rank of this host reads (no message timed)")
		return err
	}
	return nil
}
