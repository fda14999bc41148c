package mpitest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// collOnce runs one call of coll ("allreduce", "bcast", "reduce") on a
// world of np ranks with cvars, count int32 elements (rank r contributes
// r+1+i at element i; the broadcast root's buffer holds 7i), and returns
// the latest rank's virtual time after it and every rank's result buffer.
func collOnce(t *testing.T, coll string, np, count int, cvars map[string]string, lat Latency) (float64, [][]byte) {
	t.Helper()
	w, err := New(Config{Ranks: np, Seed: 3, Cvars: cvars, Latency: lat})
	if err != nil {
		t.Fatal(err)
	}
	n := 4 * count
	out := make([][]byte, np)
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		me := c.Rank()
		send, recv := make([]byte, n), make([]byte, n)
		for i := range count {
			binary.LittleEndian.PutUint32(send[4*i:], uint32(me+1+i))
			if coll == "bcast" && me == 0 {
				binary.LittleEndian.PutUint32(recv[4*i:], uint32(7*i))
			}
		}
		var err error
		switch coll {
		case "allreduce":
			err = c.Allreduce(send, recv, count, mpi.Int32, mpi.Sum)
		case "bcast":
			err = c.Bcast(recv, count, mpi.Int32, 0)
		case "reduce":
			err = c.Reduce(send, recv, count, mpi.Int32, mpi.Sum, np-1)
		}
		out[me] = recv
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	end := 0.0
	for r := range np {
		end = math.Max(end, w.TrueNow(r))
	}
	return end, out
}

// TestSimAlgorithmsCorrect: every simulated algorithm of every collective
// computes MPI's result, on 1, 2, 3 and 5 ranks, with counts that do and do
// not fill whole segments (segment size 12 bytes: 3 elements).
func TestSimAlgorithmsCorrect(t *testing.T) {
	for _, coll := range []string{"allreduce", "bcast", "reduce"} {
		for alg := range algNames {
			for _, np := range []int{1, 2, 3, 5} {
				for _, count := range []int{0, 1, 7, 300} {
					pre := simCvarPrefix + map[string]string{"allreduce": "ALLREDUCE", "bcast": "BCAST", "reduce": "REDUCE"}[coll]
					cv := map[string]string{pre + "_ALGORITHM": algNames[alg], pre + "_SEGSIZE": "12"}
					_, out := collOnce(t, coll, np, count, cv, Latency{})
					for r := range np {
						if coll == "reduce" && r != np-1 {
							continue
						}
						for i := range count {
							want := uint32(7 * i)
							if coll != "bcast" {
								want = uint32(np*(np+1)/2 + np*i)
							}
							if got := binary.LittleEndian.Uint32(out[r][4*i:]); got != want {
								t.Fatalf("%s %s np %d count %d: rank %d element %d = %d, want %d", coll, algNames[alg], np, count, r, i, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestSimAlgorithmCosts pins the model's costs in virtual time, which is
// deterministic for a seed (no false failures): binomial is auto under
// another name (the same time to the bit); segmented with 1 KiB segments
// at 1 MiB costs segmentOverhead per segment, so it is slower than
// binomial by at least 1023 × segmentOverhead / 2;
// linear equals binomial's message count at np 2 and is slower at np 8
// (7 sends in sequence at the root against 3 rounds).
func TestSimAlgorithmCosts(t *testing.T) {
	lat := Latency{Jitter: Off, SpikeProb: Off}
	for _, coll := range []string{"allreduce", "bcast", "reduce"} {
		pre := simCvarPrefix + map[string]string{"allreduce": "ALLREDUCE", "bcast": "BCAST", "reduce": "REDUCE"}[coll]
		at := func(np, count int, alg string) float64 {
			v, _ := collOnce(t, coll, np, count, map[string]string{pre + "_ALGORITHM": alg}, lat)
			return v
		}
		const mib = 1 << 18 // int32 elements
		auto, bin, seg := at(4, mib, "auto"), at(4, mib, "binomial"), at(4, mib, "segmented")
		if auto != bin {
			t.Errorf("%s: auto %v s, binomial %v s: want equal", coll, auto, bin)
		}
		if seg < bin+1023*1e-6/2 {
			t.Errorf("%s: segmented %v s, binomial %v s: want at least %v s slower", coll, seg, bin, 1023*1e-6/2)
		}
		if l2, b2 := at(2, 1024, "linear"), at(2, 1024, "binomial"); l2 != b2 {
			t.Errorf("%s np 2: linear %v s, binomial %v s: want equal", coll, l2, b2)
		}
		if l8, b8 := at(8, 1<<16, "linear"), at(8, 1<<16, "binomial"); !(l8 > 1.5*b8) {
			t.Errorf("%s np 8: linear %v s, binomial %v s: want linear > 1.5 × binomial", coll, l8, b8)
		}
	}
}

func TestSimCvars(t *testing.T) {
	for _, bad := range []map[string]string{
		{"RBSIM_ALLREDUCE_ALGORITHM": "ring"},
		{"RBSIM_ALLREDUCE_ALGORITHM": "4"},
		{"RBSIM_BCAST_SEGSIZE": "0"},
		{"RBSIM_GATHER_ALGORITHM": "linear"},
	} {
		if _, err := New(Config{Ranks: 2, Cvars: bad}); err == nil {
			t.Errorf("Cvars %v accepted", bad)
		}
	}
	env := []string{"PATH=/bin", "RBSIM_REDUCE_ALGORITHM=2", "RBSIM_REDUCE_SEGSIZE=64", "OMPI_MCA_x=1"}
	cv := CvarsFromEnv(env)
	if len(cv) != 2 || cv["RBSIM_REDUCE_ALGORITHM"] != "2" {
		t.Fatalf("CvarsFromEnv = %v", cv)
	}
	if CvarsFromEnv([]string{"PATH=/bin"}) != nil {
		t.Error("CvarsFromEnv without RBSIM_ variables is not nil")
	}
	w, err := New(Config{Ranks: 2, Cvars: cv})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := w.ranks[0].Comm().(mpi.ControlVariableSource)
	if !ok {
		t.Fatal("the world's communicator is no mpi.ControlVariableSource")
	}
	vals, defs := src.ControlVariables()
	if len(vals) != 6 || len(defs) != 6 {
		t.Fatalf("%d values, %d defaults, want 6", len(vals), len(defs))
	}
	got := map[string]string{}
	for i, v := range vals {
		got[v.Name] = v.Value
		if defs[i].Name != v.Name {
			t.Fatalf("defaults out of order: %s, %s", defs[i].Name, v.Name)
		}
	}
	want := map[string]string{"RBSIM_REDUCE_ALGORITHM": "2", "RBSIM_REDUCE_SEGSIZE": "64", "RBSIM_BCAST_ALGORITHM": "0",
		"RBSIM_BCAST_SEGSIZE": strconv.Itoa(defaultSegsize), "RBSIM_ALLREDUCE_ALGORITHM": "0"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if e := fmt.Sprint(vals[0].Enum); e != "[0=auto 1=binomial 2=linear 3=segmented]" {
		t.Errorf("enumeration %s", e)
	}
}
