package rawdata_test

import (
	"os"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// TestOverlapColumns: a run with an experiment of the overlap measurement
// ends every row with the overlap columns (empty for the other
// experiments); analysis reads nbc_mode as a label and the four values as
// values, not labels; without such an experiment the format is unchanged.
func TestOverlapColumns(t *testing.T) {
	dir := t.TempDir()
	f := factor.Values{}.WithText(factor.ProcSync, "barrier").WithText(factor.RuntimeType, "osu").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "none")
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "ov", Labels: map[string]string{"lib": "x"},
		Experiments: []rawdata.Experiment{{Exp: 0, Factors: f, NBCMode: "overlap_test10"}, {Exp: 1, Factors: f}}})
	if err != nil {
		t.Fatal(err)
	}
	rows := []rawdata.Row{
		{Exp: 0, Call: "MPI_Iallreduce", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, Rep: 0, RuntimeS: 3e-6,
			PureS: 2e-6, ComputeS: 2.5e-6, TotalS: 3e-6, OverlapFrac: 0.75},
		{Exp: 0, Call: "MPI_Iallreduce", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, Rep: 1, RuntimeS: 4e-6,
			PureS: 2e-6, ComputeS: 2e-6, TotalS: 4e-6, OverlapFrac: 0},
		{Exp: 1, Call: "MPI_Iallreduce", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, Rep: 0, RuntimeS: 1e-6},
	}
	for i := range rows {
		if err := w.Row(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(&rawdata.Metadata{RunID: "ov"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Names().CSV)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := []string{
		"run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,window_s,runtime_type,cache,clocksync,skew,noise_guard,bw_window,rma_sync,lib,nbc_mode,pure_s,compute_s,total_s,overlap_frac",
		"ov,0,0,MPI_Iallreduce,8,1,float64,2,0,3e-06,0,barrier,0,osu,warm,none,,off,,,x,overlap_test10,2e-06,2.5e-06,3e-06,0.75",
		"ov,0,0,MPI_Iallreduce,8,1,float64,2,1,4e-06,0,barrier,0,osu,warm,none,,off,,,x,overlap_test10,2e-06,2e-06,4e-06,0",
		"ov,0,1,MPI_Iallreduce,8,1,float64,2,0,1e-06,0,barrier,0,osu,warm,none,,off,,,x,,,,,",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("file:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	d := analysis.NewDataset()
	fh, err := os.Open(w.Names().CSV)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := d.Read(fh, w.Names().CSV); err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 2 {
		t.Fatalf("%d groups, want the overlap rows apart from the latency row", len(d.Groups))
	}
	for _, g := range d.Groups {
		for _, c := range rawdata.OverlapValueColumns {
			if strings.Contains(g.Key.Labels, c) {
				t.Errorf("group %v: value column %s taken for a label", g.Key, c)
			}
		}
	}
	if err := rawdata.CheckLabelKey("pure_s"); err == nil {
		t.Error("label key pure_s accepted: it would collide with the overlap column")
	}
	// Without an overlap experiment: the old header.
	w2, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "plain", Experiments: []rawdata.Experiment{{Exp: 0, Factors: f}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(&rawdata.Metadata{RunID: "plain"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(w2.Names().CSV)
	if strings.Contains(string(b), "nbc_mode") {
		t.Errorf("plain run has the overlap columns: %s", b)
	}
}
