package analysis

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/rawdata"
)

// RegionOptions configures the analysis of an application's regions
// (AnalyzeRegionRun).
type RegionOptions struct {
	// Compute names the regions that are useful computation for the POP
	// efficiencies; empty: those the sidecar marks (regions.compute).
	Compute []string
	// RateErr is the largest relative error of a rank's clock rate, the
	// same for every clock (ρ: a duration d on it is off by at most ρ·d).
	RateErr float64
	// ResolutionS is the error of one duration from the clock's
	// resolution, seconds (one tick per pair of readings).
	ResolutionS float64
	// MaxWidth is the widest interval (hi − lo) of an efficiency that the
	// analysis still reports as a conclusion; a wider one is "too wide to
	// conclude".
	MaxWidth float64
}

// DefaultRegionOptions: ρ = 500 ppm, the largest rate correction the
// kernel's clock discipline applies to CLOCK_MONOTONIC (adjtimex's
// MAXFREQ), 1 ns per duration, and intervals up to 0.1 wide (±0.05).
var DefaultRegionOptions = RegionOptions{RateErr: 500e-6, ResolutionS: 1e-9, MaxWidth: 0.1}

// maxKeptDurations is how many per-rank durations the analysis keeps for
// the per-rank medians (RegionTotal.MedianS): 32 MiB.
const maxKeptDurations = 4 << 20

// RegionTotal is one (region, labels) of a run: each rank's total time in
// it (the sum of its own-clock durations), seconds.
type RegionTotal struct {
	Region string
	Labels string // canonical "k=v,…" beside the region's name; "" none
	// PerRankS is each rank's total, indexed by rank (NaN: the rank did
	// not record it); nil when only the sidecar's totals were read.
	PerRankS []float64
	// Count is each rank's number of occurrences (nil with PerRankS nil).
	Count []int
	// MedianS is each rank's median duration of one occurrence, seconds;
	// nil without per-rank rows or past maxKeptDurations rows.
	MedianS []float64
	// Ranks is the number of ranks that recorded it; SumS, MaxS, MinS and
	// MeanS the statistics of their totals.
	Ranks                   int
	SumS, MaxS, MinS, MeanS float64
	// Imbalance is MaxS / MeanS (1: balanced).
	Imbalance float64
}

// Name is the region in the application's vocabulary: "compute", or
// "compute [phase=x]" with its grouping labels.
func (t RegionTotal) Name() string {
	if t.Labels == "" {
		return t.Region
	}
	return t.Region + " [" + strings.ReplaceAll(t.Labels, ",", " ") + "]"
}

// Efficiency is one POP efficiency with the interval the stated clock
// bounds allow (RegionRunAnalysis.POP); every value is in [0, 1].
type Efficiency struct {
	Value, Lo, Hi float64
	// TooWide is set when Hi − Lo exceeds RegionOptions.MaxWidth: the
	// clocks do not allow a conclusion.
	TooWide bool
}

// String is "0.750 [0.749, 0.751]", with "too wide to conclude" when so.
func (e Efficiency) String() string {
	if math.IsNaN(e.Value) {
		return "unknown"
	}
	s := fmt.Sprintf("%.3f [%.3f, %.3f]", e.Value, e.Lo, e.Hi)
	if e.TooWide {
		s += " too wide to conclude"
	}
	return s
}

// POP holds the POP Centre of Excellence's efficiencies of a run from the
// regions marked as computation: with u_r a rank's useful time (its total
// in those regions) and T the run's span, load balance LB = mean(u)/max(u),
// communication efficiency CommE = max(u)/T and parallel efficiency
// PE = LB·CommE = mean(u)/T.
type POP struct {
	Compute                                         []string
	UsefulMeanS, UsefulMaxS                         float64
	LoadBalance, CommEfficiency, ParallelEfficiency Efficiency
	// TypicalLoadBalance is the load balance of typical occurrences:
	// LB with u_r = Σ median duration × count over the compute regions,
	// so that a few long occurrences (a rank descheduled by other
	// processes, a page fault) do not weigh as in the totals; NaN without
	// the per-rank medians. Its interval allows ρ and the resolution.
	TypicalLoadBalance Efficiency
}

