package tune

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// LoopConfig describes a whole tuning loop (Loop): which library,
// collectives, sizes and process count, and how its mpiruns are
// launched.
type LoopConfig struct {
	// Library selects the catalogue of candidates (CatalogFor).
	Library Library
	// Calls are the collectives ("MPI_Allreduce"); each is tuned by a
	// campaign of its own, whose cells are Sizes at Np.
	Calls []string
	// Sizes are the message sizes in bytes (count × type size), > 0.
	Sizes []int64
	// Np is the number of processes of every mpirun.
	Np int
	// Segsizes add, for each segmented algorithm, one candidate per
	// segment size in bytes (Catalog.Candidates).
	Segsizes []int
	// Candidates, when not empty, are the only candidates run, by name
	// (Catalog.Candidate: "ring", "segmented_ring+segsize=1024"), the
	// default added when missing; empty: all of the catalogue's, with
	// Segsizes.
	Candidates []string
	// Dir is the output directory; RunID the prefix of the campaigns' run
	// ids: RunID-<call> for each call's campaign (RunID-allreduce), and
	// RunID-confirm for the confirmation.
	Dir, RunID string
	// Seed is the seed of the first campaign; the confirmation uses
	// Seed+1, so its mpiruns and their order are fresh.
	Seed uint64
	// Launcher is the launcher template (campaign.Campaign.Launcher),
	// empty for simulated mpiruns; Program the command after it, e.g.
	// [reprobench, "run"] or [reprobench, "run", "--sim", "--sim-ranks",
	// "2"].
	Launcher, Program []string
	// RunArgs are further run flags (repetitions, synchronization); not
	// --calls, --sizes or a campaign's contract flags.
	RunArgs []string
	// MpirunsPerCandidate overrides the plan (Plan) of each tuning
	// campaign when > 0; ConfirmMpirunsPerSide that of the confirmation.
	// Below the plan, no default can be replaced, or the gate stays
	// undecided, whatever the data.
	MpirunsPerCandidate, ConfirmMpirunsPerSide int
	// MPICHBase is the MPIR-level selection JSON the MPICH library uses
	// without a file, which the written file extends; MPICH only. Empty:
	// the selection compiled into the installed library
	// (InstalledMPICHBase).
	MPICHBase []byte
	// Options decide the cells; Threshold and Alpha are also the gate's.
	Options Options
	// Campaign controls how the mpiruns are executed.
	Campaign campaign.Options
	// Log receives the plan and what the loop does (nil: none).
	Log io.Writer
}

// LoopResult is what Loop found.
type LoopResult struct {
	// Plans are the tuning campaigns' plans, one per call, in Calls'
	// order.
	Plans []CampaignPlan
	// Decisions are every call's decisions.
	Decisions []Decision
	// DecisionFile is the file the library loads (Open MPI's rules, MPICH's
	// selection JSON, or for the simulated world the environment that sets
	// the chosen algorithms); DecisionsJSON its sidecar
	// (WriteDecisionsJSON).
	DecisionFile, DecisionsJSON string
	// ConfirmMpiruns is the confirmation campaign's number of mpiruns.
	ConfirmMpiruns int
	// Missing lists, per campaign, the cells (call × size) and candidates
	// that gave no per-mpirun median in some mpirun (every observation
	// invalid, e.g. a synchronization window too short for the size):
	// they were decided, or judged, on fewer mpiruns, or not at all.
	Missing []string
	// Gate is the regression gate over the confirmation's cells, with the
	// library's default as A and the decision file as B: its Verdict is
	// analysis.NoRegression when the tuned side is slower nowhere beyond
	// the threshold.
	Gate analysis.GateReport
}

// The levels of the confirmation campaign.
const (
	confirmDefault = DefaultCandidate
	confirmTuned   = "tuned"
)

// tuneFileEnv carries the decision file's SHA-256 in the tuned level's
// environment, so that resuming a confirmation made for another file is
// refused.
const tuneFileEnv = "REPROBENCH_TUNE_FILE_SHA256"

