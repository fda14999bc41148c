package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// defaultRegionIters is the number of iterations the timeline of a region
// run shows when Options.RegionIters is not set: starting at the middle
// iteration of the run, away from the warm-up.
const defaultRegionIters = 4

// RegionRun is one mpirun of application regions (package region): its
// per-rank timeline for a slice of iterations, and per region the spread
// of the ranks' entries with the clock's stated bound.
type RegionRun struct {
	ID analysis.MpirunID
	Np int
	// BoundS is each rank's stated global clock error bound, seconds
	// (NaN: unknown); Synced is false when the clocks were not
	// synchronized (no global times).
	BoundS []float64
	Synced bool
	// From and To are the iterations shown, [From, To).
	From, To int64
	Spans    []RegionSpan
	Entry    []EntrySpread
	Regions  []string // names, in order of first appearance
	// Analysis is where the time went: totals per region and rank, load
	// imbalance, the POP efficiencies, the misuse account (nil: not read).
	Analysis *analysis.RegionRunAnalysis
}

// RegionSpan is one rank's occurrence of a region, global seconds.
type RegionSpan struct {
	Rank   int
	Region string
	Iter   int64
	StartS float64
	EndS   float64
	Depth  int // 0 at the top; from containment on the rank
}

// EntrySpread summarizes entry_spread_s (latest minus earliest global
// start over the ranks) of one region's complete occurrences; BoundS is
// the error the clocks allow on it, the sum of the two largest ranks'
// stated bounds (twice the largest when the sidecar lists only rank 0's;
// NaN when some rank stated none).
type EntrySpread struct {
	Region                 string
	N                      int
	MedianS, P90S, MaxS    float64
	BoundS                 float64
	MedianRuntimeS, Labels string
}

// regionsRecord is the part of package region's sidecar Record that the
// report reads (kept generic: the report does not import the recorder).
type regionsRecord struct {
	Sync string `json:"sync"`
	// BoundS is the largest rank's stated bound (absent: none stated),
	// the allowance's source when per_rank lacks ranks.
	BoundS  *float64 `json:"bound_s"`
	PerRank []struct {
		Rank   int      `json:"rank"`
		BoundS *float64 `json:"bound_s"`
	} `json:"per_rank"`
}

