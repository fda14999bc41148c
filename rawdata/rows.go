package rawdata

import (
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/factor"
)

// Row is one observation: one line of the raw file without its run_id,
// mpirun and factor columns, which the Writer adds.
type Row struct {
	Exp        int
	Call       string // MPI_Allreduce, pingpong, … (mpi.Call.String)
	MsizeBytes int
	Count      int
	Datatype   string // one of Datatypes
	Np         int
	Rep        int
	RuntimeS   float64
	ErrorCode  int
	// nbc: the overlap measurement (OverlapColumns), written only for an
	// experiment declared with an NBCMode: per call, averaged over ranks.
	PureS, ComputeS, TotalS, OverlapFrac float64
	// Region holds the RegionColumns, written only for an experiment
	// declared with Region set.
	Region RegionValues
}

// RegionValues are the per-row values of a region row (RegionColumns).
type RegionValues struct {
	Iter           int64   // iter: the application's iteration, −1 for none
	StartS         float64 // start_s: earliest global start over the ranks, seconds
	GlobalRuntimeS float64 // global_runtime_s: latest global end − earliest global start
	EntrySpreadS   float64 // entry_spread_s: latest − earliest global start
	Nranks         int     // nranks: ranks that recorded the occurrence
}

// RankRow is one rank's timestamps of one observation, seconds: local on
// the rank's clock since its epoch, global on the global clock.
type RankRow struct {
	Exp          int
	Call         string
	MsizeBytes   int
	Np           int
	Rep          int
	Rank         int
	LocalStartS  float64
	LocalEndS    float64
	GlobalStartS float64
	GlobalEndS   float64
	ErrorCode    int
}

// FactorCells returns the cells of f in the FactorColumns, formatted as
// written (factorCell).
func FactorCells(f factor.Values) []string {
	out := make([]string, 0, factor.NumIDs)
	for _, r := range factor.Table() {
		if !r.Optional {
			out = append(out, factorCell(f, r.ID))
		}
	}
	return out
}

// factorCell returns the raw cell of factor id in f: the level as
// factor.Values.Cell formats it, with a comma of a text level written as
// ';' (the CSV is unquoted; a clock sync spec has commas). A method
// factor (not a call parameter) of a numeric kind that f does not set is
// written at its row's Default (noise_guard off, window_s 0); any other
// unset factor is an empty cell, which analysis leaves out of group keys.
func factorCell(f factor.Values, id factor.ID) string {
	r := id.Row()
	if !f.Has(id) {
		if r.Call || r.Kind == factor.KindText {
			return ""
		}
		return r.Format(r.Default)
	}
	if r.Kind == factor.KindText {
		return strings.ReplaceAll(f.Text(id), ",", ";")
	}
	return f.Cell(id)
}

// setsFactor reports whether f sets the optional factor id to a level
// other than its default, so that the raw file needs its column.
func setsFactor(f factor.Values, id factor.ID) bool {
	v, ok := f.Get(id)
	return ok && v != id.Row().Default
}

// FormatSeconds formats d in seconds, the shortest decimal that parses
// back to the same float64: 130µs is "0.00013".
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
}

// Experiment declares one experiment to a Writer: the factor levels and
// labels its rows carry.
type Experiment struct {
	Exp int
	// Factors are the levels of the experiment's factors (the rows of
	// package factor's table) as name/value cells, written in the
	// FactorColumns of each of its rows and in the optional columns
	// (factor.Factor.Optional) the run uses. A call parameter that is not
	// set, because the call does not take it, is an empty cell.
	Factors factor.Values
	// Labels of this experiment (e.g. a design file's label columns); they
	// override the Writer's run-wide labels of the same key.
	Labels map[string]string
	// NBCMode, when not empty, marks an experiment of the overlap
	// measurement: its rows carry OverlapColumns (nbc).
	NBCMode string
	// Region marks an experiment of application regions (package region):
	// its rows carry RegionColumns, and when any experiment is one, the
	// per-rank file carries the label columns too, so that per-rank rows
	// of different regions fall into different groups.
	Region bool
	// Covariates are the experiment's recorded covariates
	// (CovariateColumns).
	Covariates Covariates
}

