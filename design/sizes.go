package design

import (
	"fmt"
	"github.com/reprobench/reprobench/internal/units"
	"math"
	"strconv"
	"strings"
)

// ParseSizes turns a message-size spec into a list of sizes in bytes:
//
//	8,64,1024          a list (in this order)
//	pow2:1..1M         the powers of two from 1 to 1 MiB
//	logu:1..1000000:20 20 distinct log-uniform sizes in [1, 1000000] (LogUniformSizes with seed)
//	logu:8..1M:20:8    the same, multiples of 8 (logUniformMultiples), e.g. for float64
//	1K,pow2:8..64      several of these, comma-separated, in this order
//
// Log-uniform sizes are drawn once per design, not per mpirun: every mpirun
// measures the same sizes, so that the per-mpirun medians of Hunold & Carpen-Amarie 2016
// Alg. 6 can be compared across mpiruns.
//
// Numbers may carry a binary suffix: K = 1024, M = 1024², G = 1024³.
// Sizes must be positive (a design's 0 means "the run's default") and a
// list must not repeat a size. A spec yields at most MaxRows sizes, checked
// before any is drawn: a design could not hold more.
func ParseSizes(spec string, seed uint64) ([]int, error) {
	sizes, _, err := parseSizes(spec, seed, false)
	return sizes, err
}

// CountSizes returns how many sizes ParseSizes yields for spec, and its
// error, without drawing log-uniform sizes: a caller can check the size of
// a design before paying for it.
func CountSizes(spec string) (int, error) {
	_, n, err := parseSizes(spec, 0, true)
	return n, err
}

// parseSizes is ParseSizes; with countOnly it returns only the number of
// log-uniform sizes, not the sizes.
func parseSizes(spec string, seed uint64, countOnly bool) ([]int, int, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("message sizes %q: %s", spec, fmt.Sprintf(format, args...))
	}
	if strings.Contains(spec, ",") && strings.Contains(spec, ":") {
		// Several terms: 1K,pow2:3..6 (each term as below; no size twice).
		var sizes []int
		total := 0
		seen := map[int]bool{}
		for _, term := range strings.Split(spec, ",") {
			ts, n, err := parseSizes(strings.TrimSpace(term), seed, countOnly)
			if err != nil {
				return nil, 0, err // names the term
			}
			if total += n; total > MaxRows {
				return nil, 0, bad("%d sizes or more; a design holds at most %d rows", total, MaxRows)
			}
			for _, n := range ts {
				if seen[n] {
					return nil, 0, bad("%d bytes listed twice", n)
				}
				seen[n] = true
			}
			sizes = append(sizes, ts...)
		}
		return sizes, total, nil
	}
	kind, rest, hasKind := strings.Cut(spec, ":")
	if !hasKind {
		var sizes []int
		seen := map[int]bool{}
		fields := strings.Split(spec, ",")
		if len(fields) > MaxRows {
			return nil, 0, bad("%d sizes; a design holds at most %d rows", len(fields), MaxRows)
		}
		for _, f := range fields {
			if strings.Contains(f, "..") {
				where := ""
				if len(fields) > 1 {
					where = strconv.Quote(f) + ": "
				}
				return nil, 0, bad("%sa range needs its kind: pow2:%s or logu:%s:COUNT", where, f, f)
			}
			n, err := units.ParseBytes(strings.TrimSpace(f))
			if err != nil {
				return nil, 0, bad("%v", err)
			}
			if seen[n] {
				return nil, 0, bad("%d bytes listed twice", n)
			}
			seen[n] = true
			sizes = append(sizes, n)
		}
		return sizes, len(sizes), nil
	}
	rng, count, hasCount := strings.Cut(rest, ":")
	lo, hi, ok := strings.Cut(rng, "..")
	if !ok {
		return nil, 0, bad("want %s:A..B", kind)
	}
	a, err := units.ParseBytes(strings.TrimSpace(lo))
	if err != nil {
		return nil, 0, bad("%v", err)
	}
	b, err := units.ParseBytes(strings.TrimSpace(hi))
	if err != nil {
		return nil, 0, bad("%v", err)
	}
	if b < a {
		return nil, 0, bad("%d > %d", a, b)
	}
	switch kind {
	case "pow2":
		if hasCount {
			return nil, 0, bad("pow2 takes no count")
		}
		var sizes []int
		for p := 1; p <= b; p *= 2 {
			if p >= a {
				sizes = append(sizes, p)
			}
			if p > math.MaxInt/2 {
				break
			}
		}
		if len(sizes) == 0 {
			return nil, 0, bad("no power of two in [%d, %d]", a, b)
		}
		return sizes, len(sizes), nil
	case "logu":
		if !hasCount {
			return nil, 0, bad("want logu:A..B:COUNT[:STEP]")
		}
		count, stepStr, hasStep := strings.Cut(count, ":")
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if err != nil || n < 1 {
			return nil, 0, bad("count %q is not a positive integer", count)
		}
		if n > MaxRows {
			return nil, 0, bad("count %d: a design holds at most %d rows", n, MaxRows)
		}
		step := 1
		if hasStep {
			if step, err = strconv.Atoi(strings.TrimSpace(stepStr)); err != nil || step < 1 {
				return nil, 0, bad("step %q is not a positive integer", stepStr)
			}
		}
		if lo, hi := (a+step-1)/step*step, b/step*step; hi < lo || n > (hi-lo)/step+1 {
			return nil, 0, bad("%d distinct multiples of %d do not fit in [%d, %d]", n, step, a, b)
		}
		if countOnly {
			return nil, n, nil
		}
		sizes, ok := logUniformMultiples(a, b, n, step, seed)
		if !ok {
			return nil, 0, bad("could not draw %d distinct log-uniform sizes in [%d, %d]; ask for fewer", n, a, b)
		}
		return sizes, n, nil
	}
	return nil, 0, bad("unknown kind %q (want a list, pow2:A..B or logu:A..B:COUNT[:STEP])", kind)
}
