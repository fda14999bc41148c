package region

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
)

// TestSpillRecover: 3 simulated ranks spill every 10 records and stop
// without Close after 40 iterations of two regions (rank 2 after 25).
// Recover reads back every spilled record: all records but fewer than one
// spill interval per rank; the rows are marked incomplete, runtime_s of
// each occurrence is the largest of its ranks' own-clock durations, and
// the global columns come with the start's bound.
func TestSpillRecover(t *testing.T) {
	const p, every = 3, 10
	dir := t.TempDir()
	out := Output{Dir: dir, RunID: "dead", PerRank: true}
	sp, err := clocksync.ParseSpec("hca3:fitpts=20,exchanges=5")
	if err != nil {
		t.Fatal(err)
	}
	spans := make([][]Span, p)
	var freqHz float64
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		alg, err := sp.New()
		if err != nil {
			return err
		}
		rec, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 200, Sync: alg, Spill: true, SpillEvery: every, Notes: &syncBuf{}}, out)
		if err != nil {
			return err
		}
		iters := 40
		if r.ID() == 2 {
			iters = 25
		}
		for it := range iters {
			rec.SetIter(int64(it))
			rec.Begin("halo")
			r.Sleep(time.Duration(1000 + 100*r.ID()))
			rec.End("halo")
			rec.Begin("compute")
			r.Sleep(time.Duration(3000 + 500*r.ID()))
			rec.End("compute")
		}
		rec.Begin("open at death")
		spans[r.ID()] = rec.Spans()
		freqHz = r.Clock().Freq().Hz()
		return rec.spill.f.Close() // the process dies: no Close
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Recover(out)
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record
	if !rec.Incomplete || rec.Ranks != p || rec.BoundS == nil || rec.Sync != "start" || rec.SpillEvery != every || !(rec.SpillMaxS > 0) {
		t.Errorf("record: incomplete %v, ranks %d, bound %v, sync %q, spill every %d, max %g s", rec.Incomplete, rec.Ranks, rec.BoundS, rec.Sync, rec.SpillEvery, rec.SpillMaxS)
	}
	perRank := make([]int, p)
	for _, row := range res.Rows {
		for k, s := range row.PerRank {
			if s.Rank >= 0 {
				perRank[k]++
			}
		}
		dur := 0.0
		for k, s := range row.PerRank {
			if s.Rank < 0 {
				continue
			}
			// The same record, as the rank held it.
			var want Span
			n := 0
			for _, x := range spans[k] {
				if x.Name == row.Region && x.Closed {
					if n == row.Rep {
						want = x
						break
					}
					n++
				}
			}
			if d := float64(want.End-want.Start) / freqHz; math.Abs((s.LocalEndS-s.LocalStartS)-d) > 1e-15 {
				t.Errorf("row %v rank %d: duration %g, the rank recorded %g", row, k, s.LocalEndS-s.LocalStartS, d)
			}
			dur = math.Max(dur, s.LocalEndS-s.LocalStartS)
		}
		if row.RuntimeS != dur || math.IsNaN(row.GlobalRuntimeS) {
			t.Errorf("row %v: runtime %g, want %g; global %g", row, row.RuntimeS, dur, row.GlobalRuntimeS)
		}
	}
	for k := range p {
		closed := len(spans[k]) - 1 // the open region is not written
		if perRank[k] > closed || closed-perRank[k] >= every {
			t.Errorf("rank %d: %d records read back of %d closed; want all but fewer than %d", k, perRank[k], closed, every)
		}
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "dead-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := json.Unmarshal(m.Regions, &got); err != nil || !got.Incomplete {
		t.Errorf("sidecar regions: incomplete %v (%v)", got.Incomplete, err)
	}
	// The spill directory is kept, and a new Start on it is refused.
	if _, err := os.Stat(spillDir(dir, "dead", 0)); err != nil {
		t.Errorf("spill directory: %v", err)
	}
	if err := checkOutput(Output{Dir: dir, RunID: "dead", Mpirun: 0}, true); err == nil || !strings.Contains(err.Error(), "Recover") {
		t.Errorf("checkOutput over a spill directory: %v", err)
	}
}

// TestSpillRemovedAfterClose: a run that reaches Stop writes its files
// and removes its spill directory; the records are those of a run
// without spilling, within 2 ns (the spill's own clock reads move the
// simulated clock, whose drift then rounds to another tick).
func TestSpillRemovedAfterClose(t *testing.T) {
	dir := t.TempDir()
	var rows [2][]Row
	for i, spill := range []bool{false, true} {
		res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
			rec, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 100, Spill: spill, SpillEvery: 7, Notes: &syncBuf{}},
				Output{Dir: dir, RunID: []string{"a", "b"}[i]})
			if err != nil {
				return nil, err
			}
			for it := range 20 {
				rec.SetIter(int64(it))
				rec.Begin("x")
				r.Sleep(time.Duration(1000 * (1 + it%3)))
				rec.End("x")
			}
			return rec.Stop()
		})
		rows[i] = res.Rows
		if spill && (res.Record.SpillEvery != 7 || !(res.Record.SpillMaxS > 0)) {
			t.Errorf("record: spill every %d, max %g s", res.Record.SpillEvery, res.Record.SpillMaxS)
		}
	}
	if _, err := os.Stat(spillDir(dir, "b", 0)); !os.IsNotExist(err) {
		t.Errorf("spill directory after Stop: %v", err)
	}
	if len(rows[0]) != 20 || len(rows[1]) != 20 {
		t.Fatalf("%d and %d rows", len(rows[0]), len(rows[1]))
	}
	for i := range rows[0] {
		if a, b := rows[0][i], rows[1][i]; math.Abs(a.RuntimeS-b.RuntimeS) > 2e-9 || a.Iter != b.Iter {
			t.Errorf("row %d: %v without spilling, %v with", i, a, b)
		}
	}
}
