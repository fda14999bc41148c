package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// Options configure New.
type Options struct {
	// Analysis are the options of analyze and compare (Tukey's k, the
	// confidence level, alpha, the alternative). With Percentiles, the
	// page has a table of each group's tail percentiles.
	Analysis analysis.Options
	// Title of the page; "" names it after the run ids.
	Title string
	// Generated is when the report was made (zero: not shown).
	Generated time.Time
	// Generator names what made the report (e.g. "reprobench, commit
	// 1a2b3c4"); "" is not shown.
	Generator string
	// Command is the command line that made the report, shown so that a
	// reader can make it again (nil: not shown).
	Command []string
	// RegionIters are the iterations [from, to) the timeline of a run of
	// application regions (package region) shows; to ≤ from: the
	// defaultRegionIters (4) iterations from the middle of the run.
	RegionIters [2]int64
	// RegionCompute names the regions that are useful computation for the
	// POP efficiencies (analysis.RegionOptions.Compute; empty: those the
	// recorder marked).
	RegionCompute []string
}

// Report is everything the page shows, computed by New from one or two
// sides. Its fields are plain data: a program can read the rule checks or
// the comparison without the HTML.
type Report struct {
	Options Options
	Sides   []*Side
	// Overviews, Groups, Methods and Machines have one entry per side.
	Overviews []Overview
	Groups    [][]Group
	Methods   []Method
	Machines  []Machine
	// Differences are what the sides' provenance records say differed
	// between the sides and across one side's mpiruns
	// (provenance.Differences).
	Differences []string
	// Comparison compares side B with side A (nil with one side).
	Comparison *Comparison
	// Rules are the twelve rules of Hoefler and Belli (Hoefler & Belli 2015), in
	// order, each checked against this campaign.
	Rules []Rule
	// Regions has, per side, the runs of application regions (package
	// region): a timeline of a slice of iterations and the entry spreads.
	Regions [][]*RegionRun
}

// Overview is what was measured on one side.
type Overview struct {
	RunIDs  []string
	Mpiruns int
	// Rows are all rows read; Valid + Invalid + Bad = Rows, and Outliers
	// of the Valid ones were removed by Tukey's fences per mpirun.
	Rows, Valid, Invalid, Bad, Outliers int
	Calls                               []string
	Sizes                               []int // bytes
	Nps                                 []int
	Datatypes                           []string
	// Regions are the names of the application regions (groups with
	// GroupKey.Region), which have no call, size or datatype of their own.
	Regions []string
	// Factors are the labels of the groups (method factors such as
	// procsync, and user labels) with their levels, sorted by name.
	Factors []Factor
	// Start and End span the mpiruns (zero without sidecars);
	// MpirunSeconds is the sum of their durations.
	Start, End    time.Time
	MpirunSeconds float64
	// WrongResults counts the Invalid rows whose result the check
	// (run --check) found wrong (analysis.Group.WrongResults).
	WrongResults int
	// Baseline pools the window baselines of the side's mpiruns
	// (rawdata.WindowBaseline: the machine's own late share); its
	// Observations is 0 when none was recorded. BaselineMpiruns counts the
	// mpiruns that recorded one.
	Baseline        rawdata.WindowBaseline
	BaselineMpiruns int
	// CPULoads is the CPU load other processes put on each mpirun's
	// measurements (rawdata.Metadata.CPULoad; same index as the side's
	// Data.Mpiruns), nil where none was recorded.
	CPULoads []*rawdata.CPULoad
}

// Factor is one label of the groups and the levels it takes.
type Factor struct {
	Name   string
	Levels []string
}

// Varying reports whether the factor takes more than one level.
func (f Factor) Varying() bool { return len(f.Levels) > 1 }

// Group is one row of the analysis with what a reader needs to judge it:
// the mpiruns behind the headline median, and the normality of the
// observations within each mpirun.
type Group struct {
	analysis.GroupSummary
	Mpiruns []MpirunStats
	// Rows is every row of the group: valid, invalid and bad.
	Rows int
	// ObsTested counts the mpiruns whose filtered observations (3 to 5000)
	// Shapiro-Wilk tested, ObsRejected those where it rejected normality
	// at alpha.
	ObsTested, ObsRejected int
}

// InvalidShare is the share of the group's rows that were invalid.
func (g Group) InvalidShare() float64 { return share(g.Invalid, g.Rows) }

