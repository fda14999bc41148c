package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRemovedFlagsHidden: run's and design's removed or renamed flags are
// not in their help, and still refuse with their pointer when used.
func TestRemovedFlagsHidden(t *testing.T) {
	removed := map[string]string{
		"align-probe": "--prehistory", "clocksync": "--clock-sync", "datatypes": "--datatype", "msizes": "--sizes",
		"procsync": "--proc-sync", "runtime-type": "--runtime", "window-s": "--window",
	}
	for _, cmd := range []string{"run", "design"} {
		var out, errb bytes.Buffer
		_ = run(&out, &errb, []string{cmd, "-h"})
		help := out.String() + errb.String()
		if !strings.Contains(help, "  -sizes") {
			t.Fatalf("%s -h: no flag list in\n%s", cmd, help)
		}
		for name := range removed {
			if strings.Contains(help, "  -"+name+" ") || strings.Contains(help, "  -"+name+"\n") {
				t.Errorf("%s -h lists the removed flag -%s", cmd, name)
			}
		}
	}
	for name, pointer := range removed {
		var out, errb bytes.Buffer
		err := run(&out, &errb, []string{"run", "-" + name, "1"})
		if err == nil || !strings.Contains(err.Error()+errb.String(), pointer) {
			t.Errorf("run -%s 1: error %v, stderr %q; want a refusal naming %s", name, err, errb.String(), pointer)
		}
	}
}
