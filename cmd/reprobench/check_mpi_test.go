package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
)

// TestCheckCatchesCorruptionUnderMPI: in a test build of the binding
// (tag rbcorrupt) armed to corrupt every MPI_Allreduce result on rank 1,
// "run --check" under real MPI marks exactly the last row of each
// MPI_Allreduce experiment wrong (errorcode bit 8), and analyze counts one
// wrong result per such group and none elsewhere. Unarmed, and in the
// normal build even with the variable set, it counts zero.
func TestCheckCatchesCorruptionUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	const nrep = 12
	args := func(dir, id string) []string {
		return []string{"run", "--out", dir, "--run-id", id, "--seed", "7", "--check",
			"--calls", "MPI_Allreduce,MPI_Bcast", "--sizes", "8,64", "--nrep", strconv.Itoa(nrep), "--warmup", "2",
			"--proc-sync", "barrier,window", "--window", "1ms", "--clock-sync", "hca3o:pingpongs=20,minpingpongs=5,rttpingpongs=20"}
	}
	armed := []string{mpi.CorruptEnvName + "=MPI_Allreduce:1"}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			fc := f
			fc.Tags = strings.TrimPrefix(f.Tags+",rbcorrupt", ",")
			corrupt := mpirun.Build(t, fc, ".", ".")
			normal := mpirun.BuildShared(t, f, ".", ".")
			dir := t.TempDir()
			mpirun.MustRun(t, f, 2, 120*time.Second, armed, corrupt, args(dir, "bad")...)
			mpirun.MustRun(t, f, 2, 120*time.Second, nil, corrupt, args(dir, "clean")...)
			mpirun.MustRun(t, f, 2, 120*time.Second, armed, normal, args(dir, "normal")...)
			for _, c := range []struct {
				id   string
				want int // wrong rows per MPI_Allreduce experiment
			}{{"bad", 1}, {"clean", 0}, {"normal", 0}} {
				raw := filepath.Join(dir, c.id+"-mpirun000.csv")
				// The raw rows: exactly the last row of each Allreduce
				// experiment carries the bit, nothing else.
				recs := readCSV(t, raw)
				col := map[string]int{}
				for i, h := range recs[0] {
					col[h] = i
				}
				wrong := map[string]int{}
				for _, r := range recs[1:] {
					v, err := strconv.Atoi(r[col["errorcode"]])
					if err != nil {
						t.Fatalf("%s: errorcode %q", c.id, r[col["errorcode"]])
					}
					if v&rawdata.ErrorCodeWrongResult != 0 {
						if r[col["rep"]] != strconv.Itoa(nrep-1) {
							t.Errorf("%s: rep %s of exp %s marked wrong, want only the last (%d)", c.id, r[col["rep"]], r[col["exp"]], nrep-1)
						}
						wrong[r[col["call"]]+"/"+r[col["proc_sync"]]+"/"+r[col["msize_bytes"]]]++
					}
				}
				groups := wrongResultGroups(t, raw)
				if len(groups) != 8 {
					t.Fatalf("%s: %d groups, want 8 (2 calls × 2 sizes × 2 methods)", c.id, len(groups))
				}
				for _, g := range groups {
					want := 0
					if g.Call == "MPI_Allreduce" {
						want = c.want
					}
					if g.WrongResults != want {
						t.Errorf("%s: %s %d B %s: analyze counts %d wrong results, want %d", c.id, g.Call, g.Msize, g.Labels, g.WrongResults, want)
					}
				}
				total := 0
				for _, n := range wrong {
					total += n
				}
				if total != 4*c.want {
					t.Errorf("%s: %d rows marked wrong (%v), want %d", c.id, total, wrong, 4*c.want)
				}
			}
		})
	}
}
