package design

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// TestReadRefusesZeroLevels: a literal 0 in nrep, np or msize_bytes would
// silently mean "the run's default" (nrep 0 became 1000); it is refused,
// naming the line and column.
func TestReadRefusesZeroLevels(t *testing.T) {
	for _, col := range []string{"nrep", "np", "msize_bytes"} {
		in := "mpirun,exp," + col + "\n0,0,5\n0,1,0\n"
		_, err := Read(strings.NewReader(in), "d.csv", Vocabulary{})
		if err == nil || !strings.Contains(err.Error(), "d.csv:3: column 3 ("+col+")") || !strings.Contains(err.Error(), "leave the cell empty") {
			t.Errorf("%s 0: %v", col, err)
		}
	}
	if _, err := Read(strings.NewReader("mpirun,exp,nrep\n0,0,\n"), "d.csv", Vocabulary{}); err != nil {
		t.Errorf("empty nrep (the run's default) refused: %v", err)
	}
}

// TestReadRefusesReusedExp: the raw data identify a configuration by its
// experiment number across mpiruns, so a design that uses one number for
// two configurations is refused.
func TestReadRefusesReusedExp(t *testing.T) {
	in := "mpirun,exp,call,msize_bytes\n0,0,MPI_Bcast,8\n0,1,MPI_Bcast,16\n1,1,MPI_Bcast,16\n1,0,MPI_Bcast,64\n"
	_, err := Read(strings.NewReader(in), "d.csv", Vocabulary{})
	if err == nil || !strings.Contains(err.Error(), "d.csv:5") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("exp 0 reused for another size: %v", err)
	}
	ok := "mpirun,exp,call,msize_bytes,label:k\n0,0,MPI_Bcast,8,a\n1,0,MPI_Bcast,8,a\n"
	if _, err := Read(strings.NewReader(ok), "d.csv", Vocabulary{}); err != nil {
		t.Errorf("same configuration in two mpiruns refused: %v", err)
	}
}

// TestReadChecksClockSync: the vocabulary's spec parser runs on every
// clocksync cell, so a bad spec fails when the design is read.
func TestReadChecksClockSync(t *testing.T) {
	v := Vocabulary{Check: map[factor.ID]func(string) error{factor.ClockSync: func(s string) error {
		if s != "hca3" {
			return errBadSpec
		}
		return nil
	}}}
	if _, err := Read(strings.NewReader("mpirun,exp,clocksync\n0,0,hca3\n0,1,none\n"), "d.csv", v); err != nil {
		t.Error(err)
	}
	if _, err := Read(strings.NewReader("mpirun,exp,clocksync\n0,0,bogus:x=1\n"), "d.csv", v); err == nil || !strings.Contains(err.Error(), "d.csv:2: column 3 (clocksync)") {
		t.Errorf("bogus spec: %v", err)
	}
}

type specError struct{}

func (specError) Error() string { return "bad spec" }

var errBadSpec = specError{}

// TestMpirunOrderIsGenerate: MpirunOrder gives Generate's rows of one
// mpirun without the others.
func TestMpirunOrderIsGenerate(t *testing.T) {
	p := Plan{Mpiruns: 5, Replicates: 2, Seed: 11, Factors: Factors{Calls: []string{"a", "b"}, MsizesBytes: []int{8, 16, 32}, Labels: []Factor{{Name: "k", Levels: []string{"x", "y"}}}}}
	d, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for m := range 5 {
		got, err := MpirunOrder(p, m)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Mpirun(m)
		if len(got) != len(want) {
			t.Fatalf("mpirun %d: %d rows, want %d", m, len(got), len(want))
		}
		for i := range got {
			if got[i].config() != want[i].config() || got[i].Exp != want[i].Exp || got[i].Mpirun != m {
				t.Fatalf("mpirun %d row %d: %+v, want %+v", m, i, got[i], want[i])
			}
		}
	}
	if _, err := MpirunOrder(p, -1); err == nil {
		t.Error("negative mpirun accepted")
	}
}
