package main

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
)

// TestMpirunImbalance runs the stencil under a real mpirun with 2 ranks,
// rank 1 sweeping twice per iteration (-heavy-rank 1: twice the work, a
// design load balance of 1.5/2 = 0.75), on every installed MPI library,
// and checks what holds under any load: the load balance of typical
// occurrences (per-rank median × count) is concluded, lies in its stated
// interval, and shows the extra work (below 0.95; 1 would mean the flag
// was ignored). Its distance from 0.75 is logged, not asserted: on a
// machine whose cores are busy the light rank's occurrences are
// descheduled too (0.746 to 0.750 in 9 runs at load 14 on 2 vCPUs, 0.802
// beside a busy-polling process pinned to one of the 2). The load balance
// of the totals is logged: descheduled time of a few occurrences is in
// the totals (0.59 to 0.83 in those 9 runs).
func TestMpirunImbalance(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			dir := t.TempDir()
			mpirun.MustRun(t, f, 2, 120*time.Second, nil, bin, "-cells", "8000", "-iters", "3000", "-heavy-rank", "1", "-out", dir)
			m, err := rawdata.ReadMetadata(filepath.Join(dir, "stencil-mpirun000.json"))
			if err != nil {
				t.Fatal(err)
			}
			opt := analysis.DefaultRegionOptions
			opt.Compute = []string{"compute"}
			a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "stencil"}, m, filepath.Join(dir, "stencil-mpirun000.ranks.csv"), opt)
			if err != nil {
				t.Fatal(err)
			}
			p := a.POP
			t.Logf("load balance %v, typical %v, communication efficiency %v, parallel efficiency %v; run %.4g s ± %.3g s",
				p.LoadBalance, p.TypicalLoadBalance, p.CommEfficiency, p.ParallelEfficiency, a.RunS, a.RunErrS)
			lb := p.TypicalLoadBalance
			if lb.TooWide || !(lb.Lo <= lb.Value && lb.Value <= lb.Hi) || !(lb.Value > 0 && lb.Value < 0.95) {
				t.Errorf("typical load balance %v: want a concluded value in its interval, below 0.95", lb)
			}
			t.Logf("typical load balance %.3f: %.3f from the design's 0.75", lb.Value, math.Abs(lb.Value-0.75))
		})
	}
}
