package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
)

// TestNBCFlagsRefused: the overlap flags refuse, before MPI, what makes no
// sense, saying why.
func TestNBCFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--calls", "MPI_Allreduce", "--nbc-overlap"}, "no non-blocking collective"},
		{[]string{"--calls", "MPI_Iallreduce", "--nbc-test-every", "5"}, "need --nbc-overlap"},
		{[]string{"--calls", "MPI_Iallreduce", "--nbc-overlap", "--proc-sync", "window"}, "one start time per observation"},
		{[]string{"--calls", "MPI_Iallreduce", "--nbc-overlap", "--runtime", "imb"}, "imb"},
		{[]string{"--calls", "MPI_Iallreduce", "--nbc-overlap", "--nbc-kernel-iters", "-3"}, "negative"},
		{[]string{"--calls", "MPI_Iallreduce", "--nbc-overlap", "--runtime", "osu", "--nbc-kernel-iters", "300"}, "time-targeted"},
	} {
		_, stderr, err := runCmd(append([]string{"run", "--check-np", "2"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("%v: %v %s, want an error mentioning %q", tc.args, err, stderr, tc.want)
		}
	}
	if _, stderr, err := runCmd("run", "--check-np", "2", "--calls", "MPI_Iallreduce,MPI_Allreduce", "--nbc-overlap", "--nbc-test-every", "8"); err != nil {
		t.Errorf("valid overlap run refused: %v %s", err, stderr)
	}
}

// TestNBCRunUnderMPI runs the overlap measurement next to a blocking call
// under mpirun (2 ranks, both libraries) with OSU's loop, and checks the
// raw rows (overlap columns filled for the non-blocking call only, runtime_s
// = total_s, overlap_frac from the other three) and the sidecar's record
// of the time-targeted kernel; then a default run's calibration.
func TestNBCRunUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.BuildShared(t, f, ".", ".")
		t.Run(f.Name, func(t *testing.T) {
			dir := t.TempDir()
			mpirun.MustRun(t, f, 2, 240*time.Second, nil, bin, "run", "--out", dir, "--run-id", "nbc", "--seed", "1",
				"--calls", "MPI_Iallreduce,MPI_Allreduce,MPI_Ialltoall", "--sizes", "8,4K", "--nrep", "8", "--warmup", "2",
				"--runtime", "osu", "--loop-reps", "20", "--nbc-overlap", "--nbc-test-every", "2")
			raw := readCSV(t, filepath.Join(dir, "nbc-mpirun000.csv"))
			hdr := raw[0]
			if !slices.Equal(hdr[len(hdr)-5:], rawdata.OverlapColumns) {
				t.Fatalf("header %v does not end with %v", hdr, rawdata.OverlapColumns)
			}
			col := map[string]int{}
			for i, h := range hdr {
				col[h] = i
			}
			num := func(rec []string, c string) float64 {
				v, err := strconv.ParseFloat(rec[col[c]], 64)
				if err != nil {
					t.Fatalf("%s %q: %v", c, rec[col[c]], err)
				}
				return v
			}
			if len(raw) != 1+6*8 {
				t.Fatalf("%d rows", len(raw)-1)
			}
			for _, rec := range raw[1:] {
				if rec[col["call"]] == "MPI_Allreduce" {
					if rec[col["nbc_mode"]] != "" || rec[col["pure_s"]] != "" {
						t.Errorf("blocking row with overlap values: %v", rec)
					}
					continue
				}
				if rec[col["nbc_mode"]] != "overlap_test2" {
					t.Errorf("nbc_mode %q", rec[col["nbc_mode"]])
				}
				pure, comp, total, ov := num(rec, "pure_s"), num(rec, "compute_s"), num(rec, "total_s"), num(rec, "overlap_frac")
				if !(pure > 0 && comp > 0 && total >= comp && ov >= 0 && ov <= 1) {
					t.Errorf("row %v: pure %g compute %g total %g overlap %g", rec, pure, comp, total, ov)
				}
				if want := max(0, 1-(total-comp)/pure); abs(ov-want) > 1e-9 {
					t.Errorf("overlap %g, from the row's times %g", ov, want)
				}
				if rt := num(rec, "runtime_s"); abs(rt-total) > 1e-12*total+1e-15 {
					t.Errorf("osu: runtime_s %g, total_s %g", rt, total)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, "nbc-mpirun000.json"))
			if err != nil {
				t.Fatal(err)
			}
			var meta rawdata.Metadata
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range meta.Experiments {
				c := e.Overlap
				if e.Call == "MPI_Allreduce" {
					if c != nil {
						t.Errorf("blocking experiment with a calibration: %+v", c)
					}
					continue
				}
				n++
				// Runtime osu runs OSU's time-targeted kernel: nothing to
				// calibrate, and the sidecar says so.
				if c == nil || !c.TimeTargeted || len(c.KernelIters) != 0 || c.TestEvery != 2 || c.Rounds != 0 || c.Given ||
					!strings.Contains(c.Kernel, "do_compute_cpu") {
					t.Fatalf("%s %d: calibration %s", e.Call, e.MsizeBytes, fmt.Sprint(c))
				}
			}
			if n != 4 {
				t.Errorf("%d overlap experiments, want 4", n)
			}
			// The other runtimes calibrate the kernel's iteration count
			// per rank to the pure time; the sidecar has the calibration.
			mpirun.MustRun(t, f, 2, 240*time.Second, nil, bin, "run", "--out", dir, "--run-id", "cal", "--seed", "1",
				"--calls", "MPI_Iallreduce", "--sizes", "8", "--nrep", "4", "--warmup", "1", "--nbc-overlap")
			if b, err = os.ReadFile(filepath.Join(dir, "cal-mpirun000.json")); err != nil {
				t.Fatal(err)
			}
			meta = rawdata.Metadata{}
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			if len(meta.Experiments) != 1 {
				t.Fatalf("%d experiments", len(meta.Experiments))
			}
			c := meta.Experiments[0].Overlap
			if c == nil || c.TimeTargeted || len(c.KernelIters) != 2 || c.Rounds != 3 || c.Given {
				t.Fatalf("calibration %s", fmt.Sprint(c))
			}
			for r := range 2 {
				if c.KernelIters[r] < 1 || !(c.TargetPureS[r] > 0) || !(c.KernelS[r] > 0) {
					t.Errorf("rank %d: %s", r, fmt.Sprint(c))
				}
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
