package clocksync_test

import (
	"fmt"
	"math"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// trueMaxAbs runs alg on a simulated world of p ranks (seed 1) and returns
// the largest true error of any rank's global clock right after the
// synchronization, in seconds (TrueOffsets, read on rank 0, against the
// simulator's ground truth).
func trueMaxAbs(alg *clocksync.Algorithm, p int) (maxAbs float64, err error) {
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 1})
	if err != nil {
		return 0, err
	}
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.SyncWith(r.Comm(), g, clocksync.SyncOptions{Sleep: r.Sleep})
		if err != nil || r.ID() != 0 {
			return err
		}
		for _, e := range clocksync.TrueOffsets(res.Models(), r.Clock().Freq().Hz(), w.ClockAt, r.TrueNow()) {
			maxAbs = math.Max(maxAbs, math.Abs(e))
		}
		return nil
	})
	return maxAbs, err
}

// An Algorithm is a Topology driving a Learner; the parts combine freely.
// Here HCA2's bottom-up tree, which re-measures each link's intercept
// after learning it (HierarchicalIntercepts, with SKaMPI's ping-pong),
// drives a regression over JK's ping-pong exchanges, each link's RTT
// estimated with a trimmed mean of 20 ping-pongs; then a linear scheme
// (every rank against rank 0) with an offset-only learner over Netgauge's
// ping-pong, which learns no drift (slope 0).
func ExampleAlgorithm_composed() {
	var rtt clocksync.RTTEstimator = &clocksync.TrimmedRTT{Warmup: 5, PingPongs: 20}
	var jk clocksync.OffsetMeasurer = &clocksync.JKPingPong{Exchanges: 10, RTT: rtt}
	drift := &clocksync.Algorithm{
		Name: "tree+regression",
		Topology: &clocksync.BottomUpTree{
			Intercepts:      clocksync.HierarchicalIntercepts,
			InterceptOffset: &clocksync.SKaMPIPingPong{MinPingPongs: 10, MaxPingPongs: 50},
		},
		Learner: &clocksync.Regression{FitPoints: 50, Offset: jk},
	}
	offset := &clocksync.Algorithm{
		Name:     "linear+offset",
		Topology: &clocksync.Linear{},
		Learner:  &clocksync.OffsetOnly{Offset: &clocksync.NetgaugePingPong{Patience: 20, MaxPingPongs: 100}},
	}
	for _, alg := range []*clocksync.Algorithm{drift, offset} {
		maxAbs, err := trueMaxAbs(alg, 4)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: true max |error| %s\n", alg.Name, bucket(maxAbs))
	}
	// Output:
	// tree+regression: true max |error| < 1µs
	// linear+offset: true max |error| < 1µs
}

// A node-aware composition: TwoLevel synchronizes one leader per node
// with the Inter topology (here Linear, intercepts re-measured with
// SKaMPI's ping-pong) and each other rank of a node with its leader
// (Intra: SKaMPI offsets with OffsetOnly, or SharedClock's offsets for
// ranks that may read one counter). The other intercept modes of a
// bottom-up tree are FittedIntercepts (Netgauge) and RootIntercepts (HCA).
func ExampleTwoLevel() {
	skampi := &clocksync.SKaMPIPingPong{MinPingPongs: 10, MaxPingPongs: 50, RTT: clocksync.DefaultRTT}
	for _, intra := range []clocksync.Learner{&clocksync.OffsetOnly{Offset: skampi}, &clocksync.SharedClock{}} {
		alg := &clocksync.Algorithm{
			Name: "twolevel(linear)",
			Topology: &clocksync.TwoLevel{
				Inter: &clocksync.Linear{Intercept: skampi},
				Intra: intra,
			},
			Learner: &clocksync.Regression{FitPoints: 50, Offset: &clocksync.JKPingPong{Exchanges: 10}},
		}
		maxAbs, err := trueMaxAbs(alg, 4)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s, intra %T: true max |error| %s\n", alg.Name, intra, bucket(maxAbs))
	}
	for _, m := range []clocksync.InterceptMode{clocksync.FittedIntercepts, clocksync.HierarchicalIntercepts, clocksync.RootIntercepts} {
		fmt.Print(m, " ")
	}
	fmt.Println()
	// Output:
	// twolevel(linear), intra *clocksync.OffsetOnly: true max |error| < 1µs
	// twolevel(linear), intra *clocksync.SharedClock: true max |error| < 1µs
	// fitted hierarchical root
}

// star is a Topology of the example's own: every rank learns its model
// directly against rank 0, one link after the other, with the Env's
// Learner (LearnModel), and then re-measures its intercept with SKaMPI's
// ping-pong (ComputeAndSetIntercept). Both ranks of a link make the same
// Link and call the same functions in the same order.
type star struct{}

