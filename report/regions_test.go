package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/region"
)

// regionRun writes a run of package region on 2 simulated ranks (seed 9):
// 20 iterations of a halo exchange and a compute step of 5 µs on rank 0,
// 6 µs on rank 1, and returns the raw file.
func regionRun(t *testing.T, dir string) string {
	t.Helper()
	return regionRunRows(t, dir, true)
}

// regionRunRows is regionRun, with per-rank rows (and every rank's entry
// in the record's per_rank) only when perRank is set.
func regionRunRows(t *testing.T, dir string, perRank bool) string {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(func(r *mpitest.Rank) error {
		rec, err := region.New(r.Comm(), r.Clock(), region.Options{Sync: alg})
		if err != nil {
			return err
		}
		c := r.Comm()
		in, out := make([]float64, 1), make([]float64, 1)
		for it := range 20 {
			rec.SetIter(int64(it))
			rec.Begin("halo")
			if err := mpi.Sendrecv(c, out, 1-c.Rank(), 0, in, 1-c.Rank(), 0); err != nil {
				return err
			}
			rec.End("halo")
			rec.Begin("compute")
			r.Sleep(time.Duration(5000 + 1000*r.ID()))
			rec.End("compute")
		}
		_, err = rec.Close(region.Output{Dir: dir, RunID: "reg", PerRank: perRank})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "reg-mpirun000.csv")
}

func TestRegions(t *testing.T) {
	raw := regionRun(t, t.TempDir())
	s, err := Load([]string{raw}, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New([]*Side{s}, Options{RegionIters: [2]int64{5, 8}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Regions) != 1 || len(r.Regions[0]) != 1 {
		t.Fatalf("regions %v", r.Regions)
	}
	run := r.Regions[0][0]
	if !run.Synced || len(run.Spans) != 2*3*2 || run.From != 5 || run.To != 8 || len(run.Entry) != 2 {
		t.Fatalf("run: synced %v, %d spans, iterations [%d, %d), %d entry rows", run.Synced, len(run.Spans), run.From, run.To, len(run.Entry))
	}
	if run.BoundS[0] != 0 || !(run.BoundS[1] > 0) {
		t.Errorf("bounds %v", run.BoundS)
	}
	for _, e := range run.Entry {
		if e.N != 20 || math.IsNaN(e.MedianS) || e.BoundS != run.BoundS[1] {
			t.Errorf("entry %+v", e)
		}
	}
	// Rank 1 computes 1 µs longer: it enters every halo after rank 0, by
	// about 1 µs (the exchange leaves the ranks coupled).
	if e := run.Entry[0]; e.Region != "halo" || e.MedianS < 0.5e-6 || e.MedianS > 1.5e-6 {
		t.Errorf("halo entry spread median %g, want ≈ 1 µs", e.MedianS)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `<section id="regions">`) || strings.Count(page, "<title>rank ") != 12 {
		t.Errorf("page: regions section %v, %d spans drawn", strings.Contains(page, `id="regions"`), strings.Count(page, "<title>rank "))
	}
}

// TestRegionsAllowanceWithoutPerRank: without per-rank rows the sidecar
// lists rank 0's bound only; the entry spread's allowance is then twice
// the record's largest bound, never rank 0's 0.
func TestRegionsAllowanceWithoutPerRank(t *testing.T) {
	withRows, err := Load([]string{regionRunRows(t, t.TempDir(), true)}, false)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Load([]string{regionRunRows(t, t.TempDir(), false)}, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New([]*Side{withRows}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New([]*Side{without}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	largest := a.Regions[0][0].BoundS[1]
	for _, e := range b.Regions[0][0].Entry {
		if !(largest > 0) || e.BoundS != 2*largest {
			t.Errorf("%s: allowance %g without per-rank rows, want twice the largest bound %g", e.Region, e.BoundS, largest)
		}
	}
}

// TestChromiumRegions renders the regions section in a headless Chromium:
// not blank, no console error or load, the DOM has #regions and the
// timeline's SVG. RB_REPORT_SHOT=FILE keeps the screenshot.
func TestChromiumRegions(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	s, err := Load([]string{regionRun(t, dir)}, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New([]*Side{s}, Options{Analysis: analysis.DefaultOptions, RegionIters: [2]int64{5, 8}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := render(t, bin, page, 1280, 2400, true)
	if n := colors(got.shot, 64); n < 32 {
		t.Errorf("screenshot has %d colors: blank or nearly", n)
	}
	if p := got.problems(); len(p) > 0 {
		t.Errorf("Chromium logged %d problems:\n%s", len(p), strings.Join(p, "\n"))
	}
	doc, err := html.Parse(strings.NewReader(got.dom))
	if err != nil {
		t.Fatal(err)
	}
	if f := inspect(doc); !f.ids["regions"] {
		t.Error("the browser's DOM has no #regions")
	}
	if !strings.Contains(got.dom, "timeline of regions per rank") {
		t.Error("the browser's DOM has no timeline")
	}
	if os.Getenv("RB_REPORT_SHOT") != "" {
		if err := copyFile(got.shotPath, os.Getenv("RB_REPORT_SHOT")); err != nil {
			t.Log(err)
		}
	}
}