// RegionRunAnalysis is the analysis of one mpirun of application regions.
type RegionRunAnalysis struct {
	ID MpirunID
	Np int
	// Source is "per-rank rows" or "sidecar totals".
	Source string
	// Incomplete marks a run read back after it died before Close.
	Incomplete bool
	Misuse     rawdata.RegionMisuse
	// RunS is the run's span: the latest global end of a record minus the
	// earliest global start, seconds; RunErrS the error the stated clock
	// bounds allow on it (Inf: no global times, RunS is then the longest
	// rank's own-clock span, a lower bound).
	RunS, RunErrS float64
	Totals        []RegionTotal
	POP           *POP // nil without regions marked as computation
	Notes         []string
	// Options are the options the analysis ran with.
	Options RegionOptions

	runLabels []string // the run-wide labels (sidecar labels)
}

// Share is a region's mean total over the ranks as a share of the run.
func (a *RegionRunAnalysis) Share(t RegionTotal) float64 { return t.MeanS / a.RunS }

// ReadRegionRuns analyzes every mpirun of d whose sidecar has a regions
// record (found as ReadWindowBaselines finds sidecars), from its per-rank
// file when the sidecar names one that exists, else from the sidecar's
// totals. A sidecar or per-rank file that cannot be read is an error.
func ReadRegionRuns(d *Dataset, opt RegionOptions) ([]*RegionRunAnalysis, error) {
	var dirs []string
	for _, f := range d.Files {
		if dir := filepath.Dir(f); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	var out []*RegionRunAnalysis
	for _, id := range d.Mpiruns {
		for _, dir := range dirs {
			path := rawdata.SidecarPath(dir, id.RunID, id.Mpirun)
			m, err := rawdata.ReadMetadata(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if len(m.Regions) == 0 {
				break
			}
			ranks := ""
			if f := m.Files["per_rank"]; f != "" {
				ranks = filepath.Join(dir, f)
			}
			a, err := AnalyzeRegionRun(id, m, ranks, opt)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
			break
		}
	}
	return out, nil
}

// AnalyzeRegionRun analyzes one mpirun of application regions from its
// sidecar m and, when ranksPath names a per-rank file that exists, the
// per-rank rows of mpirun id in it (every row whose local times are
// numbers counts, whatever its errorcode: a rank's time in a region is
// its own, whether the other ranks recorded that occurrence or not).
//
// # The intervals
//
// A rank's total u_r is a sum of n_r durations, each the difference of two
// readings of the rank's OWN clock: no clock synchronization enters it,
// and its error is at most ρ·u_r + n_r·res (RateErr, ResolutionS). The
// run's span T is a difference of two GLOBAL times, the earliest start
// (on some rank a) and the latest end (on some rank b); each global time
// is off by at most its rank's stated bound B, so T is off by at most
// B_a + B_b ≤ B1 + B2 (the two largest stated bounds; twice the largest
// when only that is known) plus ρ·T for the reference clock's rate. The
// minimum and maximum over ranks move by no more than their arguments do,
// so the bounds hold for them. The efficiencies are monotone in u and T,
// so each interval is the efficiency at the extremes:
//
//	LB    ∈ [mean(u−e)/max(u+e), mean(u+e)/max(u−e)]
//	CommE ∈ [max(u−e)/(T+eT),    max(u+e)/(T−eT)]
//	PE    ∈ [mean(u−e)/(T+eT),   mean(u+e)/(T−eT)]
//
// each clipped to [0, 1] (a true efficiency is at most 1). From the
// sidecar's totals alone, per-rank u is not known: mean(u) is the sum of
// the compute regions' sum_s over the ranks, and max(u) lies between the
// largest of their max_s (and the mean) and the sum of their max_s, which
// widens LB and CommE when more than one region is marked. Without global
// times (unsynchronized clocks, or a rank with no stated bound), T is only
// known to be at least the longest rank's own-clock span: CommE and PE
// are then too wide to conclude, LB stands.
func AnalyzeRegionRun(id MpirunID, m *rawdata.Metadata, ranksPath string, opt RegionOptions) (*RegionRunAnalysis, error) {
	rr, err := rawdata.ParseRegionRun(m.Regions)
	if err != nil {
		return nil, fmt.Errorf("analysis: %s mpirun %d: %w", id.RunID, id.Mpirun, err)
	}
	a := &RegionRunAnalysis{ID: id, Np: m.Np, Incomplete: rr.Incomplete, Misuse: rr.Misuse, RunS: math.NaN(), RunErrS: math.Inf(1), Options: opt}
	for k := range m.Labels {
		a.runLabels = append(a.runLabels, k)
	}
	bounds := rr.PerRankBoundS
	twoB := 2 * rr.BoundS
	if len(bounds) > 0 {
		twoB = sumTwoLargest(bounds)
	}
	have := false
	if ranksPath != "" {
		f, err := os.Open(ranksPath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("analysis: %w", err)
		}
		if err == nil {
			err = a.readRankRows(f, id, twoB, opt)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("analysis: %s: %w", ranksPath, err)
			}
			have = true
			a.Source = "per-rank rows"
		}
	}
	if !have {
		a.Source = "sidecar totals"
		for _, t := range rr.Totals {
			rt := RegionTotal{Region: t.Region, Labels: t.Labels, Ranks: t.Ranks, SumS: t.SumS, MaxS: t.MaxS, MinS: t.MinS}
			rt.MeanS = t.SumS / float64(t.Ranks)
			rt.Imbalance = rt.MaxS / rt.MeanS
			a.Totals = append(a.Totals, rt)
		}
		if !math.IsNaN(rr.RunS) {
			a.RunS = rr.RunS
			if !math.IsNaN(twoB) {
				a.RunErrS = twoB + opt.RateErr*rr.RunS
			}
		}
	}
	if len(a.Totals) == 0 {
		a.Notes = append(a.Notes, "no region totals: the sidecar has none and no per-rank rows were found")
	}
	compute := opt.Compute
	if len(compute) == 0 {
		compute = rr.Compute
	}
	if len(compute) > 0 {
		a.POP = a.pop(compute, opt)
	}
	if math.IsInf(a.RunErrS, 1) && !math.IsNaN(a.RunS) {
		a.Notes = append(a.Notes, "no global times with a stated bound: the run's span is the longest rank's own-clock span, a lower bound")
	}
	return a, nil
}

// sumTwoLargest is the sum of the two largest of b; NaN when any is NaN
// (a rank without a stated bound), 0 for fewer than two.
func sumTwoLargest(b []float64) float64 {
	x, y := 0.0, 0.0
	for _, v := range b {
		if math.IsNaN(v) {
			return math.NaN()
		}
		if v > x {
			x, y = v, x
		} else if v > y {
			y = v
		}
	}
	return x + y
}

// readRankRows accumulates the per-rank rows of id from r: totals per
// (region, labels) and rank, and the run's span.
func (a *RegionRunAnalysis) readRankRows(r io.Reader, id MpirunID, twoB float64, opt RegionOptions) error {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<16))
	cr.ReuseRecord = true
	hdr, err := cr.Read()
	if err != nil {
		return err
	}
	hdr = slices.Clone(hdr)
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	need := []string{"run_id", "mpirun", "rank", "local_start_s", "local_end_s", "global_start_s", "global_end_s", rawdata.RegionLabel}
	if m := missing(col, need); len(m) > 0 {
		return fmt.Errorf("%w: missing column(s) %s", errFormat, strings.Join(m, ", "))
	}
	var labels []int // grouping labels: label columns but the region's and run-wide ones
	for i, h := range hdr {
		if !slices.Contains(perRankColumns, h) && h != rawdata.RegionLabel {
			labels = append(labels, i)
		}
	}
	slices.SortFunc(labels, func(x, y int) int { return strings.Compare(hdr[x], hdr[y]) })
	np := max(a.Np, 1)
	type acc struct {
		sum []float64
		n   []int
		d   [][]float64 // durations per rank, while kept < maxKeptDurations
	}
	kept := 0
	byKey := map[[2]string]*acc{}
	var order [][2]string
	lo, hi := make([]float64, np), make([]float64, np) // own-clock span per rank
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	gLo, gHi, globalOK := math.Inf(1), math.Inf(-1), true
	cRun, cMp, cRank, cLS, cLE, cGS, cGE, cReg := col["run_id"], col["mpirun"], col["rank"], col["local_start_s"], col["local_end_s"], col["global_start_s"], col["global_end_s"], col[rawdata.RegionLabel]
	mp := strconv.Itoa(id.Mpirun)
	var kb strings.Builder
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if rec[cRun] != id.RunID || rec[cMp] != mp {
			continue
		}
		rank, err := strconv.Atoi(rec[cRank])
		if err != nil || rank < 0 {
			return fmt.Errorf("%w: rank %q", errFormat, rec[cRank])
		}
		ls, err1 := ParseDecimal(rec[cLS])
		le, err2 := ParseDecimal(rec[cLE])
		if err1 != nil || err2 != nil || math.IsNaN(le-ls) || le < ls {
			continue
		}
		for rank >= len(lo) {
			lo, hi = append(lo, math.Inf(1)), append(hi, math.Inf(-1))
		}
		lo[rank], hi[rank] = math.Min(lo[rank], ls), math.Max(hi[rank], le)
		gs, err1 := ParseDecimal(rec[cGS])
		ge, err2 := ParseDecimal(rec[cGE])
		if err1 != nil || err2 != nil || math.IsNaN(gs) || math.IsNaN(ge) {
			globalOK = false
		} else {
			gLo, gHi = math.Min(gLo, gs), math.Max(gHi, ge)
		}
		kb.Reset()
		for _, i := range labels {
			if v := rec[i]; v != "" && !a.runWide(hdr[i]) {
				if kb.Len() > 0 {
					kb.WriteByte(',')
				}
				kb.WriteString(hdr[i] + "=" + v)
			}
		}
		k := [2]string{rec[cReg], kb.String()}
		t, ok := byKey[k]
		if !ok {
			k = [2]string{strings.Clone(k[0]), k[1]}
			t = &acc{}
			byKey[k] = t
			order = append(order, k)
		}
		for rank >= len(t.sum) {
			t.sum, t.n, t.d = append(t.sum, 0), append(t.n, 0), append(t.d, nil)
		}
		t.sum[rank] += le - ls
		t.n[rank]++
		if kept < maxKeptDurations {
			t.d[rank] = append(t.d[rank], le-ls)
		}
		kept++
	}
	n := len(lo)
	for _, k := range order {
		t := byKey[k]
		rt := RegionTotal{Region: k[0], Labels: k[1], PerRankS: make([]float64, n), Count: make([]int, n), MaxS: math.Inf(-1), MinS: math.Inf(1)}
		if kept <= maxKeptDurations {
			rt.MedianS = make([]float64, n)
		}
		for r := range n {
			rt.PerRankS[r] = math.NaN()
			if r < len(t.n) && t.n[r] > 0 {
				rt.PerRankS[r], rt.Count[r] = t.sum[r], t.n[r]
				if rt.MedianS != nil {
					rt.MedianS[r] = Median(t.d[r])
				}
				rt.Ranks++
				rt.SumS += t.sum[r]
				rt.MaxS, rt.MinS = math.Max(rt.MaxS, t.sum[r]), math.Min(rt.MinS, t.sum[r])
			}
		}
		rt.MeanS = rt.SumS / float64(rt.Ranks)
		rt.Imbalance = rt.MaxS / rt.MeanS
		a.Totals = append(a.Totals, rt)
	}
	if globalOK && gHi >= gLo && !math.IsNaN(twoB) {
		a.RunS, a.RunErrS = gHi-gLo, twoB+opt.RateErr*(gHi-gLo)
		return nil
	}
	span := math.NaN()
	for r := range lo {
		if hi[r] >= lo[r] {
			span = math.Max(nanTo(span, 0), hi[r]-lo[r])
		}
	}
	a.RunS, a.RunErrS = span, math.Inf(1)
	return nil
}

