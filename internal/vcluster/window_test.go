package vcluster

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
)

// Bounds of checkWindows.
//
// A broken window cannot pass them. When the ranks of both nodes shared
// one core (Open MPI's binding before LauncherArgs passed --bind-to none),
// 1000 of 1000 observations were invalid, each as long as its window (a
// valid median would have been 132.7 µs against 65.7 µs under barrier
// synchronization); a window that waits for the peer's next MPI call, or
// starts the ranks apart by more than an operation's time (a failed clock
// sync), fails the same way: every observation expired, or a median of
// several barrier medians.
//
// They do not fail by chance. Over the 40 checks of 20 runs of make
// vcluster on a quiet machine (2 per run, one per library, 2 × 1 nodes,
// 1000 observations, node 1 skewed; two sets of 10 runs) the invalid share was 0.8-38.2 % (mean 4.8 %, standard
// deviation 6.8 %: stalls of the machine of a few ms invalidate whole
// batches in a row, in the pure-C loop as well), and the ratio 0.64-2.25
// (mean 1.14, sd 0.28). The ratio's tail comes from the machine's states:
// the barrier experiment runs first and the window one after it, and in the
// 2.25 the barrier median was the second lowest of the 40 (7.55 µs; all:
// 7.41-14.99 µs) and the window's the second highest (16.97 µs; all:
// 6.99-19.04 µs): the machine changed state between them. By
// Cantelli's inequality, whatever the distribution, a check lies k standard
// deviations above the mean with probability at most 1/(1+k²): the bounds
// sit 6.7 and 10.3 standard deviations above, so a library fails the share
// check by chance in at most 2.2 % of runs and the ratio check in at most
// 0.9 %; the largest of the 40 were 38.2 % and 2.25. A window whose observations stretch to four barrier medians
// or more still fails it, and one that never meets its start fails the
// share.
//
// They need the machine to themselves, as make test's -p 1 gives them on a
// runner of its own: two busy-waiting ranks on a 2-core machine leave no
// room for a third CPU-bound task. With one spinning beside them (bench/
// window/vcluster.sh, 3 runs each way) every window failed in
// the pure-C reference as in the engine: Open MPI 99.2-100 % invalid, MPICH
// 45-100 %, with each node on a CPU of its own or not. Beside other
// helpers' builds and tests (load 3.3-7.5) this test failed 3 of 6 times.
//
// So the test measures whether it has the machine: mpirun.BusyCPUs samples
// /proc/stat for probeTime right before and right after the mpirun, while
// the test itself only waits. When other processes kept more than
// maxOtherCPU of a CPU busy in either probe, the window bounds are not
// applied (the subtest "windows" is skipped and says why; everything else,
// the sidecar's record of the wait included, is still asserted). On a
// quiet machine the probes read 0.00–0.05 CPUs (make vcluster);
// with `nice -n 19 sh -c 'while :; do :; done'` beside it, 0.97–1.00.
const (
	maxInvalidShare = 0.5 // of the windowed observations late or expired
	maxMedianRatio  = 4.0 // valid windowed median over the barrier median
	windowBatch     = 100 // observations per broadcast start (window.Config's default), for the log
	maxOtherCPU     = 0.5 // CPUs kept busy by other processes, above which the bounds do not apply
	probeTime       = 300 * time.Millisecond
)

// checkWindows reads the raw data and sidecar of a "run --proc-sync
// barrier,window" of n observations each and asserts that the windows work
// across the nodes: at most maxInvalidShare of the windowed observations
// late or expired, and their valid median at most maxMedianRatio times the
// barrier-synchronized median of the same mpirun. It also checks that the
// sidecar records the wait. others is the largest mpirun.BusyCPUs probe around the
// run: above maxOtherCPU the bounds are not applied, and the subtest
// "windows" that holds them is skipped with the reason.
func checkWindows(t *testing.T, rawPath, sidePath string, n int, others float64) {
	t.Helper()
	fh, err := os.Open(rawPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*n+1 {
		t.Fatalf("%d rows, want %d (barrier and window)", len(recs)-1, 2*n)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"procsync", "errorcode", "runtime_s"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("no %s column in %v", h, recs[0])
		}
	}
	valid := map[string][]float64{}
	invalid := map[string]int{}
	var batches []int // invalid windowed observations per batch of windowBatch
	for _, r := range recs[1:] {
		m := r[col["procsync"]]
		if m == "window" && (invalid[m]+len(valid[m]))%windowBatch == 0 {
			batches = append(batches, 0)
		}
		if r[col["errorcode"]] != "0" {
			invalid[m]++
			if m == "window" {
				batches[len(batches)-1]++
			}
			continue
		}
		v, err := strconv.ParseFloat(r[col["runtime_s"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		valid[m] = append(valid[m], v)
	}
	if invalid["barrier"] != 0 || len(valid["barrier"]) != n {
		t.Fatalf("barrier: %d valid, %d invalid rows, want %d valid", len(valid["barrier"]), invalid["barrier"], n)
	}
	share := float64(invalid["window"]) / float64(n)
	bar, win := analysis.Median(valid["barrier"]), analysis.Median(valid["window"])
	ratio := win / bar
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("window: %d of %d observations late or expired, per batch of %d %v; valid median %.2f µs, barrier median %.2f µs: ratio %.2f (load %s)",
		invalid["window"], n, windowBatch, batches, 1e6*win, 1e6*bar, ratio, load[:len(load)-1])
	t.Run("windows", func(t *testing.T) {
		if others > maxOtherCPU {
			t.Skipf("other processes kept %.2f CPUs busy around the run (more than %.1f): windows need a free core per rank, "+
				"and the pure-C reference fails them too then (see maxInvalidShare)", others, maxOtherCPU)
		}
		if share > maxInvalidShare {
			t.Errorf("window: %.1f %% of the observations late or expired, want at most %.0f %%", 100*share, 100*maxInvalidShare)
		}
		if !(ratio <= maxMedianRatio) { // NaN: no valid observation
			t.Errorf("window: valid median %.2f µs is %.2f× the barrier median %.2f µs, want at most %.1f×", 1e6*win, ratio, 1e6*bar, maxMedianRatio)
		}
	})

	var meta struct {
		Experiments []struct {
			ProcSync string `json:"proc_sync"`
			Wait     struct {
				Deadline   string `json:"deadline"`
				GoMaxProcs int    `json:"gomaxprocs"`
			} `json:"wait"`
		} `json:"experiments"`
	}
	b, err := os.ReadFile(sidePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	for _, e := range meta.Experiments {
		want := ""
		if e.ProcSync == "window" {
			want = "spin"
		}
		if e.Wait.Deadline != want || e.Wait.GoMaxProcs != 1 {
			t.Errorf("%s: sidecar records the wait as %+v, want deadline %q and gomaxprocs 1", e.ProcSync, e.Wait, want)
		}
	}
}
