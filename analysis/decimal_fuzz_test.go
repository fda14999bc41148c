package analysis

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseDecimal checks ParseDecimal against strconv.ParseFloat: it
// accepts a subset (plain decimals and NaN/Inf words), gives the same value
// there, never accepts hexadecimal or digit separators, and never turns an
// out-of-range number into an infinity.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1e-06", ".5", "3.", "+1e-6", "NaN", "-Inf", "infinity", "0x1p-20", "1_0", "1e400", "1e-400", "5e-324", "--1", "", "e5", "0X_1P-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDecimal(s)
		if err != nil {
			return
		}
		if strings.ContainsAny(s, "_xXpP") && !strings.EqualFold(strings.TrimLeft(s, "+-"), "infinity") {
			t.Fatalf("ParseDecimal(%q) = %v: Go-only syntax accepted", s, v)
		}
		w, werr := strconv.ParseFloat(s, 64)
		if werr != nil {
			t.Fatalf("ParseDecimal(%q) = %v, but ParseFloat fails: %v", s, v, werr)
		}
		if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			t.Fatalf("ParseDecimal(%q) = %v, ParseFloat %v", s, v, w)
		}
		if math.IsInf(v, 0) && !strings.Contains(strings.ToLower(s), "inf") {
			t.Fatalf("ParseDecimal(%q) = %v: overflow became an infinity", s, v)
		}
	})
}