// Loop runs the whole tuning loop: for each call a campaign of the
// catalogue's candidates (each mpirun one candidate, randomized complete
// blocks, campaign.MpirunFactor) sized by Plan; the decisions (ReadSamples
// on the factor's column, Decide); the decision file and its sidecar;
// then a fresh confirmation campaign of the library's default against the
// decision file, sized so that the gate can decide every cell, judged by
// analysis.Gate. Every campaign whose manifest exists in Dir is resumed
// (campaign.Resume) instead of started, so an interrupted loop continues
// where it stopped; a manifest that does not match cfg is an error.
// The simulated world loads no decision file: its "file" sets, per call,
// the one candidate chosen at every size, and Loop fails when the choices
// of a call differ between sizes. The error is campaign.ErrIncomplete
// (wrapped) when mpiruns failed; the gate's verdict is not an error.
func Loop(ctx context.Context, cfg LoopConfig) (*LoopResult, error) {
	cat := CatalogFor(cfg.Library)
	if cat == nil {
		return nil, fmt.Errorf("tune: no catalogue of %q", cfg.Library)
	}
	if len(cfg.Calls) == 0 || len(cfg.Sizes) == 0 || cfg.Np < 1 {
		return nil, errors.New("tune: the loop needs calls, sizes and a process count")
	}
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format, a...)
		}
	}
	opt := cfg.Options.withDefaults()
	res := &LoopResult{}
	sizes := make([]string, len(cfg.Sizes))
	for i, s := range cfg.Sizes {
		if s <= 0 {
			return nil, fmt.Errorf("tune: size %d B: want > 0", s)
		}
		sizes[i] = strconv.FormatInt(s, 10)
	}
	var src Source
	elem := elemSize(cfg.RunArgs)
	for i, call := range cfg.Calls {
		cands, err := loopCandidates(cat, call, cfg, logf)
		if err != nil {
			return nil, err
		}
		groups := sizeGroups(cands, cfg.Sizes, cfg.Np, elem)
		// The plan of the whole call, over every size and candidate: a
		// candidate left out at some sizes only shrinks the family that
		// Decide corrects over, so the plan's level stays sufficient.
		plan, err := Plan(len(cfg.Sizes), len(cands), opt)
		if err != nil {
			return nil, err
		}
		res.Plans = append(res.Plans, plan)
		k := plan.MpirunsPerCandidate
		if cfg.MpirunsPerCandidate > 0 {
			k = cfg.MpirunsPerCandidate
		}
		var samples []Sample
		for gi, g := range groups {
			names := make([]string, len(g.cands))
			for j, c := range g.cands {
				names[j] = c.Name
			}
			gs := make([]string, len(g.sizes))
			for j, b := range g.sizes {
				gs[j] = strconv.FormatInt(b, 10)
			}
			for _, c := range cands {
				if !slices.ContainsFunc(g.cands, func(o Candidate) bool { return o.Name == c.Name }) {
					logf("tune: %s: %s left out at %s B: the library refuses it there (a count below the largest power of two not above np %d)\n", call, c.Name, strings.Join(gs, ","), cfg.Np)
				}
			}
			logf("tune: %s: %d candidates (%s) × %d sizes at np %d, %d mpiruns: plan %s\n", call, len(g.cands), strings.Join(names, ", "), len(g.sizes), cfg.Np, plan.MpirunsPerCandidate*len(g.cands), plan.Why)
			if k != plan.MpirunsPerCandidate {
				logf("tune: %s: running %d mpiruns per candidate (%d in all) as asked, not the plan's %d\n", call, k, k*len(g.cands), plan.MpirunsPerCandidate)
			}
			id := callRunID(cfg.RunID, call)
			if gi > 0 {
				id += "-" + strconv.Itoa(gi+1)
			}
			c := campaign.Campaign{Dir: cfg.Dir, RunID: id, Mpiruns: k * len(g.cands), Np: cfg.Np,
				Launcher: cfg.Launcher, Program: cfg.Program, Seed: cfg.Seed + uint64(i)<<32 + uint64(gi)<<48, PerMpirun: CandidateFactor(g.cands),
				RunArgs: append([]string{"--calls", call, "--sizes", strings.Join(gs, ",")}, cfg.RunArgs...)}
			files, err := runCampaign(ctx, c, cfg.Campaign, logf)
			if err != nil {
				return res, err
			}
			gsamples, s, err := ReadSamples(files, factor.Algorithm.String())
			if err != nil {
				return res, err
			}
			res.Missing = append(res.Missing, missing(c, call, g.sizes, cfg.Np, gsamples, logf)...)
			src.Files, src.Column, src.Library = append(src.Files, s.Files...), s.Column, s.Library
			samples = append(samples, gsamples...)
		}
		ds, err := Decide(samples, opt)
		if err != nil {
			return res, err
		}
		res.Decisions = append(res.Decisions, ds...)
	}

	tunedEnv, err := writeDecisionFile(cfg, cat, res, src)
	if err != nil {
		return res, err
	}
	logf("tune: decisions in %s (sidecar %s)\n", res.DecisionFile, res.DecisionsJSON)

	// The confirmation: fresh mpiruns, default against the file.
	cells := len(cfg.Calls) * len(cfg.Sizes)
	k := analysis.MpirunsForP(opt.Alpha / float64(cells))
	why := fmt.Sprintf("%d mpiruns per side (%d in all): the gate's Holm family of %d cells must pass alpha/%d = %.3g, which the exact rank-sum test reaches with %d+%d mpiruns",
		k, 2*k, cells, cells, opt.Alpha/float64(cells), k, k)
	if cfg.ConfirmMpirunsPerSide > 0 {
		k = cfg.ConfirmMpirunsPerSide
		why += fmt.Sprintf("; running %d per side as asked", k)
	}
	res.ConfirmMpiruns = 2 * k
	logf("tune: confirmation: default against %s, %s\n", filepath.Base(res.DecisionFile), why)
	pf := &campaign.MpirunFactor{Factor: factor.Algorithm.String(), Env: factor.Algorithm.Row().Env,
		Levels: []campaign.MpirunLevel{{Name: confirmDefault}, {Name: confirmTuned, Env: tunedEnv}}}
	c := campaign.Campaign{Dir: cfg.Dir, RunID: cfg.RunID + "-confirm", Mpiruns: 2 * k, Np: cfg.Np,
		Launcher: cfg.Launcher, Program: cfg.Program, Seed: cfg.Seed + 1, PerMpirun: pf,
		RunArgs: append([]string{"--calls", strings.Join(cfg.Calls, ","), "--sizes", strings.Join(sizes, ",")}, cfg.RunArgs...)}
	files, err := runCampaign(ctx, c, cfg.Campaign, logf)
	if err != nil {
		return res, err
	}
	samples, _, err := ReadSamples(files, factor.Algorithm.String())
	if err != nil {
		return res, err
	}
	for _, call := range cfg.Calls {
		res.Missing = append(res.Missing, missing(c, call, cfg.Sizes, cfg.Np, samples, logf)...)
	}
	by, err := collect(samples)
	if err != nil {
		return res, err
	}
	// Every cell of the design is judged: one without data is undecided,
	// never left out of the verdict.
	var keys []Cell
	for _, call := range cfg.Calls {
		for _, b := range cfg.Sizes {
			keys = append(keys, Cell{Call: call, Bytes: b, Np: cfg.Np})
		}
	}
	slices.SortFunc(keys, Cell.compare)
	rows := make([]analysis.Comparison, len(keys))
	for i, cell := range keys {
		rows[i] = analysis.Comparison{Key: analysis.GroupKey{Call: cell.Call, MsizeBytes: int(cell.Bytes), Np: cell.Np},
			NameA: confirmDefault, NameB: confirmTuned,
			MpirunMediansA: by[cell][confirmDefault], MpirunMediansB: by[cell][confirmTuned]}
	}
	res.Gate = analysis.Gate(rows, analysis.GateOptions{Threshold: opt.Threshold, Alpha: opt.Alpha})
	return res, nil
}

