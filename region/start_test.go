package region

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
)

// syncBuf is a Notes writer the simulated ranks share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMisuseEachKind makes one misuse of each kind, and one drop, on
// rank 1 of 2: each is noted at once (before Close), the note of the
// first of a kind only, counted per kind, and Close prints the account on
// rank 0 and writes it to the sidecar.
func TestMisuseEachKind(t *testing.T) {
	cases := []struct {
		kind Misuse
		do   func(rec *Recorder)
		note string
	}{
		{EndWithoutBegin, func(rec *Recorder) { rec.End("x") }, "End without an open region: End(x)"},
		{EndWithoutBegin, func(rec *Recorder) { rec.endFn() }, "End without an open region: the closing call of Region"},
		{EndMismatch, func(rec *Recorder) { rec.Begin("a"); rec.End("b") }, "End of another region than the innermost open one: End(b) in a"},
		{BadName, func(rec *Recorder) { rec.Begin("a,b"); rec.End("a,b") }, "Begin with a region name that is empty or holds a comma"},
		{BadName, func(rec *Recorder) { defer rec.Region("")() }, "Begin with a region name that is empty"},
		{BadLabel, func(rec *Recorder) { rec.SetLabel("region", "x") }, "SetLabel with a bad key or value (ignored): SetLabel(region, x)"},
		{BadLabel, func(rec *Recorder) { rec.SetLabel("k", "a\"b") }, "SetLabel with a bad key or value"},
	}
	for _, tc := range cases {
		t.Run(tc.kind.String(), func(t *testing.T) {
			dir := t.TempDir()
			notes := &syncBuf{}
			var before string
			res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
				rec, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 8, Notes: notes}, Output{Dir: dir, RunID: "m"})
				if err != nil {
					return nil, err
				}
				if r.ID() == 1 {
					tc.do(rec)
					tc.do(rec) // the second of a kind is counted, not noted
					before = notes.String()
				}
				return rec.Stop()
			})
			if !strings.Contains(before, "region: rank 1: "+tc.note) || strings.Count(before, "\n") != 1 {
				t.Errorf("notes before Close:\n%s\nwant one line with %q", before, tc.note)
			}
			a := res.Record.Misuse
			if a.Kinds[tc.kind.String()] != 2 || a.Misuses < 2 || !strings.HasPrefix(a.First, "rank 1: ") {
				t.Errorf("account %+v, want 2 of %s", a, tc.kind)
			}
			after := notes.String()[len(before):]
			if !strings.Contains(after, "region: ") || !strings.Contains(after, a.String()) {
				t.Errorf("Close printed %q, want the account %q", after, a.String())
			}
			m, err := rawdata.ReadMetadata(filepath.Join(dir, "m-mpirun000.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rec Record
			if err := json.Unmarshal(m.Regions, &rec); err != nil || rec.Misuse.Kinds[tc.kind.String()] != 2 || rec.Misuse.First != a.First {
				t.Errorf("sidecar regions %s (%v)", m.Regions, err)
			}
		})
	}
}

// TestDropAndUnclosedNoted: the first drop is noted at once, unclosed
// regions are counted at Close, both in the account.
func TestDropAndUnclosedNoted(t *testing.T) {
	notes := &syncBuf{}
	var before string
	res := run(t, 2, func(r *mpitest.Rank) (*Result, error) {
		rec, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 2, Notes: notes}, Output{})
		if err != nil {
			return nil, err
		}
		if r.ID() == 0 {
			for range 4 {
				rec.Begin("x")
				rec.End("x")
			}
			before = notes.String()
		} else {
			rec.Begin("open")
		}
		return rec.Stop()
	})
	if !strings.Contains(before, "region: rank 0: the buffer of 2 records is full") || strings.Count(before, "\n") != 1 {
		t.Errorf("notes before Close: %q", before)
	}
	// Rank 0 recorded x twice, rank 1 never: 2 occurrences not on every rank.
	if a := res.Record.Misuse; a.Drops != 2 || a.Unclosed != 1 || a.Misuses != 0 || a.Partial != 2 {
		t.Errorf("account %+v, want 2 drops, 1 unclosed, 2 partial", a)
	}
}

// TestStartChecksOutput: an existing output file, or a directory that
// cannot be created, fails StartWith on every rank before anything is
// recorded.
func TestStartChecksOutput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x-mpirun000.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out  Output
		want string
	}{
		{Output{Dir: dir, RunID: "x"}, "refusing to overwrite"},
		{Output{Dir: filepath.Join(file, "sub"), RunID: "y"}, "not a directory"},
		{Output{Dir: dir, RunID: "a,b"}, "run id"},
	} {
		w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var errs []error
		_ = w.Run(func(r *mpitest.Rank) error {
			_, err := StartWith(r.Comm(), r.Clock(), Options{Capacity: 4}, tc.out)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			return nil
		})
		if len(errs) != 3 {
			t.Fatalf("%d ranks returned", len(errs))
		}
		for _, err := range errs {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want an error with %q on every rank", tc.out, err, tc.want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x-mpirun000.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("something was written: %v", err)
	}
}

func TestDefaultRunID(t *testing.T) {
	if id := DefaultRunID(); rawdata.CheckRunID(id) != nil || id == "" {
		t.Errorf("DefaultRunID %q", id)
	}
}