// Covariates are the values of an experiment's recorded covariates,
// written in the CovariateColumns of each of its rows.
type Covariates struct {
	// Prehistory is the prehistory factor's level ("none", "N",
	// "random", "random:MAX"; engine.Prehistory), "" or "none" when the
	// experiment had none; PrehistoryMsgs is the count it sent.
	Prehistory     string
	PrehistoryMsgs int
}

// Any reports whether c records a covariate, so that the raw file needs
// CovariateColumns.
func (c Covariates) Any() bool { return c.Prehistory != "" && c.Prehistory != "none" }

// Values returns the CovariateColumns' cells of c, formatted as written:
// empty for a covariate not in use.
func (c Covariates) Values() []string {
	if !c.Any() {
		return []string{""}
	}
	return []string{strconv.Itoa(c.PrehistoryMsgs)}
}

// Adaptation is one change of the window by an adaptive process
// synchronization policy, as recorded in the sidecar (window.Adaptation).
type Adaptation struct {
	AtObservation int     `json:"at_observation"`  // index of the first observation of the batch that triggered it (attempts counted)
	InvalidCount  int     `json:"invalid_count"`   // invalid observations of that batch
	ExpiredCount  int     `json:"expired_count"`   // of which expired (what AdaptOnExpired counts)
	BatchSize     int     `json:"batch_size"`      // observations in that batch
	MeanDurationS float64 `json:"mean_duration_s"` // mean over the batch of the max-over-ranks duration
	OldWindowS    float64 `json:"old_window_s"`
	NewWindowS    float64 `json:"new_window_s"`
	RepeatedBatch bool    `json:"repeated_batch"` // NBCBench: the batch was discarded and repeated
	WarmUp        bool    `json:"warm_up"`        // happened during the warm-up
}

// Summary describes how one experiment went (engine.Summary), for the
// sidecar: it counts, it does not summarize runtimes.
type Summary struct {
	Exp        int    `json:"exp"`
	Call       string `json:"call"`
	MsizeBytes int    `json:"msize_bytes"`
	Method     string `json:"proc_sync"`
	// LibraryBarrier is true when the process synchronization called the
	// MPI library's own MPI_Barrier before each observation
	// (window.Method.LibraryBarrier), so that the library's barrier exit
	// skew is part of the timing.
	LibraryBarrier bool         `json:"library_barrier,omitempty"`
	RuntimeType    string       `json:"runtime_type"`
	Cache          string       `json:"cache"`
	Skew           int          `json:"skew,omitempty"`      // vcoll: the v-collectives' heavy-rank count factor (1: uniform counts); absent for other calls
	BWWindow       int          `json:"bw_window,omitempty"` // p2p: messages per window of bw, bibw, mbw_mr
	RMASync        string       `json:"rma_sync,omitempty"`  // p2p: synchronization of one-sided calls
	WarmupCount    int          `json:"warmup_count"`
	Rows           int          `json:"rows"`
	Invalid        int          `json:"invalid"`
	InitialWindow  float64      `json:"initial_window_s,omitempty"`
	FinalWindowS   float64      `json:"final_window_s,omitempty"`
	MaxLateS       float64      `json:"max_late_s"` // over ranks and rows, 0 without deadlines
	Adaptations    []Adaptation `json:"adaptations,omitempty"`
	DurationS      float64      `json:"duration_s"` // wall time of the experiment on rank 0
	// AllocsPerObs is the number of heap allocations (whole process) during
	// the measured observations on rank 0, divided by their number: the
	// observation loop is meant not to allocate, so this should be 0.
	AllocsPerObs float64   `json:"heap_allocs_per_observation"`
	StartedAt    time.Time `json:"started_at"`
	// nbc: the compute kernel's calibration of an experiment of the
	// overlap measurement.
	Overlap *OverlapCalibration `json:"overlap_calibration,omitempty"`
	// NoiseGuard is what the noise guard learned and cost by the end of
	// the experiment (noise_guard = on); nil when it was off.
	NoiseGuard *NoiseGuard `json:"noise_guard,omitempty"`
	// Wait is what the ranks did while they waited for each observation's
	// start (window.Sync.Wait).
	Wait Wait `json:"wait"`
	// Prehistory is the level of the prehistory design factor
	// (Covariates.Prehistory), empty for none.
	Prehistory string `json:"prehistory,omitempty"`
	// Traffic is what the engine sent outside the measured observations
	// of this experiment, by purpose (the window's start broadcasts,
	// part of the method, are not counted).
	Traffic Traffic `json:"traffic,omitempty"`
	// Stop is the stop rule of an experiment whose number of
	// observations was adaptive (engine.Experiment.Stop), nil for a fixed
	// nrep. Added in format 1.1.
	Stop *StopRecord `json:"stop,omitempty"`
	// CPULoad is the CPU time other processes took during the measured
	// observations (package cpuload); nil when it was not read (the
	// simulated world, or a system without /proc). Added in format 1.4.
	CPULoad *CPULoad `json:"cpu_load,omitempty"`
	// Align is read from sidecars written by versions that ran an
	// alignment probe (AlignProbe); no version writes it any more.
	Align *AlignProbe `json:"align_probe,omitempty"`
}

