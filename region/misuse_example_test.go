package region_test

import (
	"fmt"
	"io"
	"time"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/region"
)

// Wrong uses of the annotations are counted by kind, not fatal: an End
// with nothing open, an End of another region than the innermost, a name
// that cannot be a label value, a bad label. Spans shows what one rank
// recorded; with Output.PerRank each row carries every rank's span
// (RankSpan). A buffer that fills drops the newest Begins (DropNewest);
// nesting deeper than MaxDepth records nothing either.
func Example_misuse() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	_ = w.Run(func(r *mpitest.Rank) error {
		rec, err := region.New(r.Comm(), r.Clock(), region.Options{Notes: io.Discard})
		if err != nil {
			return err
		}
		rec.End("nothing") // EndWithoutBegin
		rec.Begin("outer")
		rec.Begin("inner")
		r.Sleep(time.Microsecond)
		rec.End("outer") // EndMismatch: closes inner
		rec.End("outer")
		rec.Begin("a,b")            // BadName: not recorded
		rec.End("a,b")              // closes nothing
		rec.SetLabel("region", "x") // BadLabel: "region" is the recorder's
		var spans []region.Span = rec.Spans()
		if r.ID() == 0 {
			for _, s := range spans {
				fmt.Printf("span %s depth %d closed %v\n", s.Name, s.Depth, s.Closed)
			}
		}
		res, err := rec.Close(region.Output{PerRank: true})
		if err != nil || r.ID() != 0 {
			return err
		}
		for _, m := range []region.Misuse{region.EndWithoutBegin, region.EndMismatch, region.BadName, region.BadLabel} {
			fmt.Printf("%s: %d\n", m, res.Record.PerRank[0].MisuseKinds[m.String()])
		}
		var spans0 []region.RankSpan = res.Rows[0].PerRank
		var policy region.Overflow = region.DropNewest
		fmt.Println(res.Rows[0].Region, "ranks", len(spans0), "overflow", res.Record.Overflow == policy.String(), "max depth", region.MaxDepth)
		return nil
	})
	// Output:
	// span outer depth 0 closed true
	// span inner depth 1 closed true
	// end_without_begin: 1
	// end_mismatch: 1
	// bad_name: 1
	// bad_label: 1
	// outer ranks 2 overflow true max depth 64
}
