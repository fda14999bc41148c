package campaign

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
)

// AutoMpiruns is the manifest's record of a campaign whose number of
// mpiruns was adaptive ("launch --mpiruns auto", Until): the stop rule on
// the headline interval, its parameters, and where it ended. The rule is
// analysis.StopRule applied to each group's per-mpirun medians.
type AutoMpiruns struct {
	Rule          string  `json:"rule"`           // "quantile-ci" (rawdata.StopRuleQuantileCI)
	Width         float64 `json:"width"`          // relative half-width asked for (0.01: ±1 %)
	Level         float64 `json:"level"`          // nominal confidence level
	IntervalLevel float64 `json:"interval_level"` // the corrected level of the judged interval
	Min           int     `json:"min"`            // mpiruns before the first look
	Max           int     `json:"max"`            // the cap
	Looks         int     `json:"looks"`
	// Met: every group's interval was within the width at the last look;
	// Capped: the cap ended the campaign first.
	Met    bool `json:"met"`
	Capped bool `json:"capped"`
	// Groups is each group's headline interval at the last look.
	Groups []AutoGroup `json:"groups,omitempty"`
}

// AutoGroup is one group's headline interval at a look of AutoMpiruns.
type AutoGroup struct {
	Group   string   `json:"group"`   // the analysis group key
	Mpiruns int      `json:"mpiruns"` // mpiruns with valid observations of the group
	MedianS float64  `json:"median_s"`
	CILoS   *float64 `json:"ci_lo_s,omitempty"` // absent without an interval
	CIHiS   *float64 `json:"ci_hi_s,omitempty"`
	Reached *float64 `json:"reached,omitempty"` // relative half-width of the interval
	Within  bool     `json:"within"`            // Reached ≤ Width
}

// Judge decides, after each look of Until, whether the campaign has
// enough mpiruns: it reads the complete mpiruns of m and returns the
// record of the look (Met set when every group is within the width).
type Judge func(m *Manifest) (AutoMpiruns, error)

// Until runs a new campaign c whose number of mpiruns is adaptive: c.Mpiruns
// (the minimum) first, then, while judge says the headline intervals are
// not within the width, more mpiruns — to next(n) in all after a look at
// n — until max. Each added mpirun i gets seed design.RunSeed(c.Seed, i)
// and the same command as the first ones, so the campaign is the one
// "launch --mpiruns N" with the final N would have run. The manifest
// records the last look (Manifest.Auto). Not for design files (a design
// fixes its mpiruns), job arrays or a per-mpirun factor. A failed mpirun stops the campaign
// with ErrIncomplete, as Start does.
func Until(ctx context.Context, c Campaign, o Options, max int, next func(n int) int, judge Judge) (*Manifest, error) {
	if c.DesignFile != "" || c.Array {
		return nil, errors.New("campaign: an adaptive number of mpiruns does not apply to a design file (it fixes the mpiruns) or a job array")
	}
	if c.PerMpirun != nil {
		return nil, errors.New("campaign: an adaptive number of mpiruns does not apply to a per-mpirun factor (its levels come in whole blocks)")
	}
	if err := CheckMpiruns(max); err != nil {
		return nil, err
	}
	if c.Mpiruns > max {
		return nil, fmt.Errorf("campaign: the minimum %d mpiruns exceed the cap %d", c.Mpiruns, max)
	}
	m, err := Start(ctx, c, o)
	for looks := 1; ; looks++ {
		if err != nil {
			return m, err
		}
		a, jerr := judge(m)
		if jerr != nil {
			return m, jerr
		}
		a.Looks, a.Capped = looks, !a.Met && m.Mpiruns >= max
		m.Auto = &a
		if a.Met || a.Capped {
			return m, m.saveLocked()
		}
		m, err = extend(ctx, m, min(max, next(m.Mpiruns))-m.Mpiruns, o)
	}
}

// extend adds k pending mpiruns to m, saves the manifest and runs them
// (under the campaign's lock).
func extend(ctx context.Context, m *Manifest, k int, o Options) (*Manifest, error) {
	unlock, err := lockCampaign(m.Dir, m.RunID)
	if err != nil {
		return m, err
	}
	defer unlock()
	launcher := ExpandLauncher(m.Launcher, m.Np)
	if p, err := exec.LookPath(launcher[0]); err == nil {
		if p, err = filepath.Abs(p); err == nil {
			launcher[0] = p
		}
	}
	for range k {
		m.Runs = append(m.Runs, m.newRun(m.Mpiruns, launcher))
		m.Mpiruns++
	}
	if err := m.save(); err != nil {
		return m, err
	}
	return m, m.execute(ctx, o)
}

// saveLocked saves m under the campaign's lock.
func (m *Manifest) saveLocked() error {
	unlock, err := lockCampaign(m.Dir, m.RunID)
	if err != nil {
		return err
	}
	defer unlock()
	return m.save()
}
