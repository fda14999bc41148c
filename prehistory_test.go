package reprobench_test

import (
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

func TestParsePrehistory(t *testing.T) {
	for _, c := range []struct {
		in, out string
		want    reprobench.Prehistory
	}{
		{"", "none", reprobench.Prehistory{}},
		{"none", "none", reprobench.Prehistory{}},
		{"0", "none", reprobench.Prehistory{}},
		{"7", "7", reprobench.Prehistory{Msgs: 7}},
		{"random", "random", reprobench.Prehistory{Random: true}},
		{"random:127", "random:127", reprobench.Prehistory{Random: true, Max: 127}},
	} {
		got, err := reprobench.ParsePrehistory(c.in)
		if err != nil || got != c.want || got.String() != c.out {
			t.Errorf("ParsePrehistory(%q) = %+v (%q), %v; want %+v (%q)", c.in, got, got.String(), err, c.want, c.out)
		}
	}
	for _, bad := range []string{"-1", "random:0", "random:x", "some", "1.5"} {
		if _, err := reprobench.ParsePrehistory(bad); err == nil {
			t.Errorf("ParsePrehistory(%q) accepted", bad)
		}
	}
}

// TestPrehistoryDraw checks that random draws stay in [0, Max], differ
// between mpiruns of one experiment, repeat for the same seed, and cover
// every count.
func TestPrehistoryDraw(t *testing.T) {
	p := reprobench.Prehistory{Random: true}
	seen := map[int]int{}
	for m := range 200 {
		a, b := p.Draw(42, m, 3), p.Draw(42, m, 3)
		if a != b {
			t.Fatalf("Draw not deterministic: %+v, %+v", a, b)
		}
		if a.Msgs < 0 || a.Msgs > reprobench.DefaultPrehistoryMax {
			t.Fatalf("Draw out of range: %d", a.Msgs)
		}
		seen[a.Msgs]++
	}
	// Each of 4 counts has probability 1/4 over 200 draws: a count seen
	// fewer than 20 times is 5.6 standard deviations below 50
	// (binomial sd 6.1), a false failure rate below 1e-7.
	for k := range reprobench.DefaultPrehistoryMax + 1 {
		if seen[k] < 20 {
			t.Errorf("count %d drawn %d times in 200", k, seen[k])
		}
	}
	if f := (reprobench.Prehistory{Msgs: 5}).Draw(1, 2, 3); f.Msgs != 5 {
		t.Errorf("a fixed level changed by Draw: %+v", f)
	}
}

// TestPrehistoryMessages checks against the fake's message log that the
// engine sends exactly the prehistory's one-way messages from even to odd
// ranks, that it records them in the summary and the rows' covariate, and
// that without a prehistory it sends no user-tagged point-to-point message
// at all.
func TestPrehistoryMessages(t *testing.T) {
	for _, msgs := range []int{0, 5} {
		w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 4, Log: true})
		if err != nil {
			t.Fatal(err)
		}
		ex := reprobench.Experiment{Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5, Warmup: 2,
			Sync: window.Config{Method: window.Barrier}, Prehistory: reprobench.Prehistory{Msgs: msgs}}
		sink := runWorld(t, w, []reprobench.Experiment{ex})
		n := 0
		for _, m := range w.Log() {
			if m.Tag == mpi.TagPrehistory {
				n++
				if m.Src != 0 || m.Dst != 1 || m.Bytes != 0 {
					t.Errorf("prehistory message %+v: want empty, 0 → 1", m)
				}
			}
		}
		if n != msgs {
			t.Errorf("%d prehistory messages, want %d", n, msgs)
		}
		oneWay := sink.sums[0].Traffic.OneWay()
		raw := ex.Raw()
		switch {
		case msgs == 0 && (len(oneWay) != 0 || raw.Covariates.Any() || sink.sums[0].Prehistory != ""):
			t.Errorf("no prehistory, but traffic %+v, covariates %+v, level %q", oneWay, raw.Covariates, sink.sums[0].Prehistory)
		case msgs > 0 && (len(oneWay) != 1 || oneWay[0].Purpose != rawdata.TrafficPrehistory || oneWay[0].Messages != int64(msgs)):
			t.Errorf("traffic %+v, want %d prehistory messages", oneWay, msgs)
		case msgs > 0 && (raw.Covariates.Values()[0] != "5" || sink.sums[0].Prehistory != "5"):
			t.Errorf("covariates %+v, level %q", raw.Covariates, sink.sums[0].Prehistory)
		}
	}
}
