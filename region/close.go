package region

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// defaultCall is the call column of region rows when Output.Call is empty.
const defaultCall = rawdata.RegionCall

// recordVersion is the version of the Record in the sidecar; a change of its
// meaning bumps it. Version 2 added misuse, totals, run_s, run_local_s,
// bound_s, compute and incomplete, and writes per_rank only with
// Output.PerRank.
const recordVersion = 2

// Output says where Close writes (rank 0) and what it adds to the rows.
type Output struct {
	// Dir, RunID and Mpirun name the files (rawdata.Options); an empty Dir
	// writes nothing (Close still returns the rows on rank 0).
	Dir    string
	RunID  string
	Mpirun int
	// PerRank asks for the per-rank file: each rank's local and global
	// start and end of every occurrence (and Row.PerRank, Record.PerRank on
	// rank 0). Rank 0 receives the ranks' records one rank at a time, so
	// its memory then grows with the rank count; without it, Close reduces
	// and rank 0's memory does not (package doc).
	PerRank bool
	// Call is the call column of every row; "" means rawdata.RegionCall.
	Call string
	// Labels are run-wide labels added to every row (e.g. app=stencil).
	Labels map[string]string
	// Meta, when not nil, is the start of the sidecar (e.g. what
	// pipeline.CollectMetadata gathers); Close fills in np, the clock
	// synchronizations, the experiments and the recorder's Record.
	Meta *rawdata.Metadata
}

// Record is what the recorder states about itself in the sidecar
// ("regions").
type Record struct {
	Version  int    `json:"version"`
	Clock    string `json:"clock"`
	Capacity int    `json:"capacity_per_rank"`
	Overflow string `json:"overflow"`
	// RuntimeS and GlobalRuntimeS define the columns of the same names.
	RuntimeS       string `json:"runtime_s"`
	GlobalRuntimeS string `json:"global_runtime_s"`
	// Sync says when the clocks were synchronized: "none", "start" or
	// "start+end"; RankLog.Model which model each rank used.
	Sync string `json:"sync"`
	// Ranks is the number of ranks that recorded.
	Ranks int `json:"ranks"`
	// PerRank holds every rank's RankLog with Output.PerRank; without it,
	// rank 0's own only (the sums are in Misuse and Totals).
	PerRank []RankLog `json:"per_rank"`
	// Misuse is the account of misuse, drops and unclosed regions summed
	// over the ranks, which Close prints on rank 0 in one line.
	Misuse rawdata.RegionMisuse `json:"misuse"`
	// Totals holds, per region and grouping labels, the statistics over
	// the ranks of each rank's total time in it (RegionTotals).
	Totals []rawdata.RegionTotals `json:"totals"`
	// RunS is the run's span: the latest global end minus the earliest
	// global start over every record of every rank, seconds; without a
	// global clock (no synchronization, or a rank without bound) it is
	// RunLocalS.
	RunS float64 `json:"run_s"`
	// RunLocalS is the largest over the ranks of each rank's own-clock
	// span from its first Begin to its last End, seconds.
	RunLocalS float64 `json:"run_local_s"`
	// BoundS is the largest stated bound on a rank's global clock error,
	// seconds; absent without synchronization or when some rank stated
	// none (then RunS is RunLocalS).
	BoundS *float64 `json:"bound_s,omitempty"`
	// Compute names the regions the user marked as computation
	// (Recorder.MarkCompute), for the POP efficiencies.
	Compute []string `json:"compute,omitempty"`
	// Incomplete is set on a run read back from the spill files of a run
	// that did not reach Close (Recover).
	Incomplete bool `json:"incomplete,omitempty"`
	// SpillEvery is the spill interval in records (Options.Spill; absent
	// without spilling), SpillMaxS the largest time a rank spent spilling,
	// seconds of its own clock.
	SpillEvery int     `json:"spill_every,omitempty"`
	SpillMaxS  float64 `json:"spill_max_s,omitempty"`
	// CloseS is how long Close took on rank 0 (its clock), seconds,
	// synchronization included.
	CloseS float64 `json:"close_s"`
	// NoBound, when set, says which ranks stated no bound on their global
	// clock although the clocks were synchronized, and that the global
	// columns were therefore left out (NaN): runtime_s, on each rank's own
	// clock, stands (Options.RefuseNoBound).
	NoBound string `json:"no_bound,omitempty"`
}

