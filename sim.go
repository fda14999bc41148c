package reprobench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// SimModel is the simulated machine of Simulate: how many ranks, and the
// latency and clock model of package mpitest, in base units. Zero fields
// take mpitest's defaults; a negative latency, jitter, spike probability,
// offset or drift turns that component off (mpitest.Off). It is the
// format of the model file of "reprobench run --sim" (JSON, the tags
// below), so a user can write down what clockcheck and a ping-pong
// measured on their machine.
type SimModel struct {
	Ranks          int     `json:"ranks"`
	RanksPerNode   int     `json:"ranks_per_node,omitempty"` // 0: one node
	Seed           uint64  `json:"seed"`                     // every draw of the world (clocks, latencies)
	LatencyS       float64 `json:"latency_s,omitempty"`      // one-way base latency
	JitterS        float64 `json:"jitter_s,omitempty"`       // mean of the exponential jitter
	SpikeProb      float64 `json:"spike_prob,omitempty"`     // probability of a spike per message
	SpikeS         float64 `json:"spike_s,omitempty"`        // extra latency of a spike
	BytesPerSecond float64 `json:"bytes_per_second,omitempty"`
	OffsetS        float64 `json:"clock_offset_s,omitempty"`  // clock offsets uniform in ±OffsetS
	DriftPPM       float64 `json:"clock_drift_ppm,omitempty"` // clock drifts uniform in ±DriftPPM
	NodeClocks     bool    `json:"node_clocks,omitempty"`     // the ranks of a node share one clock
	// Cvars are the simulated control variables (mpitest.Config.Cvars:
	// the collectives' simulated algorithms), as the environment of the
	// simulated mpirun sets them (mpitest.CvarsFromEnv).
	Cvars map[string]string `json:"cvars,omitempty"`
}

// ReadSimModel reads a SimModel from a JSON file; unknown fields are
// refused, so that a misspelt field does not silently take a default.
func ReadSimModel(path string) (SimModel, error) {
	var m SimModel
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("reprobench: simulation model %s: %w", path, err)
	}
	return m, nil
}

// Check refuses a model mpitest cannot run: fewer than one rank, a
// negative ranks per node, a spike probability above 1.
func (m SimModel) Check() error {
	switch {
	case m.Ranks < 1:
		return fmt.Errorf("reprobench: simulation: %d ranks, need at least 1", m.Ranks)
	case m.RanksPerNode < 0:
		return fmt.Errorf("reprobench: simulation: negative ranks per node %d", m.RanksPerNode)
	case m.SpikeProb > 1:
		return fmt.Errorf("reprobench: simulation: spike probability %v > 1", m.SpikeProb)
	}
	return nil
}

// Config returns the mpitest configuration of m.
func (m SimModel) Config() mpitest.Config {
	off := func(v float64) float64 {
		if v < 0 {
			return mpitest.Off
		}
		return v
	}
	dur := func(s float64) time.Duration {
		if s < 0 {
			return mpitest.Off
		}
		return time.Duration(s * 1e9)
	}
	return mpitest.Config{Ranks: m.Ranks, Seed: m.Seed, RanksPerNode: m.RanksPerNode, NodeClocks: m.NodeClocks,
		Clock: mpitest.ClockDist{Offset: dur(m.OffsetS), DriftPPM: off(m.DriftPPM)},
		Latency: mpitest.Latency{Base: dur(m.LatencyS), Jitter: dur(m.JitterS), SpikeProb: off(m.SpikeProb),
			Spike: dur(m.SpikeS), BytesPerSecond: off(m.BytesPerSecond)}, Cvars: m.Cvars}
}

