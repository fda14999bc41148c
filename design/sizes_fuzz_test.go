package design

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzParseSizes checks the message-size specs of design --msizes: no
// panic; CountSizes agrees with ParseSizes and never draws; accepted sizes
// are positive, distinct, at most MaxRows, sorted for pow2 and logu, and
// multiples of the step for logu:A..B:N:STEP. Specs of more than 20000
// log-uniform sizes are only counted (drawing a million takes seconds).
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{
		"8,64,1024", "pow2:1..1M", "logu:1..1000000:20", "logu:8..1M:20:8", "1K..4K", "8,8", "0", "-1",
		"pow2:1..2G", "logu:8..1G:1000000", "logu:1..9223372036854775807:5", "logu:1..3:3", "logu:1..3:4",
		"pow2:5..4", "logu:8..16:2:16", "99999G", "1K,2M,3G", ",", "logu:1..1G:0", "pow2:0..8", "1_0", "0x10",
	} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, spec string, seed uint64) {
		start := cpuTime(t)
		n, cerr := CountSizes(spec)
		if d := cpuTime(t) - start; d > time.Second {
			t.Fatalf("CountSizes(%q) took %v of CPU", spec, d)
		}
		if cerr == nil && (n < 1 || n > MaxRows) {
			t.Fatalf("CountSizes(%q) = %d", spec, n)
		}
		if cerr == nil && n > 20000 {
			return
		}
		sizes, err := ParseSizes(spec, seed)
		if err != nil {
			if cerr == nil && !strings.Contains(spec, "logu:") { // only drawing log-uniform sizes can fail after counting (one may repeat a size of another term)
				t.Fatalf("CountSizes(%q) = %d but ParseSizes fails: %v", spec, n, err)
			}
			return
		}
		if cerr != nil || len(sizes) != n {
			t.Fatalf("ParseSizes(%q) gives %d sizes, CountSizes %d, %v", spec, len(sizes), n, cerr)
		}
		seen := map[int]bool{}
		for _, s := range sizes {
			if s < 1 || seen[s] {
				t.Fatalf("ParseSizes(%q) = %v: size %d not positive or repeated", spec, sizes, s)
			}
			seen[s] = true
		}
		// One pow2 or logu term is sorted; several terms keep their order.
		if k := kindOf(spec); (k == "pow2" || k == "logu") && !strings.Contains(spec, ",") && !slices.IsSorted(sizes) {
			t.Fatalf("ParseSizes(%q) = %v not sorted", spec, sizes)
		}
	})
}

func kindOf(spec string) string {
	for i := range len(spec) {
		if spec[i] == ':' {
			return spec[:i]
		}
	}
	return ""
}
