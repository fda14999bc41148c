//go:build linux

package provenance

import (
	"golang.org/x/sys/unix"
)

// affinity returns the calling thread's affinity mask as a CPU list, or
// Unavailable and why.
func affinity() string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return unavailable("sched_getaffinity: " + err.Error())
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return formatList(cpus)
}

// adjtimex states (adjtimex(2) return values) and status bits
// (<linux/timex.h>).
var (
	timeStates  = []string{"TIME_OK", "TIME_INS", "TIME_DEL", "TIME_OOP", "TIME_WAIT", "TIME_ERROR"}
	statusFlags = []string{"STA_PLL", "STA_PPSFREQ", "STA_PPSTIME", "STA_FLL", "STA_INS", "STA_DEL", "STA_UNSYNC", "STA_FREQHOLD",
		"STA_PPSSIGNAL", "STA_PPSJITTER", "STA_PPSWANDER", "STA_PPSERROR", "STA_CLOCKERR", "STA_NANO", "STA_MODE", "STA_CLK"}
)

const (
	staUnsync = 0x40
	staNano   = 0x2000
	timeError = 5
)

// readAdjtimex reads the kernel's clock discipline without changing it
// (modes 0).
func readAdjtimex() Adjtimex {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return Adjtimex{State: unavailable("adjtimex: " + err.Error())}
	}
	a := Adjtimex{Status: int(tx.Status), FreqPPM: float64(tx.Freq) / 65536}
	if state >= 0 && state < len(timeStates) {
		a.State = timeStates[state]
	} else {
		a.State = "state " + itoa(state)
	}
	for i, n := range statusFlags {
		if tx.Status&(1<<i) != 0 {
			a.StatusFlags = append(a.StatusFlags, n)
		}
	}
	a.Synchronized = tx.Status&staUnsync == 0 && state != timeError
	off := float64(tx.Offset) * 1e-6 // µs unless STA_NANO
	if tx.Status&staNano != 0 {
		off = float64(tx.Offset) * 1e-9
	}
	a.OffsetS = off
	a.MaxErrorS, a.EstErrorS = float64(tx.Maxerror)*1e-6, float64(tx.Esterror)*1e-6
	return a
}
