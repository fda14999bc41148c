package report_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/report"
	"github.com/reprobench/reprobench/tune"
)

func TestTuningSection(t *testing.T) {
	var s []tune.Sample
	for i := range 8 {
		j := 1 + 0.01*float64(i)
		k := 1 + 0.01*float64((i+3)%8)
		s = append(s,
			tune.Sample{Call: "MPI_Allreduce", Bytes: 8, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(2e-6 * j)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 8, Np: 2, Candidate: "ring", Mpirun: 2*i + 1, Median: sec(2e-6 * k)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 1 << 20, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(270e-6 * j)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 1 << 20, Np: 2, Candidate: "ring", Mpirun: 2*i + 1, Median: sec(190e-6 * k)},
			tune.Sample{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(1e-6 * j)},
			tune.Sample{Call: "MPI_Bcast", Bytes: 8, Np: 2, Candidate: "binomial", Mpirun: 2*i + 1, Median: sec(1e-6 * k)},
		)
	}
	ds, err := tune.Decide(s, tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gate := &analysis.GateReport{Verdict: analysis.NoRegression, Threshold: 0.05, Alpha: 0.05, Rows: []analysis.GateRow{
		{Key: analysis.GroupKey{Call: "MPI_Allreduce", MsizeBytes: 1 << 20, Np: 2}, Decision: analysis.NoRegression},
	}}
	sec := report.NewTuningSection(ds, gate)
	if len(sec.Calls) != 2 || sec.Calls[0].Call != "MPI_Allreduce" || len(sec.Calls[0].Rows) != 2 {
		t.Fatalf("section %+v", sec)
	}
	big := sec.Calls[0].Rows[1]
	if big.Bytes != 1<<20 || big.Decision != "ring (replaced)" || !strings.HasSuffix(big.Ratios[0], "*") || big.Confirmed != "no-regression" {
		t.Errorf("1 MiB row %+v", big)
	}
	small := sec.Calls[0].Rows[0]
	if small.Decision != "default (kept)" || strings.HasSuffix(small.Ratios[0], "*") || small.Confirmed != "" {
		t.Errorf("8 B row %+v", small)
	}
	var b strings.Builder
	if err := sec.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, want := range []string{"MPI_Bcast", "binomial", "ring (replaced)", "Confirmation: no regression", "0.704 ["} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	h, err := sec.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "<h3>MPI_Allreduce</h3>") || !strings.Contains(string(h), "<td>no-regression</td>") {
		t.Errorf("HTML %s", h)
	}
}

// sec converts float seconds to the nearest nanosecond.
func sec(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
