package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// simOptions are the flags of "reprobench run --sim": the simulated
// machine (reprobench.SimModel) from a file, flags overriding its fields.
type simOptions struct {
	on                                       bool
	model                                    string
	ranks, ranksPerNode, mpiruns             int
	seed                                     uint64
	latencyUs, jitterUs, spikeProb, driftPPM float64
	offsetS                                  float64
}

func simFlags(fs *flag.FlagSet, o *simOptions) {
	fs.BoolVar(&o.on, "sim", false, "rehearse the run on a simulated world (package mpitest: virtual time) instead of under mpirun; the raw data are marked simulated; see docs/simulation.md")
	fs.StringVar(&o.model, "sim-model", "", "--sim: JSON `file` of the simulated machine (reprobench.SimModel); the other --sim-* flags override its fields")
	fs.IntVar(&o.ranks, "sim-ranks", 0, "--sim: number of ranks (0: the model file's, else 64)")
	fs.IntVar(&o.ranksPerNode, "sim-ranks-per-node", 0, "--sim: ranks per node (0: the model file's, else one node)")
	fs.IntVar(&o.mpiruns, "sim-mpiruns", 1, "--sim: mpiruns of the campaign, for its expected duration")
	fs.Uint64Var(&o.seed, "sim-seed", 0, "--sim: seed of the simulated world's draws (0: the model file's, else the run's --seed, so each mpirun of a campaign gets its own world)")
	fs.Float64Var(&o.latencyUs, "sim-latency-us", 0, "--sim: one-way base latency, µs (0: the model's; negative: none)")
	fs.Float64Var(&o.jitterUs, "sim-jitter-us", 0, "--sim: mean exponential latency jitter, µs (0: the model's; negative: none)")
	fs.Float64Var(&o.spikeProb, "sim-spike-prob", 0, "--sim: probability of a latency spike per message (0: the model's; negative: none)")
	fs.Float64Var(&o.driftPPM, "sim-drift-ppm", 0, "--sim: clock drifts uniform in ±X ppm (0: the model's; negative: none)")
	fs.Float64Var(&o.offsetS, "sim-offset-s", 0, "--sim: clock offsets uniform in ±X seconds (0: the model's; negative: none)")
}

// simModel returns the simulated machine of the flags; a zero Seed is
// filled in by runSim from the run's seed.
func (o *simOptions) simModel() (reprobench.SimModel, error) {
	var m reprobench.SimModel
	if o.model != "" {
		var err error
		if m, err = reprobench.ReadSimModel(o.model); err != nil {
			return m, err
		}
	}
	set := func(dst *float64, v, scale float64) {
		if v != 0 {
			*dst = v * scale
		}
	}
	set(&m.LatencyS, o.latencyUs, 1e-6)
	set(&m.JitterS, o.jitterUs, 1e-6)
	set(&m.SpikeProb, o.spikeProb, 1)
	set(&m.DriftPPM, o.driftPPM, 1)
	set(&m.OffsetS, o.offsetS, 1)
	if o.ranks != 0 {
		m.Ranks = o.ranks
	}
	if m.Ranks == 0 {
		m.Ranks = 64
	}
	if o.ranksPerNode != 0 {
		m.RanksPerNode = o.ranksPerNode
	}
	if o.seed != 0 {
		m.Seed = o.seed
	}
	if o.mpiruns < 1 {
		return m, fmt.Errorf("--sim-mpiruns %d: need at least 1", o.mpiruns)
	}
	// The simulated control variables, as a launcher sets a library's:
	// the environment of this (simulated) mpirun overrides the model file.
	for k, v := range mpitest.CvarsFromEnv(os.Environ()) {
		if m.Cvars == nil {
			m.Cvars = map[string]string{}
		}
		m.Cvars[k] = v
	}
	return m, m.Check()
}

// runSim is "reprobench run --sim": the run's experiments on a simulated
// world (reprobench.Simulate), and what the rehearsal says about the real
// campaign.
func runSim(stdout, stderr io.Writer, o *runOptions) error {
	m, err := o.sim.simModel()
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if !o.seedSet {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return err
		}
		o.seed = binary.LittleEndian.Uint64(b[:])
	}
	if m.Seed == 0 {
		// Neither --sim-seed nor the model file: the world is drawn from
		// the run's seed, recorded with the model in the sidecar.
		m.Seed = o.seed
	}
	if o.runID == "" {
		var b [4]byte
		_, _ = crand.Read(b[:])
		o.runID = time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:]) + "-sim"
	}
	exps, err := buildExperiments(o, m.Ranks)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "reprobench run --sim: %d experiments on %d simulated ranks (seed %d, world seed %d)\n", len(exps), m.Ranks, o.seed, m.Seed)
	opt := reprobench.DefaultOptions()
	opt.Dir, opt.RunID, opt.Mpirun, opt.PerRank, opt.Labels = o.out, o.runID, o.mpirun, o.perRank, o.labels
	seed := o.seed
	opt.Seed, opt.Design, opt.ResyncEvery = &seed, o.designFile, o.resyncEvery
	if err := setClockOptions(&opt, o.clockSync, o.clockAccuracy); err != nil {
		return err
	}
	opt.NoBound = o.noBound
	opt.WindowBaseline = o.windowBaseline
	if o.windowBaseline == 0 {
		opt.WindowBaseline = -1 // none
	}
	res, rep, err := reprobench.Simulate(m, exps, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d experiments, %d rows (simulated)\n", res.Files.CSV, len(res.Summaries), res.Rows)
	return writeSimReport(stdout, rep, o.sim.mpiruns)
}

// writeSimReport prints a rehearsal's report for a person.
func writeSimReport(w io.Writer, r *reprobench.SimReport, mpiruns int) error {
	var sync float64
	for _, s := range r.SyncS {
		sync += s
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("simulated ranks            %d (%d per node; world seed %d)\n", r.Model.Ranks, r.Model.RanksPerNode, r.Model.Seed)
	p("clock syncs                %d, %s virtual in all\n", len(r.SyncS), secs(sync))
	if len(r.FinalWindowS) > 0 {
		lo, hi := r.FinalWindowS[0], r.FinalWindowS[0]
		for _, v := range r.FinalWindowS {
			lo, hi = min(lo, v), max(hi, v)
		}
		p("windows                    %d experiments, final window %s to %s\n", len(r.FinalWindowS), secs(lo), secs(hi))
	}
	p("invalid observations       %d of %d (%.1f%%)\n", r.Invalid, r.Rows, 100*r.InvalidShare)
	p("rank 0, engine per exp.    %d bytes (independent of the rank count)\n", r.Rank0EngineBytes)
	p("rank 0, sidecar            %d bytes (grows with the rank count)\n", r.SidecarBytes)
	p("mpirun, virtual duration   %s (without launch and MPI_Init)\n", secs(r.VirtualS))
	p("campaign, %d mpirun(s)      %s expected\n", mpiruns, secs(float64(mpiruns)*r.VirtualS))
	p("simulator                  %s wall, peak RSS %d MB\n", secs(r.WallS), r.SimPeakRSSBytes>>20)
	return nil
}

// secs formats seconds for a person, with a unit.
func secs(s float64) string {
	return time.Duration(s * 1e9).Round(time.Microsecond).String()
}