// OutlierShare is the share of the valid observations Tukey's fences
// removed.
func (g Group) OutlierShare() float64 { return share(g.OutliersRemoved, g.N+g.OutliersRemoved) }

// Spread is the largest per-mpirun median over the smallest (1: every
// mpirun gave the same median), NaN with fewer than 2 mpiruns.
func (g Group) Spread() float64 {
	if len(g.MpirunMedians) < 2 {
		return math.NaN()
	}
	lo, hi := slices.Min(g.MpirunMedians), slices.Max(g.MpirunMedians)
	if !(lo > 0) {
		return math.NaN()
	}
	return hi / lo
}

// MpirunStats is one mpirun of a group (analysis.PerMpirun) and its name.
type MpirunStats struct {
	analysis.MpirunSummary
	ID analysis.MpirunID
}

// Comparison is compare's table of side B against side A.
type Comparison struct {
	Rows []analysis.Comparison
	// OnlyA and OnlyB are the groups without a match on the other side.
	OnlyA, OnlyB []analysis.GroupKey
	// SideLabels are the labels that name the sides (one value in A,
	// another in B), left out of the matching.
	SideLabels []string
	// Warning is rawdata.BarrierWarningOf the two sides: set when sides
	// under different MPI libraries used their own MPI_Barrier.
	Warning string
}

func share(n, of int) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}

// New analyzes the sides (one, or two to compare B with A) and checks the
// rules. The sides are named by the labels that tell them apart.
func New(sides []*Side, opt Options) (*Report, error) {
	if len(sides) == 0 || len(sides) > 2 {
		return nil, fmt.Errorf("report: want one or two sides, have %d", len(sides))
	}
	if opt.Analysis.Level == 0 {
		opt.Analysis = analysis.DefaultOptions
	}
	r := &Report{Options: opt, Sides: sides}
	if len(sides) == 2 {
		lab := analysis.SideLabels(sides[0].Data, sides[1].Data)
		rows, onlyA, onlyB := analysis.CompareIgnoring(sides[0].Data, sides[1].Data, lab, opt.Analysis)
		r.Comparison = &Comparison{Rows: rows, OnlyA: onlyA, OnlyB: onlyB, SideLabels: lab}
		for i, s := range sides {
			s.Name = sideName(s.Data, lab, string(rune('A'+i)))
		}
		for i := range rows {
			rows[i].NameA, rows[i].NameB = sides[0].Name, sides[1].Name
		}
		r.Comparison.Warning = rawdata.BarrierWarningOf([]string{sides[0].Name, sides[1].Name}, [][]*rawdata.Metadata{sides[0].Meta, sides[1].Meta})
	} else if sides[0].Name == "" {
		sides[0].Name = "A"
	}
	for _, s := range sides {
		sums := analysis.Analyze(s.Data, opt.Analysis)
		analysis.SetInvalidExcess(sums, s.windowBaselines(), opt.Analysis.Level)
		analysis.SetCPULoad(sums, s.cpuLoads())
		groups := make([]Group, len(sums))
		for i, sum := range sums {
			groups[i] = newGroup(s.Data, sum, opt.Analysis)
		}
		r.Groups = append(r.Groups, groups)
		r.Overviews = append(r.Overviews, newOverview(s, groups))
		r.Methods = append(r.Methods, newMethod(s))
		r.Machines = append(r.Machines, newMachine(s))
		r.Regions = append(r.Regions, s.regionRuns(opt.RegionIters, opt.RegionCompute))
	}
	r.Differences = differences(r.Sides)
	r.Rules = checkRules(r)
	return r, nil
}

// sideName names a side by the values of the labels that tell the sides
// apart ("openmpi"), else by def.
func sideName(d *analysis.Dataset, labels []string, def string) string {
	if len(labels) == 0 || len(d.Groups) == 0 {
		return def
	}
	var vals []string
	for _, l := range labels {
		vals = append(vals, d.Groups[0].Key.LabelValue(l))
	}
	return strings.Join(vals, ", ")
}

