package timing

import (
	"fmt"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers ParseCPUList accepts (the kernel's largest
// NR_CPUS is 8192), so that a list such as "0-999999999" cannot make it
// commit memory.
const maxCPU = 8191

// ParseCPUList parses a CPU list in the kernel's format, as in
// /sys/devices/system/cpu/online, cpuset files and taskset -c: comma-separated
// CPU numbers and inclusive ranges ("0-3,8,10-11"), in the given order. An
// empty list (or only white space) gives nil. It fails on anything else: a
// malformed number, a range whose end is below its start, a CPU above
// maxCPU, or a CPU listed twice.
func ParseCPUList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var cpus []int
	seen := map[int]bool{}
	num := func(f string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > maxCPU || strings.TrimSpace(f) != f || strings.HasPrefix(f, "+") {
			return 0, fmt.Errorf("timing: CPU list %q: %q is not a CPU number (0 to %d)", s, f, maxCPU)
		}
		return n, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := num(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = num(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("timing: CPU list %q: range %q ends below its start", s, part)
			}
		}
		for c := a; c <= b; c++ {
			if seen[c] {
				return nil, fmt.Errorf("timing: CPU list %q: CPU %d listed twice", s, c)
			}
			seen[c] = true
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
