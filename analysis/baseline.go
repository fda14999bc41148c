package analysis

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// InvalidExcess sets a group's invalid share beside the machine's own: the
// invalid share of the window loop with nothing to time
// (rawdata.WindowBaseline), measured in the same mpiruns. Excess is what
// the group lost beyond what the machine loses anyway: its window, its
// operation, the method.
type InvalidExcess struct {
	Invalid, Rows      int // the group's invalid observations and all its rows
	BaseInvalid, BaseN int // the baseline's invalid observations and observations, pooled over the group's mpiruns
	// Share = Invalid/Rows, Baseline = BaseInvalid/BaseN, Excess = Share −
	// Baseline.
	Share, Baseline, Excess float64
	// CI is the interval of Excess at the requested level: Newcombe's
	// hybrid score interval for a difference of two proportions (Newcombe
	// 1998, method 10: Wilson intervals of each share, combined). It
	// treats observations as independent, which late starts of one
	// mpirun, clustered by periodic noise, are not: read it as too narrow.
	CI Interval
}

// InExcess reports whether the group lost significantly more than the
// machine's own share: the interval of the excess lies above zero.
func (e InvalidExcess) InExcess() bool { return e.CI.Valid() && e.CI.Lo > 0 }

// compareInvalid returns the excess of invalid of rows over baseInvalid of
// baseN with its interval at level (InvalidExcess). NaN shares and interval
// when rows or baseN is 0. It panics for a level outside (0, 1) or counts
// outside [0, total].
func compareInvalid(invalid, rows, baseInvalid, baseN int, level float64) InvalidExcess {
	checkLevel(level)
	if invalid < 0 || invalid > rows || baseInvalid < 0 || baseInvalid > baseN {
		panic("analysis: CompareInvalid: counts out of range")
	}
	e := InvalidExcess{Invalid: invalid, Rows: rows, BaseInvalid: baseInvalid, BaseN: baseN}
	nan := math.NaN()
	e.CI = Interval{Lo: nan, Hi: nan, Level: level, Confidence: nan}
	e.Share, e.Baseline, e.Excess = nan, nan, nan
	if rows == 0 || baseN == 0 {
		e.CI.Warning = "no rows or no baseline"
		if rows > 0 {
			e.Share = float64(invalid) / float64(rows)
		}
		if baseN > 0 {
			e.Baseline = float64(baseInvalid) / float64(baseN)
		}
		return e
	}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	p1, l1, u1 := wilson(invalid, rows, z)
	p2, l2, u2 := wilson(baseInvalid, baseN, z)
	e.Share, e.Baseline, e.Excess = p1, p2, p1-p2
	e.CI.Lo = e.Excess - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	e.CI.Hi = e.Excess + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	e.CI.Confidence = level
	e.CI.Warning = "treats observations as independent"
	return e
}

// wilson returns x/n and its Wilson score interval for the normal quantile
// z (Wilson 1927).
func wilson(x, n int, z float64) (p, lo, hi float64) {
	p = float64(x) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return p, math.Max(0, mid-half), math.Min(1, mid+half)
}

// ReadWindowBaselines returns, for each mpirun of d (same index as
// d.Mpiruns), the window baseline its sidecar recorded, nil where none was
// recorded or no sidecar was found. It looks for each mpirun's sidecar
// (rawdata.SidecarPath) in the directories of d.Files. A sidecar that
// exists but cannot be read is an error.
func ReadWindowBaselines(d *Dataset) ([]*rawdata.WindowBaseline, error) {
	metas, err := mpirunSidecars(d)
	if err != nil {
		return nil, err
	}
	out := make([]*rawdata.WindowBaseline, len(metas))
	for i, m := range metas {
		if m != nil {
			out[i] = m.WindowBaseline
		}
	}
	return out, nil
}

// mpirunSidecars returns the sidecar of each mpirun of d (same index as
// d.Mpiruns), found by its name (rawdata.SidecarPath) in the directories of
// d.Files, nil where none was found. A sidecar that exists but cannot be
// read is an error.
func mpirunSidecars(d *Dataset) ([]*rawdata.Metadata, error) {
	var dirs []string
	for _, f := range d.Files {
		if dir := filepath.Dir(f); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	out := make([]*rawdata.Metadata, len(d.Mpiruns))
	for i, id := range d.Mpiruns {
		for _, dir := range dirs {
			m, err := rawdata.ReadMetadata(rawdata.SidecarPath(dir, id.RunID, id.Mpirun))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[i] = m
			break
		}
	}
	return out, nil
}

// unwindowed are the process synchronizations (the procsync label,
// window.Method's names) without deadlines.
var unwindowed = map[string]bool{"barrier": true, "double_barrier": true, "dissemination": true}

// groupInvalidExcess is compareInvalid of s's invalid rows against the
// window baselines (ReadWindowBaselines) of s's mpiruns pooled: those with
// a valid observation of s (s.MpirunIndex), or every mpirun's when s has
// none; ok is
// false when none of them recorded one, or s's procsync label names a
// barrier method, which flags nothing late.
func groupInvalidExcess(s GroupSummary, base []*rawdata.WindowBaseline, level float64) (e InvalidExcess, ok bool) {
	if unwindowed[s.Key.LabelValue(factor.ProcSync.String())] {
		return InvalidExcess{}, false // no deadline, nothing flagged late
	}
	bi, bn := 0, 0
	add := func(mi int) {
		if mi < len(base) && base[mi] != nil {
			bi += base[mi].Invalid
			bn += base[mi].Observations
		}
	}
	for _, mi := range s.MpirunIndex {
		add(int(mi))
	}
	if len(s.MpirunIndex) == 0 { // no valid observation in any mpirun: every mpirun's
		for mi := range base {
			add(mi)
		}
	}
	if bn == 0 {
		return InvalidExcess{}, false
	}
	rows := s.N + s.OutliersRemoved + s.Invalid + s.Bad
	return compareInvalid(s.Invalid, rows, bi, bn, level), true
}

// SetInvalidExcess sets the InvalidExcess of every summary whose mpiruns
// recorded a window baseline (base: ReadWindowBaselines of the summaries'
// Dataset) at level.
func SetInvalidExcess(sums []GroupSummary, base []*rawdata.WindowBaseline, level float64) {
	for i := range sums {
		if e, ok := groupInvalidExcess(sums[i], base, level); ok {
			sums[i].InvalidExcess = &e
		}
	}
}
