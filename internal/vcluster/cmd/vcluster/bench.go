package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reprobench/reprobench/internal/vcluster"
)

// benchRow is one clockcheck on the virtual cluster, as written to -out.
type benchRow struct {
	Run      int                        `json:"run"`
	Seed     uint64                     `json:"seed"`
	Flavor   string                     `json:"flavor"`
	Layout   string                     `json:"layout"`
	Alg      string                     `json:"alg"`
	Load     string                     `json:"loadavg"`
	Nodes    []vcluster.Node            `json:"nodes"`
	Report   *vcluster.ClockcheckReport `json:"report,omitempty"`
	Error    string                     `json:"error,omitempty"`
	WallTime float64                    `json:"wall_s"`
}

// bench runs clockcheck for every algorithm × layout × flavor, -runs times
// (a new cluster with seed = run number each time: new offsets and skews),
// writes every result to -out (JSON lines) and prints the table: true max
// |error| after sync and at the last check, sync time, and how many runs met
// the targets (≤ 2 µs after sync, ≤ 5 µs at the last check).
func bench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	runs := fs.Int("runs", 10, "repetitions (seeds 1..runs)")
	after := fs.String("after", "0,10s", "clockcheck --after")
	algs := fs.String("algs", "hca3,jk,twolevel,skampi", "algorithms (clockcheck --alg specs, comma-separated; semicolon-separated when a spec has keys)")
	layouts := fs.String("layouts", "2x1,2x2,4x1", "nodes×ranks per node")
	flavors := fs.String("flavors", "openmpi,mpich", "MPI libraries")
	binO := fs.String("bin-openmpi", "", "reprobench built for Open MPI")
	binM := fs.String("bin-mpich", "", "reprobench built with -tags mpich")
	maxOff := fs.Duration("max-offset", 1000*time.Second, "node offsets uniform in ±this")
	skew := fs.Float64("skew-ppm", 100, "node drifts uniform in ±this, ppm")
	timeout := fs.Duration("timeout", 5*time.Minute, "per clockcheck")
	out := fs.String("out", "vcluster-bench.jsonl", "raw results, one JSON object a line")
	_ = fs.Parse(args)
	bins := map[string]string{"openmpi": *binO, "mpich": *binM}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	var rows []benchRow
	// Ctrl-C or SIGTERM: remove the current cluster before exiting.
	var mu sync.Mutex
	var cur *vcluster.Cluster
	stopping := false
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		mu.Lock()
		stopping = true
		c := cur
		mu.Unlock()
		if c != nil {
			_ = c.Close()
		}
		fmt.Fprintf(os.Stderr, "vcluster bench: %v: stopped, cluster removed\n", s)
		os.Exit(130)
	}()
	// halt parks the main goroutine once a signal arrived: the handler
	// removes the cluster and exits.
	halt := func() {
		mu.Lock()
		s := stopping
		mu.Unlock()
		if s {
			select {}
		}
	}
	for run := 1; run <= *runs; run++ {
		c, err := vcluster.New(vcluster.Config{Nodes: 4, Seed: uint64(run), MaxOffset: *maxOff, MaxSkewPPM: *skew})
		if err != nil {
			return err
		}
		mu.Lock()
		cur = c
		mu.Unlock()
		for _, fl := range strings.Split(*flavors, ",") {
			if bins[fl] == "" {
				c.Close()
				return fmt.Errorf("vcluster bench: no -bin-%s", fl)
			}
			for _, lay := range strings.Split(*layouts, ",") {
				var n, k int
				if _, err := fmt.Sscanf(lay, "%dx%d", &n, &k); err != nil {
					c.Close()
					return fmt.Errorf("vcluster bench: layout %q: want NxK", lay)
				}
				for _, alg := range splitAlgs(*algs) {
					load, _ := os.ReadFile("/proc/loadavg")
					row := benchRow{Run: run, Seed: uint64(run), Flavor: fl, Layout: lay, Alg: alg, Load: strings.TrimSpace(string(load)), Nodes: c.Nodes}
					ctx, cancel := context.WithTimeout(context.Background(), *timeout)
					t0 := time.Now()
					row.Report, err = c.Clockcheck(ctx, fl, n, k, bins[fl], alg, *after)
					cancel()
					halt()
					row.WallTime = time.Since(t0).Seconds()
					if err != nil {
						row.Error = err.Error()
					}
					fmt.Fprintf(os.Stderr, "run %d %s %s %s: %s\n", run, fl, lay, alg, summary(row))
					rows = append(rows, row)
					if err := enc.Encode(row); err != nil {
						c.Close()
						return err
					}
				}
			}
		}
		halt()
		if err := c.Close(); err != nil {
			return err
		}
	}
	printTable(rows)
	return nil
}