// loadRegions reads, for one mpirun whose sidecar has a region record, the
// raw rows of rawPath and the per-rank file beside it, keeping iterations
// [from, to) for the timeline (from < 0: defaultRegionIters, 4, from the middle).
func loadRegions(rawPath string, id analysis.MpirunID, md *rawdata.Metadata, from, to int64) (*RegionRun, error) {
	var rec regionsRecord
	if err := json.Unmarshal(md.Regions, &rec); err != nil {
		return nil, fmt.Errorf("region record of %s mpirun %d: %w", id.RunID, id.Mpirun, err)
	}
	run := &RegionRun{ID: id, Np: md.Np, BoundS: make([]float64, md.Np), Synced: rec.Sync != "none" && rec.Sync != ""}
	for i := range run.BoundS {
		run.BoundS[i] = math.NaN()
	}
	for _, p := range rec.PerRank {
		if p.BoundS != nil && p.Rank >= 0 && p.Rank < md.Np {
			run.BoundS[p.Rank] = *p.BoundS
		}
	}
	// Raw rows: (exp, rep) → iteration; per region the entry spreads.
	type occ struct{ exp, rep int }
	iters := map[occ]int64{}
	spreads := map[string][]float64{}
	runtimes := map[string][]float64{}
	minIter, maxIter := int64(math.MaxInt64), int64(math.MinInt64)
	err := readCSV(rawPath, []string{"run_id", "mpirun", "exp", "rep", "errorcode", "runtime_s", "region", "iter", "entry_spread_s"},
		func(v []string) {
			if v[0] != id.RunID || v[1] != strconv.Itoa(id.Mpirun) {
				return
			}
			exp, _ := strconv.Atoi(v[2])
			rep, _ := strconv.Atoi(v[3])
			it, _ := strconv.ParseInt(v[7], 10, 64)
			iters[occ{exp, rep}] = it
			minIter, maxIter = min(minIter, it), max(maxIter, it)
			if !slices.Contains(run.Regions, v[6]) {
				run.Regions = append(run.Regions, v[6])
			}
			if v[4] != "0" {
				return
			}
			if s, err := strconv.ParseFloat(v[8], 64); err == nil && !math.IsNaN(s) {
				spreads[v[6]] = append(spreads[v[6]], s)
			}
			if s, err := strconv.ParseFloat(v[5], 64); err == nil {
				runtimes[v[6]] = append(runtimes[v[6]], s)
			}
		})
	if err != nil {
		return nil, err
	}
	if from < 0 || to <= from {
		mid := minIter + (maxIter-minIter)/2
		from, to = mid, mid+defaultRegionIters
	}
	run.From, run.To = from, to
	b2 := twoLargest(run.BoundS)
	if math.IsNaN(b2) && rec.BoundS != nil {
		// per_rank holds rank 0 only (no per-rank rows were asked for):
		// twice the largest bound covers the sum of the two largest.
		b2 = 2 * *rec.BoundS
	}
	for _, name := range run.Regions {
		s := slices.Clone(spreads[name])
		slices.Sort(s)
		e := EntrySpread{Region: name, N: len(s), BoundS: b2, MedianS: math.NaN(), P90S: math.NaN(), MaxS: math.NaN()}
		if len(s) > 0 {
			e.MedianS, e.P90S, e.MaxS = s[len(s)/2], s[int(0.9*float64(len(s)-1))], s[len(s)-1]
		}
		rt := slices.Clone(runtimes[name])
		slices.Sort(rt)
		if len(rt) > 0 {
			e.MedianRuntimeS = fmtSeconds(rt[len(rt)/2])
		}
		run.Entry = append(run.Entry, e)
	}
	ranks := md.Files["per_rank"]
	if ranks == "" || !run.Synced {
		return run, nil
	}
	err = readCSV(filepath.Join(filepath.Dir(rawPath), ranks), []string{"run_id", "mpirun", "exp", "rep", "rank", "global_start_s", "global_end_s", "region"},
		func(v []string) {
			if v[0] != id.RunID || v[1] != strconv.Itoa(id.Mpirun) {
				return
			}
			exp, _ := strconv.Atoi(v[2])
			rep, _ := strconv.Atoi(v[3])
			it, ok := iters[occ{exp, rep}]
			if !ok || it < from || it >= to {
				return
			}
			rank, _ := strconv.Atoi(v[4])
			gs, err1 := strconv.ParseFloat(v[5], 64)
			ge, err2 := strconv.ParseFloat(v[6], 64)
			if err1 != nil || err2 != nil || math.IsNaN(gs) || math.IsNaN(ge) {
				return
			}
			run.Spans = append(run.Spans, RegionSpan{Rank: rank, Region: v[7], Iter: it, StartS: gs, EndS: ge})
		})
	if err != nil {
		return nil, err
	}
	nest(run.Spans)
	return run, nil
}

// nest sets each span's depth from containment among the spans of its rank.
func nest(spans []RegionSpan) {
	slices.SortStableFunc(spans, func(a, b RegionSpan) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		switch {
		case a.StartS < b.StartS:
			return -1
		case a.StartS > b.StartS:
			return 1
		}
		return 0
	})
	var ends []float64
	rank := -1
	for i := range spans {
		if spans[i].Rank != rank {
			rank, ends = spans[i].Rank, ends[:0]
		}
		for len(ends) > 0 && ends[len(ends)-1] <= spans[i].StartS {
			ends = ends[:len(ends)-1]
		}
		spans[i].Depth = len(ends)
		ends = append(ends, spans[i].EndS)
	}
}

