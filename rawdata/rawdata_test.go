package rawdata_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// TestRoundTrip writes every column through the Writer and reads the files
// back through package analysis: the group keys, the runtimes (bit for
// bit), the invalid counts, the mpiruns and the per-rank times.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f := factor.Values{}.WithText(factor.ProcSync, "adaptive_skampi").With(factor.Window, int64(130*time.Microsecond)).WithText(factor.RuntimeType, "global").WithText(factor.Cache, "cold").WithText(factor.ClockSync, "hca3:fitpts=10,exchanges=5")
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "rt", Mpirun: 4, PerRank: true,
		Labels: map[string]string{"host": "h1", "alg": "ring"},
		Experiments: []rawdata.Experiment{
			{Exp: 7, Factors: f, Labels: map[string]string{"alg": "tree"}},
			{Exp: 8, Factors: factor.Values{}.WithText(factor.ProcSync, "barrier").WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "none")},
		}})
	if err != nil {
		t.Fatal(err)
	}
	runtimes := []float64{2.91e-07, 1.0 / 3, math.Nextafter(1e-6, 2)}
	for i, rt := range runtimes {
		r := rawdata.Row{Exp: 7, Call: "MPI_Allreduce", MsizeBytes: 16, Count: 2, Datatype: "float64", Np: 2, Rep: i, RuntimeS: rt}
		if err := w.Row(&r); err != nil {
			t.Fatal(err)
		}
		for rank := range 2 {
			rr := rawdata.RankRow{Exp: 7, Call: "MPI_Allreduce", MsizeBytes: 16, Np: 2, Rep: i, Rank: rank,
				LocalStartS: 10, LocalEndS: 10 + rt*float64(rank+1), GlobalStartS: 20, GlobalEndS: 20 + rt}
			if err := w.RankRow(&rr); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := rawdata.Row{Exp: 8, Call: "MPI_Bcast", MsizeBytes: 8, Count: 8, Datatype: "byte", Np: 2, Rep: 0, RuntimeS: 5e-6, ErrorCode: 3}
	if err := w.Row(&bad); err != nil {
		t.Fatal(err)
	}
	if err := w.Row(&rawdata.Row{Exp: 99}); err == nil {
		t.Error("a row of an undeclared experiment was accepted")
	}
	if err := w.EndExperiment(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Names().JSON); err == nil {
		t.Fatal("sidecar exists before Close")
	}
	if err := w.Close(&rawdata.Metadata{RunID: "rt", Mpirun: 4, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+rawdata.PartialSuffix)); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}

	d := analysis.NewDataset()
	for _, name := range []string{w.Names().CSV, w.Names().Ranks} {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Read(fh, name); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	if len(d.Groups) != 2 || len(d.Mpiruns) != 1 || d.Mpiruns[0] != (analysis.MpirunID{RunID: "rt", Mpirun: 4}) {
		t.Fatalf("%d groups, mpiruns %v", len(d.Groups), d.Mpiruns)
	}
	g := d.Groups[0]
	wantKey := analysis.GroupKey{Call: "MPI_Allreduce", MsizeBytes: 16, Np: 2, Datatype: "float64",
		Labels: "alg=tree,cache=cold,clocksync=hca3:fitpts=10;exchanges=5,host=h1,noise_guard=off,procsync=adaptive_skampi,runtime_type=global,window_s=0.00013"}
	if g.Key != wantKey {
		t.Errorf("group key\n%+v\nwant\n%+v", g.Key, wantKey)
	}
	if len(g.Runtimes) != len(runtimes) || g.Invalid != 0 {
		t.Fatalf("%d runtimes, %d invalid", len(g.Runtimes), g.Invalid)
	}
	for i := range runtimes {
		if g.Runtimes[i] != runtimes[i] {
			t.Errorf("runtime %d: read %v, wrote %v", i, g.Runtimes[i], runtimes[i])
		}
	}
	if b := d.Groups[1]; b.Invalid != 1 || len(b.Runtimes) != 0 || b.Key.Datatype != "byte" || b.Key.LabelValue("alg") != "ring" || b.Key.LabelValue("window_s") != "0" {
		t.Errorf("second group %+v", b)
	}
	if len(d.PerRank) != 1 || len(d.PerRank[0].ByRank[1]) != 3 || d.PerRank[0].ByRank[1][1] != (10+2*runtimes[1])-10 {
		t.Errorf("per-rank groups %+v", d.PerRank)
	}
	var meta rawdata.Metadata
	b, err := os.ReadFile(w.Names().JSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Files["per_rank"] != "rt-mpirun004.ranks.csv" || meta.Files["raw"] != "rt-mpirun004.csv" {
		t.Errorf("sidecar %s: %v", b, err)
	}
}

// TestNeverOverwrite: a final file or a .partial file left by a failed run
// stops Create before it writes anything.
func TestNeverOverwrite(t *testing.T) {
	dir := t.TempDir()
	o := rawdata.Options{Dir: dir, RunID: "x", Experiments: []rawdata.Experiment{{Exp: 0}}}
	w, err := rawdata.Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Row(&rawdata.Row{Exp: 0, Call: "c", Datatype: "byte", Np: 1, RuntimeS: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(&rawdata.Metadata{}, errors.New("disk full")); err != nil {
		t.Fatal(err)
	}
	partial := w.Names().CSV + rawdata.PartialSuffix
	before, _ := os.ReadFile(partial)
	_, err = rawdata.Create(o)
	if !errors.Is(err, rawdata.ErrExists) || !strings.Contains(err.Error(), ".partial") {
		t.Errorf("second Create over a .partial: %v, want ErrExists naming it", err)
	}
	if after, _ := os.ReadFile(partial); string(after) != string(before) || !strings.Contains(string(before), "x,0,0,c,") {
		t.Errorf(".partial changed or empty: %q -> %q", before, after)
	}
	side, _ := os.ReadFile(w.Names().JSON + rawdata.PartialSuffix)
	if !strings.Contains(string(side), `"error": "disk full"`) {
		t.Errorf("sidecar .partial does not record the error: %s", side)
	}
	// A final file.
	o.Mpirun = 1
	if err := os.WriteFile(rawdata.SidecarPath(dir, "x", 1), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rawdata.Create(o); !errors.Is(err, rawdata.ErrExists) || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Errorf("Create over a sidecar: %v", err)
	}
}

func TestCheckRunID(t *testing.T) {
	for _, ok := range []string{"a", "20261122T035225Z-ea640749", "run_1.b-c"} {
		if err := rawdata.CheckRunID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a,b", `q"x`, "../escaped", "a/b", ".hidden", "-x", "a b", "é"} {
		err := rawdata.CheckRunID(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "rawdata: run id") {
			t.Errorf("%q: %v, want a rawdata error", bad, err)
		}
		if _, err := rawdata.Create(rawdata.Options{Dir: t.TempDir(), RunID: bad}); err == nil {
			t.Errorf("Create accepted run id %q", bad)
		}
	}
}

func TestLabels(t *testing.T) {
	for _, bad := range [][2]string{{"rep", "1"}, {"window_s", "1"}, {"1x", "a"}, {"k", "a,b"}, {"k", `"q"`}, {"k", "a\nb"}, {"a-b", "x"}} {
		if err := rawdata.CheckLabel(bad[0], bad[1]); err == nil {
			t.Errorf("CheckLabel(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if err := rawdata.CheckLabel("B_2", "x y"); err != nil {
		t.Error(err)
	}
}

func TestFormatSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{130 * time.Microsecond: "0.00013", 0: "0", time.Second: "1", 100 * time.Microsecond: "0.0001"} {
		if got := rawdata.FormatSeconds(d); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestCloseCompletesMetadata: Close(nil) is an error that leaves the
// writer open; Close fills the run id, mpirun, np and error codes, takes
// either spelling of a thread level and refuses a run id that is not the
// writer's; Abort(nil) still leaves a sidecar; nothing is written after.
func TestCloseCompletesMetadata(t *testing.T) {
	dir := t.TempDir()
	o := rawdata.Options{Dir: dir, RunID: "m", Mpirun: 3, Experiments: []rawdata.Experiment{{Exp: 0}}}
	w, err := rawdata.Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Row(&rawdata.Row{Call: "Reduce+Bcast", Datatype: "int32", Np: 4, RuntimeS: 1e-6}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(nil); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("Close(nil) = %v, want an error", err)
	}
	if err := w.Close(&rawdata.Metadata{RunID: "other"}); err == nil || !strings.Contains(err.Error(), "run_id") {
		t.Errorf("Close with another run id = %v, want an error naming run_id", err)
	}
	if err := w.Close(&rawdata.Metadata{MPIThread: "MPI_THREAD_FUNNELED", MPIThreadRequested: "bogus"}); err == nil || !strings.Contains(err.Error(), "mpi_thread_requested") {
		t.Errorf("Close with a bogus thread level = %v, want an error naming mpi_thread_requested", err)
	}
	meta := &rawdata.Metadata{MPIThread: "MPI_THREAD_FUNNELED", MPIThreadRequested: "funneled", MPIThreadProvided: "mpi_thread_multiple"}
	if err := w.Close(meta); err != nil {
		t.Fatal(err)
	}
	if meta.RunID != "m" || meta.Mpirun != 3 || meta.Np != 4 || meta.ErrorCodes == nil ||
		meta.MPIThread != "funneled" || meta.MPIThreadRequested != "MPI_THREAD_FUNNELED" || meta.MPIThreadProvided != "MPI_THREAD_MULTIPLE" {
		t.Errorf("completed metadata %+v", meta)
	}
	if err := w.Row(&rawdata.Row{Call: "x", Datatype: "byte", Np: 1, Rep: 1}); err == nil {
		t.Error("Row after Close accepted")
	}

	o.Mpirun = 4
	w, err = rawdata.Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(nil, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Names().JSON + rawdata.PartialSuffix)
	if err != nil || !strings.Contains(string(b), `"error": "boom"`) || !strings.Contains(string(b), `"mpirun": 4`) {
		t.Errorf("Abort(nil) sidecar: %s, %v", b, err)
	}
}

// TestWriterRefusesFields: what the Writer refuses beyond the reader's
// cases (rawdata's own vocabulary), each error naming the field.
func TestWriterRefusesFields(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     rawdata.Options
		row   rawdata.Row
		field string
	}{
		{"MPI datatype name", rawdata.Options{}, rawdata.Row{Datatype: "MPI_DOUBLE"}, "datatype"},
		{"call with a space around it", rawdata.Options{}, rawdata.Row{Call: " x"}, "call"},
		{"call with a tab", rawdata.Options{}, rawdata.Row{Call: "a\tb"}, "call"},
		{"negative count", rawdata.Options{}, rawdata.Row{Count: -1}, "count"},
		{"negative errorcode", rawdata.Options{}, rawdata.Row{ErrorCode: -1}, "errorcode"},
		{"NaN runtime of a valid observation", rawdata.Options{}, rawdata.Row{RuntimeS: math.NaN()}, "runtime_s"},
		{"negative runtime of a valid observation", rawdata.Options{}, rawdata.Row{RuntimeS: -1e-6}, "runtime_s"},
		{"infinite runtime of a valid observation", rawdata.Options{}, rawdata.Row{RuntimeS: math.Inf(1)}, "runtime_s"},
		{"undeclared experiment", rawdata.Options{}, rawdata.Row{Exp: 5}, "declared"},
		{"procsync with a quote", rawdata.Options{Experiments: []rawdata.Experiment{{Factors: factor.Values{}.WithText(factor.ProcSync, `a"b`)}}}, rawdata.Row{}, "procsync"},
		{"clocksync with a quote", rawdata.Options{Experiments: []rawdata.Experiment{{Factors: factor.Values{}.WithText(factor.ClockSync, `hca3"`)}}}, rawdata.Row{}, "clocksync"},
		{"cache with a line break", rawdata.Options{Experiments: []rawdata.Experiment{{Factors: factor.Values{}.WithText(factor.Cache, "warm\n")}}}, rawdata.Row{}, "cache"},
	} {
		o := c.o
		o.Dir, o.RunID = t.TempDir(), "f"
		if o.Experiments == nil {
			o.Experiments = []rawdata.Experiment{{Exp: 0}}
		}
		row := rawdata.Row{Call: "x", Datatype: "byte", Np: 1}
		switch {
		case c.row.Datatype != "":
			row.Datatype = c.row.Datatype
		case c.row.Call != "":
			row.Call = c.row.Call
		}
		row.Count, row.ErrorCode, row.Exp, row.RuntimeS = c.row.Count, c.row.ErrorCode, c.row.Exp, c.row.RuntimeS
		w, err := rawdata.Create(o)
		if err == nil {
			err = w.Row(&row)
			_ = w.Abort(nil, nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: err = %v, want one naming %s", c.name, err, c.field)
		}
	}
}