// StopRecord is the sidecar's record of an adaptive number of
// observations (analysis.StopRule): the rule, its parameters, and where it
// ended. The observations were taken in batches ending at the rule's looks
// (Min, then a quarter more each time), and the rule was met when the
// order-statistic interval of the Quantile at IntervalLevel lay within
// ±Width·estimate at Confirm consecutive looks.
type StopRecord struct {
	// Rule names the rule: StopRuleQuantileCI.
	Rule     string  `json:"rule"`
	Quantile float64 `json:"quantile"` // the quantile judged, 0.5 for the median
	Level    float64 `json:"level"`    // nominal confidence level
	// IntervalLevel is the level of the interval judged and recorded:
	// Level corrected for sequential stopping, 1 − (1 − Level)/2.
	IntervalLevel float64 `json:"interval_level"`
	Width         float64 `json:"width"`   // relative half-width asked for (0.01: ±1 %)
	Min           int     `json:"min"`     // observations before the first look
	Max           int     `json:"max"`     // the cap
	Confirm       int     `json:"confirm"` // consecutive looks within the width needed
	Looks         int     `json:"looks"`   // looks taken
	// Observations is the number of observations asked for (the rows,
	// except that round-time rows count attempts); Valid the valid ones
	// the rule judged.
	Observations int `json:"observations"`
	Valid        int `json:"valid"`
	// EstimateS, CILoS and CIHiS are the quantile of the valid completion
	// times and its interval at the last look, seconds; Reached is the
	// interval's relative half-width, max(est − lo, hi − est)/est. Absent
	// when no interval existed (too few valid observations).
	EstimateS *float64 `json:"estimate_s,omitempty"`
	CILoS     *float64 `json:"ci_lo_s,omitempty"`
	CIHiS     *float64 `json:"ci_hi_s,omitempty"`
	Reached   *float64 `json:"reached,omitempty"`
	// Met: the ranks agreed that the rule was met; Capped: the cap
	// stopped the experiment first (Reached is then above Width).
	Met    bool `json:"met"`
	Capped bool `json:"capped"`
}

// StopRuleQuantileCI is StopRecord.Rule of analysis.StopRule.
const StopRuleQuantileCI = "quantile-ci"