// runWide reports whether label name is one of the columns every region
// row of a run carries alike (Output.Labels and the factor columns); the
// grouping labels of SetLabel are the others. Without the sidecar's
// labels, every label column but the factor ones groups.
func (a *RegionRunAnalysis) runWide(name string) bool {
	return slices.Contains(rawdata.FactorColumns, name) || slices.Contains(a.runLabels, name)
}

func nanTo(x, v float64) float64 {
	if math.IsNaN(x) {
		return v
	}
	return x
}

// pop computes the POP efficiencies from the totals of the regions named
// in compute (AnalyzeRegionRun states the intervals).
func (a *RegionRunAnalysis) pop(compute []string, opt RegionOptions) *POP {
	p := &POP{Compute: compute}
	nan := Efficiency{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	p.LoadBalance, p.CommEfficiency, p.ParallelEfficiency, p.TypicalLoadBalance = nan, nan, nan, nan
	var sel []RegionTotal
	for _, t := range a.Totals {
		if slices.Contains(compute, t.Region) {
			sel = append(sel, t)
		}
	}
	if len(sel) == 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("no region named %s was recorded: no POP efficiencies", strings.Join(compute, ", ")))
		return p
	}
	var mean, meanLo, meanHi, mx, mxLo, mxHi float64
	if sel[0].PerRankS != nil {
		n := len(sel[0].PerRankS)
		u, e := make([]float64, n), make([]float64, n)
		for _, t := range sel {
			for r, v := range t.PerRankS {
				if !math.IsNaN(v) {
					u[r] += v
					e[r] += opt.RateErr*v + float64(t.Count[r])*opt.ResolutionS
				}
			}
		}
		for r := range u {
			mean, meanLo, meanHi = mean+u[r], meanLo+math.Max(0, u[r]-e[r]), meanHi+u[r]+e[r]
			mx, mxLo, mxHi = math.Max(mx, u[r]), math.Max(mxLo, u[r]-e[r]), math.Max(mxHi, u[r]+e[r])
		}
		mean, meanLo, meanHi = mean/float64(n), meanLo/float64(n), meanHi/float64(n)
	} else {
		n := float64(a.Np)
		for _, t := range sel {
			mean += t.SumS / n
			mx = math.Max(mx, t.MaxS)
			mxHi += t.MaxS
		}
		mxLo = math.Max(mx, mean)
		if len(sel) > 1 {
			mx = (mxLo + mxHi) / 2
		} else {
			mx = mxLo
		}
		meanLo, meanHi = mean*(1-opt.RateErr), mean*(1+opt.RateErr)
		mxLo, mxHi = mxLo*(1-opt.RateErr), mxHi*(1+opt.RateErr)
	}
	p.UsefulMeanS, p.UsefulMaxS = mean, mx
	eff := func(v, lo, hi float64) Efficiency {
		clip := func(x float64) float64 { return math.Max(0, math.Min(1, nanTo(x, 1))) }
		e := Efficiency{Value: clip(v), Lo: clip(lo), Hi: clip(hi)}
		e.TooWide = e.Hi-e.Lo > opt.MaxWidth
		return e
	}
	p.LoadBalance = eff(mean/mx, meanLo/mxHi, meanHi/mxLo)
	if typ := typicalLB(sel, opt); typ != nil {
		p.TypicalLoadBalance = eff(typ[0], typ[1], typ[2])
	}
	T, eT := a.RunS, a.RunErrS
	if math.IsNaN(T) {
		return p
	}
	tHi, tLo := T+eT, T-eT
	upper := func(x float64) float64 {
		if tLo <= 0 {
			return 1
		}
		return x / tLo
	}
	p.CommEfficiency = eff(mx/T, mxLo/tHi, upper(mxHi))
	p.ParallelEfficiency = eff(mean/T, meanLo/tHi, upper(meanHi))
	return p
}

// typicalLB is the load balance from per-rank median × count over sel
// and its interval (value, lo, hi), nil without medians.
func typicalLB(sel []RegionTotal, opt RegionOptions) []float64 {
	if sel[0].MedianS == nil {
		return nil
	}
	n := len(sel[0].MedianS)
	u, e := make([]float64, n), make([]float64, n)
	for _, t := range sel {
		if t.MedianS == nil {
			return nil
		}
		for r, m := range t.MedianS {
			if t.Count[r] > 0 {
				v := m * float64(t.Count[r])
				u[r] += v
				e[r] += opt.RateErr*v + float64(t.Count[r])*opt.ResolutionS
			}
		}
	}
	var mean, meanLo, meanHi, mx, mxLo, mxHi float64
	for r := range u {
		mean, meanLo, meanHi = mean+u[r], meanLo+math.Max(0, u[r]-e[r]), meanHi+u[r]+e[r]
		mx, mxLo, mxHi = math.Max(mx, u[r]), math.Max(mxLo, u[r]-e[r]), math.Max(mxHi, u[r]+e[r])
	}
	k := float64(n)
	return []float64{mean / k / mx, meanLo / k / mxHi, meanHi / k / mxLo}
}
