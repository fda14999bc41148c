package reprobench_test

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/factor"
)

// TestDesignLevel: a flag's level becomes the cell the raw data writes
// (any accepted spelling, the window as seconds), and what a design cannot
// hold is refused with the factor named.
func TestDesignLevel(t *testing.T) {
	for _, c := range []struct {
		id        factor.ID
		in, want  string
		wantError string
	}{
		{factor.ProcSync, "fixed", "window", ""},
		{factor.ProcSync, "MPI_Barrier", "barrier", ""},
		{factor.ProcSync, "sometimes", "", "sometimes"},
		{factor.Window, "130us", "0.00013", ""},
		{factor.Window, "0", "", "window_s"},
		{factor.Window, "1s", "1", ""},
		{factor.Window, "1001ms", "", "window_s 1.001s"},
		{factor.Window, "1h", "", "window_s"},
		{factor.Window, "1e-4", "", "window_s"}, // seconds are the file's unit, not the flag's
		{factor.RuntimeType, "loop_avg", "loop", ""},
		{factor.Cache, "COLD", "cold", ""},
		{factor.ClockSync, "hca3:fitpts=10,exchanges=5", "hca3:fitpts=10,exchanges=5", ""},
		{factor.ClockSync, "none", "none", ""},
		{factor.ClockSync, "auto", "", "clocksync auto"},
		{factor.ClockSync, "bogus:x=1", "", "bogus"},
		{factor.NoiseGuard, "on", "on", ""},
		{factor.NoiseGuard, "maybe", "", "maybe"},
		{factor.Skew, "4", "4", ""},
		{factor.Skew, "0", "", "skew"},
		{factor.RMASync, "lock_all", "flush", ""},
		{factor.BufOffset, "4096", "", "buf_offset"},
		{factor.Algorithm, "ring", "", "not a factor of a design row"},
	} {
		got, err := reprobench.DesignLevel(c.id, c.in)
		switch {
		case c.wantError == "" && (err != nil || got != c.want):
			t.Errorf("DesignLevel(%v, %q) = %q, %v; want %q", c.id, c.in, got, err, c.want)
		case c.wantError != "" && (err == nil || !strings.Contains(err.Error(), c.wantError)):
			t.Errorf("DesignLevel(%v, %q) = %q, %v; want an error naming %q", c.id, c.in, got, err, c.wantError)
		}
	}
}
