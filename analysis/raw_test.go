package analysis

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis/synth"
)

const hdr = "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode"

func TestReadRawSynthetic(t *testing.T) {
	c := synth.Config{RunID: "r1", Mpiruns: 3, Reps: 50, Calls: []string{"MPI_Bcast", "MPI_Allreduce"},
		Msizes: []int{8, 1024}, Np: 4, Label: "mpi_lib", LabelValues: []string{"a", "b"},
		NoiseSD: 0.1, InvalidFrac: 0.05, Seed: 7}
	var buf bytes.Buffer
	if err := synth.Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	// Concatenate a second copy with its header, as cat of two files would;
	// its rows repeat the keys of the first copy, which only KeepDuplicates
	// accepts.
	twice := buf.String() + buf.String()
	d := NewDataset()
	d.KeepDuplicates = true
	if err := d.Read(strings.NewReader(twice), "synthetic"); err != nil {
		t.Fatal(err)
	}
	if d.Rows != 2*c.Rows() || d.Duplicates != c.Rows() {
		t.Errorf("Rows = %d, Duplicates = %d, want %d and %d", d.Rows, d.Duplicates, 2*c.Rows(), c.Rows())
	}
	if len(d.Groups) != 2*2*2 {
		t.Errorf("%d groups, want 8", len(d.Groups))
	}
	if len(d.Mpiruns) != 3 {
		t.Errorf("%d mpiruns, want 3", len(d.Mpiruns))
	}
	total := 0
	for _, g := range d.Groups {
		total += len(g.Runtimes) + g.Invalid + g.Bad
		if g.Invalid == 0 {
			t.Errorf("group %s: no invalid rows counted", g.Key)
		}
		if g.Key.LabelValue("mpi_lib") == "" || g.Key.Np != 4 || g.Key.Datatype != "MPI_INT" {
			t.Errorf("bad key %+v", g.Key)
		}
	}
	if total != d.Rows {
		t.Errorf("rows accounted %d, want %d", total, d.Rows)
	}
}