func newGroup(d *analysis.Dataset, s analysis.GroupSummary, opt analysis.Options) Group {
	g := Group{GroupSummary: s}
	var grp *analysis.Group
	for _, x := range d.Groups {
		if x.Key == s.Key {
			grp = x
			break
		}
	}
	if grp == nil {
		return g
	}
	g.Rows = len(grp.Runtimes) + grp.Invalid + grp.Bad
	for _, m := range analysis.PerMpirun(grp, opt.TukeyFor(grp.Key)) {
		if p := m.Normality.P; !math.IsNaN(p) {
			g.ObsTested++
			if p <= opt.Alpha {
				g.ObsRejected++
			}
		}
		g.Mpiruns = append(g.Mpiruns, MpirunStats{MpirunSummary: m, ID: d.Mpiruns[m.Mpirun]})
	}
	return g
}

func newOverview(s *Side, groups []Group) Overview {
	o := Overview{Mpiruns: len(s.Data.Mpiruns)}
	ids := map[string]bool{}
	for _, id := range s.Data.Mpiruns {
		ids[id.RunID] = true
	}
	o.RunIDs = sortedKeys(ids)
	calls, sizes, nps, dts := map[string]bool{}, map[int]bool{}, map[int]bool{}, map[string]bool{}
	regions := map[string]bool{}
	levels := map[string]map[string]bool{}
	for _, g := range groups {
		o.Valid += g.N + g.OutliersRemoved
		o.Invalid += g.Invalid
		o.WrongResults += g.WrongResults
		o.Bad += g.Bad
		o.Outliers += g.OutliersRemoved
		k := g.Key
		nps[k.Np] = true
		if k.Region { // an application's regions: no size, no datatype
			regions[k.LabelValue(rawdata.RegionLabel)] = true
		} else {
			calls[k.Call], sizes[k.MsizeBytes] = true, true
			if k.Datatype != "" {
				dts[k.Datatype] = true
			}
		}
		if k.Labels == "" {
			continue
		}
		for _, kv := range strings.Split(k.Labels, ",") {
			n, v, _ := strings.Cut(kv, "=")
			if levels[n] == nil {
				levels[n] = map[string]bool{}
			}
			levels[n][v] = true
		}
	}
	o.Rows = o.Valid + o.Invalid + o.Bad
	o.Calls, o.Datatypes, o.Regions = sortedKeys(calls), sortedKeys(dts), sortedKeys(regions)
	o.Sizes, o.Nps = sortedKeys(sizes), sortedKeys(nps)
	for _, n := range sortedKeys(levels) {
		o.Factors = append(o.Factors, Factor{Name: n, Levels: sortedKeys(levels[n])})
	}
	for _, b := range s.windowBaselines() {
		if b != nil {
			o.BaselineMpiruns++
			o.Baseline.Observations += b.Observations
			o.Baseline.Invalid += b.Invalid
			o.Baseline.Late += b.Late
			o.Baseline.Batches += b.Batches
			o.Baseline.DurationS += b.DurationS
			o.Baseline.WindowS, o.Baseline.LateToleranceS = b.WindowS, b.LateToleranceS
		}
	}
	o.CPULoads = s.cpuLoads()
	for _, m := range s.metas() {
		if !m.StartUTC.IsZero() && (o.Start.IsZero() || m.StartUTC.Before(o.Start)) {
			o.Start = m.StartUTC
		}
		if m.EndUTC.After(o.End) {
			o.End = m.EndUTC
		}
		o.MpirunSeconds += m.DurationS
	}
	return o
}

// sortedKeys returns the keys of m in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Range is the smallest and largest of some values, with their number;
// N = 0 means none.
type Range struct {
	Min, Max float64
	N        int
}

func (r *Range) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if r.N == 0 || v < r.Min {
		r.Min = v
	}
	if r.N == 0 || v > r.Max {
		r.Max = v
	}
	r.N++
}

// Method is how one side measured, from the factor columns and the
// sidecars.
type Method struct {
	// RuntimeTypes, ProcSyncs, ClockSyncs, Windows and Caches are the
	// levels of the method factors in the data (runtime_type, procsync,
	// clocksync, window_s, cache).
	RuntimeTypes, ProcSyncs, ClockSyncs, Windows, Caches []string
	// Sidecars counts the mpiruns with a sidecar; what follows comes from
	// them.
	Sidecars int
	// Experiments, ExpRows and ExpInvalid count the sidecars' experiments
	// and their rows; warm-up observations are not rows.
	Experiments, ExpRows, ExpInvalid int
	Warmup                           Range // observations per experiment
	InitialWindowS, FinalWindowS     Range // windowed methods
	Adaptations                      int   // window changes of adaptive methods
	MaxLateS                         float64
	LateTolerance                    []string // run --late-tolerance
	// Syncs are the clock synchronizations of every mpirun.
	Syncs []Sync
	// Clocks are the timers' measured resolution and read overhead, one
	// per mpirun with a sidecar.
	Clocks []timing.Measurement
	// NoiseGuarded counts the experiments with the noise guard on;
	// NoiseSkipped is the range of their skipped window-slot shares.
	NoiseGuarded int
	NoiseSkipped Range
	NoiseSources Range
	// AllocsPerObs is the range of heap allocations per observation.
	AllocsPerObs Range
}

