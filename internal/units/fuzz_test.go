package units

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseBytes checks that ParseBytes never panics, that what it accepts
// is positive and fits an MPI int count's range of bytes, and that errors
// quote the text as given ("1K..4K" was once quoted as "1K..4").
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"8", "1K", "32M", "2G", "0", "-1", "K", "1.5M", "99999G", "4194303K", "1K..4K", "+8", "1_0", "0x10", " 8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseBytes(%q): error %q does not quote the input", s, err)
			}
			return
		}
		if n < 1 || n > 1<<32 {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
	})
}
