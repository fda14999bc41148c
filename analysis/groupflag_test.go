package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// skewCSVs returns a raw file and a per-rank file of one call and size
// whose experiments 0 and 1 differ only in their skew (1 and 4).
func skewCSVs() (raw, perRank string) {
	var b, r strings.Builder
	b.WriteString(strings.Join(slices.Concat(rawdata.Columns, rawdata.FactorColumns), ",") + "\n")
	r.WriteString(strings.Join(append(slices.Clone(rawdata.RankColumns), "skew"), ",") + "\n")
	for exp, skew := range []string{"1", "4"} {
		for rep := range 10 {
			cells := map[string]string{"run_id": "g", "mpirun": "0", "exp": fmt.Sprint(exp), "call": "MPI_Allgatherv",
				"msize_bytes": "64", "count": "8", "datatype": "float64", "np": "2", "rep": fmt.Sprint(rep),
				"runtime_s": fmt.Sprintf("%d.0e-06", 10+exp+rep%3), "errorcode": "0",
				"procsync": "barrier", "window_s": "0", "runtime_type": "local", "cache": "warm", "clocksync": "none",
				"skew": skew, "noise_guard": "off", "bw_window": "", "rma_sync": ""}
			var row []string
			for _, c := range slices.Concat(rawdata.Columns, rawdata.FactorColumns) {
				row = append(row, cells[c])
			}
			b.WriteString(strings.Join(row, ",") + "\n")
			for rank := range 2 {
				fmt.Fprintf(&r, "g,0,%d,MPI_Allgatherv,64,2,%d,%d,0.0,1.0e-05,0.0,1.0e-05,0,%s\n", exp, rep, rank, skew)
			}
		}
	}
	return b.String(), r.String()
}

// TestGroupFlag: a factor column enters the group key when its row's
// Group flag says so, and is read as a covariate when it does not (unless
// GroupBy names it), in raw and per-rank files alike. The table's rows
// all group; the test clears skew's flag in a copy of the table.
func TestGroupFlag(t *testing.T) {
	raw, perRank := skewCSVs()
	read := func(groupBy ...string) *Dataset {
		t.Helper()
		d := NewDataset()
		d.GroupBy = groupBy
		if err := d.Read(strings.NewReader(raw), "skew.csv"); err != nil {
			t.Fatal(err)
		}
		if err := d.Read(strings.NewReader(perRank), "skew.ranks.csv"); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := read(); len(d.Groups) != 2 || len(d.PerRank) != 2 || slices.Contains(d.Covariates, "skew") {
		t.Fatalf("skew groups: %d groups, %d per-rank groups, covariates %v; want 2, 2, no skew", len(d.Groups), len(d.PerRank), d.Covariates)
	}
	defer func(f func() []*factor.Factor) { factorTable = f }(factorTable)
	factorTable = func() []*factor.Factor {
		var out []*factor.Factor
		for _, f := range factor.Table() {
			c := *f
			c.Group = c.ID != factor.Skew
			out = append(out, &c)
		}
		return out
	}
	d := read()
	if len(d.Groups) != 1 || len(d.PerRank) != 1 || !slices.Contains(d.Covariates, "skew") {
		t.Fatalf("skew not grouping: %d groups, %d per-rank groups, covariates %v; want 1, 1, skew", len(d.Groups), len(d.PerRank), d.Covariates)
	}
	if strings.Contains(d.Groups[0].Key.Labels, "skew=") {
		t.Errorf("key %v holds the skew", d.Groups[0].Key)
	}
	if got := d.Groups[0].Covariates["skew"]; len(got) != 1 || got[0] != covariateMixed {
		t.Errorf("skew covariate per mpirun %v, want mixed in mpirun 0", got)
	}
	if d := read("skew"); len(d.Groups) != 2 || len(d.PerRank) != 2 {
		t.Errorf("GroupBy skew: %d groups, %d per-rank groups; want 2, 2", len(d.Groups), len(d.PerRank))
	}
	// What GroupBy may name (analyze --by checks against it): the
	// covariates, then the factor that does not group.
	if got, want := UngroupedColumns(), append(slices.Clone(rawdata.CovariateColumns), "skew"); !slices.Equal(got, want) {
		t.Errorf("UngroupedColumns %q, want %q", got, want)
	}
}