func TestReadRawBadInput(t *testing.T) {
	tests := []struct {
		name, data string
		wantErr    string // substring; "" means no error
		check      func(t *testing.T, d *Dataset)
	}{
		{"empty", "", "empty file", nil},
		{"header only", hdr + "\n", "", func(t *testing.T, d *Dataset) {
			if len(d.Groups) != 0 {
				t.Error("groups from header only")
			}
		}},
		{"missing columns", "run_id,mpirun,call\nx,0,MPI_Bcast\n", "missing column(s) exp, msize_bytes", nil},
		{"too few fields", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6\n", ":2: 10 fields, header has 11", nil},
		{"bad runtime", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,fast,0\n", `runtime_s: "fast" is not a decimal number`, nil},
		{"bad msize", hdr + "\nr,0,0,MPI_Bcast,-8,2,MPI_INT,2,0,1e-6,0\n", "msize_bytes", nil},
		{"bad np", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,0,0,1e-6,0\n", "np", nil},
		{"bad errorcode", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,x\n", "errorcode", nil},
		{"duplicate column", hdr + ",np\n", "duplicate column", nil},
		{"bad quote", hdr + "\nr,0,0,\"MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0\n", "malformed", nil},
		{"NaN Inf negative skipped and counted", hdr + "\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,0,NaN,0\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,1,+Inf,0\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,2,-1e-6,0\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,3,NaN,3\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,4,2e-6,0\n", "", func(t *testing.T, d *Dataset) {
			g := d.Groups[0]
			if g.Bad != 3 || g.Invalid != 1 || len(g.Runtimes) != 1 || g.Runtimes[0] != 2e-6 {
				t.Errorf("Bad=%d Invalid=%d Runtimes=%v", g.Bad, g.Invalid, g.Runtimes)
			}
			s := AnalyzeGroup(g, DefaultOptions)
			if len(s.Warnings) == 0 || !strings.Contains(strings.Join(s.Warnings, ";"), "3 observations with NaN") {
				t.Errorf("no warning about skipped rows: %v", s.Warnings)
			}
		}},
		{"quoted fields and CRLF", hdr + ",note\r\n" + "r,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0,\"two\nlines\"\r\n" +
			"r,0,0,MPI_Bcast,8,2,MPI_INT,2,1,2e-6,0,x\r\n", "", func(t *testing.T, d *Dataset) {
			if len(d.Groups) != 2 || d.Groups[0].Key.Labels != "note=two\nlines" || d.Rows != 2 {
				t.Errorf("groups %d, first labels %q, rows %d", len(d.Groups), d.Groups[0].Key.Labels, d.Rows)
			}
		}},
		{"label with comma", hdr + ",note\n" + "r,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0,\"a,b\"\n", "contains ','", nil},
		{"quoted label", hdr + ",sync\r\n" + "r,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0,\"window\"\r\n", "", func(t *testing.T, d *Dataset) {
			if got := d.Groups[0].Key.Labels; got != "sync=window" {
				t.Errorf("labels %q", got)
			}
		}},
		{"one key, two spellings", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0\nr,0,0,MPI_Bcast,08,2,MPI_INT,2,1,2e-6,0\nr,1,0,MPI_Bcast,8,2,MPI_INT,2,0,3e-6,0\n", "", func(t *testing.T, d *Dataset) {
			if len(d.Groups) != 1 || len(d.Groups[0].Runtimes) != 3 || len(d.Mpiruns) != 2 {
				t.Errorf("groups %d, mpiruns %d", len(d.Groups), len(d.Mpiruns))
			}
			if m := d.Groups[0].Mpirun; m[0] != 0 || m[1] != 0 || m[2] != 1 {
				t.Errorf("mpirun indices %v", m)
			}
		}},
		{"empty group (all invalid)", hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,1\n", "", func(t *testing.T, d *Dataset) {
			s := AnalyzeGroup(d.Groups[0], DefaultOptions)
			if s.N != 0 || !math.IsNaN(s.Median) || s.Invalid != 1 || len(s.Warnings) == 0 {
				t.Errorf("empty group summary %+v", s)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadRaw(strings.NewReader(tt.data), "in.csv")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				if !errors.Is(err, errFormat) {
					t.Errorf("error %v does not wrap ErrFormat", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

func TestReadPerRank(t *testing.T) {
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,np,rep,rank,local_start_s,local_end_s,global_start_s,global_end_s,errorcode\n")
	for rep := 0; rep < 40; rep++ {
		for rank := 0; rank < 3; rank++ {
			rt := 1e-6 * (1 + 0.01*float64((rep*7+rank*3)%11))
			if rank == 2 {
				rt *= 1.5 // rank 2 is slower: ranks cannot be pooled
			}
			ec := 0
			if rep == 0 {
				ec = 1
			}
			b.WriteString("r,0,0,MPI_Bcast,8,3," + itoa(rep) + "," + itoa(rank) + ",1.0," + ftoa(1+rt) + ",1.0," + ftoa(1+rt) + "," + itoa(ec) + "\n")
		}
	}
	d, err := ReadRaw(strings.NewReader(b.String()), "perrank.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 0 || len(d.PerRank) != 1 {
		t.Fatalf("groups %d, per-rank groups %d", len(d.Groups), len(d.PerRank))
	}
	if n := len(d.PerRank[0].ByRank[1]); n != 39 {
		t.Errorf("rank 1 has %d valid observations, want 39", n)
	}
	p := PoolRanks(d, 0.05)
	if len(p) != 1 || p[0].Poolable || p[0].Ranks != 3 || !(p[0].KruskalWallis.P < 1e-6) {
		t.Errorf("PoolRanks = %+v", p)
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', 17, 64) }

// FuzzReadRaw checks that arbitrary input never panics, and that accepted
// input is fully accounted for: every data row is valid, invalid or bad.
func FuzzReadRaw(f *testing.F) {
	f.Add([]byte(hdr + "\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0\n"))
	f.Add([]byte(hdr + ",lib\nr,0,0,MPI_Bcast,8,2,MPI_INT,2,0,1e-6,0,\"a\"\nr,1,0,MPI_Bcast,8,2,MPI_INT,2,0,NaN,0,b\n"))
	f.Add([]byte("run_id,mpirun,exp,call,msize_bytes,np,rep,rank,local_start_s,local_end_s,global_start_s,global_end_s,errorcode\nr,0,0,c,8,2,0,1,1,2,1,2,0\n"))
	f.Add([]byte("\"a\nb\",c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadRaw(bytes.NewReader(data), "fuzz")
		if err != nil {
			if !errors.Is(err, errFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		n := 0
		for _, g := range d.Groups {
			n += len(g.Runtimes) + g.Invalid + g.Bad
			if len(g.Runtimes) != len(g.Mpirun) {
				t.Fatal("Runtimes and Mpirun differ in length")
			}
			for _, v := range g.Runtimes {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("invalid runtime %v kept", v)
				}
			}
			s := AnalyzeGroup(g, DefaultOptions)
			if s.N > len(g.Runtimes) {
				t.Fatal("more observations after filtering than before")
			}
		}
		if len(d.PerRank) == 0 && n != d.Rows {
			t.Fatalf("accounted %d of %d rows", n, d.Rows)
		}
	})
}

// TestMpirunOfInvalidRowsRegistered: an mpirun whose every row is invalid
// is still one of the Dataset's mpiruns (its sidecar is found by them),
// and the valid rows of another index their own mpirun.
func TestMpirunOfInvalidRowsRegistered(t *testing.T) {
	raw := hdr + "\n" +
		"a,0,0,MPI_Bcast,8,1,MPI_CHAR,2,0,1e-6,3\n" +
		"a,0,0,MPI_Bcast,8,1,MPI_CHAR,2,1,1e-6,1\n" +
		"a,1,0,MPI_Bcast,8,1,MPI_CHAR,2,0,2e-6,0\n"
	d := NewDataset()
	if err := d.Read(strings.NewReader(raw), "invalid"); err != nil {
		t.Fatal(err)
	}
	want := []MpirunID{{"a", 0}, {"a", 1}}
	if len(d.Mpiruns) != 2 || d.Mpiruns[0] != want[0] || d.Mpiruns[1] != want[1] {
		t.Fatalf("mpiruns %v, want %v", d.Mpiruns, want)
	}
	g := d.Groups[0]
	if g.Invalid != 2 || len(g.Runtimes) != 1 || g.Mpirun[0] != 1 {
		t.Errorf("group: %d invalid, runtimes %v of mpiruns %v; want 2 invalid and one runtime of mpirun index 1", g.Invalid, g.Runtimes, g.Mpirun)
	}
}
