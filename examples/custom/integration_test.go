package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestMpirun builds the example for every installed MPI library and runs it
// under a real mpirun with 2 ranks.
func TestMpirun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			out := mpirun.MustRun(t, f, 2, 90*time.Second, nil, bin, "-n", "200", "-warmup", "20")
			t.Logf("\n%s", out)
			m := regexp.MustCompile(`(\d+) observations, (\d+) invalid`).FindStringSubmatch(out)
			if m == nil || m[1] != "200" {
				t.Fatalf("want 200 observations in output:\n%s", out)
			}
			// On a loaded machine most windows can be missed (82 % seen);
			// all 200 is unlikely, but then the program must say so.
			if inv, _ := strconv.Atoi(m[2]); inv == 200 {
				if !strings.Contains(out, "no valid observation") {
					t.Errorf("every observation invalid, and no explanation:\n%s", out)
				}
				return
			}
			q := regexp.MustCompile(`median ([\d.]+) µs, p99 ([\d.]+) µs`).FindStringSubmatch(out)
			if q == nil {
				t.Fatalf("no median/p99 in output:\n%s", out)
			}
			med, _ := strconv.ParseFloat(q[1], 64)
			p99, _ := strconv.ParseFloat(q[2], 64)
			// Two 8 KiB exchanges on one host: microseconds, never seconds.
			if !(med > 0 && med <= p99 && med < 1000) {
				t.Errorf("median %g µs, p99 %g µs: implausible", med, p99)
			}
		})
	}
}
