package tune_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/tune"
)

// writeCampaign writes one raw CSV and sidecar per mpirun: mpirun i runs
// candidate "default" (even i) or "ring" (odd i), 5 repetitions of
// MPI_Allreduce at 1 MiB on 2 processes, ring 0.6 times the default.
func writeCampaign(t *testing.T, dir string, mpiruns int, lib func(i int) string) []string {
	t.Helper()
	var files []string
	for i := range mpiruns {
		cand, f := "default", 1.0
		if i%2 == 1 {
			cand, f = "ring", 0.6
		}
		var b strings.Builder
		b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,algorithm\n")
		for rep := range 5 {
			fmt.Fprintf(&b, "c1,%d,0,MPI_Allreduce,1048576,1048576,MPI_BYTE,2,%d,%g,0,%s\n", i, rep, f*(270e-6+float64(rep+i)*1e-6), cand)
		}
		name := filepath.Join(dir, fmt.Sprintf("c1-mpirun%03d.csv", i))
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		side := fmt.Sprintf(`{"format_version": %q, "mpi_library_version": %q}`, rawdata.FormatVersion, lib(i))
		if err := os.WriteFile(strings.TrimSuffix(name, ".csv")+".json", []byte(side), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	return files
}

func TestReadSamples(t *testing.T) {
	files := writeCampaign(t, t.TempDir(), 12, func(int) string { return "Open MPI v4.1.4" })
	s, src, err := tune.ReadSamples(files, "algorithm")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 12 || src.Library != "Open MPI v4.1.4" || src.Column != "algorithm" || len(src.Files) != 12 {
		t.Fatalf("%d samples, source %+v", len(s), src)
	}
	for _, x := range s {
		// The per-mpirun median is the 3rd of 5 repetitions: rep 2.
		f := 1.0
		if x.Candidate == "ring" {
			f = 0.6
		}
		want := f * (270e-6 + float64(2+x.Mpirun)*1e-6)
		if x.Call != "MPI_Allreduce" || x.Bytes != 1<<20 || x.Np != 2 || (x.Mpirun%2 == 1) != (x.Candidate == "ring") || x.Median != time.Duration(math.Round(want*1e9)) {
			t.Errorf("sample %+v, want median %g", x, want)
		}
	}
	ds, err := tune.Decide(s, tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Chosen != "ring" {
		t.Errorf("decisions %+v", ds)
	}
	if _, _, err := tune.ReadSamples(files, "sync"); err == nil {
		t.Error("a column the files lack was accepted")
	}
	mixed := writeCampaign(t, t.TempDir(), 4, func(i int) string { return fmt.Sprintf("lib%d", i%2) })
	if _, _, err := tune.ReadSamples(mixed, "algorithm"); err == nil {
		t.Error("two libraries in one campaign were accepted")
	}
}
