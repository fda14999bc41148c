package design

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzReadDesign feeds arbitrary bytes to Read: it must never panic, every
// error must be located (a *ParseError with a line), and whatever it
// accepts must survive Write and Read unchanged.
func FuzzReadDesign(f *testing.F) {
	for _, s := range []string{
		"# reprobench design v1\n# seed=42\nmpirun,exp,np,call,msize_bytes,datatype,nrep,procsync,window_s,clocksync,runtime_type,cache,label:impl\n0,1,2,MPI_Bcast,8,byte,100,barrier,1e-4,hca3,local,warm,a\n0,0,,,,,,,,,,,\n",
		"mpirun,exp\n0,0\n1,0\n",
		"exp,mpirun,label:k\n3,1,\"a,b\"\n",
		"\uFEFF# x\r\n\r\nmpirun,exp\r\n0,0\r\n",
		"mpirun,exp,window_s\n0,0,NaN\n",
		"mpirun,exp\n0,\"0\n",
		"# seed=1\n# seed=2\n",
	} {
		f.Add([]byte(s))
	}
	voc := Vocabulary{Calls: []string{"MPI_Bcast", "MPI_Allreduce"}}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := Read(bytes.NewReader(in), "fuzz.csv", voc)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := Write(&b, d); err != nil {
			t.Fatalf("Write of an accepted design: %v", err)
		}
		d2, err := Read(bytes.NewReader(b.Bytes()), "fuzz.csv", voc)
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, b.Bytes())
		}
		norm := func(d *Design) {
			for i := range d.Experiments {
				d.Experiments[i].File, d.Experiments[i].Line = "", 0
			}
		}
		// Write groups the rows by mpirun; compare mpirun by mpirun.
		norm(d)
		norm(d2)
		if !reflect.DeepEqual(d.Mpiruns(), d2.Mpiruns()) || d.Seed != d2.Seed || d.HasSeed != d2.HasSeed {
			t.Fatalf("round trip changed the mpiruns or the seed")
		}
		for _, m := range d.Mpiruns() {
			if !reflect.DeepEqual(d.Mpirun(m), d2.Mpirun(m)) {
				t.Fatalf("round trip changed mpirun %d:\n%+v\n%+v", m, d.Mpirun(m), d2.Mpirun(m))
			}
		}
		if !reflect.DeepEqual(d.Comments, d2.Comments) {
			t.Fatalf("comments %q became %q", d.Comments, d2.Comments)
		}
	})
}
