package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestRunPersistent runs MPI_Allreduce_init end to end under mpirun, for
// every installed library (MPICH 4.0 as MPI_Allreduce_init, Open MPI 4.1
// as MPIX_Allreduce_init): OSU's loop over the persistent request writes
// one row per observation under the call's name; --cache random, which
// moves the buffers the request is bound to, is refused with the reason;
// and a binary built as for a library without persistent collectives
// (-DRB_NO_PERSISTENT) refuses the call before any observation.
// (TestRunUnderMPI runs it too, with every other call.)
func TestRunPersistent(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			dir := t.TempDir()
			args := []string{"run", "--out", dir, "--run-id", "p", "--calls", "MPI_Allreduce_init", "--sizes", "8,4K",
				"--nrep", "50", "--warmup", "5", "--runtime", "osu", "--loop-reps", "20"}
			mpirun.MustRun(t, f, 2, 120*time.Second, nil, bin, args...)
			raw := readCSV(t, filepath.Join(dir, "p-mpirun000.csv"))
			if len(raw) != 1+2*50 {
				t.Fatalf("%d rows, want 100 and a header", len(raw)-1)
			}
			for _, r := range raw[1:] {
				if r[3] != "MPI_Allreduce_init" || r[10] != "0" {
					t.Errorf("row %v: want call MPI_Allreduce_init, error code 0", r)
				}
			}

			res := mpirun.Run(f, 2, 120*time.Second, nil, bin, "run", "--out", t.TempDir(), "--calls", "MPI_Allreduce_init",
				"--nrep", "5", "--cache", "random")
			if out := res.Stdout + res.Stderr; res.Err == nil || !strings.Contains(out, "bound to the buffers") {
				t.Errorf("--cache random: err %v, want the bound buffers named; output:\n%s", res.Err, out)
			}

			refusing := filepath.Join(t.TempDir(), "reprobench-nopersistent")
			build := exec.Command("go", "build", "-o", refusing)
			if f.Tags != "" {
				build.Args = append(build.Args, "-tags", f.Tags)
			}
			build.Args = append(build.Args, ".")
			build.Env = append(os.Environ(), "CGO_CFLAGS=-g -O2 -DRB_NO_PERSISTENT")
			if b, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build -DRB_NO_PERSISTENT: %v\n%s", err, b)
			}
			res = mpirun.Run(f, 2, 120*time.Second, nil, refusing, "run", "--out", t.TempDir(), "--calls", "MPI_Allreduce_init", "--nrep", "5")
			want := "Prepare(MPI_Allreduce_init): not provided by this MPI library"
			if out := res.Stdout + res.Stderr; res.Err == nil || !strings.Contains(out, want) {
				t.Errorf("without persistent collectives: err %v, want %q; output:\n%s", res.Err, want, out)
			}
		})
	}
}