// RankLog is one rank's part of the Record.
type RankLog struct {
	Rank    int   `json:"rank"`
	Records int   `json:"records"`
	Dropped int64 `json:"dropped"`
	// Unclosed counts regions still open at Close: they are not written.
	Unclosed    int              `json:"unclosed"`
	Misuse      int64            `json:"misuse"`
	MisuseKinds map[string]int64 `json:"misuse_kinds,omitempty"`
	FirstMisuse string           `json:"first_misuse,omitempty"`
	// PairOverheadNs is the measured cost of one Begin/End pair on this
	// rank (median of 7 rounds of 64 pairs at New), nanoseconds;
	// OverheadS is Records times it: the time the recorder took from the
	// application.
	PairOverheadNs float64 `json:"pair_overhead_ns"`
	OverheadS      float64 `json:"overhead_s"`
	// Spills is the number of times the rank wrote to its spill file,
	// SpillS the time that took (its own clock), seconds, outside every
	// region; SpillError the first error writing it.
	Spills     int     `json:"spills,omitempty"`
	SpillS     float64 `json:"spill_s,omitempty"`
	SpillError string  `json:"spill_error,omitempty"`
	// BoundS is the stated bound on this rank's global clock error over
	// the recorded span, seconds (package doc); absent when unknown.
	BoundS *float64 `json:"bound_s,omitempty"`
	// Model is the model that mapped this rank's records to global time:
	// "none", "start", "end" or "start+end" (interpolated), the one with
	// the smallest stated bound (package doc).
	Model string `json:"model"`
}

// Row is one occurrence of a region across the ranks, as written to the
// raw file.
type Row struct {
	Region         string
	Labels         string // the grouping labels, canonical "k=v,…"
	Exp, Rep       int
	Iter           int64
	RuntimeS       float64 // largest duration over the ranks, each on its own clock
	GlobalRuntimeS float64 // latest global end − earliest global start; NaN unsynchronized
	EntrySpreadS   float64 // latest − earliest global start; NaN unsynchronized
	StartS         float64 // earliest global start
	Nranks         int
	ErrorCode      int // 0, or 16 when some rank did not record it
	// PerRank holds each rank's span, indexed by rank (Rank −1: not
	// recorded), with Output.PerRank only; nil otherwise.
	PerRank []RankSpan
}

// RankSpan is one rank's part of a Row, seconds.
type RankSpan struct {
	Rank                     int
	LocalStartS, LocalEndS   float64
	GlobalStartS, GlobalEndS float64
}

// Result is what Close returns. Rows and Record are complete on rank 0;
// the other ranks get their own RankLog only.
type Result struct {
	Rows   []Row
	Record Record
	Files  rawdata.Names // the files written (rank 0, Output.Dir set)
	// CPULoad is the CPU time other processes took between New and Close
	// (package cpuload; rank 0, nil where /proc could not be read),
	// written to the sidecar as its cpu_load.
	CPULoad *rawdata.CPULoad
	// Provenance is where and how the recording ran (every rank), written
	// to the sidecar as its provenance, and the source of its MPI library,
	// start time and processor names when Output.Meta leaves them empty.
	Provenance *provenance.Record
}

// bindingSamples says when the recorder samples each rank's CPU
// (provenance.Record.BindingSamples).
const bindingSamples = "at New and at Close"

// runtimeSDef and globalRuntimeSDef are the definitions Record states.
const (
	runtimeSDef       = "largest duration over the ranks that recorded the occurrence, each from its Begin to its End on the rank's own clock (local completion time, Hunold & Carpen-Amarie 2016, §3.2.1)"
	globalRuntimeSDef = "latest global end minus earliest global start over those ranks (global completion time, Hunold & Carpen-Amarie 2016, §3.2.2); NaN without clock synchronization"
)

// conversion returns the model from this rank's clock (seconds) to global
// time, the stated bound over the recording [s.localS, lastS], and which
// model it is: "none" (no synchronization), or of "start" (the start's
// model, bound Bound.At(lastS − start)), "end" (the end's model, bound
// Bound.At(end − start): back to the first record) and "start+end" (the
// offsets interpolated, bound the larger of the two at their syncs), the
// one whose stated bound is the smallest. So a synchronization that went
// wrong (a loaded machine, a bound far over its target) is not averaged
// into the other.
func (r *Recorder) conversion(end *syncPoint, lastS float64) (clocksync.Model, float64, string) {
	s := r.startSync
	if s == nil {
		return clocksync.Model{}, math.NaN(), "none"
	}
	m, b, how := s.res.Model, s.bound.At(lastS-s.localS), "start"
	if end == nil || end.localS <= s.localS {
		return m, b, how
	}
	if be := end.bound.At(end.localS - s.localS); be < b || math.IsNaN(b) {
		m, b, how = end.res.Model, be, "end"
	}
	o0, o1 := s.res.Model.Offset(s.localS), end.res.Model.Offset(end.localS)
	slope := (o1 - o0) / (end.localS - s.localS)
	if bi := math.Max(s.bound.At(0), end.bound.At(0)); bi <= b {
		m, b, how = clocksync.Model{Slope: slope, Intercept: o0 - slope*s.localS}, bi, "start+end"
	}
	return m, b, how
}