func twoLargest(b []float64) float64 {
	s := slices.Clone(b)
	slices.SortFunc(s, func(x, y float64) int { // NaN first, then descending
		switch {
		case math.IsNaN(x) && !math.IsNaN(y):
			return -1
		case math.IsNaN(y) && !math.IsNaN(x):
			return 1
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	switch len(s) {
	case 0:
		return math.NaN()
	case 1:
		return s[0]
	}
	return s[0] + s[1]
}

// readCSV calls fn with the values of cols of every data row of the
// unquoted CSV file path (package rawdata's format).
func readCSV(path string, cols []string, fn func(v []string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	if !sc.Scan() {
		return fmt.Errorf("%s: no header", path)
	}
	hdr := strings.Split(strings.TrimPrefix(sc.Text(), "\ufeff"), ",")
	idx := make([]int, len(cols))
	for i, c := range cols {
		if idx[i] = slices.Index(hdr, c); idx[i] < 0 {
			return fmt.Errorf("%s: no column %s", path, c)
		}
	}
	v := make([]string, len(cols))
	for sc.Scan() {
		rec := strings.Split(sc.Text(), ",")
		if len(rec) != len(hdr) || rec[0] == hdr[0] {
			continue
		}
		for i, j := range idx {
			v[i] = rec[j]
		}
		fn(v)
	}
	return sc.Err()
}

func fmtSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s == 0:
		return "0"
	case math.Abs(s) < 1e-6:
		return fmt.Sprintf("%.3g ns", s*1e9)
	case math.Abs(s) < 1e-3:
		return fmt.Sprintf("%.3g µs", s*1e6)
	case math.Abs(s) < 1:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g s", s)
}

var regionColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// timelineSVG draws the run's spans: one lane per rank, global time on
// the x axis (µs from the earliest start shown), one box per region
// occurrence (nested ones inset), and at each start a bar of ± the rank's
// stated clock bound.
func timelineSVG(run *RegionRun) template.HTML {
	if len(run.Spans) == 0 {
		return ""
	}
	const left, right, top, lane, width = 70.0, 20.0, 28.0, 34.0, 920.0
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, s := range run.Spans {
		t0, t1 = math.Min(t0, s.StartS), math.Max(t1, s.EndS)
	}
	if t1 <= t0 {
		t1 = t0 + 1e-9
	}
	x := func(t float64) float64 { return left + (t-t0)/(t1-t0)*(width-left-right) }
	h := top + float64(run.Np)*lane + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="timeline of regions per rank">`, width, h, width, h)
	b.WriteString(`<style>text{font:11px sans-serif;fill:#333}</style>`)
	for r := range run.Np {
		y := top + float64(r)*lane
		fmt.Fprintf(&b, `<text x="4" y="%.1f">rank %d</text>`, y+lane/2+4, r)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, width-right, y+lane-2, y+lane-2)
	}
	for _, s := range run.Spans {
		ci := slices.Index(run.Regions, s.Region)
		if ci < 0 {
			ci = 0
		}
		inset := 3.0 * float64(min(s.Depth, 4))
		y := top + float64(s.Rank)*lane + 2 + inset
		hh := lane - 6 - 2*inset
		x0, x1 := x(s.StartS), x(s.EndS)
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" stroke="#fff" stroke-width="0.5"><title>rank %d, %s, iteration %d: %s from %.3f µs</title></rect>`,
			x0, y, math.Max(x1-x0, 0.5), hh, regionColors[ci%len(regionColors)], s.Rank, template.HTMLEscapeString(s.Region), s.Iter, fmtSeconds(s.EndS-s.StartS), (s.StartS-t0)*1e6)
		if bd := run.BoundS[s.Rank]; bd > 0 && !math.IsNaN(bd) {
			bx0, bx1 := x(s.StartS-bd), x(s.StartS+bd)
			fmt.Fprintf(&b, `<line x1="%.2f" x2="%.2f" y1="%.1f" y2="%.1f" stroke="#000" stroke-width="1.5"/>`, bx0, bx1, y-1, y-1)
		}
	}
	// Axis: 5 ticks.
	ay := top + float64(run.Np)*lane + 4
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>`, left, width-right, ay, ay)
	for k := range 6 {
		t := t0 + float64(k)/5*(t1-t0)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/><text x="%.1f" y="%.1f" text-anchor="middle">%.2f µs</text>`,
			x(t), x(t), ay, ay+4, x(t), ay+16, (t-t0)*1e6)
	}
	// Legend.
	lx := left
	for i, name := range run.Regions {
		fmt.Fprintf(&b, `<rect x="%.1f" y="6" width="12" height="12" fill="%s"/><text x="%.1f" y="16">%s</text>`, lx, regionColors[i%len(regionColors)], lx+16, template.HTMLEscapeString(name))
		lx += 24 + 7*float64(len(name))
	}
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="12" y2="12" stroke="#000" stroke-width="1.5"/><text x="%.1f" y="16">± the rank's stated clock bound</text>`, lx, lx+14, lx+18)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