// Sync is one clock synchronization (clocksync.Result, read generically so
// that fields added later are shown too).
type Sync struct {
	Mpirun    analysis.MpirunID
	BeforeExp int
	Algorithm string
	DurationS float64
	// BoundAtSyncS and BoundSlope give the predicted error bound
	// BoundAtSyncS + BoundSlope·t a time t after the sync; BoundAtEndS is
	// it at the end of the mpirun (the longest it was used). Unknown says
	// why there is none.
	BoundAtSyncS, BoundSlope, BoundAtEndS float64
	Unknown                               string
	Target                                string
	TargetMet                             bool
	Reason                                string
	// Extra are the result's other scalar fields, by name.
	Extra map[string]string
}

func newMethod(s *Side) Method {
	var m Method
	levels := func(label string) []string {
		set := map[string]bool{}
		for _, g := range s.Data.Groups {
			if v := g.Key.LabelValue(label); v != "" {
				set[v] = true
			}
		}
		return sortedKeys(set)
	}
	m.RuntimeTypes, m.ProcSyncs, m.ClockSyncs = levels(factor.RuntimeType.String()), levels(factor.ProcSync.String()), levels(factor.ClockSync.String())
	m.Windows, m.Caches = levels(factor.Window.String()), levels(factor.Cache.String())
	late := map[string]bool{}
	for i, md := range s.Meta {
		if md == nil {
			continue
		}
		m.Sidecars++
		if v, ok := md.Flags["late-tolerance"]; ok {
			late[v] = true
		}
		for _, e := range md.Experiments {
			m.Experiments++
			m.ExpRows += e.Rows
			m.ExpInvalid += e.Invalid
			m.Warmup.add(float64(e.WarmupCount))
			if e.InitialWindow > 0 {
				m.InitialWindowS.add(e.InitialWindow)
			}
			if e.FinalWindowS > 0 {
				m.FinalWindowS.add(e.FinalWindowS)
			}
			m.Adaptations += len(e.Adaptations)
			m.MaxLateS = math.Max(m.MaxLateS, e.MaxLateS)
			m.AllocsPerObs.add(e.AllocsPerObs)
			if e.NoiseGuard != nil {
				m.NoiseGuarded++
				m.NoiseSkipped.add(e.NoiseGuard.SkippedShare)
				m.NoiseSources.add(float64(len(e.NoiseGuard.Sources)))
			}
		}
		var clk timing.Measurement
		if len(md.Clock) > 0 && json.Unmarshal(md.Clock, &clk) == nil {
			m.Clocks = append(m.Clocks, clk)
		}
		for _, cs := range md.ClockSyncs {
			m.Syncs = append(m.Syncs, newSync(s.Data.Mpiruns[i], md, cs))
		}
	}
	m.LateTolerance = sortedKeys(late)
	return m
}

