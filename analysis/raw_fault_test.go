package analysis

// The reader refuses truncated files, Go-only number syntax and
// observations read twice, instead of counting garbage.

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

const faultHdr = "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,clocksync"

// faultRows returns n rows of one experiment with label clocksync=none.
func faultRows(run string, mpirun, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(run + "," + strconv.Itoa(mpirun) + ",0,MPI_Bcast,8,8,MPI_BYTE,2," + strconv.Itoa(i) + ",1e-06,0,none\n")
	}
	return b.String()
}

// TestReadRawTruncatedLastLine checks truncation: "head -c -3 G.csv"
// cut "none" to "no" and the reader made a group clocksync=no with n=1.
func TestReadRawTruncatedLastLine(t *testing.T) {
	full := faultHdr + "\n" + faultRows("r", 0, 5)
	if d, err := ReadRaw(strings.NewReader(full), "G.csv"); err != nil || len(d.Groups) != 1 {
		t.Fatalf("complete file: %v", err)
	}
	for _, c := range []struct{ name, data, wantLine string }{
		{"cut inside the last field", full[:len(full)-3], "G.csv:6:"},
		{"cut after a comma", full[:len(full)-len("none\n")], "G.csv:6:"},
		{"only the newline missing", full[:len(full)-1], "G.csv:6:"},
		{"header without newline", faultHdr, "G.csv:1:"},
	} {
		d, err := ReadRaw(strings.NewReader(c.data), "G.csv")
		if err == nil {
			t.Errorf("%s: accepted, groups %v", c.name, groupNames(d))
			continue
		}
		if !errors.Is(err, errFormat) || !strings.Contains(err.Error(), c.wantLine) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s: error %q, want ErrFormat at %s saying truncated", c.name, err, c.wantLine)
		}
	}
}

func groupNames(d *Dataset) []string {
	if d == nil {
		return nil
	}
	var s []string
	for _, g := range d.Groups {
		s = append(s, g.Key.String())
	}
	return s
}

// TestReadRawStrictDecimal checks number syntax: Go's number syntax
// (hexadecimal floats, digit separators) was accepted as run times.
func TestReadRawStrictDecimal(t *testing.T) {
	read := func(rt string) error {
		_, err := ReadRaw(strings.NewReader(faultHdr+"\nr,0,0,MPI_Bcast,8,8,MPI_BYTE,2,0,"+rt+",0,none\n"), "in.csv")
		return err
	}
	for _, bad := range []string{"0x1p-20", "0X1P-20", "1_0", "0x_1p-20", "1_000e-9", "1e400", "-1e400", "1e", "--1", "1..2", " 1e-6", "1e-6 ", "infx", "nann", "++Inf", "0b101"} {
		if err := read(bad); err == nil || !errors.Is(err, errFormat) || !strings.Contains(err.Error(), "runtime_s") {
			t.Errorf("runtime_s %q: err = %v, want a format error naming runtime_s", bad, err)
		}
	}
	for _, good := range []string{"1e-06", "1E-06", ".5", "3.", "+1e-6", "0", "1.0000000000000002e-06", "NaN", "nan", "Inf", "+Inf", "-inf", "Infinity", "5e-324", "1e-400"} {
		if err := read(good); err != nil {
			t.Errorf("runtime_s %q: %v", good, err)
		}
	}
}

// TestReadRawDuplicates checks duplicates: the same file twice doubled n
// and moved p from 0.370 to 0.253; now the second copy is refused, naming
// both files and lines.
func TestReadRawDuplicates(t *testing.T) {
	file := faultHdr + "\n" + faultRows("r", 0, 4) + faultRows("r", 1, 4)
	read := func(files ...[2]string) (*Dataset, error) {
		d := NewDataset()
		for _, f := range files {
			if err := d.Read(strings.NewReader(f[1]), f[0]); err != nil {
				return d, err
			}
		}
		return d, nil
	}
	if _, err := read([2]string{"G.csv", file}, [2]string{"H.csv", faultHdr + "\n" + faultRows("r", 2, 4) + faultRows("s", 0, 4)}); err != nil {
		t.Fatalf("distinct mpiruns and runs: %v", err)
	}
	for _, c := range []struct {
		name  string
		files [][2]string
		want  []string
	}{
		{"same file twice", [][2]string{{"G.csv", file}, {"G.csv", file}},
			[]string{"G.csv:2: observation run_id=r mpirun=0 exp=0 rep=0", "already read at G.csv:2"}},
		{"aside copy of one mpirun", [][2]string{{"G.csv", file}, {"aside/G.csv", faultHdr + "\n" + faultRows("r", 1, 4)[len(faultRows("r", 1, 2)):]}},
			[]string{"aside/G.csv:2: observation run_id=r mpirun=1 exp=0 rep=2", "already read at G.csv:8"}},
		{"within one file, rep spelled 02", [][2]string{{"G.csv", file + "r,0,0,MPI_Bcast,8,8,MPI_BYTE,2,02,1e-06,0,none\n"}},
			[]string{"G.csv:10: observation run_id=r mpirun=0 exp=0 rep=2", "already read at G.csv:4"}},
		{"invalid rows count too", [][2]string{{"G.csv", faultHdr + "\nr,0,0,MPI_Bcast,8,8,MPI_BYTE,2,0,NaN,1,none\nr,0,0,MPI_Bcast,8,8,MPI_BYTE,2,0,NaN,1,none\n"}},
			[]string{"G.csv:3:", "already read at G.csv:2"}},
	} {
		_, err := read(c.files...)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !errors.Is(err, errFormat) {
			t.Errorf("%s: %v does not wrap ErrFormat", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
	// Per-rank files: the key includes the rank.
	pr := "run_id,mpirun,exp,call,msize_bytes,np,rep,rank,local_start_s,local_end_s,global_start_s,global_end_s,errorcode\n" +
		"r,0,0,MPI_Bcast,8,2,0,0,1,2,1,2,0\nr,0,0,MPI_Bcast,8,2,0,1,1,2,1,2,0\n"
	if _, err := read([2]string{"P.csv", pr}, [2]string{"G.csv", file}); err != nil {
		t.Errorf("per-rank rows of two ranks and the raw file of the same run: %v", err)
	}
	if _, err := read([2]string{"P.csv", pr}, [2]string{"Q.csv", pr}); err == nil || !strings.Contains(err.Error(), "rank=0") || !strings.Contains(err.Error(), "P.csv:2") {
		t.Errorf("per-rank file twice: err = %v", err)
	}
}
