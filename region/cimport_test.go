package region

import (
	"math"
	"testing"

	"github.com/reprobench/reprobench/internal/cregion"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestAdoptC hands a C recorder's state (two regions, one nested, one
// misuse, one unclosed region) to recorders made by StartWith on 2
// simulated ranks and checks what Close makes of it: the rows' durations
// are the C ticks' (rank r's region b lasts 2000+r ticks), the account is
// the C side's, and a state that does not fit is refused.
func TestAdoptC(t *testing.T) {
	res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
		rec, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 8}, Output{})
		if err != nil {
			return nil, err
		}
		if cregion.Adopt(rec, &cregion.State{Capacity: 1, Recs: make([]cregion.Rec, 2), Names: []string{"a"}}) == nil {
			t.Error("a state of 2 records in a buffer of 1 was adopted")
		}
		if cregion.Adopt(rec, &cregion.State{Capacity: 4, Recs: []cregion.Rec{{Name: 3, Parent: -1}}, Names: []string{"a"}}) == nil {
			t.Error("a record of an undefined name was adopted")
		}
		now := int64(r.Clock().Now())
		off := int64(r.ID())
		st := &cregion.State{Capacity: 8, Names: []string{"a", "b"}, Depth: 1, Iter: 4, Misuse: 1, PairNs: 51,
			Recs: []cregion.Rec{
				{Start: now + 100, End: now + 5000, Iter: 3, Name: 0, Parent: -1, Closed: true},
				{Start: now + 200, End: now + 2200 + off, Iter: 3, Name: 1, Parent: 0, Depth: 1, Closed: true},
				{Start: now + 6000, Iter: 4, Name: 1, Parent: -1},
			}}
		st.Kinds[EndMismatch] = 1
		if err := cregion.Adopt(rec, st); err != nil {
			return nil, err
		}
		if cregion.Adopt(rec, st) == nil {
			t.Error("a second adoption into a recorder holding records was accepted")
		}
		return rec.Close(Output{})
	})
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows; want 2 (a, b): %v", len(res.Rows), res.Rows)
	}
	f := 0.0
	w, _ := mpitest.New(mpitest.Config{Ranks: 1, Seed: 3})
	_ = w.Run(func(r *mpitest.Rank) error { f = r.Clock().Freq().Hz(); return nil })
	for _, row := range res.Rows {
		want := 4900.0 / f
		if row.Region == "b" {
			want = 2001.0 / f // the larger of rank 0's 2000 ticks and rank 1's 2001
		}
		if math.Abs(row.RuntimeS-want) > 1e-3*want || row.Iter != 3 || row.Nranks != 2 {
			t.Errorf("row %v: runtime %g s, want %g; iter 3, 2 ranks", row, row.RuntimeS, want)
		}
	}
	m := res.Record.Misuse
	if m.Misuses != 2 || m.Unclosed != 2 || m.Kinds["end_mismatch"] != 2 {
		t.Errorf("account %+v; want 2 misuses (end_mismatch), 2 unclosed", m)
	}
	if p := res.Record.PerRank[0].PairOverheadNs; p != 51 {
		t.Errorf("pair cost %g ns; want the C side's 51", p)
	}
}