// newSync reads one clock synchronization of mpirun id.
func newSync(id analysis.MpirunID, md *rawdata.Metadata, cs rawdata.ClockSync) Sync {
	sy := Sync{Mpirun: id, BeforeExp: cs.BeforeExp, Reason: cs.Reason, BoundAtSyncS: math.NaN(), BoundSlope: math.NaN(), BoundAtEndS: math.NaN(), DurationS: math.NaN()}
	var res map[string]any
	if json.Unmarshal(cs.Result, &res) != nil {
		sy.Unknown = "result not readable"
		return sy
	}
	num := func(v any) float64 {
		if f, ok := v.(float64); ok {
			return f
		}
		return math.NaN()
	}
	sy.Algorithm, _ = res["algorithm"].(string)
	sy.DurationS = num(res["sync_duration_s"])
	sy.Target, _ = res["target"].(string)
	sy.TargetMet, _ = res["target_met"].(bool)
	if b, ok := res["bound"].(map[string]any); ok {
		if u, _ := b["bound_unknown"].(bool); u {
			sy.Unknown, _ = b["bound_unknown_why"].(string)
			if sy.Unknown == "" {
				sy.Unknown = "unknown"
			}
		} else {
			sy.BoundAtSyncS, sy.BoundSlope = num(b["bound_at_sync_s"]), num(b["bound_slope"])
			// Used at most until the end of the mpirun: from the start of
			// the experiment it preceded.
			horizon := md.DurationS
			for _, e := range md.Experiments {
				if e.Exp == cs.BeforeExp && !e.StartedAt.IsZero() && !md.EndUTC.IsZero() {
					horizon = md.EndUTC.Sub(e.StartedAt).Seconds()
					break
				}
			}
			sy.BoundAtEndS = sy.BoundAtSyncS + math.Abs(sy.BoundSlope)*math.Max(horizon, 0)
		}
	}
	known := map[string]bool{"algorithm": true, "sync_duration_s": true, "target": true, "target_met": true, "bound": true,
		"per_rank": true, "per_rank_summary": true, "model": true, "fit": true}
	for k, v := range res {
		if known[k] {
			continue
		}
		switch x := v.(type) {
		case string:
			sy.addExtra(k, x)
		case bool:
			sy.addExtra(k, strconv.FormatBool(x))
		case float64:
			sy.addExtra(k, strconv.FormatFloat(x, 'g', 6, 64))
		}
	}
	return sy
}

func (s *Sync) addExtra(k, v string) {
	if s.Extra == nil {
		s.Extra = map[string]string{}
	}
	s.Extra[k] = v
}

// Machine is the environment of one side, from the sidecars and the
// campaign manifests: each fact with the distinct values its mpiruns
// recorded.
type Machine struct {
	Facts []Fact
	// OnlineCPUs is the largest number of online CPUs a node recorded, and
	// Nodes the number of distinct MPI processor names (0: not recorded).
	OnlineCPUs, Nodes int
	// MPIEnv are the MPI and launcher variables (design.Environment.MPIEnv)
	// that every mpirun had with the same value, without the ones that
	// name a process or a job (ranks, ids, URIs, paths of a session).
	MPIEnv map[string]string
	// Unavailable says what the environment could not record, and why.
	Unavailable []string
	// Commands reproduce the campaign.
	Commands []Command
	// Flags are the flags of the benchmark runs with the values that ran
	// (rawdata.Metadata.Flags), without those that differ by design from
	// one mpirun to the next (mpirun, seed); a flag whose value differed
	// between mpiruns has its values joined by " | ".
	Flags map[string]string
}

// Fact is one property of the machine and the values the mpiruns recorded
// (several when they differ).
type Fact struct {
	Name   string
	Values []string
}

// Command is one command line to reproduce (part of) a campaign.
type Command struct {
	What string
	Line string
}

