package design

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/linediff"
)

// everyFactorPlan is a plan with levels for every column of a design file:
// the place and size columns, every method factor (a clocksync spec with a
// comma, which Write quotes), every call parameter, the noise guard and a
// label of two levels (which pins the digits before and after the labels'
// in Generate's numbering). Its design, written, is
// testdata/every_factor.csv.
func everyFactorPlan() Plan {
	p := Plan{Mpiruns: 2, Seed: 61, Comments: []string{" every column of a design file (design.Write)"}}
	p.Factors = Factors{
		Nps:         []int{2},
		Calls:       []string{"MPI_Allreduce", "MPI_Put"},
		MsizesBytes: []int{8},
		Datatypes:   []string{"MPI_DOUBLE"},
		Nreps:       []int{20},
		Labels:      []Factor{{Name: "lib", Levels: []string{"ompi", "mpich"}}},
	}
	l := &p.Factors.Levels
	l[factor.ProcSync] = []string{"window", "barrier"}
	l[factor.Window] = []string{"0.00013"}
	l[factor.ClockSync] = []string{"hca3:fitpts=200,exchanges=20"}
	l[factor.RuntimeType] = []string{"global"}
	l[factor.Cache] = []string{"cold"}
	l[factor.NoiseGuard] = []string{"off", "on"}
	l[factor.Skew] = []string{"1", "4"}
	l[factor.BWWindow] = []string{"16"}
	l[factor.RMASync] = []string{"fence", "flush"}
	l[factor.InPlace] = []string{"on"}
	l[factor.RootShift] = []string{"on"}
	l[factor.BufOffset] = []string{"0", "3"}
	return p
}

// handRows is a hand-written design whose rows set different columns,
// leave others empty, and spell levels as files do (seconds, auto, none).
const handRows = `# a hand-written design
# seed=7
mpirun,exp,np,call,msize_bytes,datatype,nrep,procsync,window_s,clocksync,runtime_type,cache,skew,noise_guard,bw_window,rma_sync,in_place,root_shift,buf_offset,label:alg
0,0,,MPI_Bcast,1024,,auto,,,none,,,,,,,,on,,ring
0,1,2,MPI_Allgatherv,64,MPI_INT,5,adaptive_skampi,0.00013,"jk:fitpts=50,exchanges=10",local,cold,3,on,,,off,,4095,
1,0,,MPI_Bcast,1024,,auto,,,none,,,,,,,,on,,ring
1,2,,bw,8,,,window,1e-05,,global,warm,,off,64,lock,,,1,tree
`

// TestWriteFixtures: Write produces, byte for byte, the design files that
// the code of the factor table's previous step wrote (testdata/*.csv):
// the generated design of every column (and Generate's order), a
// hand-written design read and written back, and a generated design
// without method factors or call parameters (the columns Write leaves
// out).
func TestWriteFixtures(t *testing.T) {
	d, err := Generate(everyFactorPlan())
	if err != nil {
		t.Fatal(err)
	}
	hand, err := Read(strings.NewReader(handRows), "hand.csv", Vocabulary{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Generate(Plan{Factors: testFactors(), Mpiruns: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		d    *Design
	}{{"testdata/every_factor.csv", d}, {"testdata/hand.csv", hand}, {"testdata/plain.csv", plain}} {
		var b bytes.Buffer
		if err := Write(&b, tc.d); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s: Write differs from the fixture:\n%s", tc.file, linediff.Lines(string(want), b.String(), 1))
		}
		// Read and written back, the fixture is unchanged.
		back, err := Read(bytes.NewReader(want), tc.file, Vocabulary{})
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := Write(&again, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), want) {
			t.Errorf("%s read and written back differs:\n%s", tc.file, linediff.Lines(string(want), again.String(), 1))
		}
	}
}
