package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBytes parses a positive number of bytes with an optional binary
// suffix K, M or G (powers of 1024), as in "8", "1K", "32M" — the notation of
// the command line and of Linux sysfs. Results stay well inside an int and
// MPI's int counts.
func ParseBytes(s string) (int, error) {
	orig := s
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a positive number of bytes", orig)
	}
	if n > math.MaxInt32/mult*2 {
		return 0, fmt.Errorf("%q is too large (at most %d bytes)", orig, math.MaxInt32/mult*2*mult)
	}
	return n * mult, nil
}
