package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunP2PFlags: --bw-window and --rma-sync are checked before any MPI
// call, and mbw_mr on an odd number of ranks is refused with the reason.
func TestRunP2PFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" = accepted
	}{
		{[]string{"--calls", "bw,bibw", "--bw-window", "16"}, ""},
		{[]string{"--calls", "MPI_Put,MPI_Get,MPI_Accumulate", "--rma-sync", "lock_all"}, ""},
		{[]string{"--calls", "bw", "--bw-window", "0"}, "bw_window 0"},
		{[]string{"--calls", "MPI_Put", "--rma-sync", "sometimes"}, "rma-sync"},
		{[]string{"--calls", "mbw_mr", "--check-np", "3"}, "even number of ranks"},
	} {
		args := append([]string{"run", "--sizes", "8"}, c.args...)
		if !strings.Contains(strings.Join(args, " "), "--check-np") {
			args = append(args, "--check-np", "2")
		}
		var out, errb bytes.Buffer
		err := run(&out, &errb, args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want an error with %q", c.args, err, c.want)
		}
	}
}
