package mpi

import (
	"strings"
	"testing"
)

func TestNonBlockingCalls(t *testing.T) {
	nbs := NonBlockingCalls()
	if len(nbs) != 10 {
		t.Fatalf("%d non-blocking calls", len(nbs))
	}
	seen := map[Call]bool{}
	for _, nb := range nbs {
		b, ok := nb.Blocking()
		if !ok || b.NonBlocking() || seen[b] {
			t.Errorf("%v: twin %v (ok %v, seen %v)", nb, b, ok, seen[b])
		}
		seen[b] = true
		if want := "MPI_I" + strings.ToLower(b.String()[4:5]) + b.String()[5:]; nb.String() != want {
			t.Errorf("%v is named %q, want %q", b, nb.String(), want)
		}
		if c, err := ParseCall(strings.TrimPrefix(nb.String(), "MPI_")); err != nil || c != nb {
			t.Errorf("ParseCall(%v) = %v, %v", nb, c, err)
		}
		if nb.Reduces() != b.Reduces() {
			t.Errorf("%v reduces %v, twin %v", nb, nb.Reduces(), b.Reduces())
		}
		for _, p := range []int{1, 3} {
			s1, r1 := BufferSizes(nb, 5, Float64, p)
			s2, r2 := BufferSizes(b, 5, Float64, p)
			if s1 != s2 || r1 != r2 {
				t.Errorf("%v: buffers %d/%d, twin %d/%d", nb, s1, r1, s2, r2)
			}
		}
	}
	if CallAllreduce.NonBlocking() {
		t.Error("MPI_Allreduce is not non-blocking")
	}
}

func TestValidateOverlap(t *testing.T) {
	ok := Observation{Call: CallIallreduce, Count: 1, Type: Float64, Send: make([]byte, 8), Recv: make([]byte, 8),
		Overlap: true, KernelIters: 10, TestEvery: 2, Sync: SyncDissemination}
	if err := ok.Validate(2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*Observation)
		want string
	}{
		{func(o *Observation) { o.Call = CallAllreduce }, "non-blocking"},
		{func(o *Observation) { o.Sync = SyncDeadline }, "deadline"},
		{func(o *Observation) { o.TestEvery = -1 }, "negative"},
		{func(o *Observation) { o.KernelIters = -1 }, "negative"},
	} {
		o := ok
		tc.edit(&o)
		if err := o.Validate(2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want an error mentioning %q", err, tc.want)
		}
	}
	// The latency measurement of a non-blocking call takes every sync.
	o := ok
	o.Overlap, o.Sync = false, SyncDeadline
	if err := o.Validate(2); err != nil {
		t.Error(err)
	}
}
