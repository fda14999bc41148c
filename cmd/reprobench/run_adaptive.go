package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// nrepFlag is --nrep: a count, or "auto" for an adaptive number of
// observations (analysis.StopRule).
type nrepFlag struct {
	n    int
	auto bool
}

func (f *nrepFlag) String() string {
	if f.auto {
		return "auto"
	}
	return strconv.Itoa(f.n)
}

func (f *nrepFlag) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		f.auto = true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("--nrep: want a count ≥ 1 or auto, have %q", s)
	}
	f.n, f.auto = n, false
	return nil
}

// adaptiveOptions are the flags of an adaptive number of observations.
type adaptiveOptions struct {
	width      string // --ci-width, a percentage
	percentile float64
	min, max   int
}

// adaptiveFlags registers --nrep and the flags of --nrep auto.
func adaptiveFlags(fs *flag.FlagSet, o *runOptions, nrep int) {
	o.nrep = nrepFlag{n: nrep}
	fs.Var(&o.nrep, "nrep", "recorded observations per experiment, or auto: observe until the interval of --ci-percentile is within --ci-width (docs/adaptive.md)")
	fs.StringVar(&o.adaptive.width, "ci-width", "1%", "--nrep auto: stop when the 95% interval lies within ± this `percentage` of its estimate")
	fs.Float64Var(&o.adaptive.percentile, "ci-percentile", 50, "--nrep auto: the `percentile` whose interval is judged (50: the median)")
	fs.IntVar(&o.adaptive.min, "nrep-min", analysis.DefaultStopMin, "--nrep auto: observations before the first look")
	fs.IntVar(&o.adaptive.max, "nrep-max", analysis.DefaultStopMax, "--nrep auto: the cap on the observations per experiment")
}

// stopRule returns the stop rule of the flags, nil without --nrep auto;
// the flags of --nrep auto are refused without it when they differ from
// their defaults.
func (o *runOptions) stopRule() (*analysis.StopRule, error) {
	a := o.adaptive // zero values (options made in code) are the defaults
	if a.width == "" {
		a.width = "1%"
	}
	if a.percentile == 0 {
		a.percentile = 50
	}
	if a.min == 0 {
		a.min = analysis.DefaultStopMin
	}
	if a.max == 0 {
		a.max = analysis.DefaultStopMax
	}
	pct := strings.TrimSuffix(strings.TrimSpace(a.width), "%")
	w, err := strconv.ParseFloat(pct, 64)
	if err != nil || !(w > 0 && w < 100) || math.IsInf(w, 0) {
		return nil, fmt.Errorf("--ci-width %q: want a percentage in (0, 100), e.g. 1%%", a.width)
	}
	if !o.nrep.auto {
		if w != 1 || a.percentile != 50 || a.min != analysis.DefaultStopMin || a.max != analysis.DefaultStopMax {
			return nil, fmt.Errorf("--ci-width, --ci-percentile, --nrep-min and --nrep-max apply only with --nrep auto")
		}
		return nil, nil
	}
	if !(a.percentile > 0 && a.percentile < 100) {
		return nil, fmt.Errorf("--ci-percentile %v: want a percentile in (0, 100)", a.percentile)
	}
	r := analysis.StopRule{Width: w / 100, Quantile: a.percentile / 100, Min: a.min, Max: a.max}
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("--nrep auto: %v (--nrep-min %d, --nrep-max %d)", err, a.min, a.max)
	}
	return &r, nil
}
