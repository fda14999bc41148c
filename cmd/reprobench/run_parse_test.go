package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/window"
)

func TestParseSizes(t *testing.T) {
	for in, want := range map[string]string{"1K,pow2:3..6": "[1024 4]", "8": "[8]", "8,64, 1024": "[8 64 1024]", "pow2:8..64": "[8 16 32 64]"} {
		got, err := parseSizes(in, 1)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("ParseSizes(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "-1", "8,-3", "8,pow2:8..16", "0"} {
		if _, err := parseSizes(bad, 1); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
	if _, err := parseSizes("8-64", 1); err == nil || !strings.Contains(err.Error(), "pow2:8..64") {
		t.Errorf("old LO-HI form: %v, want an error naming pow2:8..64", err)
	}
}

func TestEventTickNote(t *testing.T) {
	win := []reprobench.Experiment{{Sync: window.Config{Method: window.Barrier}}, {Sync: window.Config{Method: window.AdaptiveSKaMPI}}}
	bar := win[:1]
	unset := func(string) string { return "" }
	set := func(k string) string {
		if k == "OMPI_MCA_mpi_event_tick_rate" {
			return "0"
		}
		return ""
	}
	if n := eventTickNote(win, "openmpi", unset); !strings.Contains(n, "OMPI_MCA_mpi_event_tick_rate=0") {
		t.Errorf("windowed under Open MPI, tick unset: note %q", n)
	}
	for _, c := range []struct {
		exps   []reprobench.Experiment
		flavor string
		getenv func(string) string
	}{{bar, "openmpi", unset}, {win, "openmpi", set}, {win, "mpich", unset}} {
		if n := eventTickNote(c.exps, c.flavor, c.getenv); n != "" {
			t.Errorf("%s, %d experiments: unexpected note %q", c.flavor, len(c.exps), n)
		}
	}
}
