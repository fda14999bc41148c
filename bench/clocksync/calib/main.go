// Command calib calibrates the predicted error bound of clocksync's Spread
// learner against the true error of real ranks.
//
// collect, under mpirun with 2 ranks of one kernel (one host, or two nodes
// of internal/vcluster), synchronizes with HCA3's tree and a Spread learner
// whose target is never met, so every link learns for its whole budget, and
// records the client's fit points (Spread.Record) with the true offset of
// the two raw clocks: both ranks read the host's one CLOCK_MONOTONIC
// (time-namespace offsets and node skews are known exactly, as in
// clocksync.Harness.ShareHostClock), so the offset of every fit point, and
// the error of any line fitted through a prefix of them, is known exactly.
// Rank 1 writes one JSON record per synchronization to -out.
//
//	mpirun -np 2 calib collect -out DIR [-syncs 2] [-budget 1s] [-tag openmpi]
//
// replay reads the records and replays the learner offline: for each record
// it refits every prefix the learner could have stopped at (Spread.Fit: the
// RTT filter, the trimmed least squares, the bound), applies a stopping rule
// to a target, and compares the true error right after the stop and h
// seconds later with candidate bounds. It prints, per candidate, how many
// records the bound covered (right after the stop, h later, both; and the
// learned slope's error within the bound's slope part), how many were
// within the target's error in truth and met it by the bound, and how long
// the learning took.
//
//	calib replay [-target 1us@10s] [-budget 1s] DIR/*.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// record is one link's learning: its fit points and the truth.
type record struct {
	Tag    string  `json:"tag"`
	Load   string  `json:"load"`
	Budget float64 `json:"budget_s"`
	// Points are [local s, offset s, rtt s] on the client's raw clock.
	Points [][3]float64 `json:"points"`
	// The true offset of the client's raw clock to the reference's at
	// client time x is TruthA + TruthB·x (seconds).
	TruthA    float64 `json:"truth_a_s"`
	TruthB    float64 `json:"truth_b"`
	ClockRead float64 `json:"clock_read_s"`
	// SyncEnd is the client's raw time when Sync returned.
	SyncEnd float64 `json:"sync_end_s"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: calib collect|replay [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "collect":
		err = collect(os.Args[2:])
	case "replay":
		err = replay(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q (collect or replay)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calib:", err)
		os.Exit(1)
	}
}

func collect(args []string) (err error) {
	fs := flag.NewFlagSet("collect", flag.ExitOnError)
	out := fs.String("out", "calib-out", "output directory")
	syncs := fs.Int("syncs", 2, "synchronizations per mpirun")
	budget := fs.Duration("budget", time.Second, "the learner's budget")
	tag := fs.String("tag", "", "tag of the records (e.g. the library)")
	_ = fs.Parse(args)
	if err := mpi.Init(); err != nil {
		return err
	}
	defer func() {
		if ferr := mpi.Finalize(); err == nil {
			err = ferr
		}
	}()
	c := mpi.World()
	if c.Size() != 2 {
		return fmt.Errorf("run with 2 ranks, not %d", c.Size())
	}
	mono := timing.NewMonotonic()
	clk, skew, err := clocksync.NodeSkew(mono)
	if err != nil {
		return err
	}
	off, err := clocksync.TimeNamespaceOffset()
	if err != nil {
		return err
	}
	// The host's CLOCK_MONOTONIC at this process's zero, and its skew.
	epoch := mono.Source().Epoch - off.Nanoseconds()
	ppm := 0.0
	if skew != nil {
		ppm = skew.DriftPPM
	}
	var ref [2]float64
	if c.Rank() == 0 {
		ref = [2]float64{float64(epoch), ppm}
	}
	if err := mpi.Bcast(c, ref[:], 0); err != nil {
		return err
	}
	// truth(x): client raw x (s) minus the reference's raw reading at the
	// same host time.
	truth := func(x float64) float64 {
		base := x * 1e9
		if skew != nil {
			base /= 1 + ppm*1e-6
		}
		host := base + float64(epoch)
		r := (host - ref[0]) * (1 + ref[1]*1e-6)
		return x - r*1e-9
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for k := range *syncs {
		var pts []clocksync.Sample
		// A 1 ns target is below a clock read: never met, so every
		// record learns for the whole budget.
		sp := &clocksync.Spread{Target: clocksync.Accuracy{Error: time.Nanosecond, Horizon: 10 * time.Second}, Budget: *budget,
			Record: func(p []clocksync.Sample) { pts = slices.Clone(p) }}
		alg := &clocksync.Algorithm{Name: "calib", Topology: &clocksync.TopDownTree{}, Learner: sp}
		g := clocksync.NewGlobalClock(clk)
		res, err := alg.Sync(c, g)
		if err != nil {
			return err
		}
		end := clk.Freq().Seconds(clk.Now())
		if c.Rank() != 1 {
			continue
		}
		load, _ := os.ReadFile("/proc/loadavg")
		r := record{Tag: *tag, Load: strings.Join(strings.Fields(string(load))[:3], " "), Budget: budget.Seconds(),
			ClockRead: res.Fit.ClockRead, SyncEnd: end}
		r.TruthA = truth(0)
		r.TruthB = truth(1000) - truth(0)
		r.TruthB /= 1000
		for _, p := range pts {
			r.Points = append(r.Points, [3]float64{p.Local, p.Offset, p.RTT})
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		name := filepath.Join(*out, fmt.Sprintf("%s-%d-%d-%d.json", *tag, time.Now().UnixNano(), os.Getpid(), k))
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// candidate is a bound and stopping rule to replay.
type candidate struct {
	name string
	// wander is the systematic slope term's numerator (s): the bound's
	// slope part gains wander/span; wanderRTT adds that share of the
	// smallest RTT to it.
	wander, wanderRTT float64
	// library: the library's own term (clocksync.SlopeWanderTerm), not
	// wander and wanderRTT.
	library bool
	// asym is the share of the smallest RTT in the bound at sync, asymNs
	// a constant added to it (s).
	asym, asymNs float64
	// minSpan: the learner may not stop before its fit spans this long.
	minSpan float64
}

type outcome struct {
	stopN          int
	slopeOK        bool    // the slope part of the bound covers the slope's error
	slopeRatio     float64 // the slope's error over the slope part of the bound
	span, t        float64
	e0, eh, b0, bh float64
	met, budgetOut bool
}

func replay(args []string) error {
	fs := flag.NewFlagSet("replay", flag.ExitOnError)
	targetText := fs.String("target", "1us@10s", "the accuracy target of the stopping rule")
	budgetD := fs.Duration("budget", 0, "replay only this much of each record's learning (0: all of it)")
	verbose := fs.Bool("v", false, "print every record's outcome for each candidate")
	only := fs.String("only", "", "replay only the candidates whose name contains this")
	_ = fs.Parse(args)
	target, err := clocksync.ParseAccuracy(*targetText)
	if err != nil {
		return err
	}
	var recs []record
	var names []string
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r record
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		if len(r.Points) < 48 {
			continue
		}
		recs = append(recs, r)
		names = append(names, filepath.Base(f))
	}
	if len(recs) == 0 {
		return fmt.Errorf("no records")
	}
	cands := []candidate{{name: "no wander", asym: 0.05},
		{name: fmt.Sprintf("library (max of %.3gns, %g%% rtt)", clocksync.SlopeWander*1e9, clocksync.SlopeWanderRTT*100), library: true, asym: 0.05}}
	for _, w := range []float64{5e-9, 10e-9, 15e-9, 20e-9, 25e-9, 30e-9, 40e-9, 50e-9} {
		cands = append(cands, candidate{name: fmt.Sprintf("wander %.3gns", w*1e9), wander: w, asym: 0.05})
	}
	for _, w := range []float64{0.01, 0.02, 0.05} {
		cands = append(cands, candidate{name: fmt.Sprintf("wander %g%% rtt", w*100), wanderRTT: w, asym: 0.05})
	}
	for _, w := range [][2]float64{{10e-9, 0.01}, {20e-9, 0.01}, {40e-9, 0.005}, {40e-9, 0.01}, {40e-9, 0.02}, {40e-9, 0.03}} {
		cands = append(cands, candidate{name: fmt.Sprintf("wander %gns+%g%% rtt", w[0]*1e9, w[1]*100), wander: w[0], wanderRTT: w[1], asym: 0.05})
	}
	for _, a := range []float64{0.1, 0.15} {
		cands = append(cands, candidate{name: fmt.Sprintf("asym %g%% + wander 10ns", a*100), wander: 10e-9, asym: a})
	}
	for _, a := range [][2]float64{{0, 0.02}, {20e-9, 0.01}, {30e-9, 0.01}, {30e-9, 0.02}, {50e-9, 0.01}} {
		cands = append(cands, candidate{name: fmt.Sprintf("asym %gns+%g%% w%.3gns", a[0]*1e9, a[1]*100, clocksync.SlopeWander*1e9),
			wander: clocksync.SlopeWander, asym: a[1], asymNs: a[0]})
	}
	for _, s := range []float64{0.3, 0.5, 0.85} {
		cands = append(cands, candidate{name: fmt.Sprintf("min span %gs", s), asym: 0.05, minSpan: s})
	}
	sp := &clocksync.Spread{Target: target}
	h := target.Horizon.Seconds()
	fmt.Printf("%d records; target %v; bound judged right after the last fit point and %gs later\n", len(recs), target, h)
	fmt.Printf("%-28s %5s %5s %5s %5s %6s %6s %6s %8s %8s %8s %6s %6s\n", "candidate", "cov0", "covh", "both", "slope", "≤err", "met", "t med", "t max", "|e_h| max", "b_h med", "s/b 95", "s/b max")
	for _, cd := range cands {
		if *only != "" && !strings.Contains(cd.name, *only) {
			continue
		}
		var cov0, covh, both, within, met, slope int
		var ts, ehs, bhs, srs []float64
		for i, r := range recs {
			o := replayOne(sp, r, cd, target, budgetD.Seconds())
			if o.e0 <= o.b0 {
				cov0++
			}
			if o.eh <= o.bh {
				covh++
			}
			if o.e0 <= o.b0 && o.eh <= o.bh {
				both++
			}
			if o.eh <= target.Error.Seconds() {
				within++
			}
			if o.met {
				met++
			}
			if o.slopeOK {
				slope++
			}
			ts, ehs, bhs, srs = append(ts, o.t), append(ehs, o.eh), append(bhs, o.bh), append(srs, o.slopeRatio)
			if *verbose {
				fmt.Printf("  %-50s %s n %4d span %.3f e0 %6.1f b0 %6.1f eh %7.1f bh %7.1f ns%s\n", names[i], r.Tag, o.stopN, o.span,
					o.e0*1e9, o.b0*1e9, o.eh*1e9, o.bh*1e9, map[bool]string{true: "", false: "  MISS"}[o.e0 <= o.b0 && o.eh <= o.bh])
			}
		}
		n := len(recs)
		fmt.Printf("%-28s %5s %5s %5s %5s %5s %6s %6.3f %8.3f %8.1f %8.1f %6.2f %6.2f\n", cd.name, frac(cov0, n), frac(covh, n), frac(both, n),
			frac(slope, n), frac(within, n), frac(met, n), median(ts), slices.Max(ts), slices.Max(ehs)*1e9, median(bhs)*1e9,
			quantile(srs, 0.95), slices.Max(srs))
	}
	return nil
}

func frac(k, n int) string { return fmt.Sprintf("%d/%d", k, n) }

// quantile returns the q-quantile of v, the order statistic at ⌈q·n⌉.
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	return s[len(s)/2]
}

// replayOne replays the learner on r's points with candidate cd: every 16
// points from the 48th, the bound at the horizon decides whether to stop.
func replayOne(sp *clocksync.Spread, r record, cd candidate, target clocksync.Accuracy, budget float64) outcome {
	pts := make([]clocksync.Sample, len(r.Points))
	for i, p := range r.Points {
		pts[i] = clocksync.Sample{Local: p[0], Offset: p[1], RTT: p[2]}
	}
	start := pts[0].Local
	bound := func(n int) (clocksync.Model, clocksync.Bound, clocksync.FitStats) {
		m, st := sp.Fit(pts[:n])
		b := st.Bound
		if b.Unknown {
			return m, b, st
		}
		b.AtSync += (cd.asym-0.05)*st.MinRTT + cd.asymNs + r.ClockRead
		if st.Span > 0 {
			// The candidate's systematic term instead of the library's.
			if !cd.library {
				b.Slope += (cd.wander + cd.wanderRTT*st.MinRTT - clocksync.SlopeWanderTerm(st.MinRTT)) / st.Span
			}
		}
		return m, b, st
	}
	last := len(pts)
	if budget > 0 {
		for last > 48 && pts[last-1].Local-start > budget*0.85 {
			last--
		}
	}
	o := outcome{stopN: last, budgetOut: true}
	for n := 48; n <= last; n += 16 {
		_, b, st := bound(n)
		if !b.Unknown && b.At(target.Horizon.Seconds()) <= target.Error.Seconds() && st.Span >= cd.minSpan {
			o.stopN, o.budgetOut, o.met = n, false, true
			break
		}
	}
	m, b, st := bound(o.stopN)
	x := pts[o.stopN-1].Local
	e := func(x float64) float64 { return math.Abs(r.TruthA + r.TruthB*x - (m.Slope*x + m.Intercept)) }
	o.span, o.t = st.Span, x-start
	o.slopeOK = !b.Unknown && math.Abs(m.Slope-r.TruthB) <= b.Slope
	o.slopeRatio = math.Inf(1)
	if !b.Unknown {
		o.slopeRatio = math.Abs(m.Slope-r.TruthB) / b.Slope
	}
	o.e0, o.eh = e(x), e(x+target.Horizon.Seconds())
	if b.Unknown {
		o.b0, o.bh = math.Inf(1), math.Inf(1)
	} else {
		o.b0, o.bh = b.At(0), b.At(target.Horizon.Seconds())
	}
	return o
}
