package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/noiseguard"
)

// setClockOptions sets opt's clock synchronization from --clock-sync's text
// (auto or empty: the default; none: NoClockSync; else a clocksync spec)
// and its accuracy target from --clock-accuracy's (auto or empty: derived;
// none: the published fixed counts, the zero Accuracy; else
// ERROR@HORIZON).
func setClockOptions(opt *reprobench.Options, clockSync, accuracy string) error {
	switch s := strings.TrimSpace(clockSync); {
	case s == "" || strings.EqualFold(s, "auto"):
		opt.ClockSync, opt.NoClockSync = "", false
	case strings.EqualFold(s, "none"):
		opt.ClockSync, opt.NoClockSync = "", true
	default:
		opt.ClockSync, opt.NoClockSync = s, false
	}
	switch a := strings.TrimSpace(accuracy); {
	case a == "" || strings.EqualFold(a, "auto"):
		opt.ClockAccuracy = nil
	case strings.EqualFold(a, "none"):
		opt.ClockAccuracy = &clocksync.Accuracy{}
	default:
		t, err := clocksync.ParseAccuracy(a)
		if err != nil {
			return fmt.Errorf("%w: --clock-accuracy: %v", errUsage, err)
		}
		opt.ClockAccuracy = &t
	}
	return nil
}

// readNoiseSources reads the periodic sources of the output of "reprobench
// noise --json" (noiseJSON.Periodic) in path.
func readNoiseSources(path string) ([]noiseguard.Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p struct {
		Periodic []noiseguard.Source `json:"periodic_sources"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: not the output of reprobench noise --json: %w", path, err)
	}
	if len(p.Periodic) == 0 {
		return nil, fmt.Errorf("%s has no periodic_sources (made by an older \"reprobench noise --json\"?)", path)
	}
	return p.Periodic, nil
}