// write writes the rows as one mpirun of raw data (rank 0).
func (r *Recorder) write(out Output, res *Result, syncs []*syncPoint) error {
	call := out.Call
	if call == "" {
		call = defaultCall
	}
	np := r.c.Size()
	spec := factor.LevelNone
	if r.opt.Sync != nil {
		spec = r.opt.Sync.Name
	}
	var exps []rawdata.Experiment
	sums := map[int]*rawdata.Summary{}
	for _, row := range res.Rows {
		if _, ok := sums[row.Exp]; ok {
			continue
		}
		labels := parseLabels(row.Labels)
		labels[regionLabel] = row.Region
		exps = append(exps, rawdata.Experiment{Exp: row.Exp, Region: true, Labels: labels,
			Factors: factor.Values{}.WithText(factor.ProcSync, factor.LevelNone).WithText(factor.RuntimeType, factor.LevelLocal).WithText(factor.ClockSync, spec)})
		sums[row.Exp] = &rawdata.Summary{Exp: row.Exp, Call: call, Method: factor.LevelNone, RuntimeType: factor.LevelLocal}
	}
	w, err := rawdata.Create(rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, PerRank: out.PerRank,
		Labels: out.Labels, Experiments: exps})
	if err != nil {
		return fmt.Errorf("region: %w", err)
	}
	meta := out.Meta
	if meta == nil {
		meta = &rawdata.Metadata{Args: os.Args, StartUTC: r.startUTC}
	}
	meta.RunID, meta.Mpirun, meta.Np = out.RunID, out.Mpirun, np
	if meta.StartUTC.IsZero() {
		meta.StartUTC = r.startUTC
	}
	fillProvenance(meta, res.Provenance)
	meta.ClockSyncSpec = spec
	meta.Labels = out.Labels
	for i, s := range syncs {
		if s != nil {
			reason := "start of the recording"
			if i == 1 {
				reason = "end of the recording (Close)"
			}
			meta.ClockSyncs = append(meta.ClockSyncs, rawdata.ClockSync{BeforeExp: 0, Result: rawdata.MarshalRecord(s.res), Reason: reason})
		}
	}
	fail := func(err error) error {
		return errors.Join(fmt.Errorf("region: %w", err), w.Abort(meta, err))
	}
	for _, row := range res.Rows {
		rr := rawdata.Row{Exp: row.Exp, Call: call, Datatype: mpi.Byte.ShortName(), Np: np, Rep: row.Rep, RuntimeS: row.RuntimeS,
			ErrorCode: row.ErrorCode, Region: rawdata.RegionValues{Iter: row.Iter, StartS: row.StartS,
				GlobalRuntimeS: row.GlobalRuntimeS, EntrySpreadS: row.EntrySpreadS, Nranks: row.Nranks}}
		if err := w.Row(&rr); err != nil {
			return fail(err)
		}
		s := sums[row.Exp]
		s.Rows++
		if row.ErrorCode != 0 {
			s.Invalid++
		}
		for _, sp := range row.PerRank {
			if sp.Rank < 0 {
				continue
			}
			if err := w.RankRow(&rawdata.RankRow{Exp: row.Exp, Call: call, Np: np, Rep: row.Rep, Rank: sp.Rank,
				LocalStartS: sp.LocalStartS, LocalEndS: sp.LocalEndS, GlobalStartS: sp.GlobalStartS, GlobalEndS: sp.GlobalEndS,
				ErrorCode: row.ErrorCode}); err != nil {
				return fail(err)
			}
		}
	}
	for _, e := range exps {
		meta.Experiments = append(meta.Experiments, *sums[e.Exp])
	}
	meta.EndUTC = time.Now().UTC()
	meta.DurationS = meta.EndUTC.Sub(meta.StartUTC).Seconds()
	meta.Regions = rawdata.MarshalRecord(res.Record)
	meta.CPULoad = res.CPULoad
	if err := w.Close(meta); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	res.Files = w.Names()
	return nil
}

// String summarizes a row for humans: region, iteration and times in µs.
func (row Row) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", row.Region)
	if row.Labels != "" {
		fmt.Fprintf(&b, "{%s}", row.Labels)
	}
	fmt.Fprintf(&b, " rep=%d iter=%d runtime=%.3fµs global=%.3fµs spread=%.3fµs ranks=%d",
		row.Rep, row.Iter, row.RuntimeS*1e6, row.GlobalRuntimeS*1e6, row.EntrySpreadS*1e6, row.Nranks)
	return b.String()
}

// dropGlobal sets every global value of rows to NaN, as for a recording
// whose clocks were not synchronized.
func dropGlobal(rows []Row) {
	for i := range rows {
		r := &rows[i]
		r.GlobalRuntimeS, r.EntrySpreadS, r.StartS = math.NaN(), math.NaN(), math.NaN()
		for k := range r.PerRank {
			r.PerRank[k].GlobalStartS, r.PerRank[k].GlobalEndS = math.NaN(), math.NaN()
		}
	}
}