// callRunID is the run id of call's tuning campaign: prefix-allreduce.
func callRunID(prefix, call string) string {
	return prefix + "-" + strings.ToLower(strings.TrimPrefix(call, "MPI_"))
}

// runCampaign resumes c when its manifest exists and matches c (mpiruns,
// program, arguments, per-mpirun factor), starts it otherwise, and
// returns its raw files.
func runCampaign(ctx context.Context, c campaign.Campaign, o campaign.Options, logf func(string, ...any)) ([]string, error) {
	path := campaign.ManifestPath(c.Dir, c.RunID)
	var err error
	if _, serr := os.Stat(path); serr == nil {
		m, rerr := campaign.ReadManifest(path)
		if rerr != nil {
			return nil, rerr
		}
		if m.Mpiruns != c.Mpiruns || m.Np != c.Np || !slices.Equal(m.RunArgs, c.RunArgs) || !slices.Equal(m.Program, c.Program) ||
			m.Seed != c.Seed || !sameJSON(m.PerMpirun, c.PerMpirun) {
			return nil, fmt.Errorf("tune: %s is another campaign than this loop's (its mpiruns, arguments, seed or candidates differ): choose another run id", path)
		}
		logf("tune: resuming %s (%d of %d mpiruns to run)\n", c.RunID, len(m.Incomplete()), m.Mpiruns)
		_, err = campaign.Resume(ctx, path, o)
	} else {
		logf("tune: campaign %s: %d mpiruns × %d processes\n", c.RunID, c.Mpiruns, c.Np)
		_, err = campaign.Start(ctx, c, o)
	}
	if err != nil {
		return nil, err
	}
	files := make([]string, c.Mpiruns)
	for i := range files {
		files[i] = rawdata.OutputBase(c.Dir, c.RunID, i) + ".csv"
	}
	return files, nil
}

