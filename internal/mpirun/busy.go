package mpirun

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// BusyCPUs returns how many CPUs' worth of time the machine spent busy over
// d (user, nice, system, irq, softirq and steal: all but idle and iowait in
// /proc/stat's cpu line), during which the caller only sleeps: the load of
// other processes, in CPUs. A test that asserts an idle-machine number (a
// latency of microseconds, say) applies it only when this is below a
// threshold it states, and otherwise logs the number with the reading:
// ranks that share their cores with other processes wait for time slices
// of milliseconds.
func BusyCPUs(d time.Duration) (float64, error) {
	read := func() (busy, total float64, err error) {
		b, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, 0, err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		if len(f) < 8 || f[0] != "cpu" {
			return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
		}
		for i, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("/proc/stat: %v", err)
			}
			total += v
			if i != 3 && i != 4 { // idle, iowait
				busy += v
			}
		}
		return busy, total, nil
	}
	b0, t0, err := read()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	b1, t1, err := read()
	if err != nil {
		return 0, err
	}
	if t1 <= t0 {
		return 0, fmt.Errorf("/proc/stat did not advance in %v", d)
	}
	return float64(runtime.NumCPU()) * (b1 - b0) / (t1 - t0), nil
}