func summary(r benchRow) string {
	if r.Report == nil {
		return "failed: " + strings.SplitN(r.Error, "\n", 2)[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sync %.2fs", r.Report.SyncDuration)
	for _, ck := range r.Report.Checks {
		if ck.TrueMaxAbs != nil {
			fmt.Fprintf(&b, ", true max |error| after %gs %.3f µs", ck.After, *ck.TrueMaxAbs*1e6)
		}
	}
	return b.String()
}

// printTable prints one line per algorithm × layout × flavor: median and
// range over the runs.
func printTable(rows []benchRow) {
	type key struct{ alg, lay, fl string }
	var keys []key
	groups := map[key][]benchRow{}
	for _, r := range rows {
		k := key{r.Alg, r.Layout, r.Flavor}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	fmt.Printf("%-10s %-6s %-8s %4s  %-30s %-30s %-22s %s\n", "alg", "layout", "library", "runs",
		"true max |error| after sync, µs", "true max |error| at last, µs", "sync time, s", "met ≤2µs / ≤5µs")
	driftAware, allMet := 0, 0
	for _, k := range keys {
		var e0, e1, st []float64
		failed, met0, met1 := 0, 0, 0
		for _, r := range groups[k] {
			if r.Report == nil || len(r.Report.Checks) == 0 || r.Report.Checks[0].TrueMaxAbs == nil {
				failed++
				continue
			}
			a := *r.Report.Checks[0].TrueMaxAbs * 1e6
			b := *r.Report.Checks[len(r.Report.Checks)-1].TrueMaxAbs * 1e6
			e0, e1, st = append(e0, a), append(e1, b), append(st, r.Report.SyncDuration)
			if a <= 2 {
				met0++
			}
			if b <= 5 {
				met1++
			}
		}
		n := len(e0)
		fmt.Printf("%-10s %-6s %-8s %4d  %-30s %-30s %-22s %d/%d, %d/%d", k.alg, k.lay, k.fl, n,
			medRange(e0, "%.3g"), medRange(e1, "%.3g"), medRange(st, "%.2f"), met0, n, met1, n)
		if failed > 0 {
			fmt.Printf("  (%d failed)", failed)
		}
		fmt.Println()
		if !strings.HasPrefix(k.alg, "skampi") { // SKaMPI learns no drift: no target
			driftAware++
			if n > 0 && failed == 0 && met0 == n && met1 == n {
				allMet++
			}
		}
	}
	fmt.Printf("drift-aware rows meeting both targets in every run: %d of %d (targets: true max |error| ≤ 2 µs after sync, ≤ 5 µs at the last check)\n", allMet, driftAware)
}

func medRange(x []float64, f string) string {
	if len(x) == 0 {
		return "-"
	}
	s := slices.Clone(x)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", m, s[0], s[len(s)-1])
}

// splitAlgs splits the -algs list: on semicolons when it has any (specs
// with keys hold commas), else on commas.
func splitAlgs(s string) []string {
	if strings.Contains(s, ";") {
		return strings.Split(s, ";")
	}
	return strings.Split(s, ",")
}
