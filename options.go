package reprobench

import (
	"encoding/json"
	"errors"
	"strings"
)

// clockSyncText is opt's clock synchronization in the text form the
// resolution reads: "auto" for the default, "none" for NoClockSync, else
// the spec. The words auto and none are not specs: they are refused, as
// is a spec with NoClockSync.
func (opt *Options) clockSyncText() (string, error) {
	s := strings.TrimSpace(opt.ClockSync)
	switch {
	case strings.EqualFold(s, "auto") || strings.EqualFold(s, "none"):
		return "", errors.New("reprobench: Options.ClockSync names a clocksync spec; leave it empty for the default, set NoClockSync for none")
	case opt.NoClockSync && s != "":
		return "", errors.New("reprobench: Options.ClockSync with NoClockSync")
	case opt.NoClockSync:
		return "none", nil
	case s == "":
		return "auto", nil
	}
	return s, nil
}

// clockAccuracyText is opt's accuracy target in clocksync.TargetText's
// form: "auto" for nil, "none" for the zero target, else the target.
func (opt *Options) clockAccuracyText() string {
	switch {
	case opt.ClockAccuracy == nil:
		return "auto"
	case opt.ClockAccuracy.IsZero():
		return "none"
	}
	return opt.ClockAccuracy.String()
}

// noiseProbe is opt's noise sources in the form newNoiseGuard reads: the
// JSON of "reprobench noise --json"'s periodic sources, or nil for none.
func (opt *Options) noiseProbe() []byte {
	if len(opt.NoiseSources) == 0 {
		return nil
	}
	b, err := json.Marshal(noiseProbe{Periodic: opt.NoiseSources})
	if err != nil {
		return nil // a Source is plain numbers: Marshal does not fail
	}
	return b
}
