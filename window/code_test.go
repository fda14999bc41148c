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
		window.CodeLate | window.CodeExpired: "late+expired", window.CodeDiscarded | window.CodeLate: "late+discarded", 8: "Code(8)",
	} {
		if got := c.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", uint8(c), got, want)
		}
	}
	if !window.CodeValid.Valid() || window.CodeLate.Valid() {
		t.Error("Valid")
	}
	// Every bit and combination up to 4 is documented in the raw data's table.
	for c := window.CodeValid; c <= window.CodeDiscarded; c++ {
		if rawdata.ErrorCodes[strconv.Itoa(int(c))] == "" {
			t.Errorf("code %d (%v) is not in rawdata.ErrorCodes", c, c)
		}
	}
}
