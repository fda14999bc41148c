package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
)

// TestRootShiftUnderMPI: "run --root-shift on --check" under real MPI, for
// every call that takes root_shift, on 2 ranks and oversubscribed 3. With
// --root 1 and 6 calls per observation the last call's root is 0 on both
// (1 + 5 mod p), so a clean check says that the C entries rotated as
// mpi.Observation.RootOf does: had they kept root 1, rank 0 would hold
// root 1's block of MPI_Bcast and MPI_Scatter and no result of
// MPI_Reduce and MPI_Gather, which the check against root 0 marks wrong.
// Then the same under --nbc-overlap for the non-blocking calls.
func TestRootShiftUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	calls := mpi.CallNames(mpi.CallsTaking(mpi.FactorParam(factor.RootShift)))
	calls = strings.ReplaceAll(calls, ", ", ",")
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.BuildShared(t, f, ".", ".")
		for _, np := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/np%d", f.Name, np), func(t *testing.T) {
				dir := t.TempDir()
				mpirun.MustRun(t, f, np, 180*time.Second, nil, bin, "run", "--out", dir, "--run-id", "rot", "--seed", "7", "--check",
					"--calls", calls, "--sizes", "8,4096", "--nrep", "6", "--warmup", "1", "--root", "1", "--root-shift", "on",
					"--runtime", "loop", "--loop-reps", "6", "--proc-sync", "barrier", "--clock-sync", "none")
				recs := readCSV(t, filepath.Join(dir, "rot-mpirun000.csv"))
				col := map[string]int{}
				for i, h := range recs[0] {
					col[h] = i
				}
				if _, ok := col["root_shift"]; !ok {
					t.Fatalf("no root_shift column in %v", recs[0])
				}
				if n, want := len(recs)-1, strings.Count(calls, ",")+1; n != want*2*6 {
					t.Errorf("%d rows, want %d (%d calls × 2 sizes × 6)", n, want*2*6, want)
				}
				for _, r := range recs[1:] {
					if r[col["errorcode"]] != "0" || r[col["root_shift"]] != "on" {
						t.Errorf("%s %s B rep %s: errorcode %s, root_shift %q; want 0 and on", r[col["call"]], r[col["msize_bytes"]], r[col["rep"]],
							r[col["errorcode"]], r[col["root_shift"]])
					}
				}
				m, err := rawdata.ReadMetadata(filepath.Join(dir, "rot-mpirun000.json"))
				if err != nil {
					t.Fatal(err)
				}
				if m.FormatVersion != rawdata.FormatVersion {
					t.Errorf("sidecar format_version %q, want %s (1.3 added the root_shift column)", m.FormatVersion, rawdata.FormatVersion)
				}
				// The overlap measurement rotates in each of its phases.
				mpirun.MustRun(t, f, np, 180*time.Second, nil, bin, "run", "--out", dir, "--run-id", "ov", "--seed", "7", "--check",
					"--calls", "MPI_Ibcast,MPI_Ireduce,MPI_Igather,MPI_Iscatter", "--sizes", "8", "--nrep", "4", "--warmup", "1", "--root", "1",
					"--root-shift", "on", "--runtime", "loop", "--loop-reps", "6", "--proc-sync", "barrier", "--clock-sync", "none", "--nbc-overlap")
				recs = readCSV(t, filepath.Join(dir, "ov-mpirun000.csv"))
				for _, r := range recs[1:] {
					if r[col["errorcode"]] != "0" {
						t.Errorf("--nbc-overlap: %s rep %s: errorcode %s, want 0", r[col["call"]], r[col["rep"]], r[col["errorcode"]])
					}
				}
			})
		}
	}
}
