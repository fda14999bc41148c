package region

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// DefaultCall is the call column of region rows when Output.Call is empty.
const DefaultCall = "region"

// Version is the version of the Record in the sidecar; a change of its
// meaning bumps it.
const Version = 1

// Output says where Close writes (rank 0) and what it adds to the rows.
type Output struct {
	// Dir, RunID and Mpirun name the files (rawdata.Options); an empty Dir
	// writes nothing (Close still returns the rows on rank 0).
	Dir    string
	RunID  string
	Mpirun int
	// Call is the call column of every row; "" means DefaultCall.
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
	Sync    string    `json:"sync"`
	PerRank []RankLog `json:"per_rank"`
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
	Unclosed    int    `json:"unclosed"`
	Misuse      int64  `json:"misuse"`
	FirstMisuse string `json:"first_misuse,omitempty"`
	// PairOverheadNs is the measured cost of one Begin/End pair on this
	// rank (median of 7 rounds of 64 pairs at New), nanoseconds;
	// OverheadS is Records times it: the time the recorder took from the
	// application.
	PairOverheadNs float64 `json:"pair_overhead_ns"`
	OverheadS      float64 `json:"overhead_s"`
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
	// PerRank holds each rank's span, indexed by rank (Rank −1: not recorded).
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

// BindingSamples says when the recorder samples each rank's CPU
// (provenance.Record.BindingSamples).
const BindingSamples = "at New and at Close"

// per-record values exchanged at Close.
const recFields = 8

// Close ends the recording (collective): it synchronizes the clocks again
// when they were synchronized at New (unless Options.NoEndSync), maps the
// records to global time, gathers them at rank 0 in chunks of at most
// 1 MiB per rank, and rank 0 builds the rows and, with out.Dir set, writes
// them (package doc). Regions still open are not written. The error of
// writing is rank 0's; the other ranks return the errors of communication
// only. A nil or disabled recorder returns an empty Result.
func (r *Recorder) Close(out Output) (*Result, error) {
	if r == nil || r.off {
		return &Result{}, nil
	}
	t0 := r.clk.Now()
	lastS := r.clk.Freq().Seconds(t0)
	load := make([]int64, cpuload.RankFields) // zeros: no reading
	if r.loadErr == nil {
		if s1, err := cpuload.Read(); err == nil {
			if d, err := cpuload.Delta(r.load0, s1); err == nil {
				load = d.Vector()
			}
		}
	}
	var endSync *syncPoint
	if r.startSync != nil && !r.opt.NoEndSync {
		var err error
		if endSync, err = syncNow(r.c, r.clk, r.opt.Sync); err != nil {
			return nil, fmt.Errorf("region: clock synchronization at Close: %w", err)
		}
	}
	model, bound, how := r.conversion(endSync, lastS)
	synced := "none"
	switch {
	case endSync != nil:
		synced = "start+end"
	case r.startSync != nil:
		synced = "start"
	}

	// This rank's records, closed ones only, as float64 fields.
	vals := make([]float64, 0, r.n*recFields)
	unclosed := 0
	for _, p := range r.recs[:r.n] {
		if !p.closed {
			unclosed++
			continue
		}
		ls, le := r.clk.Freq().Seconds(p.start), r.clk.Freq().Seconds(p.end)
		gs, ge := math.NaN(), math.NaN()
		if r.startSync != nil {
			gs, ge = model.Global(ls), model.Global(le)
		}
		vals = append(vals, float64(p.name), float64(p.labels), float64(p.iter), float64(p.depth), ls, le, gs, ge)
	}
	log := RankLog{Rank: r.c.Rank(), Records: len(vals) / recFields, Dropped: r.dropped, Unclosed: unclosed,
		Misuse: r.misuse, FirstMisuse: r.firstMisuse, PairOverheadNs: r.pairNs, Model: how}
	log.OverheadS = float64(log.Records) * r.pairNs * 1e-9
	if !math.IsNaN(bound) {
		b := bound
		log.BoundS = &b
	}
	tables, err := json.Marshal(rankTables{Names: r.names, Labels: r.labelSets, Log: log, Load: load})
	if err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	allTables, err := gatherBytes(r.c, tables)
	if err != nil {
		return nil, fmt.Errorf("region: gathering the name tables: %w", err)
	}
	allRecs, err := gatherBytes(r.c, mpi.Bytes(vals))
	if err != nil {
		return nil, fmt.Errorf("region: gathering the records: %w", err)
	}
	prov, err := r.prov.Finish(r.c, BindingSamples)
	if err != nil {
		return nil, fmt.Errorf("region: provenance: %w", err)
	}
	res := &Result{Provenance: prov, Record: Record{Version: Version, Clock: r.clk.Name(), Capacity: len(r.recs), Overflow: DropNewest.String(),
		RuntimeS: RuntimeSDef, GlobalRuntimeS: GlobalRuntimeSDef, Sync: synced}}
	if r.c.Rank() != 0 {
		res.Record.PerRank = []RankLog{log}
		return res, nil
	}
	tabs := make([]rankTables, len(allTables))
	for i, b := range allTables {
		if err := json.Unmarshal(b, &tabs[i]); err != nil {
			return nil, fmt.Errorf("region: rank %d's tables: %w", i, err)
		}
		res.Record.PerRank = append(res.Record.PerRank, tabs[i].Log)
	}
	res.Rows = buildRows(tabs, allRecs)
	if synced != "none" {
		var unbounded []int
		for _, l := range res.Record.PerRank {
			if l.BoundS == nil {
				unbounded = append(unbounded, l.Rank)
			}
		}
		if len(unbounded) > 0 {
			if r.opt.RefuseNoBound {
				return nil, fmt.Errorf("region: ranks %v state no bound on their global clock (their clock synchronizations stated none), and Options.RefuseNoBound is set", unbounded)
			}
			res.Record.NoBound = fmt.Sprintf("ranks %v state no bound on their global clock (their clock synchronizations stated none): global_runtime_s, entry_spread_s and the global times are left out (NaN); runtime_s, each rank on its own clock, stands", unbounded)
			dropGlobal(res.Rows)
		}
	}
	ranks := make([]cpuload.Rank, len(tabs))
	for i, t := range tabs {
		if len(t.Load) >= cpuload.RankFields {
			ranks[i] = cpuload.RankOf(t.Load)
		}
	}
	res.CPULoad = cpuload.Combine(ranks)
	res.Record.CloseS = r.clk.Freq().Seconds(r.clk.Now() - t0)
	if out.Dir == "" {
		return res, nil
	}
	syncs := []*syncPoint{r.startSync, endSync}
	if err := r.write(out, res, syncs); err != nil {
		return res, err
	}
	return res, nil
}

// RuntimeSDef and GlobalRuntimeSDef are the definitions Record states.
const (
	RuntimeSDef       = "largest duration over the ranks that recorded the occurrence, each from its Begin to its End on the rank's own clock (local completion time, Hunold & Carpen-Amarie 2016, §3.2.1)"
	GlobalRuntimeSDef = "latest global end minus earliest global start over those ranks (global completion time, Hunold & Carpen-Amarie 2016, §3.2.2); NaN without clock synchronization"
)

type rankTables struct {
	Names  []string `json:"names"`
	Labels []string `json:"labels"`
	Log    RankLog  `json:"log"`
	Load   []int64  `json:"load"` // cpuload.Rank.Vector of the recording
}

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

// gatherBytes gathers every rank's b at rank 0 (collective), in rounds of
// at most chunk bytes per rank: an Allreduce of the largest length, then
// one Gather of a length vector and one Gather per round.
func gatherBytes(c mpi.Comm, b []byte) ([][]byte, error) {
	const chunk = 1 << 20
	p := c.Size()
	n := []int64{int64(len(b))}
	mx := []int64{0}
	if err := mpi.Allreduce(c, n, mx, mpi.Max); err != nil {
		return nil, err
	}
	var lens []int64
	if c.Rank() == 0 {
		lens = make([]int64, p)
	}
	if err := mpi.Gather(c, n, lens, 0); err != nil {
		return nil, err
	}
	var out [][]byte
	if c.Rank() == 0 {
		out = make([][]byte, p)
		for i := range out {
			out[i] = make([]byte, 0, lens[i])
		}
	}
	size := int(min(mx[0], chunk))
	if size == 0 {
		return out, nil
	}
	send := make([]byte, size)
	var recv []byte
	if c.Rank() == 0 {
		recv = make([]byte, size*p)
	}
	for off := int64(0); off < mx[0]; off += int64(size) {
		clear(send)
		if off < int64(len(b)) {
			copy(send, b[off:])
		}
		if err := c.Gather(send, recv, size, mpi.Byte, 0); err != nil {
			return nil, err
		}
		if c.Rank() != 0 {
			continue
		}
		for i := range p {
			if k := min(lens[i]-off, int64(size)); k > 0 {
				out[i] = append(out[i], recv[i*size:i*size+int(k)]...)
			}
		}
	}
	return out, nil
}

type occKey struct {
	name, labels string
}

// buildRows matches the k-th occurrence of each (region, labels) across
// the ranks (rank 0).
func buildRows(tabs []rankTables, recs [][]byte) []Row {
	p := len(tabs)
	exps := map[occKey]int{}
	var rows [][]Row // per experiment, per rep
	for rank := range p {
		b := recs[rank]
		vals := make([]float64, len(b)/8)
		copy(mpi.Bytes(vals), b)
		count := map[int]int{}
		for i := 0; i+recFields <= len(vals); i += recFields {
			v := vals[i : i+recFields]
			k := occKey{tabs[rank].Names[int(v[0])], tabs[rank].Labels[int(v[1])]}
			e, ok := exps[k]
			if !ok {
				e = len(rows)
				exps[k] = e
				rows = append(rows, nil)
			}
			rep := count[e]
			count[e]++
			for len(rows[e]) <= rep {
				row := Row{Region: k.name, Labels: k.labels, Exp: e, Rep: len(rows[e]), Iter: -1,
					GlobalRuntimeS: math.NaN(), EntrySpreadS: math.NaN(), StartS: math.NaN(), PerRank: make([]RankSpan, p)}
				for j := range row.PerRank {
					row.PerRank[j].Rank = -1
				}
				rows[e] = append(rows[e], row)
			}
			if rows[e][rep].Iter < 0 { // the lowest rank's iteration
				rows[e][rep].Iter = int64(v[2])
			}
			rows[e][rep].PerRank[rank] = RankSpan{Rank: rank, LocalStartS: v[4], LocalEndS: v[5], GlobalStartS: v[6], GlobalEndS: v[7]}
		}
	}
	var out []Row
	for _, es := range rows {
		for _, row := range es {
			minS, maxS, maxE := math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, s := range row.PerRank {
				if s.Rank < 0 {
					continue
				}
				row.Nranks++
				row.RuntimeS = math.Max(row.RuntimeS, s.LocalEndS-s.LocalStartS)
				minS, maxS, maxE = math.Min(minS, s.GlobalStartS), math.Max(maxS, s.GlobalStartS), math.Max(maxE, s.GlobalEndS)
			}
			if !math.IsNaN(minS) && !math.IsInf(minS, 0) {
				row.StartS, row.EntrySpreadS, row.GlobalRuntimeS = minS, maxS-minS, maxE-minS
			}
			if row.Nranks < p {
				row.ErrorCode = 16
			}
			out = append(out, row)
		}
	}
	return out
}

// write writes the rows as one mpirun of raw data (rank 0).
func (r *Recorder) write(out Output, res *Result, syncs []*syncPoint) error {
	call := out.Call
	if call == "" {
		call = DefaultCall
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
		labels[RegionLabel] = row.Region
		exps = append(exps, rawdata.Experiment{Exp: row.Exp, Region: true, Labels: labels,
			Factors: rawdata.Factors{ProcSync: factor.LevelNone, RuntimeType: factor.LevelLocal, ClockSync: spec}})
		sums[row.Exp] = &rawdata.Summary{Exp: row.Exp, Call: call, Method: factor.LevelNone, RuntimeType: factor.LevelLocal}
	}
	w, err := rawdata.Create(rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, PerRank: true,
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
