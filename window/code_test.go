package window_test

import (
	"strconv"
	"testing"

	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

func TestCodeString(t *testing.T) {
	for c, want := range map[window.Code]string{
		window.CodeValid: "valid", window.CodeLate: "late", window.CodeExpired: "expired",
		window.CodeLate | window.CodeExpired: "late+expired", window.CodeDiscarded | window.CodeLate: "late+discarded", 16: "Code(16)",
		window.CodeWrongResult: "wrong-result", window.CodeWrongResult | window.CodeLate: "late+wrong-result",
	} {
		if got := c.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", uint8(c), got, want)
		}
	}
	if !window.CodeValid.Valid() || window.CodeLate.Valid() {
		t.Error("Valid")
	}
	// Every bit and combination up to 4, and 8, is documented in the raw
	// data's table (the combinations with 4 and 8 in words).
	for _, c := range []window.Code{0, 1, 2, 3, 4, window.CodeWrongResult} {
		if rawdata.ErrorCodes[strconv.Itoa(int(c))] == "" {
			t.Errorf("code %d (%v) is not in rawdata.ErrorCodes", c, c)
		}
	}
}