func (star) Sync(e *clocksync.Env) (clocksync.Outcome, error) {
	me := e.Comm.Rank()
	out := clocksync.Outcome{Models: []clocksync.Model{clocksync.Identity}}
	intercept := &clocksync.SKaMPIPingPong{MinPingPongs: 10, MaxPingPongs: 50}
	for client := 1; client < e.Comm.Size(); client++ {
		if me != 0 && me != client {
			continue
		}
		l := clocksync.Link{Comm: e.Comm, Ref: 0, Client: client, Now: e.Now, Sleep: e.Sleep}
		lm, st, err := clocksync.LearnModel(&l, e.Learner)
		if err != nil {
			return out, err
		}
		if lm, err = clocksync.ComputeAndSetIntercept(&l, lm, intercept, &st); err != nil {
			return out, err
		}
		if me == client {
			out = clocksync.Outcome{Models: []clocksync.Model{lm}, Fit: st, Bound: st.Bound, BoundAt: st.BoundAt}
		}
	}
	return out, nil
}

// A Topology of one's own plugs in beside the package's: star (above)
// with a regression learner.
func ExampleTopology() {
	var topo clocksync.Topology = star{}
	var learner clocksync.Learner = &clocksync.Regression{FitPoints: 50, Offset: &clocksync.JKPingPong{Exchanges: 10}}
	alg := &clocksync.Algorithm{Name: "star", Topology: topo, Learner: learner}
	maxAbs, err := trueMaxAbs(alg, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("star: true max |error| %s\n", bucket(maxAbs))
	// Output:
	// star: true max |error| < 1µs
}

// Chain applies models inner first: rank 3's clock to rank 1's, then rank
// 1's to rank 0's. LinearFit is the least-squares line the regression
// learner fits to its offsets.
func ExampleChain() {
	lm31 := clocksync.Model{Slope: -5e-6, Intercept: 0.25}
	lm10 := clocksync.Model{Slope: 20e-6, Intercept: 0.5}
	fmt.Println(clocksync.Chain(lm31, lm10) == clocksync.MergeLMs(lm10, lm31), clocksync.Chain() == clocksync.Identity)
	slope, intercept, rms := clocksync.LinearFit([]float64{0, 1, 2, 3}, []float64{1, 1.5, 2, 2.5})
	fmt.Println(slope, intercept, rms)
	// Output:
	// true true
	// 0.5 1 0
}

// The per-rank records of a synchronization (rank 0's Result.PerRank)
// summarized over the ranks (Summarize), and judged: DeschedulingRule says
// whether ranks lost their CPU for so long that the statistical bound
// cannot be kept (nil: keep it), CausalBound is the worst-case bound that
// holds however the exchanges were delayed. Rank 0, the reference, learns
// from no fit points.
func ExampleSummarize() {
	sp, _ := clocksync.ParseSpec("hca3:accuracy=none,fitpts=50,exchanges=10")
	alg, _ := sp.New()
	w, _ := mpitest.New(mpitest.Config{Ranks: 8, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.SyncWith(r.Comm(), g, clocksync.SyncOptions{Sleep: r.Sleep})
		if err != nil || r.ID() != 0 {
			return err
		}
		var s *clocksync.RankSummary = clocksync.Summarize(res.PerRank)
		var pts clocksync.RankQuantiles = s.Points
		fmt.Println("ranks", s.Ranks, "fit points per rank: min", pts.Min, "max", pts.Max)
		fmt.Println("descheduled:", clocksync.DeschedulingRule(res.PerRank) != nil)
		cb := clocksync.CausalBound(res.PerRank)
		fmt.Println("worst-case bound known:", !cb.Unknown)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ranks 8 fit points per rank: min 0 max 50
	// descheduled: false
	// worst-case bound known: true
}

// TrueOffset is one rank's element of TrueOffsets; both compare the
// learned models with the simulator's ground truth (World.ClockAt). A
// CPUWaiter is a communicator that can tell how long its rank waited for
// a CPU: mpitest's are.
func ExampleTrueOffset() {
	sp, _ := clocksync.ParseSpec("skampi")
	alg, _ := sp.New()
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	_ = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.Sync(r.Comm(), g)
		if err != nil || r.ID() != 0 {
			return err
		}
		_, waits := r.Comm().(clocksync.CPUWaiter)
		t := r.TrueNow()
		e := clocksync.TrueOffset(res.Models(), r.Clock().Freq().Hz(), w.ClockAt, 1, t)
		fmt.Println("CPUWaiter:", waits, "rank 1's true error:", bucket(math.Abs(e)))
		return nil
	})
	// Output:
	// CPUWaiter: true rank 1's true error: < 1µs
}

// ParseSpec takes options: DefaultTarget sets the accuracy target that
// "hca3" (no accuracy parameter) aims at.
func ExampleParseOption() {
	acc, _ := clocksync.ParseAccuracy("10us@10s")
	opts := []clocksync.ParseOption{clocksync.DefaultTarget(acc)}
	s, err := clocksync.ParseSpec("hca3", opts...)
	fmt.Println(s.Accuracy, err)
	// Output:
	// 10µs@10s <nil>
}
