package reprobench_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// The engine runs skewed v-collectives with buffers large enough for the
// heavy rank, and records the skew: in the raw data's skew column (empty
// for a call without count vectors) and in the sidecar's summary.
func TestSkewRecorded(t *testing.T) {
	exps := []reprobench.Experiment{
		{Exp: 0, Call: mpi.CallGatherv, MsizeBytes: 64, Type: mpi.Float64, Nrep: 4, Params: factor.Of(factor.Skew, 5)},
		{Exp: 1, Call: mpi.CallAlltoallv, MsizeBytes: 64, Type: mpi.Float64, Nrep: 4, Params: factor.Of(factor.Skew, 3)},
		{Exp: 2, Call: mpi.CallAlltoallv, MsizeBytes: 64, Type: mpi.Float64, Nrep: 4},
		{Exp: 3, Call: mpi.CallNeighborAlltoall, MsizeBytes: 64, Type: mpi.Float64, Nrep: 4},
	}
	for i := range exps {
		exps[i].Sync = window.Config{Method: window.Barrier}
	}
	sink := &memSink{}
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock()}
		var s reprobench.Sink
		if r.ID() == 0 {
			s = sink
		}
		_, err := e.Run(exps, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.rows) != 16 || len(sink.sums) != 4 {
		t.Fatalf("%d rows, %d summaries; want 16 and 4", len(sink.rows), len(sink.sums))
	}
	for i, want := range []int{5, 3, 1, 0} {
		if got := sink.sums[i].Skew; got != want {
			t.Errorf("experiment %d (%v): summary skew %d, want %d", i, exps[i].Call, got, want)
		}
		vals := rawdata.FactorCells(exps[i].Raw().Factors)
		cell := vals[slices.Index(rawdata.FactorColumns, "skew")]
		wantCell := map[int]string{5: "5", 3: "3", 1: "1", 0: ""}[want]
		if cell != wantCell {
			t.Errorf("experiment %d (%v): skew cell %q, want %q", i, exps[i].Call, cell, wantCell)
		}
	}
}

// A skew on a call without count vectors, or a negative one, is refused
// by Check, with the calls that take one named.
func TestSkewRefused(t *testing.T) {
	for _, ex := range []reprobench.Experiment{
		{Call: mpi.CallSendrecv, MsizeBytes: 8, Type: mpi.Float64, Nrep: 1, Params: factor.Of(factor.Skew, 2)},
		{Call: mpi.CallAlltoall, MsizeBytes: 8, Type: mpi.Float64, Nrep: 1, Params: factor.Of(factor.Skew, 2)},
		{Call: mpi.CallGatherv, MsizeBytes: 8, Type: mpi.Float64, Nrep: 1, Params: factor.Of(factor.Skew, -1)},
		{Call: mpi.CallAlltoallv, MsizeBytes: 1 << 20, Type: mpi.Byte, Nrep: 1, Params: factor.Of(factor.Skew, 1<<12)},
	} {
		err := ex.Check(4)
		if err == nil {
			t.Errorf("%v skew %v accepted", ex.Call, ex.Params)
			continue
		}
		if ex.Params.Cell(factor.Skew) == "2" && !strings.Contains(err.Error(), "MPI_Alltoallv") {
			t.Errorf("%v: %v does not name the calls that take a skew", ex.Call, err)
		}
	}
	ok := reprobench.Experiment{Call: mpi.CallScatterv, MsizeBytes: 8, Type: mpi.Float64, Nrep: 1, Params: factor.Of(factor.Skew, 7)}
	if err := ok.Check(4); err != nil {
		t.Errorf("Scatterv skew 7: %v", err)
	}
}
