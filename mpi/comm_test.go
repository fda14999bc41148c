package mpi

import (
	"strings"
	"testing"
)

type myFloat float64
type myInt int32

func TestTypeOf(t *testing.T) {
	for _, tc := range []struct {
		got, want Datatype
	}{
		{TypeOf[byte](), Byte}, {TypeOf[int32](), Int32}, {TypeOf[int64](), Int64},
		{TypeOf[float32](), Float32}, {TypeOf[float64](), Float64},
		{TypeOf[myFloat](), Float64}, {TypeOf[myInt](), Int32},
	} {
		if tc.got != tc.want {
			t.Errorf("TypeOf = %v, want %v", tc.got, tc.want)
		}
	}
}

func TestBytesView(t *testing.T) {
	if Bytes[float64](nil) != nil {
		t.Error("Bytes(nil) must be nil")
	}
	x := []float64{1, 2}
	b := Bytes(x)
	if len(b) != 16 {
		t.Fatalf("len = %d, want 16", len(b))
	}
	b[15] ^= 0x80 // flip the sign bit of x[1] (little endian)
	if x[1] != -2 {
		t.Errorf("Bytes must alias the slice: x[1] = %v", x[1])
	}
}

func TestParseAndNames(t *testing.T) {
	for _, s := range []string{"MPI_Allreduce", "allreduce", "ALLREDUCE"} {
		if c, err := ParseCall(s); err != nil || c != CallAllreduce {
			t.Errorf("ParseCall(%q) = %v, %v", s, c, err)
		}
	}
	if c, err := ParseCall("pingpong"); err != nil || c != CallPingPong {
		t.Errorf("ParseCall(pingpong) = %v, %v", c, err)
	}
	if _, err := ParseCall("MPI_Bogus"); err == nil {
		t.Error("ParseCall accepted an unknown call")
	}
	for d := Byte; d <= Float64; d++ {
		for _, s := range []string{d.ShortName(), d.String()} {
			if got, err := ParseDatatype(s); err != nil || got != d {
				t.Errorf("ParseDatatype(%q) = %v, %v", s, got, err)
			}
		}
	}
	if _, err := ParseDatatype("complex"); err == nil {
		t.Error("ParseDatatype accepted an unknown type")
	}
}

func TestCheckReduce(t *testing.T) {
	if CheckReduce(Byte, Sum) == nil {
		t.Error("a reduction on MPI_BYTE must be refused")
	}
	if err := CheckReduce(Float32, Max); err != nil {
		t.Error(err)
	}
	if CheckReduce(Float64, ReduceOp(9)) == nil {
		t.Error("an invalid op must be refused")
	}
}

func TestBufferSizesAndValidate(t *testing.T) {
	for _, tc := range []struct {
		call       Call
		send, recv int
	}{
		{CallBarrier, 0, 0}, {CallBcast, 32, 32}, {CallAllreduce, 32, 32}, {CallGather, 32, 96},
		{CallScatter, 96, 32}, {CallAllgather, 32, 96}, {CallAlltoall, 96, 96},
		{CallReduceScatterBlock, 96, 32}, {CallPingPong, 32, 32},
	} {
		s, r := BufferSizes(tc.call, 4, Float64, 3)
		if s != tc.send || r != tc.recv {
			t.Errorf("%v: sizes %d,%d want %d,%d", tc.call, s, r, tc.send, tc.recv)
		}
		o := &Observation{Call: tc.call, Count: 4, Type: Float64, Send: make([]byte, s), Recv: make([]byte, r), Peer: 1}
		if err := o.Validate(3); err != nil {
			t.Errorf("%v: %v", tc.call, err)
		}
		if s > 0 {
			o.Send = o.Send[:s-1]
			if o.Validate(3) == nil {
				t.Errorf("%v: short send buffer accepted", tc.call)
			}
		}
	}
	bad := []Observation{
		{Call: Call(99)},
		{Call: CallBcast, Type: Datatype(9)},
		{Call: CallBcast, Count: -1},
		{Call: CallBcast, Root: 3},
		{Call: CallPingPong, Root: 0, Peer: 0},
		{Call: CallAllreduce, Type: Byte},
		{Call: CallBcast, Sync: SyncKind(7)},
		{Call: CallBcast, Reps: -1},
	}
	for i, o := range bad {
		if o.Validate(3) == nil {
			t.Errorf("case %d: invalid observation %+v accepted", i, o)
		}
	}
}

func TestParseThreadLevel(t *testing.T) {
	for in, want := range map[string]ThreadLevel{"single": ThreadSingle, "FUNNELED": ThreadFunneled, "MPI_THREAD_SINGLE": ThreadSingle, "mpi_thread_funneled": ThreadFunneled} {
		if got, err := ParseThreadLevel(in); err != nil || got != want {
			t.Errorf("ParseThreadLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got, _ := ParseThreadLevel(want.String()); got != want {
			t.Errorf("%v does not round-trip", want)
		}
	}
	for in, want := range map[string]ThreadLevel{"serialized": ThreadSerialized, "MPI_THREAD_MULTIPLE": ThreadMultiple} {
		if got, err := ParseThreadLevel(in); err != nil || got != want || got.MPIName() != "MPI_THREAD_"+strings.ToUpper(got.String()) {
			t.Errorf("ParseThreadLevel(%q) = %v (%s), %v; want %v", in, got, got.MPIName(), err, want)
		}
	}
	if _, err := ParseThreadLevel("threaded"); err == nil {
		t.Error("an unknown level must be refused")
	}
	if s := ThreadLevel(7).MPIName(); s != "ThreadLevel(7)" {
		t.Errorf("invalid level named %q", s)
	}
}