// SimReport is what a simulated mpirun says about the real one it
// rehearses. Times are virtual (the simulated machine's), except WallS.
type SimReport struct {
	Model SimModel `json:"model"`
	// VirtualS is the simulated mpirun's duration: the latest rank's
	// virtual time at its end, seconds. It leaves out what the simulator
	// does not model: the launcher's start-up, MPI_Init, the metadata's
	// collection on a real host.
	VirtualS float64 `json:"virtual_s"`
	// SyncS is the virtual duration of each clock synchronization on
	// rank 0, seconds, in order.
	SyncS []float64 `json:"sync_s,omitempty"`
	// Rows and Invalid count the raw rows and those with a non-zero
	// error code; InvalidShare is Invalid/Rows.
	Rows         int     `json:"rows"`
	Invalid      int     `json:"invalid"`
	InvalidShare float64 `json:"invalid_share"`
	// InitialWindowS and FinalWindowS are the windowed experiments'
	// window sizes, seconds, in experiment order (empty without any).
	InitialWindowS []float64 `json:"initial_window_s,omitempty"`
	FinalWindowS   []float64 `json:"final_window_s,omitempty"`
	// Rank0EngineBytes is the largest over the experiments of what the
	// engine allocates on rank 0 for one experiment's observations and
	// results; it does not grow with the rank count.
	// SidecarBytes is the size of the sidecar written, which does:
	// processor names and clock synchronization records are O(ranks).
	Rank0EngineBytes int64 `json:"rank0_engine_bytes"`
	SidecarBytes     int64 `json:"sidecar_bytes"`
	// SimPeakRSSBytes is the simulating process's peak resident memory
	// (all ranks in one process; Linux's VmHWM, 0 elsewhere), bytes; WallS
	// the simulation's wall time, seconds.
	SimPeakRSSBytes int64   `json:"sim_peak_rss_bytes"`
	WallS           float64 `json:"wall_s"`
}

// Simulate runs exps as one mpirun of Run on a simulated world of m's
// ranks (package mpitest: virtual time, the model's latencies and clocks)
// and writes the raw data and sidecar as Run does, marked as simulated
// (rawdata.Metadata.Simulation holds m). opt.Clock is not read (each rank
// times with its simulated clock), and opt.Getenv (nil: os.Getenv) only
// for what a launcher sets per mpirun: the per-mpirun factors' variables
// (factor.Factor.Env) and provenance.ExpectEnv; the simulated control
// variables are m.Cvars. It returns Run's Result and the SimReport.
func Simulate(m SimModel, exps []Experiment, opt Options) (*Result, *SimReport, error) {
	if err := m.Check(); err != nil {
		return nil, nil, err
	}
	w, err := mpitest.New(m.Config())
	if err != nil {
		return nil, nil, err
	}
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	opt.Getenv = func(k string) string { // only what a launcher sets per mpirun
		if k == provenance.ExpectEnv || slices.ContainsFunc(factor.Table(), func(f *factor.Factor) bool { return f.Env == k && f.Env != "" }) {
			return getenv(k)
		}
		return ""
	}
	opt.Simulation = rawdata.MarshalRecord(m)
	began := time.Now()
	var res *Result
	var mu sync.Mutex
	var virtual float64
	err = w.Run(func(r *mpitest.Rank) error {
		ro := opt
		ro.Clock = r.Clock()
		got, err := Run(r.Comm(), exps, ro)
		mu.Lock()
		virtual = max(virtual, r.TrueNow())
		mu.Unlock()
		if r.ID() == 0 {
			res = got
		}
		var re *launch.RankError
		if errors.As(err, &re) {
			return re.Err // in one process, a failed rank ends the world with its error
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	rep := &SimReport{Model: m, VirtualS: virtual, WallS: time.Since(began).Seconds(), SimPeakRSSBytes: peakRSS()}
	for _, s := range res.Metadata.ClockSyncs {
		var r struct {
			Duration float64 `json:"sync_duration_s"`
		}
		if json.Unmarshal(s.Result, &r) == nil {
			rep.SyncS = append(rep.SyncS, r.Duration)
		}
	}
	for i, s := range res.Summaries {
		rep.Rows += s.Rows
		rep.Invalid += s.Invalid
		if s.InitialWindow > 0 || s.FinalWindowS > 0 {
			rep.InitialWindowS = append(rep.InitialWindowS, s.InitialWindow)
			rep.FinalWindowS = append(rep.FinalWindowS, s.FinalWindowS)
		}
		ex := exps[i]
		rep.Rank0EngineBytes = max(rep.Rank0EngineBytes, rank0Bytes(&ex, m.Ranks, opt.PerRank))
	}
	if rep.Rows > 0 {
		rep.InvalidShare = float64(rep.Invalid) / float64(rep.Rows)
	}
	if fi, err := os.Stat(res.Files.JSON); err == nil {
		rep.SidecarBytes = fi.Size()
	}
	return res, rep, nil
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM
// of /proc/self/status), or 0 where there is none.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