func newMachine(s *Side) Machine {
	var m Machine
	vals := map[string]map[string]bool{}
	var order []string
	add := func(name, v string) {
		if v == "" {
			return
		}
		if vals[name] == nil {
			vals[name] = map[string]bool{}
			order = append(order, name)
		}
		vals[name][v] = true
	}
	unavail := map[string]bool{}
	var envs []map[string]string
	nodes := map[string]bool{}
	for _, md := range s.metas() {
		for _, n := range md.ProcessorNames {
			nodes[n] = true
		}
		var env design.Environment
		hasEnv := len(md.Environment) > 0 && json.Unmarshal(md.Environment, &env) == nil
		if hasEnv {
			add("host", env.Hostname)
		}
		add("nodes (MPI processor names)", strings.Join(uniqueInOrder(md.ProcessorNames), ", "))
		if hasEnv {
			add("CPU", env.CPUModel)
			cpus := fmt.Sprintf("%d usable", env.CPUs)
			if env.OnlineCPUs > 0 {
				cpus += fmt.Sprintf(" of %d online", env.OnlineCPUs)
			}
			add("CPUs", cpus)
			m.OnlineCPUs = max(m.OnlineCPUs, env.OnlineCPUs, env.CPUs)
			if len(env.Governors) > 0 {
				add("cpufreq governor", strings.Join(uniqueInOrder(env.Governors), ", "))
			}
			var tsc []string
			for _, f := range []struct {
				on   bool
				name string
			}{{env.ConstantTSC, "constant_tsc"}, {env.NonstopTSC, "nonstop_tsc"}, {env.RDTSCP, "rdtscp"}, {env.TSCKnownFreq, "tsc_known_freq"}} {
				if f.on {
					tsc = append(tsc, f.name)
				}
			}
			add("TSC flags", strings.Join(tsc, " "))
			add("kernel", env.Kernel)
		}
		add("MPI library", md.MPILibrary)
		thread := md.MPIThreadProvided
		if md.MPIThreadRequested != "" && md.MPIThreadRequested != md.MPIThreadProvided {
			thread = fmt.Sprintf("%s (requested %s)", md.MPIThreadProvided, md.MPIThreadRequested)
		}
		add("MPI thread level", thread)
		add("processes (np)", strconv.Itoa(md.Np))
		if hasEnv {
			add("Go", fmt.Sprintf("%s %s/%s, GOMAXPROCS %d", env.GoVersion, env.GOOS, env.GOARCH, env.GOMAXPROCS))
			add("C compiler", env.CCompiler)
			commit := env.GitCommit
			if commit != "" && env.GitModified == "true" {
				commit += " (modified)"
			}
			add("benchmark source", strings.TrimSpace(env.ModulePath+" "+env.ModuleVersion+" "+commit))
			if tags := env.BuildSettings["-tags"]; tags != "" {
				add("build tags", tags)
			}
			for _, u := range env.Unavailable {
				unavail[u] = true
			}
			envs = append(envs, env.MPIEnv)
		} else {
			unavail["environment: not in the sidecar of "+md.RunID+" mpirun "+strconv.Itoa(md.Mpirun)] = true
		}
		addProvenance(add, md)
		add("timer", clockName(md))
		add("noise probe", noiseProbe(md.Flags["noise-guard-seed"]))
	}
	for _, id := range sortedKeys(s.Manifests) {
		man := s.Manifests[id]
		add("launcher", strings.Join(man.Launcher, " "))
		if len(man.Batch) > 0 {
			add("batch system", strings.Join(man.Batch, " "))
		}
	}
	if vals["noise probe"] == nil {
		add("noise probe", "none recorded (reprobench noise --json measures one; run --noise-guard-seed FILE records it)")
	}
	for _, n := range order {
		m.Facts = append(m.Facts, Fact{Name: n, Values: sortedKeys(vals[n])})
	}
	m.Nodes = len(nodes)
	m.Unavailable = sortedKeys(unavail)
	m.MPIEnv = commonEnv(envs)
	m.Flags = runFlags(s.metas())
	m.Commands = reproduce(s)
	return m
}

// perMpirunFlags differ between the mpiruns of a campaign by design.
var perMpirunFlags = map[string]bool{"mpirun": true, "seed": true}

// runFlags merges the flags of the mpiruns.
func runFlags(metas []*rawdata.Metadata) map[string]string {
	vals := map[string]map[string]bool{}
	for _, md := range metas {
		for k, v := range md.Flags {
			if perMpirunFlags[k] {
				continue
			}
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
			vals[k][v] = true
		}
	}
	out := map[string]string{}
	for k, vs := range vals {
		out[k] = strings.Join(sortedKeys(vs), " | ")
	}
	return out
}

// noiseProbe summarizes the "reprobench noise --json" file a run was
// seeded with, read generically: its file name, what share of windowed
// observations its noise must make late, and the periodic sources found.
func noiseProbe(path string) string {
	if path == "" {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return path + " (not readable here: " + err.Error() + ")"
	}
	var n map[string]any
	if json.Unmarshal(b, &n) != nil {
		return path + " (not JSON)"
	}
	parts := []string{path}
	if v, ok := n["expected_late_fraction"].(float64); ok {
		parts = append(parts, fmt.Sprintf("%.3g%% of windowed observations expected late", 100*v))
	}
	if v, ok := n["simultaneous_fraction"].(float64); ok {
		parts = append(parts, fmt.Sprintf("%.3g%% of the detour time on every CPU at once", 100*v))
	}
	if v, ok := n["periodic_sources"].([]any); ok {
		parts = append(parts, fmt.Sprintf("%d periodic sources", len(v)))
	}
	return strings.Join(parts, "; ")
}

