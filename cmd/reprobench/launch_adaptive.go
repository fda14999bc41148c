package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/internal/launch"
)

// launchMpirunsFlag is launch's --mpiruns: a count, or "auto".
type launchMpirunsFlag struct {
	n    int
	auto bool
}

func (f *launchMpirunsFlag) String() string {
	if f.auto {
		return "auto"
	}
	return strconv.Itoa(f.n)
}

func (f *launchMpirunsFlag) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		f.n, f.auto = 0, true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("--mpiruns: want a count or auto, have %q", s)
	}
	f.n, f.auto = n, false
	return nil
}

// launchAuto holds the flags of --mpiruns auto.
type launchAuto struct {
	width    *string
	min, max *int
}

func launchAutoFlags(fs *flag.FlagSet) launchAuto {
	return launchAuto{
		width: fs.String("ci-width", "1%", "--mpiruns auto: stop when every group's headline interval (over per-mpirun medians) lies within ± this `percentage` of its median"),
		min:   fs.Int("mpiruns-min", analysis.DefaultMpirunStopMin, "--mpiruns auto: mpiruns before the first look"),
		max:   fs.Int("mpiruns-max", analysis.DefaultMpirunStopMax, "--mpiruns auto: the cap on the mpiruns"),
	}
}

// rule returns the stop rule of --mpiruns auto (nil without auto); the
// flags of auto are refused without it, with a design or with a job array.
func (a launchAuto) rule(auto, design, array bool) (*analysis.StopRule, error) {
	w, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(*a.width), "%"), 64)
	if err != nil || !(w > 0 && w < 100) || math.IsInf(w, 0) {
		return nil, fmt.Errorf("--ci-width %q: want a percentage in (0, 100), e.g. 1%%", *a.width)
	}
	if !auto {
		if w != 1 || *a.min != analysis.DefaultMpirunStopMin || *a.max != analysis.DefaultMpirunStopMax {
			return nil, fmt.Errorf("--ci-width, --mpiruns-min and --mpiruns-max apply only with --mpiruns auto")
		}
		return nil, nil
	}
	if design || array {
		return nil, fmt.Errorf("--mpiruns auto does not apply to a design file (it fixes the mpiruns) or to --array")
	}
	if *a.min < 1 || *a.max < *a.min {
		return nil, fmt.Errorf("--mpiruns auto: need 1 ≤ --mpiruns-min ≤ --mpiruns-max, have %d and %d", *a.min, *a.max)
	}
	if err := campaign.CheckMpiruns(*a.max); err != nil {
		return nil, fmt.Errorf("--mpiruns-max: %v", err)
	}
	r := launch.MpirunRule(analysis.StopRule{Width: w / 100, Min: *a.min, Max: *a.max})
	if err := r.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// launchAutoSummary prints the last look of --mpiruns auto.
func launchAutoSummary(stderr io.Writer, m *campaign.Manifest) {
	if m == nil || m.Auto == nil {
		return
	}
	a := m.Auto
	how := "every group within the width"
	if a.Capped {
		how = "the cap stopped it"
	} else if !a.Met {
		how = "not met"
	}
	fmt.Fprintf(stderr, "launch: --mpiruns auto: %d mpiruns after %d looks, %s (±%g %%, %g %% intervals):\n", m.Mpiruns, a.Looks, how, 100*a.Width, 100*a.IntervalLevel)
	for _, g := range a.Groups {
		r := "no interval"
		if g.Reached != nil {
			r = fmt.Sprintf("±%.3g %%", 100**g.Reached)
		}
		fmt.Fprintf(stderr, "    %s: %d mpiruns, %s\n", g.Group, g.Mpiruns, r)
	}
}
