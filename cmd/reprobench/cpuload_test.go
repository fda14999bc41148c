package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// writeLoaded runs two mpiruns of two experiments on a simulated world of
// 2 ranks into dir, each rank reading a fake /proc: per reading the wall
// time advances 1 s, each of 2 CPUs busyTicks and each rank's own time 50
// ticks (Hz 100), so that other processes took (2·busyTicks − 100)/200 of
// the CPU time, and returns the raw files. An mpirun's record spans its
// first reading to its fourth (two experiments): 3 s on 2 CPUs.
func writeLoaded(t *testing.T, dir string, busyTicks int64) []string {
	t.Helper()
	var files []string
	for mp := range 2 {
		w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: uint64(7 + mp)})
		if err != nil {
			t.Fatal(err)
		}
		reads := make([]int64, 2)
		err = w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			me := c.Rank()
			opt := reprobench.Options{Dir: dir, RunID: "load", Mpirun: mp, Seed: new(uint64(3)), CPULoad: func() (cpuload.Sample, error) {
				k := reads[me]
				reads[me]++
				return cpuload.Sample{At: time.Unix(k, 0), Kernel: "boot", Hz: 100, Process: fmt.Sprint("rank", me), CPUs: []int{0, 1},
					Busy: []int64{busyTicks * k, busyTicks * k}, Own: 50 * k}, nil
			}}
			exps := []reprobench.Experiment{
				{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 30, Sync: window.Config{Method: window.Barrier}},
				{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 64, Type: mpi.Byte, Nrep: 30, Sync: window.Config{Method: window.Barrier}},
			}
			opt.Clock = r.Clock()
			res, err := reprobench.Run(c, exps, opt)
			if err == nil && me == 0 {
				files = append(files, res.Files.CSV)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// analyze and report say that the machine was busy when the sidecars'
// cpu_load exceeds analysis.BusyShare (busy ticks 100 per CPU: share 0.5)
// and that it was quiet when not (55 per CPU: share 0.05).
func TestBusyMachineNote(t *testing.T) {
	for _, tc := range []struct {
		busy  int64
		share string
		want  string
		not   string
	}{
		{100, "50.0%", "the machine was busy during 2 of 2 mpiruns", "the machine was quiet"},
		{55, "5.0%", "the machine was quiet in 2 of 2 mpiruns", "the machine was busy"},
	} {
		t.Run(fmt.Sprint(tc.busy), func(t *testing.T) {
			dir := t.TempDir()
			files := writeLoaded(t, dir, tc.busy)
			var so, se bytes.Buffer
			if err := run(&so, &se, append([]string{"analyze"}, files...)); err != nil {
				t.Fatalf("analyze: %v\n%s", err, se.String())
			}
			out := so.String()
			i := strings.Index(out, "CPU time taken by other processes")
			if i < 0 {
				t.Fatalf("analyze prints no CPU load:\n%s", out)
			}
			sec := out[i:]
			if !strings.Contains(sec, tc.want) || !strings.Contains(sec, "6 s        "+tc.share) {
				t.Errorf("analyze lacks %q or the per-mpirun share %s:\n%s", tc.want, tc.share, sec)
			}
			if strings.Contains(strings.SplitN(sec, "other CPU: ", 2)[0], tc.not) {
				t.Errorf("analyze says %q:\n%s", tc.not, sec)
			}
			if tc.busy == 100 && !strings.Contains(sec, "the load explains 2 of 2 groups") {
				t.Errorf("analyze does not say which groups the load explains:\n%s", sec)
			}
			html := filepath.Join(dir, "r.html")
			if err := run(&so, &se, append([]string{"report", "-o", html}, files...)); err != nil {
				t.Fatalf("report: %v\n%s", err, se.String())
			}
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			p := string(page)
			if !strings.Contains(p, "CPU taken by other processes") || !strings.Contains(p, upperFirst(tc.want)) {
				t.Errorf("report lacks the machine row or the finding %q", upperFirst(tc.want))
			}
			if tc.busy == 100 && !strings.Contains(p, "busy machine") {
				t.Errorf("report's headline marks no group busy")
			}
			if tc.busy != 100 && strings.Contains(p, "The machine was busy") {
				t.Errorf("report calls a quiet machine busy")
			}
		})
	}
}

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