// AlignProbe is the sidecar record of the alignment probe of versions
// before the prehistory factor replaced it: after the warm-up they timed
// four blocks of Observations observations of MPI_Barrier then an 8-byte
// MPI_Allreduce, the first and third with the transport's state as it
// stood, the second and fourth after one empty message from rank 0 to
// rank 1, and then levelled Open MPI's shared-memory fast-box rings or
// (Kept "slower", runtime imb) kept the slower state. It stays so
// that old sidecars read; docs/fidelity.md says what it meant.
type AlignProbe struct {
	Observations int     `json:"observations"`
	MedianAsIsS  float64 `json:"median_as_is_s"`
	MedianMovedS float64 `json:"median_moved_s"`
	// Kept is "level", "faster" or "slower"; empty in the oldest
	// files, which kept the faster.
	Kept string `json:"kept,omitempty"`
	// Moved: the moved state was kept for the measured observations.
	Moved bool `json:"moved"`
}

// Traffic is a record of messages the instrument itself sent outside the
// timed observations, one entry per purpose and pattern. Any package that
// sends such messages adds to it (Add); the sidecar holds one for the
// run's set-up (Metadata.Traffic) and one per experiment
// (Summary.Traffic), so that a reader can check the claim that the
// instrument's own traffic between any two ranks is net-symmetric: every
// entry but the ones a user asked for (TrafficPrehistory) should have
// Pattern Symmetric.
type Traffic []TrafficEntry

// TrafficEntry counts one purpose's messages.
type TrafficEntry struct {
	// Purpose names why the messages were sent: TrafficSetup,
	// TrafficResults, TrafficPrehistory, TrafficStop, or another
	// package's name.
	Purpose string `json:"purpose"`
	// Pattern is OneWay or Symmetric.
	Pattern string `json:"pattern"`
	// Messages counts point-to-point messages summed over the senders,
	// or collective calls for a collective (a Symmetric pattern).
	Messages int64 `json:"messages"`
	// Bytes is the payload, summed over the senders (per rank's
	// contribution for a collective).
	Bytes int64 `json:"bytes"`
}

// Purposes and patterns of TrafficEntry.
const (
	TrafficSetup      = "setup"           // configuration shared before the experiments
	TrafficResults    = "results"         // the experiments' results collected for rank 0
	TrafficPrehistory = "prehistory"      // the prehistory design factor's messages (asked for)
	TrafficBaseline   = "window_baseline" // the window baseline's reductions (Metadata.WindowBaseline)
	// TrafficStop: an adaptive experiment's completion times reduced
	// after each batch, and the ranks' agreement to stop (StopRecord).
	TrafficStop = "stop"
	// OneWay: messages in one direction only between some two ranks;
	// such traffic can move hidden per-peer transport state.
	OneWay = "one-way"
	// Symmetric: the same messages both ways between any two ranks
	// (allreduce, allgather, barrier, sendrecv exchanges).
	Symmetric = "symmetric"
)

// Add counts messages and bytes under purpose and pattern, merging with
// an existing entry of the same purpose and pattern.
func (t *Traffic) Add(purpose, pattern string, messages, bytes int64) {
	for i := range *t {
		if e := &(*t)[i]; e.Purpose == purpose && e.Pattern == pattern {
			e.Messages += messages
			e.Bytes += bytes
			return
		}
	}
	*t = append(*t, TrafficEntry{Purpose: purpose, Pattern: pattern, Messages: messages, Bytes: bytes})
}

// OneWay returns the entries of t with pattern OneWay.
func (t Traffic) OneWay() Traffic {
	var out Traffic
	for _, e := range t {
		if e.Pattern == OneWay {
			out = append(out, e)
		}
	}
	return out
}