// writeDecisionFile writes the library's decision file and its sidecar
// into cfg.Dir, sets their paths in res, and returns the environment of
// the confirmation's tuned level.
func writeDecisionFile(cfg LoopConfig, cat *Catalog, res *LoopResult, src Source) ([]string, error) {
	var b bytes.Buffer
	var env []string
	switch cat.Library {
	case OpenMPI:
		res.DecisionFile = filepath.Join(cfg.Dir, cfg.RunID+"-rules.txt")
		r, err := cat.OpenMPIResolver()
		if err != nil {
			return nil, err
		}
		if err := WriteOpenMPIRules(&b, res.Decisions, r, src); err != nil {
			return nil, err
		}
		env = []string{"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_dynamic_rules_filename=" + absPath(res.DecisionFile),
			provenance.ExpectEnv + "=coll_tuned_use_dynamic_rules=1"}
	case MPICH:
		base := cfg.MPICHBase
		if len(base) == 0 {
			var err error
			if base, _, err = InstalledMPICHBase(); err != nil {
				return nil, fmt.Errorf("%w (or give the library's own selection JSON)", err)
			}
		}
		res.DecisionFile = filepath.Join(cfg.Dir, cfg.RunID+"-selection.json")
		r, err := cat.MPICHResolver()
		if err != nil {
			return nil, err
		}
		if err := WriteMPICHJSON(&b, res.Decisions, r, base); err != nil {
			return nil, err
		}
		env = append([]string{MPICHTuningCvar + "=" + absPath(res.DecisionFile)}, MPICHDeviceOff(res.Decisions)...)
	case Simulated:
		res.DecisionFile = filepath.Join(cfg.Dir, cfg.RunID+"-simulated.env")
		var expect []string
		for _, call := range cfg.Calls {
			chosen := ""
			for _, d := range res.Decisions {
				if d.Call != call {
					continue
				}
				if chosen != "" && d.Chosen != chosen {
					return nil, fmt.Errorf("tune: %s: the decisions choose %s and %s at different sizes, and the simulated world takes one algorithm per collective: no file can say so", call, chosen, d.Chosen)
				}
				chosen = d.Chosen
			}
			cand, err := cat.Candidate(call, chosen)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "# %s: %s\n", call, chosen)
			for _, e := range cand.Env() {
				fmt.Fprintln(&b, e)
			}
			env = append(env, cand.Env()...)
			if e := cand.Expect(); e != "" {
				expect = append(expect, e)
			}
		}
		if len(expect) > 0 {
			env = append(env, provenance.ExpectEnv+"="+strings.Join(expect, ";"))
		}
	default:
		return nil, fmt.Errorf("tune: no decision file for %s", cat.Library)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(res.DecisionFile, b.Bytes(), 0o644); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b.Bytes())
	env = append(env, tuneFileEnv+"="+hex.EncodeToString(sum[:]))
	res.DecisionsJSON = res.DecisionFile + ".decisions.json"
	var j bytes.Buffer
	if err := WriteDecisionsJSON(&j, res.Decisions, src, filepath.Base(res.DecisionFile)); err != nil {
		return nil, err
	}
	return env, os.WriteFile(res.DecisionsJSON, j.Bytes(), 0o644)
}

