package rawdata

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
)

// RegionTotals is one (region, labels) of a run of application regions
// (package region): the statistics over the ranks of each rank's TOTAL
// time in it, seconds, each rank's total being the sum of its own-clock
// durations (Begin to End on the rank's own clock) of every occurrence it
// recorded. It is an element of the sidecar's regions.totals list.
type RegionTotals struct {
	Region string `json:"region"`
	// Labels are the grouping labels, canonical "k=v,…" ("" for none).
	Labels string `json:"labels"`
	// Ranks is the number of ranks that recorded the region at least once.
	Ranks int `json:"ranks"`
	// SumS, MaxS and MinS are the sum, the largest and the smallest of
	// those ranks' totals, seconds.
	SumS float64 `json:"sum_s"`
	MaxS float64 `json:"max_s"`
	MinS float64 `json:"min_s"`
}

// RegionMisuse is the sidecar's account of what the region recorder could
// not record as asked (regions.misuse), summed over the ranks: what the
// recorder's Close prints on rank 0 in one line (String).
type RegionMisuse struct {
	// Misuses counts End without Begin, End of another name, and names or
	// labels refused when first seen.
	Misuses int64 `json:"misuses"`
	// Drops counts records dropped because a rank's buffer was full.
	Drops int64 `json:"drops"`
	// Unclosed counts regions still open at Close (not written).
	Unclosed int64 `json:"unclosed"`
	// Partial counts the occurrences that not every rank recorded (rows
	// with errorcode 16): a region entered on some ranks only, a
	// different number of times, or dropped on some.
	Partial int64 `json:"partial"`
	// Kinds counts the misuses per kind (the recorder's kind names), zero
	// kinds left out.
	Kinds map[string]int64 `json:"kinds,omitempty"`
	// First describes the first misuse of the lowest rank that had one,
	// "rank R: …"; "" when there was none.
	First string `json:"first,omitempty"`
}

// Any reports whether anything was misused, dropped, left open or
// recorded on some ranks only.
func (m RegionMisuse) Any() bool {
	return m.Misuses > 0 || m.Drops > 0 || m.Unclosed > 0 || m.Partial > 0
}

// String is the one-line account: "2 misuses, 0 dropped, 1 unclosed, 0
// occurrences not on every rank, end_without_begin 2; first: rank 0: …",
// the kinds in name order.
func (m RegionMisuse) String() string {
	s := fmt.Sprintf("%d misuses, %d dropped, %d unclosed, %d occurrences not on every rank", m.Misuses, m.Drops, m.Unclosed, m.Partial)
	for _, k := range slices.Sorted(maps.Keys(m.Kinds)) {
		if n := m.Kinds[k]; n > 0 {
			s += fmt.Sprintf(", %s %d", k, n)
		}
	}
	if m.First != "" {
		s += "; first: " + m.First
	}
	return s
}

// RegionRun is the part of the sidecar's regions record (Metadata.Regions)
// that the analysis of an application's regions reads: the totals per
// (region, labels), the run's span and clock bound, the regions marked as
// computation, the misuse account and whether the run ended before Close.
// Fields a recorder did not write are zero (RunS, BoundS: NaN).
type RegionRun struct {
	Totals []RegionTotals
	// RunS is the run's span, seconds: the latest global end of a record
	// minus the earliest global start (NaN: not recorded).
	RunS float64
	// BoundS is the largest stated bound of any rank's global clock,
	// seconds (NaN: none stated).
	BoundS float64
	// Compute are the region names the user marked as computation.
	Compute []string
	// Misuse is the misuse account; MisuseKnown is false when the record
	// has none (then Misuse is summed from its per_rank entries, if any).
	Misuse      RegionMisuse
	MisuseKnown bool
	// Incomplete is set for a run read back from spill files after it
	// died before Close.
	Incomplete bool
	// PerRankBoundS is each rank's stated bound (regions.per_rank[].bound_s),
	// indexed by rank, NaN where none was stated; nil when the record has
	// no per_rank list.
	PerRankBoundS []float64
}

// regionRunJSON is the wire form of RegionRun.
type regionRunJSON struct {
	Totals     []RegionTotals `json:"totals"`
	RunS       *float64       `json:"run_s"`
	BoundS     *float64       `json:"bound_s"`
	Compute    []string       `json:"compute"`
	Misuse     *RegionMisuse  `json:"misuse"`
	Incomplete bool           `json:"incomplete"`
	PerRank    []struct {
		Rank        int      `json:"rank"`
		Dropped     int64    `json:"dropped"`
		Unclosed    int      `json:"unclosed"`
		Misuse      int64    `json:"misuse"`
		FirstMisuse string   `json:"first_misuse"`
		BoundS      *float64 `json:"bound_s"`
	} `json:"per_rank"`
}

// ParseRegionRun reads the sidecar's regions record (Metadata.Regions).
// A record without regions.misuse gets its account summed from the
// per_rank entries (MisuseKnown true when there are any); without
// regions.bound_s, the largest per_rank bound_s is used. An empty raw
// message is an error.
func ParseRegionRun(raw json.RawMessage) (*RegionRun, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("rawdata: no regions record")
	}
	var w regionRunJSON
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("rawdata: regions record: %w", err)
	}
	r := &RegionRun{Totals: w.Totals, RunS: math.NaN(), BoundS: math.NaN(), Compute: w.Compute, Incomplete: w.Incomplete}
	if w.RunS != nil {
		r.RunS = *w.RunS
	}
	if w.BoundS != nil {
		r.BoundS = *w.BoundS
	}
	if w.Misuse != nil {
		r.Misuse, r.MisuseKnown = *w.Misuse, true
	}
	if len(w.PerRank) > 0 {
		n := 0
		for _, p := range w.PerRank {
			n = max(n, p.Rank+1)
		}
		r.PerRankBoundS = make([]float64, n)
		for i := range r.PerRankBoundS {
			r.PerRankBoundS[i] = math.NaN()
		}
		var m RegionMisuse
		largest := math.NaN()
		for _, p := range w.PerRank {
			if p.Rank >= 0 && p.BoundS != nil {
				r.PerRankBoundS[p.Rank] = *p.BoundS
				if math.IsNaN(largest) || *p.BoundS > largest {
					largest = *p.BoundS
				}
			}
			m.Misuses += p.Misuse
			m.Drops += p.Dropped
			m.Unclosed += int64(p.Unclosed)
			if m.First == "" && p.FirstMisuse != "" {
				m.First = fmt.Sprintf("rank %d: %s", p.Rank, p.FirstMisuse)
			}
		}
		if !r.MisuseKnown {
			r.Misuse, r.MisuseKnown = m, true
		}
		if math.IsNaN(r.BoundS) {
			r.BoundS = largest
		}
	}
	return r, nil
}
