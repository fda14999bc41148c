package report

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// spec describes a synthetic campaign written by writeCampaign with the
// real raw-data writer: 3 calls × 3 sizes on 2 processes, one mpi_lib
// label, log-normal noise per observation and per mpirun (Hunold et al. 2014: the
// mpirun is a factor), a share of outliers ×10 and of invalid rows.
type spec struct {
	runID, lib    string
	mpiruns, reps int
	factor        float64 // run-time multiplier of the library
	invalid       float64 // share of rows with errorcode 1
	outliers      float64 // share of rows ×10
	seed          uint64
	// noEnv leaves the environment out of the sidecars; unavailable is
	// the environment's list of what it could not read.
	noEnv       bool
	unavailable []string
	// manifest is the number of mpiruns the campaign manifest declares
	// (0: no manifest); only the first mpiruns of them are written.
	manifest int
	// noSidecar deletes the sidecars after writing.
	noSidecar bool
	// perRank writes the per-rank files too (returned after the raw ones).
	perRank bool
	// baseline, when not nil, is every mpirun's window baseline.
	baseline *rawdata.WindowBaseline
}

var (
	fixtureCalls = []string{"MPI_Allreduce", "MPI_Alltoall", "MPI_Bcast"}
	fixtureSizes = []int{8, 1024, 32768}
)

// writeCampaign writes the mpiruns of c into dir and returns their raw
// files.
func writeCampaign(t testing.TB, dir string, c spec) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(c.seed, 7))
	var files []string
	start := time.Date(2026, 11, 22, 3, 59, 0, 0, time.UTC)
	var runs []campaign.RunRecord
	for m := range c.mpiruns {
		var exps []rawdata.Experiment
		for i := range len(fixtureCalls) * len(fixtureSizes) {
			exps = append(exps, rawdata.Experiment{Exp: i, Factors: factor.Values{}.WithText(factor.ProcSync, "adaptive_skampi").With(factor.Window, int64(100*time.Microsecond)).WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "hca3")})
		}
		w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: c.runID, Mpirun: m, Labels: map[string]string{"mpi_lib": c.lib}, Experiments: exps, PerRank: c.perRank})
		if err != nil {
			t.Fatal(err)
		}
		mpf := math.Exp(0.05 * rng.NormFloat64())
		var sums []rawdata.Summary
		mstart := start.Add(time.Duration(m) * time.Minute)
		for ci, call := range fixtureCalls {
			for si, size := range fixtureSizes {
				exp := ci*len(fixtureSizes) + si
				base := (4e-7 + float64(size)*5e-10) * float64(ci+1) * c.factor * mpf
				invalid := 0
				for rep := range c.reps {
					rt := base * math.Exp(0.08*rng.NormFloat64())
					if rng.Float64() < c.outliers {
						rt *= 10
					}
					ec := 0
					if rng.Float64() < c.invalid {
						ec = 1
						invalid++
					}
					if err := w.Row(&rawdata.Row{Exp: exp, Call: call, MsizeBytes: size, Count: size / 8, Datatype: "float64", Np: 2, Rep: rep, RuntimeS: rt, ErrorCode: ec}); err != nil {
						t.Fatal(err)
					}
					for rank := 0; c.perRank && rank < 2; rank++ {
						t0 := float64(rep) * 1e-3
						d := rt * math.Exp(0.05*rng.NormFloat64())
						if err := w.RankRow(&rawdata.RankRow{Exp: exp, Call: call, MsizeBytes: size, Np: 2, Rep: rep, Rank: rank,
							LocalStartS: t0, LocalEndS: t0 + d, GlobalStartS: t0, GlobalEndS: t0 + d, ErrorCode: ec}); err != nil {
							t.Fatal(err)
						}
					}
				}
				s := rawdata.Summary{Exp: exp, Call: call, MsizeBytes: size, Method: "adaptive_skampi", RuntimeType: "local", Cache: "warm",
					WarmupCount: 20, Rows: c.reps, Invalid: invalid, InitialWindow: 1e-4, FinalWindowS: 2e-4, MaxLateS: 3e-6, DurationS: 0.5,
					StartedAt: mstart.Add(time.Duration(exp) * time.Second)}
				if err := w.EndExperiment(&s); err != nil {
					t.Fatal(err)
				}
				sums = append(sums, s)
			}
		}
		args := []string{"reprobench", "run", "--out", dir, "--run-id", c.runID, "--mpirun", strconv.Itoa(m), "--label", "mpi_lib=" + c.lib}
		meta := &rawdata.Metadata{RunID: c.runID, Mpirun: m, Seed: uint64(1000 + m), Np: 2, Args: args,
			Flags: map[string]string{"late-tolerance": "1µs", "warmup": "20"}, Labels: map[string]string{"mpi_lib": c.lib},
			StartUTC: mstart, EndUTC: mstart.Add(10 * time.Second), DurationS: 10,
			Clock:         rawdata.MarshalRecord(timing.Measurement{Name: "monotonic", Source: "monotonic", Hz: 1e9, TickNs: 1, ResolutionNs: 30, OverheadNs: 24}),
			ClockSyncSpec: "hca3",
			ClockSyncs: []rawdata.ClockSync{{BeforeExp: 0, Result: rawdata.MarshalRecord(map[string]any{
				"algorithm": "hca3:fitpts=1000", "ranks": 2, "sync_duration_s": 0.27, "target_met": false,
				"bound": map[string]any{"bound_at_sync_s": 3.8e-7, "bound_slope": 3.5e-8}, "target_source": "late tolerance"})}},
			MPILibrary: c.lib + " 1.0", MPIThread: "single", MPIThreadRequested: "MPI_THREAD_SINGLE", MPIThreadProvided: "MPI_THREAD_SINGLE",
			ProcessorNames: []string{"node1", "node1"}, ErrorCodes: rawdata.ErrorCodes, Experiments: sums, WindowBaseline: c.baseline}
		if !c.noEnv {
			meta.Environment = rawdata.MarshalRecord(design.Environment{Hostname: "node1", Kernel: "Linux 6.1 x86_64", GoVersion: "go1.26", GOOS: "linux", GOARCH: "amd64",
				GOMAXPROCS: 1, CPUModel: "Test CPU", CPUs: 1, OnlineCPUs: 2, CCompiler: "gcc 12", GitCommit: "0123456789abcdef",
				MPIEnv: map[string]string{"OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_COMM_WORLD_RANK": "0"}, Unavailable: c.unavailable})
		}
		if err := w.Close(meta); err != nil {
			t.Fatal(err)
		}
		files = append(files, w.Names().CSV)
		if c.perRank {
			files = append(files, w.Names().Ranks)
		}
		if c.noSidecar {
			if err := os.Remove(w.Names().JSON); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, campaign.RunRecord{Mpirun: m, Seed: uint64(1000 + m), Argv: append([]string{"mpirun", "-np", "2"}, args...), Status: "ok", Complete: true})
	}
	if c.manifest > 0 {
		for m := c.mpiruns; m < c.manifest; m++ {
			runs = append(runs, campaign.RunRecord{Mpirun: m, Argv: []string{"mpirun"}, Status: "pending"})
		}
		man := campaign.Manifest{Format: campaign.ManifestFormat, RunID: c.runID, Dir: dir, Launcher: []string{"mpirun", "-np", "{np}"}, Np: 2,
			Mpiruns: c.manifest, Program: []string{"reprobench", "run"}, RunArgs: []string{"--label", "mpi_lib=" + c.lib}, Seed: 20261122, Runs: runs}
		b, err := json.Marshal(man)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(campaign.ManifestPath(dir, c.runID), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}