// clockName names the timer a mpirun used: "monotonic (monotonic)".
func clockName(md *rawdata.Metadata) string {
	var c timing.Measurement
	if len(md.Clock) == 0 || json.Unmarshal(md.Clock, &c) != nil {
		return ""
	}
	if c.Source != "" && c.Source != c.Name {
		return c.Name + " (" + c.Source + ")"
	}
	return c.Name
}

func uniqueInOrder(x []string) []string {
	var out []string
	for _, v := range x {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// volatileEnv are the parts of MPI variable names that identify one
// process, job or session rather than configure the library.
var volatileEnv = []string{"RANK", "JOBID", "_URI", "URI2", "URI3", "URI4", "_ID", "VPID", "SESSION", "TMPDIR", "_DIR", "PID", "ARGV",
	"NAMESPACE", "HOSTNAME", "LOCATION", "PRECONDITION", "NODE_RANK", "LOCAL_RANK", "BASE_PATH", "DSTORE", "SERVER_URI", "_HNP_", "DAEMON"}

// commonEnv returns the variables every environment has with the same
// value, without the volatile ones.
func commonEnv(envs []map[string]string) map[string]string {
	if len(envs) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range envs[0] {
		volatile := false
		for _, p := range volatileEnv {
			if strings.Contains(strings.ToUpper(k), p) {
				volatile = true
				break
			}
		}
		if volatile {
			continue
		}
		same := true
		for _, e := range envs[1:] {
			if e[k] != v {
				same = false
				break
			}
		}
		if same {
			out[k] = v
		}
	}
	return out
}

// reproduce returns the commands that remake a side's campaign: the
// design, the launch (rebuilt from the manifest), and the exact command of
// the first mpirun; for files of single runs, each run's command line.
func reproduce(s *Side) []Command {
	var out []Command
	for _, p := range sortedKeys(s.DesignCommands) {
		if c := s.DesignCommands[p]; c != "" {
			out = append(out, Command{What: "the design (" + p + ")", Line: c})
		}
	}
	covered := map[string]bool{}
	for _, id := range sortedKeys(s.Manifests) {
		man := s.Manifests[id]
		covered[id] = true
		args := []string{"reprobench", "launch"}
		if len(man.Program) > 0 {
			args = append(args, "--exe", man.Program[0])
		}
		if man.DesignFile != "" {
			args = append(args, "--design", man.DesignFile)
		}
		args = append(args, "--mpiruns", strconv.Itoa(man.Mpiruns), "--np", strconv.Itoa(man.Np),
			"--launcher", strings.Join(man.Launcher, " "), "--out", man.Dir, "--run-id", man.RunID,
			"--seed", strconv.FormatUint(man.Seed, 10))
		if len(man.Batch) > 0 {
			args = append(args, "--batch", strings.Join(man.Batch, " "))
			if man.Array {
				args = append(args, "--array")
			}
		}
		args = append(args, "--")
		args = append(args, man.RunArgs...)
		what := fmt.Sprintf("the campaign %s: %d mpiruns (rebuilt from its manifest)", id, man.Mpiruns)
		if man.DesignSHA256 != "" {
			what += "; the design's SHA-256 was " + man.DesignSHA256
		}
		out = append(out, Command{What: what, Line: shellJoin(args)})
		if len(man.Runs) > 0 {
			out = append(out, Command{What: fmt.Sprintf("mpirun 0 of %s exactly as it ran (the others differ in --mpirun and --seed)", id),
				Line: shellJoin(man.Runs[0].Argv)})
		}
	}
	for _, md := range s.metas() {
		if covered[md.RunID] || len(md.Args) == 0 {
			continue
		}
		if argv := launcherArgv(md); len(argv) > 0 {
			out = append(out, Command{What: fmt.Sprintf("%s mpirun %d (its launcher's command line, recorded)", md.RunID, md.Mpirun), Line: shellJoin(argv)})
			continue
		}
		line := shellJoin(md.Args)
		if md.Np > 0 {
			line = "mpirun -np " + strconv.Itoa(md.Np) + " " + line
		}
		out = append(out, Command{What: fmt.Sprintf("%s mpirun %d (its arguments; the launcher was not recorded)", md.RunID, md.Mpirun), Line: line})
	}
	return out
}

// shellJoin joins args into one line for a POSIX shell, quoting only the
// words that need it.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellWord(a)
	}
	return strings.Join(q, " ")
}

func shellWord(a string) string {
	if a == "" {
		return "''"
	}
	safe := true
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