// Wait records what the ranks did between observations, while they waited
// for the next start: a choice of the method that can change what is
// measured, so the sidecar states it (package window documents why).
type Wait struct {
	// Deadline is how a windowed method waits for a start: "spin", a
	// busy-wait reading the clock in C without MPI calls or yields; empty
	// for the barrier methods, whose wait is the barrier.
	Deadline string `json:"deadline,omitempty"`
	// SleepGuardS: when a start was further ahead, the rank slept
	// (time.Sleep) until this long before it; 0: it never slept.
	SleepGuardS float64 `json:"sleep_guard_s,omitempty"`
	// GoMaxProcs is runtime.GOMAXPROCS while the observations ran: 1 when
	// the batches ran in one cgo call each, so that the Go runtime's
	// monitor thread sleeps through them instead of waking every 20-86 µs.
	GoMaxProcs int `json:"gomaxprocs"`
	// GoMaxProcsHold is the policy that allowed it (window.ProcHold):
	// "auto", the run held GOMAXPROCS at 1 while batches ran in one step
	// and restored it after; "never", it left GOMAXPROCS alone.
	GoMaxProcsHold string `json:"gomaxprocs_hold,omitempty"`
}

// OverlapCalibration records how the compute kernel of the overlap
// measurement was sized for one experiment (nbc, engine): each rank
// measured its pure time per call (post, then wait, after a barrier) and
// the kernel's time per call, and scaled the iteration count by their
// ratio, Rounds times; per-rank values are indexed by rank. With
// TimeTargeted (runtime osu) nothing was calibrated: the kernel is OSU's
// time-targeted loop, aimed at each observation's own pure time, and the
// fields after Given are empty.
type OverlapCalibration struct {
	Kernel       string    `json:"kernel"`             // what one iteration does
	TestEvery    int64     `json:"test_every"`         // MPI_Test every k iterations (time-targeted: OSU's probes), 0: never
	Given        bool      `json:"kernel_iters_given"` // the iteration count was given, not calibrated
	TimeTargeted bool      `json:"time_targeted"`      // OSU's time-targeted kernel (runtime osu)
	Rounds       int       `json:"rounds"`             // calibration rounds
	Observations int       `json:"observations_per_round"`
	ProbeReps    int       `json:"probe_calls_per_observation"` // calls per phase of a probe observation (1)
	KernelIters  []int64   `json:"kernel_iters"`                // per rank, the count used
	TargetPureS  []float64 `json:"target_pure_s"`               // per rank, the median pure time per call aimed at
	KernelS      []float64 `json:"kernel_s"`                    // per rank, the median kernel time per call at that count (last round)
}

// NoiseGuard records the noise guard of one experiment (window.NoiseGuard):
// the periodic noise sources learned so far, per node, and the
// window slots the experiment's observations considered and skipped
// because a predicted detour overlapped them.
type NoiseGuard struct {
	Sources      []NoiseSource `json:"sources"`
	Slots        int64         `json:"slots"`         // window slots considered (observations plus skipped slots)
	SkippedSlots int64         `json:"skipped_slots"` // of which skipped
	SkippedShare float64       `json:"skipped_share"` // SkippedSlots / Slots
	Fits         int           `json:"fits"`          // learner fits so far in the run
}

// NoiseSource is one learned periodic noise source of a node
// (noiseguard.Source): detours [end_s + k·period_s − duration_s,
// end_s + k·period_s] in global time.
type NoiseSource struct {
	Node      int     `json:"node"` // index into the nodes in order of first appearance in processor_names
	PeriodS   float64 `json:"period_s"`
	PhaseS    float64 `json:"phase_s"` // detour start modulo the period, global time
	DurationS float64 `json:"duration_s"`
	EndS      float64 `json:"end_s"`    // end of the latest detour observed, global seconds
	SpreadS   float64 `json:"spread_s"` // rms distance of observed detour ends from the predicted ones
	Events    int     `json:"events"`   // late observations it was fitted to (0: seeded, not seen)
	SpanS     float64 `json:"span_s"`   // time from the first to the last of those events
	// Seeded is true for a source from --noise-guard-seed (also once a fit
	// found it again): the guard keeps it ahead of learned ones.
	Seeded bool `json:"seeded,omitempty"`
}