// absPath is p made absolute, or p when that fails.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// sameJSON reports whether a and b encode to the same JSON (a manifest's
// recorded value against the one this loop would record).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// loopCandidates returns the candidates of call that cfg asks for. With
// none named, every candidate of the catalogue but those whose Needs
// condition is not known to hold (each logged); a named one is run
// whatever its Needs.
func loopCandidates(cat *Catalog, call string, cfg LoopConfig, logf func(string, ...any)) ([]Candidate, error) {
	if len(cfg.Candidates) == 0 {
		all, err := cat.Candidates(call, cfg.Segsizes)
		if err != nil {
			return nil, err
		}
		var out []Candidate
		for _, c := range all {
			if c.Needs != "" {
				logf("tune: %s: %s left out: it needs %s (name it with the candidates to include it)\n", call, c.Name, c.Needs)
				continue
			}
			out = append(out, c)
		}
		return out, nil
	}
	names := slices.Clone(cfg.Candidates)
	if !slices.Contains(names, DefaultCandidate) {
		names = append([]string{DefaultCandidate}, names...)
	}
	out := make([]Candidate, 0, len(names))
	for _, n := range names {
		c, err := cat.Candidate(call, n)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o Candidate) bool { return o.Name == c.Name }) {
			return nil, fmt.Errorf("tune: candidate %s named twice", n)
		}
		out = append(out, c)
	}
	return out, nil
}

// missing returns, and logs, each cell of call whose candidates (c's
// levels) lack a per-mpirun median from some of their mpiruns.
func missing(c campaign.Campaign, call string, sizes []int64, np int, samples []Sample, logf func(string, ...any)) []string {
	runs := map[string]int{}
	for _, l := range campaign.AssignLevels(len(c.PerMpirun.Levels), c.Mpiruns, c.Seed) {
		runs[c.PerMpirun.Levels[l].Name]++
	}
	have := map[string]int{}
	for _, s := range samples {
		have[fmt.Sprintf("%s\x00%d\x00%d\x00%s", s.Call, s.Bytes, s.Np, s.Candidate)]++
	}
	var out []string
	for _, b := range sizes {
		for _, l := range c.PerMpirun.Levels {
			n := have[fmt.Sprintf("%s\x00%d\x00%d\x00%s", call, b, np, l.Name)]
			if n < runs[l.Name] {
				m := fmt.Sprintf("%s: %s/msize=%d/np=%d %s: %d of %d mpiruns have valid observations", c.RunID, call, b, np, l.Name, n, runs[l.Name])
				logf("tune: warning: %s\n", m)
				out = append(out, m)
			}
		}
	}
	return out
}

// CandidateFactor is the per-mpirun factor (column algorithm) whose
// levels are cands: each level's environment selects its candidate
// (Candidate.Env) and asks the run to read its control variables back
// through MPI_T after measuring (provenance.ExpectEnv), so that a setting
// the library ignored fails the mpirun.
func CandidateFactor(cands []Candidate) *campaign.MpirunFactor {
	pf := &campaign.MpirunFactor{Factor: factor.Algorithm.String(), Env: factor.Algorithm.Row().Env}
	for _, c := range cands {
		env := c.Env()
		if e := c.Expect(); e != "" {
			env = append(env, provenance.ExpectEnv+"="+e)
		}
		pf.Levels = append(pf.Levels, campaign.MpirunLevel{Name: c.Name, Env: env})
	}
	return pf
}

// sizeGroup is a set of message sizes that run the same candidates.
type sizeGroup struct {
	sizes []int64
	cands []Candidate
}

// sizeGroups splits sizes into groups of consecutive sizes (in the given
// order) whose candidates the library accepts alike (Candidate.Refuses
// at np with elements of elem bytes); each group is one campaign. With
// no refusal there is one group of every size and candidate.
func sizeGroups(cands []Candidate, sizes []int64, np, elem int) []sizeGroup {
	var out []sizeGroup
	for _, b := range sizes {
		var ok []Candidate
		for _, c := range cands {
			if !c.Refuses(b, np, elem) {
				ok = append(ok, c)
			}
		}
		same := func(g sizeGroup) bool {
			return slices.EqualFunc(g.cands, ok, func(a, b Candidate) bool { return a.Name == b.Name })
		}
		if i := slices.IndexFunc(out, same); i >= 0 {
			out[i].sizes = append(out[i].sizes, b)
			continue
		}
		out = append(out, sizeGroup{sizes: []int64{b}, cands: ok})
	}
	return out
}

// elemSize is the element size in bytes of run's --datatype among args
// (its default, float64, when absent or unknown).
func elemSize(args []string) int {
	sz := map[string]int{"byte": 1, "int32": 4, "float32": 4, "int64": 8, "float64": 8}
	for i, a := range args {
		name, v, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "datatype" {
			continue
		}
		if !eq && i+1 < len(args) {
			v = args[i+1]
		}
		if n, ok := sz[v]; ok {
			return n
		}
	}
	return 8
}
