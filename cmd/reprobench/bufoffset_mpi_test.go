package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestBufOffsetUnderMPI: "run --buf-offset 3 --check" under real MPI on 2
// ranks, for calls of the coll, vcoll, nbc and p2p families under the
// warm and cycle cache modes. The binding refuses an observation whose
// buffers do not start 3 bytes after a 64-byte boundary (rb_observe's
// RB_ERR_OFFSET), so a run that completes says the level reached the
// buffers; the check says the results stay right; the raw data record
// the level.
func TestBufOffsetUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	calls := "MPI_Allreduce,pingpong,MPI_Allgatherv,MPI_Ibcast,bw,MPI_Get"
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.BuildShared(t, f, ".", ".")
		for _, cache := range []string{"warm", "cycle"} {
			t.Run(fmt.Sprintf("%s/%s", f.Name, cache), func(t *testing.T) {
				dir := t.TempDir()
				mpirun.MustRun(t, f, 2, 180*time.Second, nil, bin, "run", "--out", dir, "--run-id", "off", "--seed", "7", "--check",
					"--calls", calls, "--sizes", "8,4096", "--datatype", "int64", "--nrep", "6", "--warmup", "1", "--buf-offset", "3",
					"--cache", cache, "--proc-sync", "barrier", "--clock-sync", "none")
				recs := readCSV(t, filepath.Join(dir, "off-mpirun000.csv"))
				col := map[string]int{}
				for i, h := range recs[0] {
					col[h] = i
				}
				if _, ok := col["buf_offset"]; !ok {
					t.Fatalf("no buf_offset column in %v", recs[0])
				}
				if n, want := len(recs)-1, 6*2*6; n != want {
					t.Errorf("%d rows, want %d (6 calls × 2 sizes × 6)", n, want)
				}
				for _, r := range recs[1:] {
					if r[col["errorcode"]] != "0" || r[col["buf_offset"]] != "3" {
						t.Errorf("%s %s B rep %s: errorcode %s, buf_offset %q; want 0 and 3", r[col["call"]], r[col["msize_bytes"]], r[col["rep"]],
							r[col["errorcode"]], r[col["buf_offset"]])
					}
				}
			})
		}
	}
}
